"""Text measures: checked against independent implementations (a plain Wagner-Fischer table,
scipy's Jaccard and cosine distances), for the properties of a distance under Hypothesis, on
hostile texts, and as difference measures of a real run's profiles and scorecards."""

from __future__ import annotations

import asyncio
import itertools
import math
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial import distance as scipy_distance

from modelscape.errors import ExecutionError, SpecError
from modelscape.execution.runner import Runner
from modelscape.measures import Response
from modelscape.specs import Spec
from modelscape.targets._resolve import resolve_target
from modelscape.targets.protocol import TargetOutput
from modelscape.text_measures import (
    EDIT_LIMIT,
    edit_difference,
    edit_distance,
    embedding_difference,
    jaccard_difference,
    levenshtein,
    token_jaccard,
    tokens,
)
from tests.support import embedders
from tests.support.mapping_space import space

#: Every code point, lone surrogates, right-to-left marks and combining characters included.
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=24)
#: Few letters, so that texts share a lot and the distances take many values.
SMALL_TEXT = st.text(st.sampled_from("ab c\u0301\u05d0"), max_size=10)
WORDY_TEXT = st.lists(
    st.sampled_from(["yes", "No", "maybe", "NO", "ja", "نعم", "_"]), max_size=6
).map(" ".join)


