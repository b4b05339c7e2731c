"""Commands to review scenarios and lexicons before anything runs."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from modelscape._spreadsheet import spreadsheet_safe
from modelscape.cli.files import check_output, write_output

if TYPE_CHECKING:  # imported as the commands run: their help needs none of it
    from modelscape.scenario import Scenario

__all__ = ["register"]


def scenario_of(reference: str) -> Scenario:
    """The scenario a command names; every command that takes one reads it here.

    A spec file, a Python file (``path/to/file.py`` or ``path/to/file.py:NAME``),
    ``python:module:NAME``, a shipped name or a registered one, as
    :func:`modelscape.specs.registry.find_scenario` reads them, so ``describe``, ``example``,
    ``prompts``, ``page`` and ``run`` accept the same references.
    """
    from modelscape.specs.registry import find_scenario

    return find_scenario(reference)


@click.command()
@click.argument("spec")
def describe(spec: str) -> None:
    """Check a scenario and print its cases, axes, variants and calls per target.

    SPEC is a YAML file, the name of a shipped spec (see `modelscape specs`), or
    python:module:NAME naming a Scenario, as `run` takes it.
    """
    scenario = scenario_of(spec)
    click.echo(scenario.describe())
    from modelscape.execution.config import MAX_CALLS

    if scenario.calls_per_target() > MAX_CALLS:
        click.echo(
            f"note       more than the {MAX_CALLS:,} calls `modelscape run` makes unless "
            "--max-calls allows more"
        )


@click.command()
@click.argument("spec")
def example(spec: str) -> None:
    """Print every variant of a scenario's first case with its correct answer and prompt.

    SPEC is a YAML file, the name of a shipped spec (see `modelscape specs`), or
    python:module:NAME naming a Scenario, as `run` takes it.
    """
    click.echo(scenario_of(spec).example())


@click.command()
@click.argument("spec")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["csv", "jsonl"]),
    default="csv",
    show_default=True,
    help="Table format.",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to a file."
)
def prompts(spec: str, output_format: str, output: str | None) -> None:
    """Write every prompt a scenario sends, one row per variant.

    SPEC is a YAML file, the name of a shipped spec (see `modelscape specs`), or
    python:module:NAME naming a Scenario, as `run` takes it. In CSV, a text cell that starts
    with =, +, -, @, a tab or a carriage return gets a leading ' so that a spreadsheet shows
    it instead of running it as a formula; jsonl is unchanged.
    """
    if output is not None:
        check_output(Path(output), "-o")
    rows = scenario_of(spec).prompt_rows()
    buffer = io.StringIO()
    if output_format == "jsonl":
        for row in rows:
            buffer.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        fields = list(dict.fromkeys(key for row in rows for key in row))
        writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
        writer.writerow({field: spreadsheet_safe(field) for field in fields})
        writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in rows)
    if output is None:
        click.echo(buffer.getvalue(), nl=False)
    else:
        write_output(Path(output), buffer.getvalue(), "-o")
        click.echo(f"wrote {len(rows)} prompts to {output}", err=True)


@click.command()
def specs() -> None:
    """List the scenarios there are names for, with their versions and where each comes from.

    Shipped specs come with modelscape; registered ones from installed packages (the
    modelscape.scenarios entry point group); local ones are the spec files in the current
    folder and in content/specs, named by their path. One that cannot be read is listed
    with its problem.
    """
    from modelscape.specs.registry import listed

    found = listed()
    name_width = max(len(item.name) for item in found)
    version_width = max(len(item.version or "?") for item in found)
    origins = [
        f"{item.source} {item.origin}" if item.source != "shipped" else "shipped" for item in found
    ]
    origin_width = max(len(origin) for origin in origins)
    for item, origin in zip(found, origins, strict=True):
        summary = item.summary if item.problem is None else f"cannot be read: {item.problem}"
        line = (
            f"{item.name:<{name_width}}  {item.version or '?':<{version_width}}  "
            f"{origin:<{origin_width}}  {summary}".rstrip()
        )
        click.echo(_printable(line))


def _printable(text: str) -> str:
    """``text`` with control characters escaped: names and summaries come from local files
    and installed packages, and an escape sequence in one would rewrite the terminal."""
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode()
        for c in text
    )


@click.command()
@click.argument("name", required=False)
def lexicons(name: str | None) -> None:
    """List the shipped lexicons, or show the entries of one."""
    from modelscape import lexicons as shipped

    if name is None:
        names = shipped.available()
        width = max(len(n) for n in names)
        for each in names:
            lexicon = shipped.get(each)
            props = ", ".join(lexicon.properties) or "no properties"
            click.echo(f"{each:<{width}}  {len(lexicon):>3} entries  ({props})")
        return
    lexicon = shipped.get(name)
    labels = [str(label) for label in lexicon.labels]
    width = min(max(len(label) for label in labels), 28)
    for entry, label in zip(lexicon, labels, strict=True):
        props = "  ".join(f"{k}={v}" for k, v in entry.properties.items())
        text = (
            entry.text
            if isinstance(entry.text, str)
            else json.dumps(entry.text, ensure_ascii=False)
        )
        shown = "(empty)" if text == "" else (text if len(text) <= 70 else text[:67] + "...")
        click.echo(f"{label:<{width}}  {props}  {shown}".rstrip())


def register(main: click.Group) -> None:
    """Add the review commands to the ``modelscape`` group."""
    for command in (describe, example, prompts, specs, lexicons):
        main.add_command(command)
