"""The score table of scripts/mutation.py: killed over the mutants that could be killed.

The mutants are a sample of each package's, so each share comes with its 95% Wilson score
interval: the range of true kill rates the sample is consistent with. A mutant no test
executes, and one whose run could not be made (an error), count as survivors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Protocol


class Scored(Protocol):
    @property
    def package(self) -> str: ...

    @property
    def id(self) -> str: ...


#: What became of a mutant that ran (or could not).
KILLED = "killed"
SURVIVED = "survived"
UNREACHED = "unreached"
ERROR = "error"


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a binomial share (95% for the default z)."""
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    scale = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / scale
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def _row(name: str, counts: Sequence[int]) -> str:
    drawn, equivalent, killed, survived, unreached, error = counts
    scored = drawn - equivalent
    if scored:
        low, high = wilson(killed, scored)
        share = f"{killed / scored:6.1%}  [{low:.0%}, {high:.0%}]"
    else:
        share = "—"
    return (
        f"{name:<10} {drawn:>5} {equivalent:>6} {killed:>6} {survived:>8} {unreached:>9}"
        f" {error:>5}  {share}"
    )


def print_scores(
    packages: Sequence[str],
    mutants: Sequence[Scored],
    outcomes: Mapping[str, str],
    equivalent: Mapping[str, str],
) -> None:
    """Print the table per package and overall, then the survivors and the equivalents."""
    print()
    header = (
        f"{'package':<10} {'drawn':>5} {'equiv':>6} {'killed':>6} {'survived':>8}"
        f" {'unreached':>9} {'error':>5}  score  [95% interval]"
    )
    print(header)
    print("-" * len(header))
    totals = [0] * 6
    for package in packages:
        mine = [m for m in mutants if m.package == package]
        fates = [outcomes.get(m.id) for m in mine]
        counts = [
            len(mine),
            sum(1 for m in mine if m.id in equivalent),
            fates.count(KILLED),
            fates.count(SURVIVED),
            fates.count(UNREACHED),
            fates.count(ERROR),
        ]
        print(_row(package, counts))
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
    print(_row("overall", totals))
    titles = {SURVIVED: "surviving", UNREACHED: "executed by no test", ERROR: "error"}
    for fate, title in titles.items():
        chosen = [m for m in mutants if outcomes.get(m.id) == fate]
        if chosen:
            print(f"\n{title} mutants:")
            for mutant in chosen:
                print(f"  {mutant.id}")
    used = [m for m in mutants if m.id in equivalent]
    if used:
        print("\nleft out as equivalent:")
        for mutant in used:
            print(f"  {mutant.id}: {equivalent[mutant.id]}")
