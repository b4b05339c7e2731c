"""The targets reference page (content/pages/targets.md) cannot drift from the code: it is what
``python -m modelscape.targets.providers.reference`` writes, it names every registered kind and
option, and what it says each kind refuses and each way of ``structured:`` does is what real
targets do.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modelscape.answers import shape_of
from modelscape.errors import ExecutionError
from modelscape.specs import Spec
from modelscape.targets.providers._structured import STRUCTURED_MODES, StructuredTarget
from modelscape.targets.providers.reference import ANSWER_KINDS, reference_page, structured_ways
from modelscape.targets.registry import Provider, find_provider, provider_kinds

REPO = Path(__file__).parents[3]
PAGE = REPO / "content" / "pages" / "targets.md"
REGENERATE = "python -m modelscape.targets.providers.reference > content/pages/targets.md"


def _providers() -> list[Provider]:
    found = [find_provider(kind) for kind in provider_kinds()]
    assert all(provider is not None for provider in found)
    return [provider for provider in found if provider is not None]


def _rows(table_start: str) -> dict[str, list[str]]:
    """The rows of the page's table whose header starts with ``table_start``, by first cell."""
    text = PAGE.read_text(encoding="utf-8")
    table = re.search(rf"^{re.escape(table_start)}.*?\n\n", text, flags=re.MULTILINE | re.DOTALL)
    assert table is not None, table_start
    rows = {}
    for line in table.group(0).strip().splitlines()[2:]:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows[cells[0]] = cells[1:]
    return rows


def test_the_committed_page_is_what_the_generator_writes() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference_page(), f"regenerate it: {REGENERATE}"


