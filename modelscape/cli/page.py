"""The ``page`` command: a scenario or a report as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path

import click

from modelscape.cli.files import check_output, write_output

__all__ = ["register"]


def _is_report(source: str) -> bool:
    """Whether SOURCE names a report file (JSON) rather than a spec (YAML file or name)."""
    return Path(source).suffix.lower() == ".json"


@click.command()
@click.argument("source", metavar="SPEC|REPORT")
@click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False),
    help="The store of the report's run (a SQLite file, or a store URL such as "
    "sqlite:///path/runs.db); its outputs open from every number.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="The HTML file to write (default: SOURCE's name with .html, here).",
)
def page(source: str, store_path: str | None, output: Path | None) -> None:
    """Write a scenario or a report as one HTML file that works offline.

    SPEC (a YAML file, the name of a shipped spec, or python:module:NAME naming a Scenario)
    gives a page to review the scenario before it runs: every axis, and every variant's prompt
    with its changes marked. REPORT (a report JSON file from `modelscape report -o`) gives the
    report's page; with --store, every number on it opens the outputs it was computed from.
    """
    from modelscape.errors import CommandError
    from modelscape.pages import ReportPage, ScenarioPage

    name = source.rsplit(":", 1)[-1] if source.startswith("python:") else Path(source).stem
    target = check_output(output or Path(name + ".html"), "-o")
    rendered: ReportPage | ScenarioPage
    if _is_report(source):
        rendered = ReportPage(source, store_path)
    else:
        if store_path is not None:
            raise CommandError(
                f"--store goes with a report file (REPORT.json), not with the spec {source!r}"
            )
        from modelscape.cli.review import scenario_of

        rendered = ScenarioPage(scenario_of(source))
    write_output(target, rendered.html(), "-o")
    size = target.stat().st_size
    click.echo(f"wrote {target} ({size / 1024:.0f} KiB)")


def register(main: click.Group) -> None:
    """Add the ``page`` command to the ``modelscape`` group."""
    main.add_command(page)
