"""The settings records: defaults, validation and the boundary rule."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from modelscape.stats import BoundaryCriterion, Inference


def test_defaults() -> None:
    inference = Inference()
    assert (inference.resamples, inference.permutations) == (2000, 10000)
    assert (inference.confidence, inference.seed, inference.interval) == (0.95, 0, "smoothed")
    assert (BoundaryCriterion().alpha, BoundaryCriterion().min_excess) == (0.05, 0.0)


@pytest.mark.parametrize(
    "bad",
    [
        {"resamples": -1},
        {"permutations": -5},
        {"confidence": 1.0},
        {"confidence": 0.0},
        {"seed": -1},
        {"interval": "basic"},
        {"unknown": 1},
    ],
)
def test_inference_rejects_bad_settings(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Inference(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad", [{"alpha": 0.0}, {"alpha": 1.0}, {"min_excess": -0.1}, {"min_excess": float("nan")}]
)
def test_criterion_rejects_bad_settings(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        BoundaryCriterion(**bad)  # type: ignore[arg-type]


def test_settings_are_frozen() -> None:
    with pytest.raises(ValidationError):
        Inference().seed = 3  # type: ignore[misc]


def test_selects() -> None:
    criterion = BoundaryCriterion(alpha=0.05, min_excess=0.04)
    assert criterion.selects(0.01, 0.05)
    assert criterion.selects(0.05, 0.05)  # adjusted p at alpha qualifies
    assert not criterion.selects(0.051, 0.05)
    assert not criterion.selects(0.01, 0.04)  # excess must be larger than min_excess
    assert not criterion.selects(None, 1.0)  # untested
    assert not BoundaryCriterion().selects(0.0, 0.0)
    assert not BoundaryCriterion().selects(0.0, -0.1)