def table_levenshtein(first: str, second: str) -> int:
    """The textbook dynamic programme, cell by cell (Wagner and Fischer, 1974)."""
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, start=1):
        current = [i]
        for j, b in enumerate(second, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


@given(ANY_TEXT, ANY_TEXT)
def test_levenshtein_equals_the_textbook_table(first: str, second: str) -> None:
    assert levenshtein(first, second) == table_levenshtein(first, second)


@given(SMALL_TEXT, SMALL_TEXT)
def test_edit_distance_is_the_yujian_bo_normalisation(first: str, second: str) -> None:
    a, b = unicodedata.normalize("NFC", first), unicodedata.normalize("NFC", second)
    edits = table_levenshtein(a, b)
    expected = 0.0 if edits == 0 else 2 * edits / (len(a) + len(b) + edits)
    assert edit_distance(first, second) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("measure", [edit_distance, token_jaccard])
@given(first=ANY_TEXT, second=ANY_TEXT)
def test_a_distance_is_symmetric_in_range_and_zero_on_itself(
    measure: object, first: str, second: str
) -> None:
    assert callable(measure)
    there, back = measure(first, second), measure(second, first)
    assert there == back
    assert 0.0 <= there <= 1.0
    assert measure(first, first) == 0.0


@given(SMALL_TEXT, SMALL_TEXT)
def test_edit_distance_is_zero_only_on_equal_texts(first: str, second: str) -> None:
    same = unicodedata.normalize("NFC", first) == unicodedata.normalize("NFC", second)
    assert (edit_distance(first, second) == 0.0) == same


@pytest.mark.parametrize("measure", [edit_distance, token_jaccard])
@given(first=SMALL_TEXT | WORDY_TEXT, second=SMALL_TEXT | WORDY_TEXT, third=SMALL_TEXT | WORDY_TEXT)
def test_the_triangle_inequality_holds(
    measure: object, first: str, second: str, third: str
) -> None:
    assert callable(measure)
    assert measure(first, third) <= measure(first, second) + measure(second, third) + 1e-12


def test_dividing_by_the_longer_text_would_not_be_a_metric() -> None:
    # why edit_distance normalises as Yujian and Bo do: L / max(|a|, |b|) gives ab -> ba a
    # distance of 1 but ab -> aba -> ba only 1/3 + 1/3
    def by_longer(a: str, b: str) -> float:
        return table_levenshtein(a, b) / max(len(a), len(b))

    assert by_longer("ab", "ba") > by_longer("ab", "aba") + by_longer("aba", "ba")
    assert edit_distance("ab", "ba") <= edit_distance("ab", "aba") + edit_distance("aba", "ba")


@given(WORDY_TEXT, WORDY_TEXT)
def test_token_jaccard_equals_scipys_on_word_indicator_vectors(first: str, second: str) -> None:
    words = sorted(tokens(first) | tokens(second))
    if not words:
        assert token_jaccard(first, second) == 0.0
        return
    u = np.array([w in tokens(first) for w in words])
    v = np.array([w in tokens(second) for w in words])
    assert token_jaccard(first, second) == pytest.approx(scipy_distance.jaccard(u, v))


def test_tokens_are_case_folded_words_of_any_script() -> None:
    assert tokens("Yes, YES! straße STRASSE نعم_1 ") == {"yes", "strasse", "نعم_1"}
    assert token_jaccard("", "") == 0.0
    assert token_jaccard("yes", "") == 1.0
    assert token_jaccard("The answer is yes", "the ANSWER: no") == pytest.approx(1 - 2 / 5)


def test_hostile_texts_are_compared_within_the_limit() -> None:
    rtl = "\u202e\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 "
    lone = "\ud800\udfff\udc00"
    huge_first = (rtl + lone + "a\u0301") * 200_000
    huge_second = (lone + rtl + "b") * 300_000
    # beyond the limit nothing is read: the distance is that of the first EDIT_LIMIT code points
    cut_first = unicodedata.normalize("NFC", huge_first[: 4 * EDIT_LIMIT])[:EDIT_LIMIT]
    cut_second = unicodedata.normalize("NFC", huge_second[: 4 * EDIT_LIMIT])[:EDIT_LIMIT]
    expected = edit_distance(cut_first, cut_second, limit=10 * EDIT_LIMIT)
    assert edit_distance(huge_first, huge_second) == expected
    assert 0.0 < expected <= 1.0
    assert edit_distance(huge_first, huge_first + "tail") == 0.0  # differs only past the limit
    assert 0.0 <= token_jaccard(huge_first, huge_second) <= 1.0
    # a lone surrogate is a code point of its own, unequal to the replacement character: three
    # substitutions between texts of three, which this normalisation puts at 2·3 / (3 + 3 + 3)
    assert edit_distance(lone, "\ufffd\ufffd\ufffd") == pytest.approx(2 / 3)


def _response(text: str) -> Response:
    return Response(space().variant("case0"), TargetOutput(text=text))


def test_measures_compare_the_texts_of_replies() -> None:
    yes, no = _response("Yes, it is."), _response("No, it is not.")
    edit = edit_difference()
    assert asyncio.run(edit.compare(yes, no)) == edit_distance("Yes, it is.", "No, it is not.")
    assert edit.identity.parameters["limit"] == EDIT_LIMIT
    jaccard = jaccard_difference(limit=50)
    assert asyncio.run(jaccard.compare(yes, no)) == pytest.approx(1 - 2 / 5)  # {it, is} of 5
    assert jaccard.identity.parameters["limit"] == 50
    with pytest.raises(ExecutionError, match="at least 1, not 0"):
        edit_difference(limit=0)


def test_the_embedding_distance_is_the_scaled_cosine_distance() -> None:
    measure = embedding_difference("python:tests.support.embedders:letters")
    assert measure.distance == "euclidean"
    first, second = "a decided yes", "no, not at all"
    keys = [asyncio.run(measure.key_of(_response(text))) for text in (first, second)]
    found = float(np.linalg.norm(np.array(keys[0]) - np.array(keys[1])))
    u, v = embedders.letters([first, second])
    assert found == pytest.approx(math.sqrt(scipy_distance.cosine(u, v) / 2))
    same = asyncio.run(measure.key_of(_response("yes decided a")))
    assert np.allclose(same, keys[0])  # same letters, same direction
    assert measure.identity.parameters["embedder"] == "python:tests.support.embedders:letters"
    passed = embedding_difference(embedders.letters, version="2")
    assert passed.identity.parameters["embedder"] == "python:tests.support.embedders:letters"
    assert passed.identity.parameters["embedder_version"] == "2"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nothing", "returned the zero vector"),
        ("not_a_number", "NaN or infinite"),
        ("matrix", r"returned an array of shape \(1, 2, 2\)"),
        ("broken", r"failed: RuntimeError\('the embedding model is not loaded'\)"),
        ("NOT_A_FUNCTION", "names a int, not a function"),
        ("missing", "has no 'missing'"),
    ],
)
def test_a_misbehaving_embedder_is_named_in_a_clear_error(name: str, message: str) -> None:
    measure = embedding_difference(f"python:tests.support.embedders:{name}")
    with pytest.raises(ExecutionError, match=message):
        asyncio.run(measure.key_of(_response("yes")))


