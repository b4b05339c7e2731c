"""The ``run`` and ``runs`` commands: map targets with a scenario, and list what a store holds."""

from __future__ import annotations

import dataclasses
import datetime
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

from modelscape._limits import MAX_CALLS
from modelscape.errors import ExecutionError, ModelscapeError, ReportError

# The library is imported by the commands as they run, not here: `run --help` and
# `modelscape --help` read this module, and need neither pydantic nor numpy.
if TYPE_CHECKING:
    from modelscape.execution.runner import Progress, Runner
    from modelscape.execution.shard import Shard
    from modelscape.results.results import Results
    from modelscape.scenario import Scenario

__all__ = ["register"]


def _scenario(spec: str) -> Scenario:
    """The scenario of a spec file or shipped name, or of ``python:module:attribute``."""
    from modelscape.cli.review import scenario_of

    return scenario_of(spec)


# A progress line for a log (a file or a CI console, not a terminal) every this many seconds.
_LOG_EVERY = 5.0


class _Bar:
    """Progress on stderr: one line redrawn in place on a terminal; elsewhere (a CI log, a
    file) a plain line every few seconds and a last one at the end, not a stream of frames."""

    def __init__(self, *, terminal: bool) -> None:
        self.terminal = terminal
        self.shown = False
        self.latest: Progress | None = None
        self.printed: Progress | None = None
        self.next_line = 0.0

    @staticmethod
    def line(progress: Progress) -> str:
        finished = progress.reused + progress.done
        share = finished / progress.total if progress.total else 1.0
        filled = int(share * 24)
        return (
            f"[{'#' * filled}{'.' * (24 - filled)}] {finished}/{progress.total}"
            f"  failed {progress.failed}  retries {progress.retries}"
            f"  {progress.rate:.1f}/s  {progress.elapsed:.0f}s"
        )

    def __call__(self, progress: Progress) -> None:
        self.latest = progress
        if self.terminal:
            click.echo("\r" + self.line(progress), nl=False, err=True)
            self.shown = True
        elif progress.elapsed >= self.next_line:
            self.next_line = progress.elapsed + _LOG_EVERY
            self.printed = progress
            click.echo(self.line(progress), err=True)

    def close(self) -> None:
        if self.terminal and self.shown:
            click.echo("", err=True)
        elif not self.terminal and self.latest is not None and self.latest is not self.printed:
            click.echo(self.line(self.latest), err=True)


def _limit(text: str | None) -> tuple[float, bool] | None:
    """``--max-failures``: a count (``5``) or a share of the run's observations (``10%``)."""
    if text is None:
        return None
    share = text.endswith("%")
    try:
        value = float(text[:-1] if share else text)
    except ValueError:
        value = -1.0
    if not value >= 0 or (not share and value != int(value)):
        raise click.BadParameter(
            f"{text!r}: give a number of failed observations (5) or a share of them (10%)",
            param_hint="--max-failures",
        )
    return value, share


def _failures(runner: Runner) -> list[str]:
    """Each target's trouble in this run, as lines for stderr."""
    lines = []
    for name, health in runner.health.items():
        if health.failed:
            unasked = f", {health.unasked} of them not asked" if health.unasked else ""
            lines.append(
                f"target {name}: {health.failed} of {health.done} failed{unasked}; "
                f"first error: {health.first_error}"
            )
        if health.stopped:
            lines.append(f"target {name}: {health.stopped}")
        lines.extend(f"target {name}: {note}" for note in health.notes)
    return lines


def _too_many(results: Results, limit: tuple[float, bool] | None) -> str | None:
    """Why the failures of a run fail the command, or None when they are within the limit."""
    from modelscape.results.results import run_of

    run = run_of(results)
    failed = len(run.failed)
    if limit is None:
        counts = Counter(o.target for o in run.observations if o.status == "ok")
        dead = [t for t in run.targets if counts[t] == 0]
        if dead:
            names = ", ".join(dead)
            return f"every observation of {names} failed (allow failures with --max-failures)"
        return None
    value, share = limit
    total = len(run.observations)
    over = failed > value * total / 100 if share else failed > value
    if over:
        shown = f"{value:g}%" if share else f"{value:g}"
        return f"{failed} of {total} observations failed, more than --max-failures {shown}"
    return None


