"""A shipped spec cut down for the real-model tests: the same prompt, answer and axes, fewer
variants, so a test asks a small model tens of questions instead of hundreds."""

from __future__ import annotations

from pathlib import Path

import yaml

from modelscape.specs import shipped_path

#: Items kept of return-window's six, and its days: both sides of the day the answer flips.
ITEMS = 3
DAYS = {"start": 26, "stop": 34, "step": 2}
#: Variants of the cut-down spec: items by days.
VARIANTS = ITEMS * len(range(DAYS["start"], DAYS["stop"] + 1, DAYS["step"]))


def small_return_window(folder: Path) -> Path:
    """Write return-window with :data:`ITEMS` items and the days in :data:`DAYS` into
    ``folder``; return the file."""
    spec = yaml.safe_load(shipped_path("return-window").read_text(encoding="utf-8"))
    spec["slots"]["item"] = spec["slots"]["item"][:ITEMS]
    spec["slots"]["days"] = DAYS
    correct = spec["answer"]["correct"]["days"]
    kept = range(DAYS["start"], DAYS["stop"] + 1, DAYS["step"])
    spec["answer"]["correct"]["days"] = {day: correct[day] for day in kept}
    path = folder / "return-window.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path
