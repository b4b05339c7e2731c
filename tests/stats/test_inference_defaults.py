"""The inference settings' defaults and the interval a plain mean over cases takes.

An analysis run without settings must be the one run with seed 0 (the seed a stored run
without one was made with), and the ``percentile`` choice must reach the means over cases as
well as the excess intervals.
"""

from __future__ import annotations

import pytest

from modelscape.stats import Inference


def test_the_default_seed_is_zero() -> None:
    assert Inference().seed == 0
    assert Inference() == Inference(seed=0)
    assert Inference() != Inference(seed=1)


@pytest.mark.parametrize(
    ("interval", "mean_interval"),
    [("smoothed", "bca"), ("bca", "bca"), ("percentile", "percentile")],
)
def test_a_mean_over_cases_takes_bca_unless_percentile_is_asked(
    interval: str, mean_interval: str
) -> None:
    assert Inference(interval=interval).mean_interval == mean_interval  # type: ignore[arg-type]
