"""The targets.yaml reference page, written from the kinds of target that are registered.

Every option's type, default and meaning come from the field that defines it (its
``description`` is the meaning), which kinds take it from each kind's
:class:`~modelscape.targets.registry.Provider`, the ways of ``structured:`` from each kind's
target class, and what each way does to each kind of answer from
:meth:`~modelscape.targets.providers._structured.StructuredTarget.check_shape` itself, so the
page says what the code does and a test keeps the committed copy equal to what this writes::

    python -m modelscape.targets.providers.reference > content/pages/targets.md
"""

from __future__ import annotations

import json
import sys
import typing
from collections.abc import Iterable
from types import NoneType, UnionType
from typing import Any

from annotated_types import Ge, Gt, Le, MinLen
from pydantic.fields import FieldInfo

from modelscape.answers import Answer, json_field, shape_of, text_match
from modelscape.errors import ExecutionError
from modelscape.targets._shape import AnswerShape
from modelscape.targets.providers._structured import (
    STRUCTURED_MODES,
    STRUCTURED_WAYS,
    StructuredMode,
    StructuredTarget,
)
from modelscape.targets.registry import Provider, find_provider, provider_kinds

__all__ = ["ANSWER_KINDS", "reference_page", "structured_ways"]

#: The kinds of answer a scenario can read, each as a spec's ``answer:`` writes it (or, for a
#: reader a spec cannot make, as Python does) and as the reader that makes, for the table of
#: what ``structured:`` does to each.
ANSWER_KINDS: tuple[tuple[str, str, Answer], ...] = (
    (
        "a choice in a JSON field",
        "field: verdict, choices: [approve, decline]",
        json_field("verdict", ["approve", "decline"]),
    ),
    (
        "a number in a JSON field",
        "field: score, choices: [1, 2, 3, 4, 5]",
        json_field("score", [1, 2, 3, 4, 5]),
    ),
    ("any value in a JSON field (Python only)", 'json_field("answer")', json_field("answer")),
    (
        "a choice read by a pattern",
        r"pattern: '\b(yes|no)\b', choices: [yes, no]",
        text_match(r"\b(yes|no)\b", ["yes", "no"]),
    ),
    (
        "a choice a pattern reads only among words",
        "pattern: 'Answer: (yes|no)', choices: [yes, no]",
        text_match(r"Answer: (yes|no)", ["yes", "no"]),
    ),
    (
        "a keyword of a prose reply",
        r"pattern: '\b(dense|density)\b', choices: [dense, density]",
        text_match(r"\b(dense|density)\b", ["dense", "density"]),
    ),
)

_FRONT = """---
title: Targets reference
description: Every kind of target and every option of a targets.yaml, written from the code.
---
"""

_INTRO = """# Targets reference

This page is written from the code by `python -m modelscape.targets.providers.reference`, and a test
checks that the committed page is what it writes, so it names every kind of target and every
option the installed code has. [Providers](providers.html) says how each provider is reached
and what it sends.

## Naming a target

`--target NAME` (repeatable) names a target with every option at its default. Options are set
in a `targets.yaml`, given with `--targets FILE`: a list whose items are a name, or a mapping of
`target:` and that target's options. An option a kind does not take is an error that says so,
never ignored.

```yaml
- echo
- target: openai-compatible:gemma@http://127.0.0.1:8080/v1
  name: gemma
  temperature: 0
  max_tokens: 64
  structured: grammar
```

`python:module:attribute` (or `python:path/to/file.py:attribute`) names a target object written
in Python, a factory that returns one, or a function of a request; the options of a
`targets.yaml` are passed to a factory as keyword arguments. Every other kind is registered in
the `modelscape.providers` entry point group, as an installed package may register its own:

"""


def _type_of(annotation: Any) -> str:
    """An option's type in words."""
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        parts = [_type_of(a) for a in typing.get_args(annotation) if a is not NoneType]
        return ", or ".join(parts)
    if typing.get_origin(annotation) is tuple:
        return "text, or a list of texts"
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        keys = ", ".join(annotation.model_fields)
        return f"a mapping of {keys}"
    words = {bool: "true or false", int: "whole number", float: "number", str: "text"}
    return words.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _bounds(field: FieldInfo) -> str:
    """An option's bounds, as its field's constraints state them."""
    found = []
    for item in field.metadata:
        if isinstance(item, Ge):
            found.append(f"at least {item.ge}")
        elif isinstance(item, Gt):
            found.append(f"above {item.gt}")
        elif isinstance(item, Le):
            found.append(f"at most {item.le}")
        elif isinstance(item, MinLen):
            found.append("not empty")
        elif getattr(item, "pattern", None):
            found.append(f"matching `{item.pattern}`")
    return ", ".join(found)


def _value(value: Any) -> str:
    """A value as a targets.yaml writes it."""
    if value is None:
        return "none"
    if isinstance(value, str):
        return f"`{value}`"
    return f"`{json.dumps(value)}`"


