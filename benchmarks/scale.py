"""Scale: time and peak memory of a run, a load and a report at 50k, 200k and 1M observations.

Each stage runs in a fresh child process, so its peak RSS is its own: ``run`` asks a fast
callable target every observation and stores it (2 targets x N/100 cases x 10 levels x 5
repetitions; three point measures each), ``load`` is ``Results.load`` of the stored run, and
``report`` is ``build_report`` of it on one core (permutations and resamples as the defaults).
The run stage ends with a load of its results; the row ``ask`` gives the run stage's figures up
to that load, so that the run's own peak is seen apart from the load's. The stage ``rerun``
(not run unless named) runs the experiment again on the stored run, which reuses every output
(its row ``re-ask`` covers the reuse lookup, before the load).
The last line gives the growth of each figure from the smallest size to the largest, beside
the growth of the observations: flat memory shows as a ratio far below it.

    python benchmarks/scale.py [--sizes 50000,200000,1000000] [--stages run,load,report]
        [--keep FOLDER]    (--stages may name rerun too)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from modelscape import answers
from modelscape.execution.config import ExecutionConfig
from modelscape.scenario import Scenario
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation

LEVELS = 10
REPETITIONS = 5
TARGETS = 2


class Item(Task):
    """A numbered question at some level."""

    number: int
    step: int

    @attribute
    def level(self) -> int:
        return self.step

    def reference(self) -> str:
        return "yes"

    def prompt(self) -> str:
        return f"Question {self.number} at level {self.step}: answer yes or no."


@perturbation
def move(task: Item, value: int) -> Item:
    return task.model_copy(update={"step": value})


def scenario(cases: int) -> Scenario:
    space = TaskSpace(
        {f"c{i}": Item(number=i, step=0) for i in range(cases)},
        [Axis("level", list(range(LEVELS)), move, scale="ordinal")],
    )
    return Scenario(
        name="scale",
        version="1",
        description="",
        task_space=space,
        answer=answers.text_match(r"\b(yes|no)\b", ["yes", "no"]),
        repetitions=REPETITIONS,
    )


def answer(request: TargetRequest) -> TargetOutput:
    """yes, flipping to no above level 6 on about a third of the calls (by seed)."""
    level = int(request.prompt.text.split(" at level ")[1].split(":")[0])
    flipped = level > 6 and request.seed % 3 == 0
    return TargetOutput(text="no" if flipped else "yes")


def stage(name: str, store: Path, cases: int) -> dict[str, float]:
    """Run one stage in this process; its wall and CPU seconds and peak RSS in MiB."""
    from modelscape.execution.runner import Runner
    from modelscape.report.report import build_report
    from modelscape.results.results import Results
    from modelscape.store.sqlite import SQLiteStore

    sqlite = SQLiteStore(store)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started, cpu = time.perf_counter(), time.process_time()
    asked: dict[str, float] = {}
    if name in ("run", "rerun"):
        targets = [CallableTarget(answer, name=f"t{i}") for i in range(TARGETS)]
        experiment = scenario(cases).experiment(targets, ExecutionConfig(concurrency=64))
        load, descriptor = Results.load, vars(Results)["load"]

        def measured_load(store: SQLiteStore, experiment_id: str) -> Results:
            # The figures of the run up to its final load (a high-water mark, so the peak so far).
            asked.update(
                seconds=time.perf_counter() - started,
                cpu=time.process_time() - cpu,
                peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            )
            return load(store, experiment_id)

        # Patched on the class, so that the figures need nothing of the runner's own code and
        # the same benchmark measures an older checkout too (PYTHONPATH naming it).
        Results.load = measured_load  # type: ignore[method-assign,assignment]
        try:
            Runner(store=sqlite).run(experiment)
        finally:
            Results.load = descriptor  # type: ignore[method-assign]
    else:
        (record,) = sqlite.experiments()
        results = Results.load(sqlite, record.id)
        if name == "report":
            build_report(results)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sqlite.close()
    figures = {"seconds": seconds, "cpu": cpu, "peak_mib": peak, "before_mib": before}
    figures.update({f"ask_{key}": value for key, value in asked.items()})
    return figures


def child(name: str, store: Path, cases: int) -> dict[str, float]:
    # One core, as the figures ask: numpy's threads off too.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, __file__, "--stage", name, "--store", str(store), "--cases", str(cases)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="50000,200000,1000000")
    parser.add_argument("--stages", default="run,load,report")
    parser.add_argument("--keep", type=Path, help="keep the stores in this folder (and reuse)")
    parser.add_argument("--stage", help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cases", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.stage:
        print(json.dumps(stage(options.stage, options.store, options.cases)))
        return
    sizes = [int(s) for s in options.sizes.split(",")]
    stages = options.stages.split(",")
    per_case = TARGETS * LEVELS * REPETITIONS
    table: dict[int, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as temporary:
        folder = options.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"{'observations':>12} {'stage':>7} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}")
        for size in sizes:
            cases = size // per_case
            store = folder / f"scale-{cases * per_case}.db"
            table[size] = {}
            for name in stages:
                if name == "run" and store.exists():
                    continue
                if name == "rerun" and not store.exists():
                    print(f"{size:>12} {name:>7}  no stored run to run again", flush=True)
                    continue
                figures = child(name, store, cases)
                table[size][name] = figures
                rows = [(name, figures)]
                if "ask_peak_mib" in figures:
                    asked = {key[4:]: value for key, value in figures.items() if key[:4] == "ask_"}
                    row = "ask" if name == "run" else "re-ask"
                    table[size][row] = asked
                    rows.append((row, asked))
                for row, shown in rows:
                    print(
                        f"{cases * per_case:>12} {row:>7} {shown['seconds']:>8.2f} "
                        f"{shown['cpu']:>8.2f} {shown['peak_mib']:>9.0f}",
                        flush=True,
                    )
    small, large = sizes[0], sizes[-1]
    print(f"\ngrowth from {small} to {large} observations ({large / small:.1f}x):")
    for name in [*stages, "ask", "re-ask"]:
        if name in table[small] and name in table[large]:
            a, b = table[small][name], table[large][name]
            print(
                f"  {name:>7}: time {b['seconds'] / a['seconds']:.1f}x, "
                f"peak memory {b['peak_mib'] / a['peak_mib']:.1f}x"
            )


if __name__ == "__main__":
    main()
