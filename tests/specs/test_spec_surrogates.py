"""A surrogate (half a UTF-16 pair, as YAML's "\\ud800" escape writes) anywhere in a spec is
a SpecError naming the file and the place, never a UnicodeEncodeError from deep in a hash."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.errors import ExecutionError, SpecError
from modelscape.specs import Spec
from modelscape.targets._resolve import resolve_target

SPEC = """\
name: late
system: {system}
prompt: "Is {{who}} late? {prompt}"
slots:
  who:
    - {{label: ann, text: "Ann"}}
    - {{label: {label}, text: "{text}"}}
vary:
  who: nominal
answer:
  field: verdict
  choices: [yes, no]
"""


def spec(**given: str) -> str:
    parts = {"system": "Reply in JSON.", "prompt": "", "label": "bob", "text": "Bob"}
    return SPEC.format(**(parts | given))


@pytest.mark.parametrize(
    ("given", "place", "code"),
    [
        ({"prompt": "\\ud800"}, "prompt", "U+D800"),
        ({"text": "B\\udfffob"}, "slots.who[1].text", "U+DFFF"),
        ({"label": '"b\\udc80"'}, "slots.who[1].label", "U+DC80"),
        ({"system": '"Hi \\ud83d\\ude00"'}, "system", "U+D83D"),  # a pair, escaped as halves
    ],
)
def test_a_surrogate_is_a_spec_error_at_its_place(
    given: dict[str, str], place: str, code: str
) -> None:
    with pytest.raises(SpecError) as raised:
        Spec.parse(spec(**given))
    (problem,) = raised.value.problems
    assert problem.startswith(f"{place}: holds {code} at character ")
    assert "escape it whole" in problem


def test_a_surrogate_in_a_key_is_named_too() -> None:
    text = spec().replace("  who: nominal", '  "w\\ud800": nominal')
    with pytest.raises(SpecError, match=r"vary\['w\\ud800'\]: holds U\+D800"):
        Spec.parse(text)


def test_several_are_named_together() -> None:
    with pytest.raises(SpecError) as raised:
        Spec.of({"name": "x", "prompt": "a\ud800", "slots": {"s": ["\udc00"]}, "answer": {}})
    assert [p.split(":")[0] for p in raised.value.problems] == ["prompt", "slots.s[0]"]


@pytest.mark.parametrize("command", ["describe", "run", "prompts", "example"])
def test_every_command_names_the_file_and_place(tmp_path: Path, command: str) -> None:
    path = tmp_path / "late.yaml"
    path.write_text(spec(text="B\\ud800ob"), encoding="utf-8")
    arguments = [command, str(path)]
    if command == "run":
        arguments += ["--target", "echo", "--store", str(tmp_path / "s.db")]
    done = CliRunner().invoke(main, arguments)
    assert done.exit_code == 1
    assert not isinstance(done.exception, UnicodeError)
    assert f"error: {path}: slots.who[1].text: holds U+D800 at character 2" in done.output
    assert not (tmp_path / "s.db").exists()  # refused before a store was made


def test_a_target_named_in_bytes_that_are_not_utf8_is_refused() -> None:
    # What Python makes of `--target $'constant:\xff'` on a UTF-8 command line (PEP 383).
    with pytest.raises(ExecutionError, match="not UTF-8 text"):
        resolve_target("constant:\udcff")
