"""Coverage of accuracy, missed change and excess in the families of issue 28.

Each trial runs C cases (6 or 12) with K answer values (2 or 4) and R repetitions (3 or 10)
per coordinate. A case's probability p of the correct answer comes from a family: Beta(½, ½)
("jeffreys": most cases near 0 or 1) or a point mass near one half ("near 0.5": p = 0.45);
a wrong answer is any other value, equally likely. Every quantity is checked against the
expectation over cases like these (a new sample of C cases from the same family), computed
once per setting from 400,000 cases; excess is also checked against the cases run.

- accuracy: three coordinates, the baseline and two with heterogeneous shifts of p
  (each case's own shift, uniform in ±0.3, kept in [0, 1]); the mean of correctness over
  every output, cases weighted equally. Floored interval against BCa alone.
- missed change: one step that moves the correct answer; at b, a case answers the new
  reference with p shifted by its own uniform(−0.3, 0.3), else any other value (the old
  reference among them). A quarter of outputs are unreadable. The pooled share of cross
  pairs of read answers that agree, with its floored interval, against BCa alone.
- excess: the same step under "answers differ" (no answer is a value of its own), with a
  heterogeneous shift; the smoothed interval against BCa.
"""

from __future__ import annotations

import argparse
import itertools
import warnings

import numpy as np

from modelscape.stats import Inference, StatisticsWarning, compare_many
from modelscape.stats.floored import floored_mean, floored_ratio

FAMILIES = ("jeffreys", "near 0.5")
CASES = (6, 12)
VALUES = (2, 4)
REPETITIONS = (3, 10)
SHIFT = 0.3
READ = 0.75
POPULATION = 400_000
TARGET = 0.925


def _probabilities(rng: np.random.Generator, family: str, size: tuple[int, ...]) -> np.ndarray:
    return rng.beta(0.5, 0.5, size) if family == "jeffreys" else np.full(size, 0.45)


def _shifted(rng: np.random.Generator, p: np.ndarray) -> np.ndarray:
    return np.clip(p + rng.uniform(-SHIFT, SHIFT, p.shape), 0.0, 1.0)


def _answers(rng: np.random.Generator, p: np.ndarray, right: int, k: int, r: int) -> np.ndarray:
    """Answers (..., r): ``right`` with probability p, else one of the other k − 1 values."""
    correct = rng.random((*p.shape, r)) < p[..., None]
    other = (right + 1 + rng.integers(0, k - 1, (*p.shape, r))) % k
    return np.where(correct, right, other)


