"""Loading a large run: Results.load of a 100,000-observation store, time and peak memory.

A child process builds the store (2 targets x 1,000 cases x 10 levels x 5 repetitions, with
the scenario's three point measures: 300,000 measurements) through the runner; this process
then only loads it, so its peak RSS is the load's.

    python benchmarks/runner_load.py [--cases N] [--keep FILE]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from modelscape import answers
from modelscape.execution.config import ExecutionConfig
from modelscape.execution.runner import Runner
from modelscape.results.results import Results, run_of
from modelscape.scenario import Scenario
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._reference import RandomTarget
from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation


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
        return f"Question {self.number} at level {self.step}: answer in JSON, yes or no."


@perturbation
def move(task: Item, value: int) -> Item:
    return task.model_copy(update={"step": value})


def build(path: Path, cases: int) -> None:
    space = TaskSpace(
        {f"c{i}": Item(number=i, step=0) for i in range(cases)},
        [Axis("level", list(range(10)), move, scale="ordinal")],
    )
    scenario = Scenario(
        name="load",
        version="1",
        description="",
        task_space=space,
        answer=answers.text_match(r"\b(yes|no)\b", ["yes", "no"]),
        repetitions=5,
    )
    targets = [RandomTarget(["yes", "no"], name="a"), RandomTarget(["no", "yes"], name="b")]
    experiment = scenario.experiment(targets, ExecutionConfig(concurrency=64))
    Runner(store=SQLiteStore(path)).run(experiment)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="build into (or reuse) this file")
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.build:
        build(options.build, options.cases)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = options.keep or Path(folder) / "large.db"
        if not path.exists():
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, __file__, "--build", str(path), "--cases", str(options.cases)],
                check=True,
            )
            print(f"built                 {time.perf_counter() - started:.1f} s")
        store = SQLiteStore(path)
        (record,) = store.experiments()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started, cpu = time.perf_counter(), time.process_time()
        results = Results.load(store, record.id)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        store.close()
    print(f"observations          {len(run_of(results).observations)}")
    print(f"point measurements    {len(run_of(results).point_measurements)}")
    print(f"Results.load          {seconds:.2f} s (target <= 3 s; ratio {seconds / 3:.2f})")
    print(f"  of which CPU        {cpu:.2f} s (wall exceeds it when other work shares the CPU)")
    print(
        f"peak RSS              {peak / 2**20:.2f} GiB (target <= 1 GiB; ratio {peak / 2**20:.2f})"
    )
    print(f"  before the load     {before / 2**20:.2f} GiB")


if __name__ == "__main__":
    main()
