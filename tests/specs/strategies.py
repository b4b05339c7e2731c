"""Hypothesis strategies for valid specs: small random lexicons in every form, a prompt that
uses every slot, and random choices of what varies, which groups exist and what is correct."""

from __future__ import annotations

import itertools
import string
from typing import Any

from hypothesis import strategies as st

from modelscape import Lexicon, lexicons

__all__ = ["specs"]

SLOTS = ("s0", "s1", "s2", "s3")
VERSIONS = "tone"
_LABEL = string.ascii_letters + string.digits + " -_.'\":#&*!?%@,é中"
_TEXT = _LABEL + "\n\t{}[]|>\\"

# words YAML could read as something else if they were written unquoted
_TRICKY = (
    "null",
    "~",
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "0x1F",
    "1_000",
    "1:30",
    "True",
    "1e3",
    ".5",
    "+1",
    "0o17",
    "=",
    "<<",
    "- x",
    "? q",
    "# c",
    " lead",
    "trail ",
    "&a",
    "*a",
    "!tag",
    "%x",
    "@x",
    "`x",
    "'",
    '"',
    "a: b",
    "a #b",
    "[x]",
    "{x}",
    ".inf",
    ".NaN",
)
labels_text = st.one_of(st.text(_LABEL, min_size=1, max_size=6), st.sampled_from(_TRICKY))
#: Labels a spec's name and version take: ``Spec`` refuses a blank one (only spaces), which
#: ``labels_text`` may draw (as a lexicon label, where it is allowed).
filled_labels = labels_text.filter(str.strip)
texts = st.one_of(
    st.text(_TEXT, max_size=16),
    st.sampled_from(_TRICKY),
    st.text(st.sampled_from(["\r", "\x85", "\u2028", "\ufeff", " ", "\n", "a"]), max_size=5),
)
numbers = st.one_of(
    st.integers(-1_000, 1_000),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)


def _labels() -> st.SearchStrategy[list[Any]]:
    return st.one_of(
        st.lists(labels_text, min_size=1, max_size=4, unique=True),
        st.lists(numbers, min_size=1, max_size=4, unique_by=float),
        st.permutations([True, False]).flatmap(
            lambda pair: st.integers(1, 2).map(lambda n: pair[:n])
        ),
    )


def _cells(size: int) -> st.SearchStrategy[list[Any]]:
    kind = st.sampled_from([labels_text, st.integers(-5, 5), st.booleans(), numbers])
    return kind.flatmap(
        lambda cell: st.lists(st.one_of(st.none(), cell), min_size=size, max_size=size)
    )


@st.composite
def _text_for(draw: st.DrawFn, versions: tuple[Any, ...] | None, per_version: bool) -> Any:
    if per_version and versions:
        return {version: draw(texts) for version in versions}
    return draw(texts)


@st.composite
def lexicon_forms(draw: st.DrawFn, versions: tuple[Any, ...] | None) -> Any:
    """One slot's values in one of the forms a spec takes."""
    form = draw(st.sampled_from(["name", "list", "mapping", "rows", "range"]))
    if form == "name":
        return draw(st.sampled_from(["tones", "roles", "pressure"]))
    if form == "range":
        integral = draw(st.booleans())
        if integral:
            start, step = draw(st.integers(-50, 50)), draw(st.integers(1, 10))
        else:
            start = draw(st.sampled_from([-1.5, 0.0, 0.1, 2.25]))
            step = draw(st.sampled_from([0.1, 0.25, 0.5, 1.5]))
        count = draw(st.integers(1, 6))
        return {"start": start, "stop": start + step * (count - 1), "step": step}
    labels = draw(_labels())
    per_version = draw(st.booleans())
    if form == "list":
        return labels
    if form == "mapping":
        return {label: draw(_text_for(versions, per_version)) for label in labels}
    names = draw(st.lists(st.sampled_from(["kind", "rank", "flag"]), max_size=2, unique=True))
    columns = {name: draw(_cells(len(labels))) for name in names}
    rows = []
    for index, label in enumerate(labels):
        row: dict[str, Any] = {"label": label}
        if draw(st.booleans()):
            row["text"] = draw(_text_for(versions, per_version))
        elif per_version and versions:
            row["text"] = draw(_text_for(versions, True))
        row.update({name: column[index] for name, column in columns.items()})
        rows.append(row)
    if per_version and versions and not all("text" in row for row in rows):
        return labels
    return rows


def _lexicon(form: Any) -> Lexicon:
    if isinstance(form, str):
        return lexicons.get(form)
    if isinstance(form, dict) and set(form) == {"start", "stop", "step"}:
        from modelscape.specs import Range

        return Lexicon.of(list(Range(**form).numbers()))
    return Lexicon.of(form)


