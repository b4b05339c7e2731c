"""How checking and describing a scenario grows with the number of values of one axis.

A spec with one numeric slot filled by a range of N values is loaded, turned into its scenario
(every variant generated and checked) and described, for N from 1,000 up to 10,000, the most a
slot takes. Each size is timed in the same run, and the script prints each time against the
smallest size's: checks that compare every value with every other grow as N², so 10,000 values
would take about 100× the time of 1,000; linear checks take about 10×.

    python benchmarks/lexicon_scale.py [--sizes 1000 2500 5000 10000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

from modelscape.specs import Spec

SPEC = """name: scale
prompt: "Is {n} a prime number?"
slots:
  n: {start: 1, stop: STOP, step: 1}
vary:
  n: numeric
answer: {pattern: '(yes|no)', choices: [yes, no], correct: no}
"""


def describe_seconds(size: int, repeats: int) -> float:
    """The fastest of ``repeats`` timings of parsing, building and describing the spec."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        Spec.parse(SPEC.replace("STOP", str(size))).scenario().describe()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2500, 5000, 10000])
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    sizes = sorted(options.sizes)
    times = {size: describe_seconds(size, options.repeats) for size in sizes}
    first = sizes[0]
    print(f"{'values':>8}  {'seconds':>8}  {'time ratio':>10}  {'size ratio':>10}  quadratic")
    for size in sizes:
        growth = size / first
        print(
            f"{size:>8}  {times[size]:>8.3f}  {times[size] / times[first]:>10.1f}  "
            f"{growth:>10.1f}  {growth**2:>9.1f}"
        )


if __name__ == "__main__":
    main()
