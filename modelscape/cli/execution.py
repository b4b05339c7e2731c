"""The ``run`` and ``runs`` commands: map targets with a scenario, and list what a store holds."""

from __future__ import annotations

import dataclasses
import datetime
import time
from pathlib import Path

import click

from modelscape.errors import ModelscapeError
from modelscape.execution.config import ExecutionConfig
from modelscape.execution.resolve import load_targets, resolve_target
from modelscape.execution.runner import Progress, Runner
from modelscape.scenario import Scenario
from modelscape.store.sqlite import SQLiteStore

__all__ = ["register"]


def _scenario(spec: str) -> Scenario:
    """The scenario of a spec file or shipped name, or of ``python:module:attribute``."""
    from modelscape.cli.review import scenario_of

    return scenario_of(spec)


class _Bar:
    """A one-line progress display on stderr, redrawn in place."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, progress: Progress) -> None:
        finished = progress.reused + progress.done
        share = finished / progress.total if progress.total else 1.0
        filled = int(share * 24)
        line = (
            f"\r[{'#' * filled}{'.' * (24 - filled)}] {finished}/{progress.total}"
            f"  failed {progress.failed}  retries {progress.retries}"
            f"  {progress.rate:.1f}/s  {progress.elapsed:.0f}s"
        )
        click.echo(line, nl=False, err=True)
        self.shown = True

    def close(self) -> None:
        if self.shown:
            click.echo("", err=True)


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
    help="A target: openai:MODEL, anthropic:MODEL, openai-compatible:MODEL@URL, "
    "llama-cpp:PATH, python:module:function, oracle:SPEC, echo, constant:TEXT, random:A,B, "
    "planted:REGEX (repeatable).",
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
    help="The SQLite file every output is saved to (created if missing; reruns reuse it).",
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
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=120.0,
    show_default=True,
    help="Seconds one call may take before it is retried.",
)
def run(
    spec: str,
    targets: tuple[str, ...],
    targets_file: str | None,
    store_path: str,
    repetitions: int | None,
    concurrency: int,
    timeout: float,
) -> None:
    """Ask every target every variant of SPEC, saving each output to the store as it arrives.

    SPEC is a YAML spec file, a shipped spec name, or python:module:attribute naming a
    Scenario. Run it again to finish an interrupted run: stored outputs are reused.
    """
    try:
        scenario = _scenario(spec)
        if repetitions is not None:
            scenario = dataclasses.replace(scenario, repetitions=repetitions)
        if not targets and targets_file is None:
            raise click.UsageError("name at least one target with --target or --targets")
        resolved = [resolve_target(t) for t in targets]
        if targets_file is not None:
            resolved.extend(load_targets(targets_file))
        config = ExecutionConfig(concurrency=concurrency, timeout=timeout)
        experiment = scenario.experiment(resolved, config)
        store = SQLiteStore(store_path)
    except ModelscapeError as error:
        raise click.ClickException(str(error)) from None
    bar = _Bar()
    started = time.perf_counter()
    try:
        runner = Runner(store=store, on_progress=bar)
        results = runner.run(experiment)
    except ModelscapeError as error:
        bar.close()
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        bar.close()
        raise click.ClickException(
            "interrupted: every output that arrived is stored; run again to finish"
        ) from None
    finally:
        store.close()
    bar.close()
    last = runner.last
    asked = last.done if last is not None else 0
    reused = last.reused if last is not None else 0
    lines = [
        f"experiment   {results.experiment.id}",
        f"store        {store_path}",
        f"observations {len(results.observations)} of {experiment.calls()}: "
        f"{asked} asked, {reused} reused, {len(results.failed)} failed",
        f"time         {time.perf_counter() - started:.1f} s",
    ]
    if results.failed:
        lines.append("failed observations are asked again on the next run")
    click.echo("\n".join(lines))


@click.command()
@click.option("--store", "store_path", required=True, type=click.Path(dir_okay=False))
def runs(store_path: str) -> None:
    """List the experiments a store holds, with their observations."""
    if not Path(store_path).exists():
        raise click.ClickException(f"{store_path}: no such store file")
    try:
        store = SQLiteStore(store_path)
    except ModelscapeError as error:
        raise click.ClickException(str(error)) from None
    try:
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
    header = ("experiment", "scenario", "targets", "ok", "failed", "created")
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