def _same(p: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    """Chance that an answer at a (reference 0 w.p. p) equals one at b (reference 1 w.p. q)."""
    if k == 2:
        return p * (1 - q) + (1 - p) * q
    other = 1 / (k - 1)
    return p * (1 - q) * other + (1 - p) * other * q + (k - 2) * (1 - p) * other * (1 - q) * other


def _excess(p: np.ndarray, q: np.ndarray, k: int, read: float) -> np.ndarray:
    """Half the squared distance between the two answer distributions (no answer a value)."""
    other = 1 / (k - 1)
    a = [p, *[(1 - p) * other] * (k - 1)]
    b = [(1 - q) * other, q, *[(1 - q) * other] * (k - 2)]
    return 0.5 * read**2 * sum((x - y) ** 2 for x, y in zip(a, b, strict=True))


class Row:
    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        self.width: dict[str, float] = {}

    def add(self, name: str, low: float, high: float, truth: float) -> None:
        hit = low - 1e-12 <= truth <= high + 1e-12
        self.hits[name] = self.hits.get(name, 0) + int(hit)
        self.width[name] = self.width.get(name, 0.0) + high - low


def _simulate(
    rng: np.random.Generator, family: str, c: int, k: int, r: int, trials: int, resamples: int
) -> dict[str, Row]:
    population = _probabilities(rng, family, (POPULATION,))
    coords = [population, _shifted(rng, population), _shifted(rng, population)]
    accuracy_truth = float(np.mean(coords))
    moved = _shifted(rng, population)
    missed_truth = float(np.mean(_same(population, moved, k)))
    excess_truth = float(np.mean(_excess(population, moved, k, READ)))
    rows = {"accuracy": Row(), "missed": Row(), "excess": Row()}
    stacks, run_truth = [], []
    for _ in range(trials):
        p = _probabilities(rng, family, (c,))
        levels = np.stack([p, _shifted(rng, p), _shifted(rng, p)])  # (3, c)
        answers = _answers(rng, levels, 0, k, r)  # (3, c, r)
        per_case = (answers == 0).mean(axis=(0, 2))
        for name, floor in (("floored", True), ("bca", False)):
            interval = floored_mean(
                per_case, resamples=resamples, confidence=0.95, rng=rng, bounds=(0, 1), floor=floor
            )
            rows["accuracy"].add(name, interval.low, interval.high, accuracy_truth)
        q = _shifted(rng, p)
        at_a, at_b = _answers(rng, p, 0, k, r), _answers(rng, q, 1, k, r)
        at_a = np.where(rng.random(at_a.shape) < READ, at_a, -1)
        at_b = np.where(rng.random(at_b.shape) < READ, at_b, -1)
        both = (at_a[:, :, None] >= 0) & (at_b[:, None, :] >= 0)
        same = ((at_a[:, :, None] == at_b[:, None, :]) & both).sum(axis=(1, 2)).astype(float)
        pairs = both.sum(axis=(1, 2)).astype(float)
        keep = pairs > 0
        for name, floor in (("floored", True), ("bca", False)):
            interval = floored_ratio(
                same[keep],
                pairs[keep],
                resamples=resamples,
                confidence=0.95,
                rng=rng,
                bounds=(0, 1),
                floor=floor,
            )
            rows["missed"].add(name, interval.low, interval.high, missed_truth)
        joined = np.concatenate([at_a, at_b], axis=1)
        stacks.append((joined[:, :, None] != joined[:, None, :]).astype(np.float64))
        run_truth.append(float(np.mean(_excess(p, q, k, READ))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatisticsWarning)
        for method in ("smoothed", "bca"):
            settings = Inference(resamples=resamples, permutations=0, interval=method)  # type: ignore[arg-type]
            items = [
                (f"{family} {c} {k} {r} {t}", [(s, r) for s in stack])
                for t, stack in enumerate(stacks)
            ]
            for result, truth in zip(
                compare_many(items, inference=settings), run_truth, strict=True
            ):
                assert result.low is not None
                assert result.high is not None
                rows["excess"].add(method, result.low, result.high, excess_truth)
                rows["excess"].add(method + " run", result.low, result.high, truth)
    return rows


def families_table(arguments: argparse.Namespace) -> list[str]:
    """Print the table; return the cells more than two MC standard errors below the target."""
    rng = np.random.default_rng(arguments.seed + 2)
    trials = arguments.trials
    se = np.sqrt(0.95 * 0.05 / trials)
    print()
    print(
        f"issue 28 families: {trials} trials a row, MC se about {se:.3f}; truth: the expectation "
        f"over cases like these (excess also: the cases run); {READ:.0%} of outputs read for "
        "missed change and excess"
    )
    header = (
        f"{'family':<9} {'C':>2} {'K':>1} {'R':>2}  {'acc cover':>9} {'bca':>5} {'x':>4}  "
        f"{'missed':>6} {'bca':>5} {'x':>4}  {'excess':>6} {'run':>5} {'bca':>5} {'x':>4}"
    )
    print(header)
    print("-" * len(header))
    failures = []
    for family, c, k, r in itertools.product(FAMILIES, CASES, VALUES, REPETITIONS):
        rows = _simulate(rng, family, c, k, r, trials, arguments.resamples)

        def cover(row: Row, name: str) -> float:
            return row.hits[name] / trials

        def ratio(row: Row, name: str, base: str) -> float:
            return row.width[name] / row.width[base] if row.width[base] > 0 else float("inf")

        acc, missed, excess = rows["accuracy"], rows["missed"], rows["excess"]
        print(
            f"{family:<9} {c:>2} {k:>1} {r:>2}  {cover(acc, 'floored'):>9.3f} "
            f"{cover(acc, 'bca'):>5.3f} {ratio(acc, 'floored', 'bca'):>4.2f}  "
            f"{cover(missed, 'floored'):>6.3f} {cover(missed, 'bca'):>5.3f} "
            f"{ratio(missed, 'floored', 'bca'):>4.2f}  {cover(excess, 'smoothed'):>6.3f} "
            f"{cover(excess, 'smoothed run'):>5.3f} {cover(excess, 'bca run'):>5.3f} "
            f"{ratio(excess, 'smoothed', 'bca'):>4.2f}",
            flush=True,
        )
        for quantity, row, name in (
            ("accuracy", acc, "floored"),
            ("missed", missed, "floored"),
            ("excess", excess, "smoothed run"),
        ):
            value = cover(row, name)
            if value < TARGET - 2 * np.sqrt(TARGET * (1 - TARGET) / trials):
                failures.append(f"{quantity} {family} C{c} K{k} R{r} ({value:.3f})")
    return failures