def _gate(
    scenario: Scenario,
    results: Results,
    report_path: Path | None,
    requirements: tuple[str, ...],
    junit: Path | None,
) -> bool:
    """Write the report, print its summary, check the requirements; True when all are met."""
    from modelscape.cli.report import _junit
    from modelscape.report import Requirement

    parsed = [Requirement.parse(text) for text in requirements]
    report = scenario.report(results)
    if report_path is not None:
        report.save(report_path)
    click.echo("")
    click.echo(report.summary())
    if report_path is not None:
        click.echo(f"\nreport written to {report_path}", err=True)
    if not parsed:
        return True
    checked = [(requirement, requirement.violations(report)) for requirement in parsed]
    if junit is not None:
        junit.write_text(_junit(report.scenario, checked), encoding="utf-8")
    missed = [line for _, lines in checked for line in lines]
    for line in missed:
        click.echo(line)
    # As `check` does: a "nothing found" requirement on weak tests passes whatever happened.
    for line in (line for requirement in parsed for line in requirement.weak(report)):
        click.echo(f"warning: {line}", err=True)
    met = sum(1 for _, lines in checked if not lines)
    click.echo(f"{met} of {len(checked)} requirements met", err=bool(missed))
    return not missed


def register(main: click.Group) -> None:
    """Add the ``run`` and ``runs`` commands to the ``modelscape`` command group."""
    main.add_command(run)
    main.add_command(runs)


@click.command()
@click.argument("spec")
@click.option(
    "--target",
    "targets",
    multiple=True,
    help="A target: openai:MODEL, openai-responses:MODEL, azure-openai:DEPLOYMENT@ENDPOINT, "
    "anthropic:MODEL, gemini:MODEL, bedrock:MODEL, openai-compatible:MODEL@URL[,URL2...], "
    "llama-cpp:PATH, python:module:function, oracle:SPEC, echo, constant:TEXT, random:A,B, "
    "planted:REGEX, scripted:FILE (repeatable).",
)
@click.option(
    "--targets",
    "targets_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A targets.yaml: a list of targets, each a name or a mapping of target: and options "
    "(name, temperature, max_tokens, api_key_env, ...).",
)
@click.option(
    "--store",
    "store_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The SQLite file every output is saved to (created if missing; reruns reuse it), "
    "or a store URL: sqlite:///path/runs.db, memory:, or a scheme a plugin registers.",
)
@click.option("--repetitions", type=click.IntRange(min=1), help="Override the spec's repetitions.")
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Calls in flight at once.",
)
@click.option(
    "--order",
    type=click.Choice(["shuffled", "grouped"]),
    default="shuffled",
    show_default=True,
    help="shuffled: each repetition in a fresh random order (spreads a provider's drift); "
    "grouped: the repetitions of a variant back to back, so that a local server with a prompt "
    "cache (llama.cpp) reads each prompt once.",
)
@click.option(
    "--shard",
    metavar="I/N",
    help="Ask only part I of N of the observations (chosen by observation id, so shards never "
    "overlap): run N shards on N machines, `modelscape merge` their stores, then run once more "
    "on the merged store without --shard to measure across shards and report.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=120.0,
    show_default=True,
    help="Seconds one call may take before it is retried.",
)
@click.option(
    "--max-calls",
    "max_calls",
    type=click.IntRange(min=1),
    default=MAX_CALLS,
    show_default=True,
    help="The most calls this run may make (a shard's share, with --shard); a spec that needs "
    "more is refused before anything is stored.",
)
@click.option(
    "--max-failures",
    "max_failures",
    metavar="N|P%",
    help="Failed observations allowed before the command exits 1: a number, or a share such "
    "as 10%.  [default: exit 1 only when every observation of some target failed]",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the run's report as JSON to this file, and print its summary.",
)
@click.option(
    "--require",
    "requirements",
    multiple=True,
    help="A bound on the report, as for `modelscape check`, such as accuracy>=0.9 "
    "(repeatable); a miss exits 1.",
)
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write the requirements' results as JUnit XML for CI dashboards.",
)
def run(
    spec: str,
    targets: tuple[str, ...],
    targets_file: str | None,
    store_path: str,
    repetitions: int | None,
    concurrency: int,
    order: Literal["shuffled", "grouped"],
    shard: str | None,
    timeout: float,
    max_calls: int,
    max_failures: str | None,
    report_path: Path | None,
    requirements: tuple[str, ...],
    junit: Path | None,
) -> None:
    """Ask every target every variant of SPEC, saving each output to the store as it arrives.

    SPEC is a YAML spec file, a shipped spec name, or python:module:attribute naming a
    Scenario. Run it again to finish an interrupted run: stored outputs are reused. Each
    target's first error is printed; the command exits 1 when too many observations failed
    (see --max-failures) or, with --require, when the report misses a requirement.
    """
    limit = _limit(max_failures)
    if junit is not None and not requirements:
        raise click.UsageError("--junit writes the results of --require: name a requirement")
    if not targets and targets_file is None:
        raise click.UsageError("name at least one target with --target or --targets")
    from modelscape.execution.config import ExecutionConfig
    from modelscape.execution.runner import Runner
    from modelscape.report import Requirement
    from modelscape.results.results import run_of
    from modelscape.store import open_store
    from modelscape.targets._resolve import load_targets, resolve_target

    for text in requirements:  # a typo fails now, not after an hour of calls
        Requirement.parse(text)
    part = _shard(shard, report_path is not None or bool(requirements))
    scenario = _scenario(spec)
    if repetitions is not None:
        scenario = dataclasses.replace(scenario, repetitions=repetitions)
    resolved = [resolve_target(t) for t in targets]
    if targets_file is not None:
        resolved.extend(load_targets(targets_file))
    config = ExecutionConfig(
        concurrency=concurrency, timeout=timeout, order=order, shard=part, max_calls=max_calls
    )
    experiment = scenario.experiment(resolved, config)
    experiment.check_calls()  # before the store is opened, so a refused run makes no file
    # Damaged rows are left out with a warning: their observations are asked again, and
    # the row itself is never overwritten (it may yet be recovered from the file).
    store = open_store(store_path, damaged="skip")
    bar = _Bar(terminal=sys.stderr.isatty())
    started = time.perf_counter()
    runner = Runner(store=store, on_progress=bar)
    try:
        results = runner.run(experiment)
    except KeyboardInterrupt:
        # 130 (128 + SIGINT) is what a shell reports for a command stopped by Ctrl-C.
        click.echo(
            "interrupted: every output that arrived is stored; run again to finish", err=True
        )
        raise SystemExit(130) from None
    finally:
        bar.close()
        store.close()
    held = run_of(results)
    last = runner.last
    asked = last.done if last is not None else 0
    reused = last.reused if last is not None else 0
    of = f"{experiment.calls()}" if part is None else f"{experiment.calls()}, shard {part}"
    lines = [
        f"experiment   {held.experiment.id}",
        f"store        {store_path}",
        f"observations {len(held.observations)} of {of}: "
        f"{asked} asked, {reused} reused, {len(held.failed)} failed",
        f"time         {time.perf_counter() - started:.1f} s",
    ]
    click.echo("\n".join(lines))
    for line in _failures(runner):
        click.echo(line, err=True)
    if held.failed:
        click.echo("failed observations are asked again on the next run", err=True)
    too_many = _too_many(results, limit)
    met = True
    if report_path is not None or requirements:
        try:
            met = _gate(scenario, results, report_path, requirements, junit)
        except ModelscapeError as error:
            if too_many is None:
                raise ReportError(f"no report: {error}") from None
            # the failures below are the command's error; the report's is said on the way
            click.echo(f"error: no report: {error}", err=True)
    if too_many is not None:
        raise ExecutionError(too_many)
    if not met:
        raise SystemExit(1)