def _cell(text: str) -> str:
    """Text that may sit in a Markdown table cell."""
    return text.replace("|", "\\|")


def _providers() -> list[Provider]:
    """Every registered kind's provider, in the order of their kinds."""
    found = (find_provider(kind) for kind in provider_kinds())
    return [provider for provider in found if provider is not None]


def structured_ways(provider: Provider) -> tuple[StructuredMode, ...]:
    """The ways a kind's targets can constrain their replies (the first is what ``true``
    means), read from the target class its ``make`` says it returns; none for a kind without
    the ``structured`` option."""
    if "structured" not in provider.option_names():
        return ()
    try:
        made = typing.get_type_hints(provider.make).get("return")
    except (NameError, TypeError):  # another package's annotations this process cannot resolve
        return ()
    ways: tuple[StructuredMode, ...] = getattr(made, "structured_modes", ())
    return ways


def _listed(texts: Iterable[str]) -> str:
    """Texts as a sentence lists them: commas, and "and" before the last."""
    written = list(texts)
    if len(written) < 2:
        return "".join(written)
    return f"{', '.join(written[:-1])} and {written[-1]}"


def _names(names: Iterable[str]) -> str:
    """Names in code type, as a sentence lists them."""
    return _listed(f"`{name}`" for name in names)


def _kinds_list(providers: Iterable[Provider]) -> list[str]:
    lines = []
    for provider in providers:
        forms = " or ".join(f"`{form}`" for form in provider.forms) or f"`{provider.kind}:...`"
        summary = provider.summary or "(no summary given)"
        line = f"- **`{provider.kind}`**, written {forms}: {summary[0].upper()}{summary[1:]}."
        if provider.key_variable:
            line += f" Key from `{provider.key_variable}`."
        if provider.extra:
            line += f" Install `{provider.extra}`."
        lines.append(line)
    return lines


def _public_module(model: type) -> str:
    """Where users import ``model`` from: its module's path without the private parts (the
    package re-exports what its private modules define)."""
    return ".".join(part for part in model.__module__.split(".") if not part.startswith("_"))


def _options_section(providers: list[Provider]) -> list[str]:
    models = {provider.options for provider in providers if provider.options is not None}
    taking = [provider for provider in providers if provider.options is not None]
    lines = ["## Options", ""]
    without = [provider.kind for provider in providers if provider.options is None]
    for model in sorted(models, key=lambda model: model.__qualname__):
        lines += [
            f"The options of `{_public_module(model)}.{model.__qualname__}`. "
            "A default of *none* leaves",
            "the choice to the provider (or the model file), unless the list below gives the",
            "kind's own.",
            "",
            "| Option | Type | Default | Meaning |",
            "| --- | --- | --- | --- |",
        ]
        for name, field in model.model_fields.items():
            kind = _type_of(field.annotation)
            bounds = _bounds(field)
            if bounds:
                kind = f"{kind}, {bounds}"
            meaning = field.description or "(no description in the code)"
            default = _value(field.get_default(call_default_factory=True))
            lines.append(f"| `{name}` | {_cell(kind)} | {default} | {_cell(meaning)} |")
        lines += ["", "Which kind takes which:", ""]
        for provider in (p for p in taking if p.options is model):
            refused = [name for name in model.model_fields if name in provider.refuses]
            line = f"- `{provider.kind}`: "
            line += f"every option but {_names(refused)}" if refused else "every option"
            own = [f"`{name}` is {_value(value)}" for name, value in provider.defaults.items()]
            if own:
                line += f"; by default {_listed(own)}"
            lines.append(line + ".")
        lines.append("")
    if without:
        lines += [
            f"{_names(without)} take no options; any option given to them is an error.",
            "",
        ]
    return lines


def _refusal(way: StructuredMode, shape: AnswerShape | None) -> str | None:
    """Why a target asking for structured answers in ``way`` refuses ``shape``, or None when
    it takes it: the check each such target makes before a run's first call."""
    probe = StructuredTarget()
    probe.structured = way
    probe.name = "gemma"
    try:
        probe.check_shape(shape)
    except ExecutionError as error:
        return str(error)
    return None


def _example_shape(row: int) -> AnswerShape:
    """The shape of one row of :data:`ANSWER_KINDS`, which the page shows in full."""
    shape = shape_of(ANSWER_KINDS[row][2])
    if shape is None:
        raise AssertionError(f"{ANSWER_KINDS[row][0]}: the reader has no shape to show")
    return shape


