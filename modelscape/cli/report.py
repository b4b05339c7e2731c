"""Commands that turn a stored run into a report, and gate CI on requirements."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import click

from modelscape.cli.files import check_output, write_output
from modelscape.errors import CommandError, ReportError, StoreError

__all__ = ["register"]


@click.command()
@click.option(
    "--store",
    "store_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The store the run was saved to: a SQLite file, or a store URL such as "
    "sqlite:///path/runs.db.",
)
@click.argument("experiment", required=False)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the report as JSON to this file.",
)
@click.option(
    "--permutations", type=click.IntRange(min=0), help="Permutations per test (0 skips tests)."
)
@click.option("--resamples", type=click.IntRange(min=0), help="Bootstrap resamples per interval.")
def report(
    store_path: str,
    experiment: str | None,
    output: Path | None,
    permutations: int | None,
    resamples: int | None,
) -> None:
    """Analyse a stored run and print its report summary.

    EXPERIMENT is an experiment id (or a unique prefix); by default the newest in the store.
    """
    from modelscape._collector import paced_collector
    from modelscape.report.report import build_report
    from modelscape.results.results import Results, run_of
    from modelscape.stats import Inference
    from modelscape.store import open_store

    if output is not None:
        check_output(output, "-o")  # before the analysis, which can take a while
    # Damaged rows are left out with a warning naming them, so the rest still reports.
    store = open_store(store_path, create=False, damaged="skip")
    try:
        records = store.experiments()
        if not records:
            raise StoreError(f"{store_path} holds no experiment")
        if experiment is None:
            chosen = records[-1]
        else:
            matches = [r for r in records if r.id.startswith(experiment)]
            if len(matches) != 1:
                known = ", ".join(r.id for r in records)
                what = "no" if not matches else "more than one"
                raise StoreError(f"{what} experiment matches {experiment!r}; experiments: {known}")
            chosen = matches[0]
        # This command's process is its own: collections paced to the load and the report
        # (modelscape._collector), which the library functions leave to their caller.
        with paced_collector():
            results = Results.load(store, chosen.id)
    finally:
        store.close()
    run = run_of(results)
    settings: dict[str, int] = {"seed": run.settings.seed}
    if permutations is not None:
        settings["permutations"] = permutations
    if resamples is not None:
        settings["resamples"] = resamples
    with paced_collector():
        built = build_report(results, inference=Inference(**settings))
    if output is not None:
        try:
            built.save(output)
        except OSError as error:
            raise CommandError(f"-o {output}: cannot write it: {error.strerror}") from None
    click.echo(built.summary())
    if output is not None:
        click.echo(f"\nreport written to {output}", err=True)
    if run.observations and len(run.failed) == len(run.observations):
        # The report lists every target's failures, but it measures nothing: not a success.
        raise ReportError(
            f"experiment {run.experiment.id}: no call succeeded ({len(run.failed)} "
            "observations failed), so the report estimates nothing; fix the targets (their "
            "first errors are above) and run again"
        )


@click.command()
@click.argument("report_path", metavar="REPORT", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--require",
    "requirements",
    multiple=True,
    required=True,
    help="A bound such as accuracy>=0.9 or control:spurious_change<=0.05 (repeatable).",
)
@click.option("--target", "targets", multiple=True, help="Check only these targets (repeatable).")
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write the result as a JUnit XML file for CI dashboards.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Also fail when a requirement that nothing is found (shifts==0, ...) rests on tests "
    "too weak to find an excess of 0.3 with 80% power.",
)
def check(
    report_path: Path,
    requirements: tuple[str, ...],
    targets: tuple[str, ...],
    junit: Path | None,
    strict: bool,
) -> None:
    """Check a report against requirements: one line per violation, non-zero exit if any.

    A requirement that a count of findings is zero (invariant_shifts==0, ...) is only as good
    as the tests' power: where they could not find an excess of 0.3 with 80% power, a warning
    says so, and --strict fails on it.
    """
    from modelscape.report import Report, Requirement

    if junit is not None:
        check_output(junit, "--junit")
    loaded = Report.load(report_path)
    parsed = [Requirement.parse(text) for text in requirements]
    scope = targets or None
    results = [(requirement, requirement.violations(loaded, scope)) for requirement in parsed]
    failures = [line for _, lines in results for line in lines]
    weak = [line for requirement in parsed for line in requirement.weak(loaded, scope)]
    if junit is not None:
        write_output(junit, _junit(loaded.scenario, results), "--junit")
    for line in failures:
        click.echo(line)
    for line in weak:
        click.echo(f"warning: {line}", err=True)
    passed = sum(1 for _, lines in results if not lines)
    summary = f"{passed} of {len(results)} requirements met"
    if failures:
        click.echo(
            f"{summary}; {len(failures)} violation{'s' if len(failures) != 1 else ''}", err=True
        )
        raise SystemExit(1)
    if strict and weak:
        click.echo(
            f"{summary}, but {len(weak)} rest{'s' if len(weak) == 1 else ''} on tests too weak "
            "to find an excess of 0.3 (--strict)",
            err=True,
        )
        raise SystemExit(1)
    click.echo(summary)


# XML 1.0 cannot hold most control characters even escaped; a name holding one (a
# scenario's name comes from a contributed spec) shows U+FFFD there instead.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(text: str) -> str:
    """Text as XML element content: markup escaped, characters XML cannot hold replaced."""
    return escape(_NOT_XML.sub("\ufffd", text))


def _xml_attribute(text: str) -> str:
    """Text as a quoted XML attribute value (quotes, newlines and tabs escaped)."""
    return quoteattr(_NOT_XML.sub("\ufffd", text), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _junit(scenario: str, results: Sequence[tuple[object, list[str]]]) -> str:
    """The results as JUnit XML, every text from the report escaped."""
    failures = sum(1 for _, lines in results if lines)
    classname = _xml_attribute(f"modelscape.{scenario}")
    cases = []
    for requirement, lines in results:
        name = _xml_attribute(str(requirement))
        if lines:
            message = _xml_attribute(f"{len(lines)} violation(s)")
            body = _xml_text("\n".join(lines))
            cases.append(
                f"  <testcase classname={classname} name={name}>\n"
                f"    <failure message={message}>{body}</failure>\n  </testcase>"
            )
        else:
            cases.append(f"  <testcase classname={classname} name={name}/>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name={_xml_attribute("modelscape " + scenario)} tests="{len(results)}" '
        f'failures="{failures}">\n' + "\n".join(cases) + "\n</testsuite>\n"
    )


def register(main: click.Group) -> None:
    """Add the report commands to the ``modelscape`` group."""
    main.add_command(report)
    main.add_command(check)
