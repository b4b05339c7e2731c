"""The scenarios shipped in Python: their variants, answers, roles and reference runs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from modelscape.scenario import Scenario
from modelscape.scenarios import arithmetic, conditioning, evidence

RUNS = Path(__file__).resolve().parents[2] / "content" / "runs"


def variants(scenario: Scenario) -> list[Any]:
    return list(scenario.variants())


def roles(scenario: Scenario) -> dict[str, str]:
    """Each axis's role as ``describe`` states it."""
    found = {}
    for line in scenario.describe().splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[2] in ("causal", "invariant"):
            found[parts[0]] = parts[2]
    return found


def test_arithmetic_answers_are_the_story_computed_by_hand() -> None:
    # Each story's sum written out again, from the numbers the prompt shows.
    by_hand = {
        "shells": lambda a, b, c, extra: a + b - (c if extra else 0),
        "pages": lambda a, b, c, extra: a * b + (c if extra else 0),
        "savings": lambda a, b, c, extra: a - b - (c if extra else 0),
        "tulips": lambda a, b, c, extra: a * b - (c if extra else 0),
    }
    seen = variants(arithmetic.SCENARIO)
    assert len(seen) == 8 * 11
    for variant in seen:
        text = variant.prompt.messages[-1].content
        sentences = re.split(r"(?<=[.?]) ", text)
        irrelevant = [x for x in sentences if re.search("stripes|cover|closes|gate", x)]
        assert len(irrelevant) == (variant.coordinate["noise"] != "none"), text
        told = " ".join(x for x in sentences if x not in irrelevant)
        numbers = [int(n) for n in re.findall(r"\b\d+\b", told)]
        story = variant.case.rsplit("-", 1)[0]
        extra = variant.coordinate["steps"] == 3
        assert len(numbers) == 2 + extra, text
        a, b = numbers[0], numbers[1]
        c = numbers[2] if extra else 0
        assert variant.reference == by_hand[story](a, b, c, extra), text
        assert variant.coordinate["amount"] == a
        assert variant.coordinate["who"] in text


def test_arithmetic_axes_have_the_roles_of_the_design() -> None:
    assert roles(arithmetic.SCENARIO) == {
        "who": "invariant", "amount": "causal", "noise": "invariant", "steps": "causal",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"story": "none"}, "no story"),
        ({"a": 0}, "positive whole number"),
        ({"story": "savings", "a": 2, "b": 5}, "ends below 0"),
    ],
)
def test_an_impossible_word_problem_is_refused(fields: dict[str, Any], message: str) -> None:
    base = {"story": "shells", "name": "Ann", "a": 6, "b": 3, "c": 2, **fields}
    with pytest.raises(ValidationError, match=message):
        arithmetic.WordProblem(**base)


def test_evidence_sides_with_the_larger_count_on_the_whole_grid() -> None:
    seen = variants(evidence.SCENARIO)
    assert len(seen) == 6 * 4 * 3
    for variant in seen:
        lead, rival = variant.coordinate["leading"], variant.coordinate["rival"]
        assert variant.reference == ("A" if lead > rival else "B")
        text = variant.prompt.messages[-1].content
        assert text.index(f"{lead} ") < text.index(f"{rival} ")  # the leading side told first
    assert roles(evidence.SCENARIO) == {"leading": "causal", "rival": "causal"}
    with pytest.raises(ValidationError, match="never have as many"):
        evidence.Weighing(case="drug-trial", leading_count=3, rival_count=3)


def test_conditioning_asks_each_question_in_its_language_and_asker() -> None:
    seen = variants(conditioning.SCENARIO)
    assert len(seen) == 10 * 7
    for variant in seen:
        where = conditioning.LANGUAGES.index(variant.coordinate["asked_in"])
        text = variant.prompt.messages[-1].content
        assert text.endswith(conditioning.QUESTIONS[variant.case][where])
        assert text.startswith(conditioning.REQUESTERS[variant.coordinate["requester"]][where])
        assert variant.reference == "answer"
    groups = conditioning.SCENARIO.groups
    assert set(groups["sensitive"]) | set(groups["control"]) == set(conditioning.QUESTIONS)
    assert not set(groups["sensitive"]) & set(groups["control"])
    assert roles(conditioning.SCENARIO) == {"asked_in": "invariant", "requester": "invariant"}


def test_every_translation_differs_from_the_english() -> None:
    for table in (conditioning.QUESTIONS, conditioning.REQUESTERS):
        for key, texts in table.items():
            if key != "nobody":
                assert len(set(texts)) == 4, key


def report(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((RUNS / name / "report.json").read_text())
    return loaded


def boundaries(data: dict[str, Any], target: str) -> set[str]:
    """The candidate boundaries of a target's profiles, as ``axis:value after the step``."""
    return {
        f"{b['axis']}:{b['after']}"
        for profile in data["profiles"]
        if profile["target"] == target
        for b in profile["candidate_boundaries"]
    }


def test_the_reference_runs_find_each_planted_flaw() -> None:
    found = boundaries(report("arithmetic-reference"), "distracted")
    assert "noise:irrelevant sentence" in found
    assert "noise:irrelevant sentence" not in boundaries(report("arithmetic-reference"), "oracle")
    wary = boundaries(report("conditioning-reference"), "wary")
    assert wary == {"asked_in:Spanish", "asked_in:French", "asked_in:German"}
    assert not boundaries(report("conditioning-reference"), "oracle")
    cards = {
        (c["target"], c["group"]): c["accuracy"] for c in report("evidence-reference")["scorecards"]
    }
    assert cards[("oracle", "all")] > 0.9
    assert cards[("first-told", "all")] == pytest.approx(0.5, abs=0.05)
