"""What pacing the garbage collector is worth to a report of a large run, measured in one run.

``build_report`` no longer paces the collector (a library function leaves the process's
collector to its caller; the ``modelscape report`` command and the site's workers pace it).
This measures the cost of that for a caller that does nothing: a run of the scale benchmark's
shape (2 targets x N/100 cases x 10 levels x 5 repetitions) is built once, loaded, and its
report built several times in turns (on freshly loaded results each time), with the default
thresholds and inside :func:`~modelscape._collector.paced_collector`, so both see the same
machine at the same time.
CPU seconds are the figure (one core, numpy's threads off).

    python benchmarks/report_collector.py [--observations 200000] [--turns 4]
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import gc  # noqa: E402
import importlib.util  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from modelscape import CallableTarget  # noqa: E402
from modelscape._collector import paced_collector  # noqa: E402
from modelscape.execution.config import ExecutionConfig  # noqa: E402
from modelscape.execution.runner import Runner  # noqa: E402
from modelscape.report.report import build_report  # noqa: E402
from modelscape.results.results import Results  # noqa: E402
from modelscape.store.sqlite import SQLiteStore  # noqa: E402


def scale_module() -> Any:
    """benchmarks/scale.py, for its scenario and target (benchmarks are not a package)."""
    spec = importlib.util.spec_from_file_location("scale", Path(__file__).with_name("scale.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--observations", type=int, default=200_000)
    parser.add_argument("--turns", type=int, default=4)
    options = parser.parse_args()
    scale = scale_module()
    cases = options.observations // (scale.TARGETS * scale.LEVELS * scale.REPETITIONS)
    seconds: dict[str, list[float]] = {"default": [], "paced": []}
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "run.db")
        targets = [CallableTarget(scale.answer, name=f"t{i}") for i in range(scale.TARGETS)]
        experiment = scale.scenario(cases).experiment(targets, ExecutionConfig(concurrency=64))
        Runner(store=store).run(experiment)
        print(f"observations {experiment.calls()}, thresholds {gc.get_threshold()}")
        for turn in range(options.turns):
            # Each report on results of its own (a report keeps what it computed with the
            # results), and the order swapped every turn, so neither is always first.
            order = [("default", contextlib.nullcontext), ("paced", paced_collector)]
            for name, context in order if turn % 2 == 0 else order[::-1]:
                results = Results.load(store, experiment.record().id)
                gc.collect()
                started = time.process_time()
                with context():
                    build_report(results)
                seconds[name].append(time.process_time() - started)
                print(f"  {name:>8}: {seconds[name][-1]:.2f} s CPU", flush=True)
                del results
        store.close()
    default, paced = (statistics.median(seconds[k]) for k in ("default", "paced"))
    print(f"median CPU: default {default:.2f} s, paced {paced:.2f} s, ratio {default / paced:.2f}")


if __name__ == "__main__":
    main()
