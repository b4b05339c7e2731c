"""A run's process peak memory, its pairwise measuring and its report included, at two sizes.

Each measurement is a fresh child process that runs a scenario with a pairwise measure
(``edit_distance``, a :class:`~modelscape.measures.CallableDifference`) on a SQLite store,
from the first call to the results the runner returns, then builds the run's report from
them: the peak resident memory (``ru_maxrss``) it reports is the whole process's, imports
included. The shape per case is fixed (2 targets x 5 levels x 2 repetitions), so the number
of pairs grows as the observations do.

Several checkouts are measured in one run, each child importing the package of the checkout
it is given (``PYTHONPATH``), so the figures of today's code and of another commit are read
side by side on the same machine at the same moment:

    python benchmarks/run_memory.py [--sizes 20000,80000] [--checkouts .,../exports-base]
        [--no-pairwise]

The last lines give each checkout's growth of peak memory from the smallest size to the
largest; the target of issue 29 is at most 1.2x from 20,000 to 80,000 observations.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from modelscape.results.results import run_of

LEVELS = 5
REPETITIONS = 2
TARGETS = 2


def stage(store: Path, cases: int, pairwise: bool) -> dict[str, float]:
    """Run and report in this process: wall seconds and peak RSS (MiB) after each part."""
    # Imported here, from the checkout this child was started with.
    # The top-level names: their import is the same in a checkout from before the targets move.
    from modelscape import CallableTarget, TargetOutput, TargetRequest, answers
    from modelscape.execution.config import ExecutionConfig
    from modelscape.execution.runner import Runner
    from modelscape.report.report import build_report
    from modelscape.scenario import Scenario
    from modelscape.store.sqlite import SQLiteStore
    from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation
    from modelscape.text_measures import edit_difference

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

    def answer(request: TargetRequest) -> TargetOutput:
        """yes, or no with a reason above level 2 on a third of the calls (by seed)."""
        level = int(request.prompt.text.split(" at level ")[1].split(":")[0])
        if level > 2 and request.seed % 3 == 0:
            return TargetOutput(text=f"no, not at level {level}")
        return TargetOutput(text="yes")

    space = TaskSpace(
        {f"c{i}": Item(number=i, step=0) for i in range(cases)},
        [Axis("level", list(range(LEVELS)), move, scale="ordinal")],
    )
    scenario = Scenario(
        name="run-memory",
        version="1",
        description="",
        task_space=space,
        answer=answers.text_match(r"\b(yes|no)\b", ["yes", "no"]),
        repetitions=REPETITIONS,
        measures=[edit_difference()] if pairwise else [],
    )
    targets = [CallableTarget(answer, name=f"t{i}") for i in range(TARGETS)]
    experiment = scenario.experiment(targets, ExecutionConfig(concurrency=64))
    sqlite = SQLiteStore(store)
    started = time.perf_counter()
    results = Runner(store=sqlite).run(experiment)
    ran = time.perf_counter() - started
    ran_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    build_report(results)
    reported = time.perf_counter() - started - ran
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pairs = len(run_of(results).difference_measurements)
    sqlite.close()
    del results
    gc.collect()
    return {
        "run_seconds": ran,
        "report_seconds": reported,
        "run_peak_mib": ran_peak,
        "peak_mib": peak,
        "pairs": pairs,
    }


def child(checkout: Path, store: Path, cases: int, pairwise: bool) -> dict[str, float]:
    env = {
        **os.environ,
        "PYTHONPATH": str(checkout.resolve()),
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--stage",
            "--store",
            str(store),
            "--cases",
            str(cases),
            *([] if pairwise else ["--no-pairwise"]),
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=checkout,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="20000,80000")
    parser.add_argument("--checkouts", default=".")
    parser.add_argument(
        "--no-pairwise", action="store_true", help="leave the pairwise measure out of the run"
    )
    parser.add_argument("--stage", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cases", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.stage:
        print(json.dumps(stage(options.store, options.cases, not options.no_pairwise)))
        return
    sizes = [int(s) for s in options.sizes.split(",")]
    checkouts = [Path(c) for c in options.checkouts.split(",")]
    per_case = TARGETS * LEVELS * REPETITIONS
    peaks: dict[tuple[Path, int], float] = {}
    print(
        f"{'checkout':>24} {'observations':>12} {'pairs':>9} {'run s':>7} {'report s':>8} "
        f"{'run MiB':>8} {'peak MiB':>8}"
    )
    with tempfile.TemporaryDirectory() as folder:
        # Sizes alternate between the checkouts, so that a change in the machine's load
        # falls on both alike.
        for size in sizes:
            cases = size // per_case
            for number, checkout in enumerate(checkouts):
                store = Path(folder) / f"run-{number}-{size}.db"
                figures = child(checkout, store, cases, not options.no_pairwise)
                peaks[(checkout, size)] = figures["peak_mib"]
                print(
                    f"{str(checkout)[-24:]:>24} {cases * per_case:>12} {figures['pairs']:>9.0f} "
                    f"{figures['run_seconds']:>7.1f} {figures['report_seconds']:>8.1f} "
                    f"{figures['run_peak_mib']:>8.0f} {figures['peak_mib']:>8.0f}",
                    flush=True,
                )
                store.unlink()
    small, large = sizes[0], sizes[-1]
    print(f"\npeak memory growth from {small} to {large} observations ({large / small:.1f}x):")
    for checkout in checkouts:
        growth = peaks[(checkout, large)] / peaks[(checkout, small)]
        print(f"  {checkout!s:>24}: {growth:.2f}x (target <= 1.2x)")
    if len(checkouts) > 1:
        first = checkouts[0]
        for other in checkouts[1:]:
            ratio = peaks[(first, large)] / peaks[(other, large)]
            print(f"  peak at {large}: {first} / {other} = {ratio:.2f}")


if __name__ == "__main__":
    main()
