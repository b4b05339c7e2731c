"""What a page embeds for a divergence (the two targets its number compares) and how several
runs' evidence shares one page (every index moved, nothing lost)."""

from __future__ import annotations

from typing import Any

from modelscape.pages import ReportPage
from modelscape.pages.evidence import merge_data
from tests.pages.conftest import Run


def _members(runs: list[int]) -> list[int]:
    return [runs[i] + j for i in range(0, len(runs), 2) for j in range(runs[i + 1])]


def _divergence_cells(context: dict[str, Any]) -> list[Any]:
    return [
        row["excess"]
        for d in context["divergences"]
        for row in d["rows"]
        if row["excess"].evidence is not None
    ]


def test_a_divergence_names_its_two_targets_and_nothing_else_does(run: Run) -> None:
    context = ReportPage(run.report, run.results).context()
    evidence = context["evidence"]
    assert len(evidence["pairs"]) == len(evidence["sets"])
    cells = _divergence_cells(context)
    assert cells
    first, second = evidence["targets"].index("steady"), evidence["targets"].index("sycophant")
    for cell in cells:
        assert evidence["pairs"][cell.evidence] == [first, second]
        assert evidence["steps"][cell.evidence] is None
        # both targets answered on every prompt of the set: a side by side has two sides
        members = [evidence["observations"][m] for m in _members(evidence["sets"][cell.evidence])]
        by_variant: dict[int, set[int]] = {}
        for observation in members:
            by_variant.setdefault(observation["variant"], set()).add(observation["target"])
        assert set(map(frozenset, by_variant.values())) == {frozenset((first, second))}
    divergent = {cell.evidence for cell in cells}
    others = [i for i in range(len(evidence["sets"])) if i not in divergent]
    assert others
    assert all(evidence["pairs"][i] is None for i in others)


def test_merged_evidence_keeps_every_set_pair_and_step(run: Run, failing_run: Run) -> None:
    parts = [ReportPage(r.report, r.results).context()["evidence"] for r in (run, failing_run, run)]
    merged, offsets = merge_data(parts)
    assert offsets == [0, len(parts[0]["sets"]), len(parts[0]["sets"]) + len(parts[1]["sets"])]
    for name in ("sets", "steps", "pairs"):
        assert len(merged[name]) == sum(len(p[name]) for p in parts)
    for part, offset in zip(parts, offsets, strict=True):
        for index, runs in enumerate(part["sets"]):
            before = [part["observations"][m] for m in _members(runs)]
            after = [merged["observations"][m] for m in _members(merged["sets"][offset + index])]
            assert [o["id"] for o in after] == [o["id"] for o in before]
            assert [merged["targets"][o["target"]] for o in after] == [
                part["targets"][o["target"]] for o in before
            ]
            assert [merged["variants"][o["variant"]]["id"] for o in after] == [
                part["variants"][o["variant"]]["id"] for o in before
            ]
            assert merged["steps"][offset + index] == part["steps"][index]
            pair = part["pairs"][index]
            moved = merged["pairs"][offset + index]
            if pair is None:
                assert moved is None
            else:
                assert [merged["targets"][t] for t in moved] == [part["targets"][t] for t in pair]
