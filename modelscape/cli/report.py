"""Commands that turn a stored run into a report, and gate CI on requirements."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import click

from modelscape.errors import StoreError

__all__ = ["register"]


@click.command()
@click.option(
    "--store",
    "store_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The SQLite store the run was saved to.",
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
    store_path: Path,
    experiment: str | None,
    output: Path | None,
    permutations: int | None,
    resamples: int | None,
) -> None:
    """Analyse a stored run and print its report summary.

    EXPERIMENT is an experiment id (or a unique prefix); by default the newest in the store.
    """
    from modelscape.report.report import build_report
    from modelscape.results.results import Results
    from modelscape.stats import Inference
    from modelscape.store import open_store

    if not store_path.exists():
        raise StoreError(f"{store_path}: no such store file")
    store = open_store(store_path)
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
        results = Results.load(store, chosen.id)
    finally:
        store.close()
    seed = chosen.scenario.parameters.get("seed") if chosen.scenario else None
    stored_seed = seed if isinstance(seed, int) else 0
    settings: dict[str, int] = {"seed": stored_seed}
    if permutations is not None:
        settings["permutations"] = permutations
    if resamples is not None:
        settings["resamples"] = resamples
    built = build_report(results, inference=Inference(**settings))
    if output is not None:
        built.save(output)
    click.echo(built.summary())
    if output is not None:
        click.echo(f"\nreport written to {output}", err=True)


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
def check(
    report_path: Path, requirements: tuple[str, ...], targets: tuple[str, ...], junit: Path | None
) -> None:
    """Check a report against requirements: one line per violation, non-zero exit if any."""
    from modelscape.report import Report, Requirement

    loaded = Report.load(report_path)
    parsed = [Requirement.parse(text) for text in requirements]
    scope = targets or None
    results = [(requirement, requirement.violations(loaded, scope)) for requirement in parsed]
    failures = [line for _, lines in results for line in lines]
    if junit is not None:
        junit.write_text(_junit(loaded.scenario, results), encoding="utf-8")
    for line in failures:
        click.echo(line)
    passed = sum(1 for _, lines in results if not lines)
    summary = f"{passed} of {len(results)} requirements met"
    if failures:
        click.echo(
            f"{summary}; {len(failures)} violation{'s' if len(failures) != 1 else ''}", err=True
        )
        raise SystemExit(1)
    click.echo(summary)


def _junit(scenario: str, results: Sequence[tuple[object, list[str]]]) -> str:
    failures = sum(1 for _, lines in results if lines)
    cases = []
    for requirement, lines in results:
        name = quoteattr(str(requirement))
        if lines:
            message = quoteattr(f"{len(lines)} violation(s)")
            body = escape("\n".join(lines))
            cases.append(
                f'  <testcase classname="modelscape.{scenario}" name={name}>\n'
                f"    <failure message={message}>{body}</failure>\n  </testcase>"
            )
        else:
            cases.append(f'  <testcase classname="modelscape.{scenario}" name={name}/>')
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name={quoteattr("modelscape " + scenario)} tests="{len(results)}" '
        f'failures="{failures}">\n' + "\n".join(cases) + "\n</testsuite>\n"
    )


def register(main: click.Group) -> None:
    """Add the report commands to the ``modelscape`` group."""
    main.add_command(report)
    main.add_command(check)
