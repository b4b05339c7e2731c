"""Start-up of the command line: how long help and the version take, next to a bare interpreter.

Every case is a fresh process, timed from its start to its exit; the cases take turns within
each repetition (so that a busy machine slows them all alike), and each case's median is
printed in seconds and as a multiple of ``python -c pass``. The last row imports what the help
must not (numpy, scipy, pydantic, jinja2), to show what it costs.

    python benchmarks/cli_startup.py [--repetitions 15] [--checkout PATH]

``--checkout`` times the modelscape of another tree (default: this one), as ``python -m
modelscape`` run with that tree first on the path.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: Each case: its label, and the arguments given to the interpreter.
CASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("python -c pass", ("-c", "pass")),
    ("python -c 'import modelscape'", ("-c", "import modelscape")),
    ("modelscape --help", ("-m", "modelscape", "--help")),
    ("modelscape --version", ("-m", "modelscape", "--version")),
    ("modelscape run --help", ("-m", "modelscape", "run", "--help")),
    ("modelscape describe --help", ("-m", "modelscape", "describe", "--help")),
    ("modelscape report --help", ("-m", "modelscape", "report", "--help")),
    ("modelscape build --help", ("-m", "modelscape", "build", "--help")),
    (
        "import numpy, scipy.stats, pydantic, jinja2",
        ("-c", "import numpy, scipy.stats, pydantic, jinja2"),
    ),
)


def _time(arguments: tuple[str, ...], checkout: Path) -> float:
    """Seconds from starting ``python ARGUMENTS`` in ``checkout`` to its exit."""
    # Run in the tree: `python -m` and `-c` put the working folder first on the path.
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *arguments], cwd=checkout, env=env, check=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=15)
    parser.add_argument(
        "--checkout",
        type=Path,
        default=Path(__file__).resolve().parents[1],
        help="The tree whose modelscape is timed (default: this one).",
    )
    options = parser.parse_args()
    checkout = options.checkout.resolve()
    imported = subprocess.run(
        [sys.executable, "-c", "import modelscape; print(modelscape.__file__)"],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not Path(imported).is_relative_to(checkout):
        raise SystemExit(f"modelscape is imported from {imported}, not from {checkout}")
    for _, arguments in CASES:  # once untimed: the first start fills the file cache
        _time(arguments, checkout)
    times: dict[str, list[float]] = {label: [] for label, _ in CASES}
    for _ in range(options.repetitions):
        for label, arguments in CASES:
            times[label].append(_time(arguments, checkout))
    medians = {label: statistics.median(values) for label, values in times.items()}
    bare = medians[CASES[0][0]]
    print(f"modelscape of {checkout}, python {sys.version.split()[0]}")
    print(f"median of {options.repetitions} alternating runs per case")
    width = max(len(label) for label in medians)
    print(f"{'case':<{width}}  {'seconds':>8}  {'x python -c pass':>16}")
    for label, median in medians.items():
        print(f"{label:<{width}}  {median:>8.3f}  {median / bare:>16.1f}")


if __name__ == "__main__":
    main()