def _structured_section(providers: list[Provider]) -> list[str]:
    lines = [
        "## Structured answers",
        "",
        "`structured:` asks the provider to constrain every reply to the shape the scenario's",
        "answer reader reads, so that replies the reader could not read are not generated at",
        "all. `true` picks the kind's own way, the first listed; a way may also be named. The way",
        "is part of the target's identity, so structured and plain runs of one model never mix.",
        "",
        "| Kind | Ways (the first is what `true` means) |",
        "| --- | --- |",
    ]
    for provider in providers:
        ways = structured_ways(provider)
        if ways:
            lines.append(f"| `{provider.kind}` | {', '.join(f'`{w}`' for w in ways)} |")
    lines += ["", "What each way sends:", ""]
    lines += [f"- `{way}`: {STRUCTURED_WAYS[way]}." for way in STRUCTURED_MODES]
    lines += [
        "",
        "What each way does with each kind of answer. *yes* means every reply is constrained to",
        "the shape in the second column; *refused* means the run stops with an error before any",
        "call is made, naming what would work.",
        "",
        "| Answer | Written as | Replies are constrained to | "
        + " | ".join(f"`{w}`" for w in STRUCTURED_MODES)
        + " |",
        "| --- " * (3 + len(STRUCTURED_MODES)) + "|",
    ]
    for label, spec, reader in ANSWER_KINDS:
        shape = shape_of(reader)
        what = shape.describe() if shape is not None else "nothing: no shape can be read back"
        verdicts = " | ".join(
            "refused" if _refusal(way, shape) else "yes" for way in STRUCTURED_MODES
        )
        lines.append(f"| {label} | `{_cell(spec)}` | {_cell(what)} | {verdicts} |")
    choice, free, pattern = (_example_shape(row) for row in (0, 2, 3))
    compatible = find_provider("openai-compatible")
    server_ways = structured_ways(compatible) if compatible is not None else ()
    lines += [
        "",
        "**A `pattern` answer on a llama.cpp server** (`openai-compatible:MODEL@URL`): of that",
        f"kind's ways ({', '.join(f'`{w}`' for w in server_ways)}), only `grammar` can shape a",
        "reply that is not JSON, so give `structured: grammar`. `structured: true` means",
        f"`{server_ways[0] if server_ways else 'none'}` there, and a run with it stops before any",
        "call with:",
        "",
        f"> {(_refusal(server_ways[0], pattern) or '') if server_ways else ''}",
        "",
        "A pattern that reads its choice only among other words (`Answer: (yes|no)`) cannot be",
        "shaped by any way, since a reply constrained to the choice alone would not be read; and",
        "structured answers to a prose question (the last row) cut the reply down to the keyword,",
        "which leaves the text measures nothing to compare, so leave `structured:` off there.",
        "",
        "The schema sent for the first row, and the grammar for it and for the fourth:",
        "",
        "```json",
        json.dumps(choice.json_schema(), indent=2),
        "```",
        "",
        "```text",
        choice.grammar().rstrip("\n"),
        "```",
        "",
        "```text",
        pattern.grammar().rstrip("\n"),
        "```",
        "",
        "For a field without choices the grammar allows any short text, number or boolean:",
        "",
        "```text",
        free.grammar().rstrip("\n"),
        "```",
        "",
    ]
    return lines


def _token_limit_section(providers: list[Provider]) -> list[str]:
    own = [
        f"`{provider.kind}` ({provider.defaults['max_tokens']})"
        for provider in providers
        if "max_tokens" in provider.defaults
    ]
    return [
        "## What a token limit costs",
        "",
        "`max_tokens` bounds every reply. Without it, a reply may run as long as the provider",
        "(or the server) lets it, which can be to the end of the context, except for the kinds",
        f"that set a default of their own: {', '.join(own)}.",
        "",
        "- **What it saves.** Generating is paid by the token, in time (a model writes its reply",
        "  one token at a time, so a long reply takes long) and, with a `price:`, in money. A",
        "  bound stops a model that rambles or repeats itself before it spends a whole context.",
        "- **What it costs.** A reply cut at the bound is stored as it came, with the provider's",
        "  finish reason (such as `length` or `max_tokens`), and read like any other. A pattern",
        "  still reads an answer written before the cut; a JSON object cut before its closing",
        "  brace cannot be read, and neither can an answer the model meant to give after its",
        "  reasoning. An unread answer is *no answer*, which lowers the share answered and counts",
        "  as a change of answer against the variants that were read, so a bound that is too",
        "  tight looks like sensitivity. Models that reason before they reply may spend hidden",
        "  tokens against the bound too (OpenAI's `max_completion_tokens` counts them).",
        "- **It is part of the identity.** Changing `max_tokens` makes a new target whose",
        "  observations are asked afresh; stored replies of the old bound are kept, not mixed in.",
        "",
        "With `structured:` on, a choice answer is a few tokens long, so a small bound (say 16)",
        "rarely cuts one. Without it, leave room for whatever the prompt lets the model write",
        "before its answer.",
        "",
    ]


def reference_page() -> str:
    """The whole reference page, front matter included, as Markdown."""
    providers = _providers()
    lines = [_FRONT + _INTRO.rstrip("\n"), ""]
    lines += _kinds_list(providers)
    lines.append("")
    lines += _options_section(providers)
    lines += _structured_section(providers)
    lines += _token_limit_section(providers)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference_page())
