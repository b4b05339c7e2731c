"""YAML limits: every YAML input is read within limits, and a hostile one fails with its line.

The hostile documents here are small on purpose: a few hundred bytes that would expand to
gigabytes, nest thousands of levels deep, or refer to themselves.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from modelscape._yaml import (
    LIMITS,
    YamlLimitError,
    YamlLimits,
    describe,
    load_yaml,
    read_yaml,
    read_yaml_text,
)
from modelscape.cli import main
from modelscape.errors import ExecutionError, SpecError, TemplateError
from modelscape.specs import Spec
from modelscape.targets._resolve import load_targets
from modelscape.templates.lexicon import Lexicon

#: The classic "billion laughs": nine lists of nine aliases of the list before, 9**9 values.
BOMB = (
    "a: &a ["
    + ",".join(["lol"] * 9)
    + "]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n"
        for i in range(8)
    )
)
#: A wide bomb: one 100 kB text repeated through aliases.
WIDE = "t: &t " + "x" * 100_000 + "\nl: [" + ", ".join(["*t"] * 60) + "]\n"


def _fails(text: str, match: str) -> str:
    with pytest.raises(YamlLimitError) as caught:
        load_yaml(text)
    message = describe(caught.value)
    assert "\n" not in message
    assert len(message) < 300
    assert match in message, message
    return message


def test_an_alias_bomb_fails_with_its_line() -> None:
    assert len(BOMB) < 460
    message = _fails(BOMB, "expands to more than 4,194,304 characters and values")
    assert message.startswith("line ")
    assert "lol" not in message


def test_a_wide_alias_bomb_fails() -> None:
    _fails(WIDE, "expands to more than")


def test_aliases_within_the_limits_still_work() -> None:
    data = load_yaml("base: &base {a: 1, b: [x, y]}\nfirst: *base\nsecond: {<<: *base, b: z}\n")
    assert data == {
        "base": {"a": 1, "b": ["x", "y"]},
        "first": {"a": 1, "b": ["x", "y"]},
        "second": {"a": 1, "b": "z"},
    }


@pytest.mark.parametrize(
    "text",
    ["x: " + "[" * 5000 + "]" * 5000, "- " * 5000 + "x", "{a: " * 5000 + "1" + "}" * 5000],
)
def test_deep_nesting_fails_before_recursion(text: str) -> None:
    _fails(text, "nested more than 64 levels deep")


def test_aliases_count_their_depth() -> None:
    # Each alias nests the one before: shallow as written, 100 levels deep once expanded.
    text = "a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 100))
    _fails(text, "nested more than 64 levels deep once its aliases are expanded")


def test_a_node_that_contains_itself_fails() -> None:
    _fails("a: &a [1, *a]\n", "an alias refers to a node that contains it")
    _fails("a: &a {b: *a}\n", "an alias refers to a node that contains it")


def test_too_many_aliases_fail() -> None:
    text = "a: &a 1\nb: [" + ", ".join(["*a"] * 1001) + "]\n"
    _fails(text, "more than 1,000 aliases")


def test_long_lists_and_mappings_fail_with_their_start() -> None:
    _fails(
        "x: 1\nl:\n" + "- 1\n" * 10_001, "a list of more than 10,000 entries (it starts at line 3)"
    )
    text = "{" + ", ".join(f"k{i}: {i}" for i in range(10_001)) + "}"
    _fails(text, "a mapping of more than 10,000 entries")
    assert len(load_yaml("- 1\n" * 10_000)) == 10_000


def test_a_document_larger_than_the_limit_fails() -> None:
    _fails("x" * (LIMITS.size + 1), "larger than 2,097,152 characters")


def test_limits_can_be_set_per_call() -> None:
    small = YamlLimits(size=100, depth=3, aliases=1, items=2, expanded=50)
    with pytest.raises(YamlLimitError, match="a list of more than 2 entries"):
        load_yaml("[1, 2, 3]", limits=small)
    assert load_yaml("[1, 2, 3]") == [1, 2, 3]


def test_special_characters_and_huge_numbers_fail_on_one_line() -> None:
    _fails("a: 1\nb: \0\n", "line 2, column 4: character #x0000 is not allowed")
    _fails("n: " + "9" * 5000, "a value that cannot be read")


def test_yaml_12_booleans_are_kept() -> None:
    assert load_yaml("a: [yes, no, on, off, y, n, true, False]") == {
        "a": ["yes", "no", "on", "off", "y", "n", True, False]
    }


def test_read_yaml_text_refuses_large_and_non_utf8_files(tmp_path: Path) -> None:
    large = tmp_path / "large.yaml"
    large.write_bytes(b"#" * (LIMITS.size + 1))
    with pytest.raises(YamlLimitError, match="larger than 2,097,152 bytes"):
        read_yaml_text(large)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"a: 1\nname: caf\xe9\n")
    with pytest.raises(YamlLimitError) as caught:
        read_yaml(latin)
    assert describe(caught.value) == (
        "line 2, column 10: not UTF-8 (byte 0xe9); save the file as UTF-8"
    )


def test_describe_keeps_parse_errors_on_one_line() -> None:
    with pytest.raises(yaml.YAMLError) as caught:
        load_yaml("a: [1, 2\nb: 3\n")
    assert describe(caught.value) == (
        "line 2, column 2: not valid YAML: expected ',' or ']', but got ':'"
    )
    assert "\n" not in describe(caught.value)


@given(st.text(max_size=300))
def test_any_text_loads_or_fails_as_a_yaml_error(text: str) -> None:
    _loads_or_fails_on_one_line(text)


@given(st.lists(st.sampled_from(["- ", "[", "]", "{", "}", "&a ", "*a", "a: ", "\n", ", ", "x"])))
def test_structural_noise_loads_or_fails_as_a_yaml_error(pieces: list[str]) -> None:
    _loads_or_fails_on_one_line("".join(pieces))


def _loads_or_fails_on_one_line(text: str) -> None:
    message = None
    try:
        load_yaml(text)
    except yaml.YAMLError as error:  # any other exception fails the test
        message = describe(error)
    assert message is None or "\n" not in message


# -- every YAML reader -------------------------------------------------------------------------
def test_a_spec_bomb_is_a_spec_error_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB, encoding="utf-8")
    with pytest.raises(SpecError, match=rf"^{path}: line \d+, column \d+: expands to"):
        Spec.load(path)
    with pytest.raises(SpecError, match=r"^line \d+, column \d+: expands to"):
        Spec.parse(BOMB)


def test_a_lexicon_bomb_is_a_template_error(tmp_path: Path) -> None:
    path = tmp_path / "names.yaml"
    path.write_text(BOMB, encoding="utf-8")
    with pytest.raises(TemplateError, match=rf"^{path}: line \d+, column \d+: expands to"):
        Lexicon.load(path)
    path.write_text("x: " + "[" * 5000, encoding="utf-8")
    with pytest.raises(TemplateError, match=rf"^{path}: line 1, column \d+: nested more than"):
        Lexicon.load(path)


def test_a_targets_file_bomb_is_an_execution_error(tmp_path: Path) -> None:
    path = tmp_path / "targets.yaml"
    path.write_text(BOMB, encoding="utf-8")
    with pytest.raises(ExecutionError, match=rf"^{path}: line \d+, column \d+: expands to"):
        load_targets(path)


def test_a_scripted_target_bomb_is_an_execution_error(tmp_path: Path) -> None:
    from modelscape.targets._resolve import resolve_target

    path = tmp_path / "script.yaml"
    path.write_text(BOMB, encoding="utf-8")
    with pytest.raises(ExecutionError, match=r"script\.yaml: line \d+, column \d+: expands"):
        resolve_target(f"scripted:{path}")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (BOMB.encode(), "expands to more than"),
        (("x: " + "[" * 5000).encode(), "nested more than 64 levels deep"),
        (b"name: caf\xe9\n", "line 1, column 10: not UTF-8 (byte 0xe9)"),
        (b"name: [\n", "not valid YAML"),
    ],
)
def test_the_cli_reports_hostile_specs_on_one_line(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(content)
    for command in ("describe", "example", "prompts", "page"):
        result = CliRunner().invoke(main, [command, str(path)])
        assert result.exit_code == 1, result.output
        assert result.output.startswith(f"error: {path}: "), result.output
        assert expected in result.output
        assert result.output.count("\n") == 1, result.output
        assert "Traceback" not in result.output