def test_an_embedder_error_quoting_a_huge_reply_is_shortened() -> None:
    measure = embedding_difference("python:tests.support.embedders:quoting")
    with pytest.raises(ExecutionError) as raised:
        asyncio.run(measure.key_of(_response("spam " * 100_000)))
    message = str(raised.value)
    assert message.startswith("embedder python:tests.support.embedders:quoting failed: ValueError(")
    assert len(message) < 500
    assert "characters)" in message


SPEC = """\
name: free-text
prompt: |-
  {tone}
  Is {number} a prime number?
slots:
  tone: tones
  number: [2, 3, 4, 5]
vary:
  tone: nominal
answer:
  pattern: '\\b(yes|no)\\b'
  choices: [yes, no]
  correct:
    number: {2: yes, 3: yes, 4: no, 5: yes}
measures: [edit_distance, token_jaccard, 'embedding:tests.support.embedders:letters']
repetitions: 3
"""


def test_text_measures_of_a_spec_drive_profiles_and_scorecards(tmp_path: Path) -> None:
    spec = Spec.parse(SPEC)
    assert Spec.parse(spec.dump()) == spec
    scenario = spec.scenario()
    target = resolve_target("random:yes it is,no it is not,no")
    results = Runner().run(scenario.experiment([target]))
    for measure in ("edit_distance", "token_jaccard", "embedding_distance"):
        profile = results.profile("tone", measure)
        assert len(profile.baseline) == len(scenario.task_space.axes[0].values)
        card = results.scorecard("correct", measure)
        assert card.accuracy is not None
    (agreement,) = results.agreement(["answer_change", "token_jaccard"])
    assert agreement.rank_correlation is None or -1.0 <= agreement.rank_correlation <= 1.0
    # one transition recomputed by hand from the stored outputs (STATS.md's excess)
    (transition,) = results.profile("tone", "edit_distance").baseline[1:2]
    per_case = []
    for case in scenario.task_space.cases:
        before = [o.output.text for o in results.select(case=case, coordinate=transition.first)]
        after = [o.output.text for o in results.select(case=case, coordinate=transition.second)]
        between = np.mean([edit_distance(a, b) for a in before for b in after])
        within = [
            np.mean([edit_distance(a, b) for a, b in itertools.combinations(side, 2)])
            for side in (before, after)
        ]
        per_case.append(between - (within[0] + within[1]) / 2)
    assert transition.excess == pytest.approx(float(np.mean(per_case)))


def test_a_spec_names_each_measure_once_and_only_known_ones() -> None:
    wrong = SPEC.replace(
        "measures: [edit_distance, token_jaccard, 'embedding:tests.support.embedders:letters']",
        "measures: [edit_distanse, 'embedding:./embed.py:f', edit_distance, edit_distance, 3]",
    )
    with pytest.raises(SpecError) as raised:
        Spec.parse(wrong)
    assert raised.value.problems == (
        "measures[0]: unknown text measure 'edit_distanse' (did you mean 'edit_distance'?); "
        "use edit_distance, token_jaccard, embedding:MODULE:FUNCTION",
        "measures[1]: unknown text measure 'embedding:./embed.py:f'; use edit_distance, "
        "token_jaccard, embedding:MODULE:FUNCTION",
        "measures[3]: edit_distance is listed twice; list each measure once",
        "measures[4]: a measure is named by a text, not 3",
    )
    with pytest.raises(SpecError, match="measures: must be a list of text measures"):
        Spec.parse(SPEC.replace("measures: [", "measures: {a: ").replace("letters']", "letters'}"))
