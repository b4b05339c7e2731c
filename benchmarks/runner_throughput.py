"""Runner throughput: wall time against the ideal, and the runner's own CPU per observation.

An async target that sleeps 50 ms per call answers 10,000 observations at concurrency 200,
stored in a SQLite file in a temporary folder. The ideal wall time is N x latency /
concurrency; the runner's CPU time per observation (process CPU time / N) includes building
requests, retries bookkeeping, redaction, store writes, measures and loading the results.

    python benchmarks/runner_throughput.py [--observations N] [--concurrency C]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from modelscape import answers
from modelscape.execution.config import ExecutionConfig
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.scenario import Scenario
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetRequest
from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation

LATENCY = 0.05


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
        return f"Question {self.number} at level {self.step}: yes or no?"


@perturbation
def move(task: Item, value: int) -> Item:
    return task.model_copy(update={"step": value})


async def sleepy(request: TargetRequest) -> dict[str, str]:
    await asyncio.sleep(LATENCY)
    return {"answer": "yes" if request.seed % 3 else "no"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=200)
    options = parser.parse_args()
    levels, repetitions = 20, 5
    cases = max(1, options.observations // (levels * repetitions))
    space = TaskSpace(
        {f"c{i}": Item(number=i, step=0) for i in range(cases)},
        [Axis("level", list(range(levels)), move, scale="ordinal")],
    )
    scenario = Scenario(
        name="throughput",
        version="1",
        description="",
        task_space=space,
        answer=answers.json_field("answer", ["yes", "no"]),
        repetitions=repetitions,
    )
    target = CallableTarget(sleepy, name="sleepy")
    experiment = scenario.experiment(
        [target], ExecutionConfig(concurrency=options.concurrency, timeout=10)
    )
    n = experiment.calls()
    experiment.variant_table()  # the task space's own cost, not the runner's
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "runs.db")
        runner = Runner(store=store, redact=lambda text: text.replace("secret", "[redacted]"))
        wall, cpu = time.perf_counter(), time.process_time()
        results = runner.run(experiment)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        again = time.perf_counter()
        runner.run(experiment)
        rerun = time.perf_counter() - again
        store.close()
    ideal = n * LATENCY / options.concurrency
    assert len(run_of(results).observations) == n
    print(
        f"observations          {n} at concurrency {options.concurrency}, {LATENCY * 1000:.0f} ms"
    )
    print(f"wall time             {wall:.2f} s (ideal {ideal:.2f} s)")
    print(f"wall / ideal          {wall / ideal:.3f}x (target <= 1.15x)")
    print(f"runner CPU / obs      {cpu / n * 1000:.3f} ms (target <= 0.3 ms)")
    print(f"CPU / wall            {cpu / wall:.2f} (near 1: the event loop is saturated)")
    print(f"rerun (all reused)    {rerun:.2f} s, {rerun / n * 1000:.3f} ms per observation")


if __name__ == "__main__":
    main()
