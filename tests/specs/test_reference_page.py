"""The spec reference page (content/pages/spec-reference.md) cannot go stale: every YAML
example on it is read, built and round-tripped, and its table of keys is the Spec model's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from modelscape.execution.runner import Runner
from modelscape.specs import Spec
from modelscape.store import MemoryStore
from modelscape.targets._oracle import OracleTarget
from modelscape.targets.protocol import TargetOutput

PAGE = Path(__file__).parents[2] / "content" / "pages" / "spec-reference.md"
TEXT = PAGE.read_text(encoding="utf-8")
EXAMPLES = re.findall(r"^```yaml\n(.*?)^```$", TEXT, flags=re.MULTILINE | re.DOTALL)


def test_the_page_has_its_examples() -> None:
    # one per section that shows a spec: a first spec, braces, slots, vary, prompt versions,
    # a table of answers, groups, multiple choice, the order of its options, text measures
    assert len(EXAMPLES) == 10
    assert TEXT.count("```yaml") == len(EXAMPLES)  # none missed by the pattern


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda text: text.split("\n")[0])
def test_every_example_is_a_valid_spec_that_builds(example: str) -> None:
    spec = Spec.parse(example)
    scenario = spec.scenario()  # generates and checks every variant, and every correct answer
    variants = list(scenario.variants())
    assert variants
    assert Spec.parse(spec.dump()) == spec
    if spec.answer.correct is not None:
        assert all(variant.reference is not None for variant in variants)


def test_the_table_of_keys_lists_every_key_of_a_spec_in_order() -> None:
    table = re.search(r"^\| Key \|.*?\n\n", TEXT, flags=re.MULTILINE | re.DOTALL)
    assert table is not None
    keys = re.findall(r"^\| `(\w+)` \|", table.group(0), flags=re.MULTILINE)
    assert keys == list(Spec.model_fields)
    for key, field in Spec.model_fields.items():
        row = next(line for line in table.group(0).splitlines() if line.startswith(f"| `{key}`"))
        assert ("| yes |" in row) == field.is_required(), key


def test_examples_show_every_slot_form_and_every_correct_form() -> None:
    specs = [Spec.parse(example) for example in EXAMPLES]
    raw = "\n".join(EXAMPLES)
    assert "tone: tones" in raw  # a shipped lexicon by name
    assert "{start: 2, stop: 9, step: 1}" in raw  # a range
    assert "name: [Ada, Grace]" in raw  # a list of values
    assert any(isinstance(s.prompt, dict) for s in specs)  # prompt versions
    corrects = [s.answer.correct for s in specs if s.answer.correct is not None]
    assert any(isinstance(c, str) for c in corrects)
    assert any(isinstance(c, dict) for c in corrects)
    assert any(isinstance(c, tuple) for c in corrects)
    assert any(s.answer.field for s in specs)
    assert any(s.answer.pattern for s in specs)
    assert any(s.measures for s in specs)
    assert any(s.groups for s in specs)


def _worked_example() -> tuple[str, str]:
    """The option-order example's YAML and the prose after it, up to the next section."""
    section = TEXT.split("### Worked example: the order of the options", 1)[1]
    section = section.split("\n## ", 1)[0]
    (example,) = re.findall(r"^```yaml\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    return example, section.split("```", 2)[2]


def test_the_option_order_example_makes_the_counts_it_states() -> None:
    example, prose = _worked_example()
    scenario = Spec.parse(example).scenario()
    cases = len(scenario.task_space.cases)
    variants = len(list(scenario.variants()))
    calls = scenario.calls_per_target()
    assert (cases, variants, calls) == (4, 8, 40)
    stated = re.search(
        r"\*\*(\d+) cases\*\*.*?\*\*(\d+) variants\*\*.*?\*\*(\d+) calls per target\*\*",
        prose,
        flags=re.DOTALL,
    )
    assert stated is not None
    assert tuple(int(n) for n in stated.groups()) == (cases, variants, calls)
    # the order should not matter: the correct answer is the same in both orders
    assert scenario.roles() == {"order": "invariant"}
    # and the reversal moves every right option to another letter
    letters: dict[str, set[str]] = {}
    for variant in scenario.variants():
        question = variant.prompt.messages[-1].content
        (letter,) = re.findall(rf"([ABCD])\) {variant.reference}\b", question)
        letters.setdefault(variant.case, set()).add(letter)
    assert all(len(found) == 2 for found in letters.values()), letters


def test_the_option_order_example_reads_replies_and_scores_the_oracle_perfectly() -> None:
    example, prose = _worked_example()
    scenario = Spec.parse(example).scenario()
    assert "`C) Mercury` is read as `Mercury`" in prose
    assert scenario.answer(TargetOutput(text="C) Mercury")) == "Mercury"
    assert "the letter alone\nis *no answer*" in prose
    assert scenario.answer(TargetOutput(text="C")) is None
    results = Runner(store=MemoryStore()).run(scenario.experiment([OracleTarget(scenario)]))
    (card,) = scenario.report(results).scorecards
    assert (card.accuracy, card.answered, card.spurious_change) == (1.0, 1.0, 0.0)


def test_the_blow_up_the_example_warns_of_is_real() -> None:
    example, prose = _worked_example()
    # the order as a slot of its own, not varied: crossed with the questions into cases
    crossed = yaml.safe_load(example)
    crossed["prompt"] = "{question} {order}"
    crossed["slots"]["question"] = [row["label"] for row in crossed["slots"]["question"]]
    crossed["slots"]["order"] = ["given", "reversed", "rotated", "swapped"]
    crossed["vary"] = {}
    del crossed["answer"]["correct"]
    assert "4 × 4 = 16 cases" in prose
    assert len(Spec.of(crossed).scenario().task_space.cases) == 16
    # the tone as a second axis: a sweep adds its values, a grid would multiply them
    toned = yaml.safe_load(example)
    toned["prompt"] = {"order": dict.fromkeys(("given", "reversed"), "{tone}\n{question}")}
    toned["slots"]["tone"] = "tones"
    toned["vary"]["tone"] = "nominal"
    assert "9 per case, 36 in all" in prose
    assert len(list(Spec.of(toned).scenario().variants())) == 36