def _literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


@st.composite
def _prompt_text(draw: st.DrawFn, slots: list[str]) -> str:
    order = draw(st.permutations(slots))
    separators = st.sampled_from([" ", "\n", "\n\n", ": ", " - "])
    parts = [_literal(draw(texts))]
    for slot in order:
        parts.append(draw(separators) + "{" + slot + "}" + draw(separators) + _literal(draw(texts)))
    return "".join(parts)


def _increasing(values: tuple[Any, ...]) -> bool:
    if not values or any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
        return False
    return all(float(a) < float(b) for a, b in itertools.pairwise(values))


@st.composite
def _varied(draw: st.DrawFn, values: tuple[Any, ...]) -> Any:
    scales = ["nominal", "ordinal"] + (["numeric"] if _increasing(values) else [])
    scale = draw(st.sampled_from(scales))
    if draw(st.booleans()):
        return scale
    chosen: list[Any] | None = None
    if draw(st.booleans()):
        keep = draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
        chosen = [v for v, k in zip(values, keep, strict=True) if k] or [values[0]]
        if scale != "numeric" and draw(st.booleans()):
            chosen.reverse()
    varied: dict[str, Any] = {"scale": scale}
    if chosen is not None:
        varied["values"] = chosen
    if draw(st.booleans()):
        varied["baseline"] = draw(st.sampled_from(chosen or list(values)))
    return varied


def _condition(draw: st.DrawFn, values: tuple[Any, ...]) -> Any:
    if draw(st.booleans()):
        return draw(st.sampled_from(values))
    return draw(st.lists(st.sampled_from(values), min_size=1, max_size=3, unique_by=repr))


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    """The data of a valid spec, as YAML would hold it."""
    slots = list(SLOTS[: draw(st.integers(1, len(SLOTS)))])
    versions: tuple[Any, ...] | None = None
    if draw(st.booleans()):
        versions = tuple(
            draw(
                st.one_of(
                    st.lists(labels_text, min_size=1, max_size=3, unique=True),
                    st.lists(st.integers(0, 9), min_size=1, max_size=3, unique=True),
                )
            )
        )
    forms = {slot: draw(lexicon_forms(versions)) for slot in slots}
    data: dict[str, Any] = {"name": draw(filled_labels)}
    if versions is None:
        data["prompt"] = draw(_prompt_text(slots))
    else:
        data["prompt"] = {VERSIONS: {v: draw(_prompt_text(slots)) for v in versions}}
    data["slots"] = forms
    attributes: dict[str, tuple[Any, ...]] = {}
    if versions is not None:
        attributes[VERSIONS] = versions
    for slot, form in forms.items():
        lexicon = _lexicon(form)
        attributes[slot] = lexicon.values()
        for prop in lexicon.properties:
            if lexicon.values(prop):
                attributes[f"{slot}.{prop}"] = lexicon.values(prop)
    names = sorted(attributes)
    varied = draw(st.lists(st.sampled_from(names), max_size=3, unique=True))
    if varied:
        data["vary"] = {name: draw(_varied(attributes[name])) for name in varied}
    if draw(st.booleans()):
        groups = {}
        for group in draw(st.lists(st.sampled_from(["g1", "g2"]), min_size=1, unique=True)):
            keys = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))
            groups[group] = {key: _condition(draw, attributes[key]) for key in keys}
        data["groups"] = groups
    choices = draw(_labels())
    answer: dict[str, Any] = (
        {"field": draw(st.sampled_from(["answer", "verdict"]))}
        if draw(st.booleans())
        else {"pattern": draw(st.sampled_from([r"\b(yes|no)\b", "answer: (\\w+)", "[0-9]+"]))}
    )
    answer["choices"] = choices
    correct = draw(st.sampled_from(["none", "one", "mapping", "rows"]))
    pick = st.sampled_from(choices)
    if correct == "one":
        answer["correct"] = draw(pick)
    elif correct == "mapping":
        key = draw(st.sampled_from(names))
        answer["correct"] = {key: {value: draw(pick) for value in attributes[key]}}
    elif correct == "rows":
        rows = []
        for _ in range(draw(st.integers(1, 3))):
            key = draw(st.sampled_from(names))
            rows.append({key: _condition(draw, attributes[key]), "answer": draw(pick)})
        answer["correct"] = rows
    data["answer"] = answer
    for key, strategy in (
        ("version", st.one_of(filled_labels, st.integers(1, 9))),
        ("description", texts),
        ("system", texts.map(_literal)),
        ("cases", st.integers(1, 50)),
        ("repetitions", st.integers(1, 10)),
        ("seed", st.integers(0, 2**31)),
    ):
        if draw(st.booleans()):
            data[key] = draw(strategy)
    return data
