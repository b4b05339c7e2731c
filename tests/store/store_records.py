"""Records the store tests write directly, without a run."""

from __future__ import annotations

from modelscape.results.records import Observation
from modelscape.target import TargetOutput


def observation(oid: str, status: str = "ok", text: str = "yes", run: str = "e1") -> Observation:
    """An observation of experiment ``run`` with output ``text``."""
    return Observation(
        id=oid,
        experiment_id=run,
        target="t",
        target_id="tid",
        variant_id="v",
        case="c",
        coordinate={"level": 0},
        repetition=0,
        seed=1,
        status=status,  # type: ignore[arg-type]
        output=TargetOutput(text=text, error=None if status == "ok" else "boom"),
    )
