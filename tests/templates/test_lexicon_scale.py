"""Large lexicons and ranges: checked in linear time, capped at 10,000 values, clear errors.

A legal 10,000-value range used to take minutes to describe (every label compared with every
other); ``benchmarks/lexicon_scale.py`` prints how the time grows with the size. Here the
behaviour that the faster checks must keep is pinned down.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from modelscape.errors import SpecError, TaskSpaceError, TemplateError
from modelscape.specs import Range, Spec
from modelscape.task.space import Axis
from modelscape.templates.lexicon import MAX_ENTRIES, Lexicon

SPEC = """name: big
prompt: "Is {n} a prime number?"
slots:
  n: SLOT
vary:
  n: numeric
answer: {pattern: '(yes|no)', choices: [yes, no], correct: no}
"""


def test_a_lexicon_of_the_largest_size_is_checked_and_indexed() -> None:
    lexicon = Lexicon.of(list(range(MAX_ENTRIES)))
    assert len(lexicon) == MAX_ENTRIES == 10_000
    assert lexicon.entry(9_999).text == "9999"
    assert lexicon.entry(5.0).label == 5  # numbers compare as numbers
    with pytest.raises(TemplateError, match="no entry labelled True"):
        lexicon.entry(True)  # a boolean is not the number 1


def test_a_lexicon_above_the_cap_is_refused() -> None:
    with pytest.raises(TemplateError, match="a lexicon holds at most 10,000 entries, not 10,001"):
        Lexicon.of(list(range(MAX_ENTRIES + 1)))


def test_duplicates_are_found_wherever_they_are() -> None:
    values: list[object] = list(range(MAX_ENTRIES - 1))
    with pytest.raises(TemplateError, match=r"label 17 appears twice \(entries 17 and 9999\)"):
        Lexicon.of([*values, 17])
    with pytest.raises(TemplateError, match=r"label 3.0 appears twice \(entries 3 and 9999\)"):
        Lexicon.of([*values, 3.0])
    texts = [f"v{i}" for i in range(5)]
    assert Lexicon.of([*texts, "V0"]).labels[-1] == "V0"  # labels are case-sensitive


def test_property_values_and_swaps_on_a_large_lexicon() -> None:
    rows = [{"label": f"n{i}", "parity": i % 2, "tens": i // 10} for i in range(2_000)]
    lexicon = Lexicon.of(rows)
    assert lexicon.values("parity") == (0, 1)
    assert len(lexicon.values("tens")) == 200
    swapped = lexicon.swap(lexicon.entry("n42"), "parity", 1)
    assert swapped.label == "n43"  # same tens, same rank among them
    assert lexicon.swap(lexicon.entry("n42"), "tens", 7).label == "n72"


def test_axes_index_their_values() -> None:
    axis = Axis("n", range(MAX_ENTRIES), object(), scale="numeric")  # type: ignore[arg-type]
    assert axis.index(9_999) == 9_999
    with pytest.raises(TaskSpaceError, match=r"has no value 3\.0; its values are 0, 1, 2, ") as e:
        axis.index(3.0)  # an axis compares by type too: 3.0 is not the value 3
    assert len(str(e.value)) < 200  # not every one of 10,000 values
    with pytest.raises(TaskSpaceError, match="has no value"):
        axis.index([1])
    with pytest.raises(TaskSpaceError, match="value 3 appears twice"):
        Axis("n", [1, 2, 3, 3], object(), scale="ordinal")  # type: ignore[arg-type]


def test_a_range_of_ten_thousand_values_describes() -> None:
    spec = Spec.parse(SPEC.replace("SLOT", "{start: 1, stop: 10000, step: 1}"))
    scenario = spec.scenario()
    assert len(scenario.task_space.axis("n").values) == 10_000
    assert "variants   10000" in scenario.describe()


@pytest.mark.parametrize(
    ("slot", "message"),
    [
        ("{start: 0, stop: 10000, step: 1}", "a range of more than 10,000 values"),
        ("{start: 0, stop: 1, step: 0.00001}", "a range of more than 10,000 values"),
        ("{start: 0, stop: .inf, step: 1}", "a range needs a finite stop, not inf"),
        ("{start: .nan, stop: 1, step: 1}", "a range needs a finite start, not nan"),
        ("[" + ", ".join(str(i) for i in range(10_001)) + "]", "a list of more than 10,000"),
    ],
)
def test_too_many_values_are_a_clear_error(slot: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        Spec.parse(SPEC.replace("SLOT", slot))


def test_range_bounds_are_checked() -> None:
    with pytest.raises(SpecError, match="a finite step"):
        Range(start=0, stop=1, step=float("inf"))
    assert len(Range(start=1, stop=10_000, step=1).numbers()) == 10_000


def test_a_large_lexicon_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "numbers.yaml"
    path.write_text("".join(f"- {{label: n{i}, text: 'number {i}'}}\n" for i in range(10_000)))
    assert len(Lexicon.load(path)) == 10_000
