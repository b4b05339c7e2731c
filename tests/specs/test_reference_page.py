"""The spec reference page (content/pages/spec-reference.md) cannot go stale: every YAML
example on it is read, built and round-tripped, and its table of keys is the Spec model's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from modelscape.specs import Spec

PAGE = Path(__file__).parents[2] / "content" / "pages" / "spec-reference.md"
TEXT = PAGE.read_text(encoding="utf-8")
EXAMPLES = re.findall(r"^```yaml\n(.*?)^```$", TEXT, flags=re.MULTILINE | re.DOTALL)


def test_the_page_has_its_examples() -> None:
    # one per section that shows a spec: a first spec, braces, slots, vary, prompt versions,
    # a table of answers, groups, multiple choice, text measures
    assert len(EXAMPLES) == 9
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