def _shard(text: str | None, reporting: bool) -> Shard | None:
    """The ``--shard`` option as a :class:`Shard`; a shard's part of a run is no report."""
    if text is None:
        return None
    from modelscape.execution.shard import Shard

    try:
        part = Shard.parse(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--shard") from None
    if reporting:
        raise click.UsageError(
            "--report and --require need the whole run, and a shard holds part of it: "
            "merge the shards' stores (modelscape merge), then run again without --shard"
        )
    return part


@click.command()
@click.option(
    "--store",
    "store_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The store: a SQLite file, or a store URL such as sqlite:///path/runs.db.",
)
def runs(store_path: str) -> None:
    """List the experiments a store holds, with their observations."""
    from modelscape.store import Checking, open_store

    store = open_store(store_path, read_only=True, create=False)
    try:
        if isinstance(store, Checking):
            # Counts read from a damaged file can be silently wrong: check the file first.
            store.check()
        rows = []
        for record in store.experiments():
            counts = store.status_counts(record.id)
            created = datetime.datetime.fromtimestamp(record.created).strftime("%Y-%m-%d %H:%M")
            scenario = str(record.scenario) if record.scenario is not None else "-"
            names = ",".join(t.name for t in record.targets)
            ok, failed = str(counts["ok"]), str(counts["failed"])
            rows.append((record.id, scenario, names, ok, failed, created))
    finally:
        store.close()
    if not rows:
        click.echo(f"{store_path} holds no experiments")
        return
    from modelscape.report.summary import text_table

    header = ("experiment", "scenario", "targets", "ok", "failed", "created")
    for line in text_table(header, rows):
        click.echo(line)