def test_the_module_writes_the_page_when_run() -> None:
    written = subprocess.run(
        [sys.executable, "-m", "modelscape.targets.providers.reference"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert written.stdout == PAGE.read_text(encoding="utf-8")


def _items(after: str) -> dict[str, str]:
    """The items of the page's first list after the line ``after``, by the kind they name."""
    text = PAGE.read_text(encoding="utf-8").split(f"\n{after}\n", 1)[1].lstrip("\n")
    items = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        named = re.match(r"- \*{0,2}`([\w-]+)`\*{0,2}[,:] (.*)", line)
        assert named is not None, line
        items[named.group(1)] = named.group(2)
    return items


def test_every_registered_kind_has_its_item_its_forms_and_its_summary() -> None:
    items = _items(
        "the `modelscape.providers` entry point group, as an installed package may "
        "register its own:"
    )
    providers = _providers()
    assert list(items) == [provider.kind for provider in providers]
    for provider in providers:
        assert provider.forms, provider.kind
        assert provider.summary, provider.kind
        item = items[provider.kind]
        assert item.startswith("written " + " or ".join(f"`{f}`" for f in provider.forms) + ":")
        assert provider.summary[1:] in item
        assert (f"Key from `{provider.key_variable}`." in item) == bool(provider.key_variable)


def test_every_option_has_its_type_default_and_meaning_from_its_field() -> None:
    rows = _rows("| Option | Type |")
    models = {provider.options for provider in _providers() if provider.options is not None}
    assert len(models) == 1  # one options model today; a second would get a table of its own
    (model,) = models
    assert list(rows) == [f"`{name}`" for name in model.model_fields]
    for name, field in model.model_fields.items():
        assert field.description, f"{name} has no description where it is defined"
        _kind, _default, meaning = rows[f"`{name}`"]
        assert meaning == field.description.replace("|", "\\|")


def test_the_list_of_what_each_kind_takes_is_what_it_declares() -> None:
    items = _items("Which kind takes which:")
    taking = [provider for provider in _providers() if provider.options is not None]
    assert list(items) == [provider.kind for provider in taking]
    for provider in taking:
        assert provider.options is not None
        item = items[provider.kind]
        refused = re.findall(r"`(\w+)`", item.split(";")[0])
        assert refused == [n for n in provider.options.model_fields if n in provider.refuses]
        for name, value in provider.defaults.items():
            assert f"`{name}` is `{value}`" in item, (provider.kind, name)
    without = [provider.kind for provider in _providers() if provider.options is None]
    sentence = re.search(r"^(.*) take no options;", PAGE.read_text("utf-8"), re.MULTILINE)
    assert sentence is not None
    assert re.findall(r"`([\w-]+)`", sentence.group(1)) == without


@pytest.mark.parametrize("kind", [k for k in provider_kinds() if k not in ("oracle", "scripted")])
def test_what_a_kind_declares_it_refuses_is_what_it_refuses(kind: str) -> None:
    provider = find_provider(kind)
    assert provider is not None
    if provider.options is None:
        with pytest.raises((ExecutionError, TypeError)):
            provider.make("x", temperature=0)
        return
    for name, field in provider.options.model_fields.items():
        given = {name: field.get_default(call_default_factory=True)}
        try:
            provider.make("m@http://127.0.0.1:9/v1", **given)
        except ExecutionError as error:
            refused = "not apply to" in str(error)
        else:
            refused = False
        assert refused == (name in provider.refuses), (kind, name)


def _structured_target(provider: Provider, way: str, folder: Path) -> StructuredTarget:
    """A real target of the kind, asking for structured answers in ``way``."""
    options: dict[str, Any] = {"structured": way}
    argument = "m@http://127.0.0.1:9/v1"
    if provider.kind == "llama-cpp":
        argument = str(folder / "model.gguf")
        Path(argument).write_bytes(b"GGUF" + bytes(64))  # read for its fingerprint, not run
    if provider.kind == "bedrock":
        options["region"] = "us-east-1"
    target = provider.make(argument, **options)
    assert isinstance(target, StructuredTarget)
    return target


def test_what_the_page_says_each_way_does_with_each_answer_is_what_targets_do(
    tmp_path: Path,
) -> None:
    rows = _rows("| Answer | Written as |")
    # A llama-cpp target needs llama-cpp-python to be made (the llama extra, which CI installs):
    # without it the other kinds are still checked, and CI fails instead of leaving one out.
    llama = importlib.util.find_spec("llama_cpp") is not None
    if not llama and os.environ.get("CI") == "true":
        pytest.fail("CI must check the llama-cpp kind too: pip install llama-cpp-python")
    providers = [p for p in _providers() if llama or p.kind != "llama-cpp"]
    tried = 0
    for label, _spec, reader in ANSWER_KINDS:
        verdicts = dict(zip(STRUCTURED_MODES, rows[label][2:], strict=True))
        for provider in providers:
            for way in structured_ways(provider):
                target = _structured_target(provider, way, tmp_path)
                try:
                    target.check_shape(shape_of(reader))
                except ExecutionError:
                    did = "refused"
                else:
                    did = "yes"
                assert did == verdicts[way], (label, provider.kind, way)
                tried += 1
    assert tried == len(ANSWER_KINDS) * sum(len(structured_ways(p)) for p in providers)


def test_every_kind_that_takes_structured_has_a_way_and_every_way_a_kind() -> None:
    ways = set()
    for provider in _providers():
        if "structured" in provider.option_names():
            assert structured_ways(provider), provider.kind
        ways |= set(structured_ways(provider))
    assert ways == set(STRUCTURED_MODES)


def test_each_answer_kind_is_the_reader_its_spec_makes() -> None:
    rows = _rows("| Answer | Written as |")
    for label, written, reader in ANSWER_KINDS:
        assert rows[label][0] == f"`{written}`".replace("|", "\\|")
        if written.startswith(("field:", "pattern:")):
            parsed = Spec.parse(f"name: x\nprompt: p\nanswer: {{{written}}}\n")
            assert parsed.answer_reader().identity == reader.identity, label
        else:  # a reader only Python makes
            assert repr(reader) == written.replace('"', "'").replace(")", ", choices=None)")


def test_a_kind_cannot_refuse_or_default_an_option_it_does_not_have() -> None:
    from modelscape.targets.providers._settings import TargetOptions

    def make(argument: str, **options: Any) -> Any:
        raise AssertionError("never made")

    with pytest.raises(ValueError, match="options model lacks: temprature"):
        Provider(kind="k", make=make, options=TargetOptions, refuses=frozenset({"temprature"}))
    with pytest.raises(ValueError, match="options model lacks: max_tokens"):
        Provider(kind="k", make=make, defaults={"max_tokens": 8})  # no options model at all
    kind = Provider(kind="k", make=make, options=TargetOptions, refuses=frozenset({"seed"}))
    assert "seed" not in kind.option_names()
    assert kind.option_names()[0] == "temperature"


def test_the_example_targets_file_loads(tmp_path: Path) -> None:
    from modelscape.targets._resolve import load_targets

    (example,) = re.findall(r"^```yaml\n(.*?)^```$", PAGE.read_text("utf-8"), re.M | re.S)
    file = tmp_path / "targets.yaml"
    file.write_text(example, encoding="utf-8")
    echo, gemma = load_targets(file)
    assert echo.name == "echo"
    assert isinstance(gemma, StructuredTarget)
    assert (gemma.name, gemma.structured) == ("gemma", "grammar")
