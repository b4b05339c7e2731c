"""The leaderboard says, beside 0 invariant shifts and 0 departures, what the tests could find."""

from __future__ import annotations

import re
from pathlib import Path

from tests.pages.parsing import inline_notes, parse


def test_the_leaderboard_gives_the_power_beside_every_zero(built: Path) -> None:
    text = parse(inline_notes((built / "index.html").read_text(encoding="utf-8"))).text
    clauses = re.findall(
        r"(\d+) \(could detect an excess of (0\.\d\d) or more with 80% power\)", text
    )
    assert clauses, text[:2000]
    assert {count for count, _ in clauses} == {"0"}
    assert all(0 < float(excess) < 1 for _, excess in clauses)
