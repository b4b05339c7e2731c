"""Any YAML-ish document, however wrong, is read into a spec or refused with a SpecError whose
every problem names its path in the document; nothing else is ever raised."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from modelscape import Spec
from modelscape.errors import SpecError

#: Every key a spec or one of its parts knows, so that documents reach the deep readers.
_KNOWN = (
    *("name", "version", "description", "system", "prompt", "slots", "vary", "groups"),
    *("answer", "cases", "repetitions", "seed", "scale", "values", "baseline", "field"),
    *("pattern", "choices", "correct", "start", "stop", "step", "label", "text", "n", "who"),
    *("who.gender", "tone", "nominal", "ordinal", "numeric", "names", "all"),
)
_WORDS = ("{n}", "{who} {n}", "{who}", "{", "}", "{0}", "{a.b}", "{n!r}", "yes", "", " ", "x|y")

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(_KNOWN + _WORDS),
    st.text(max_size=8),
)
_keys = st.one_of(st.sampled_from(_KNOWN), st.text(max_size=6), st.integers(-2, 4), st.booleans())


def _documents() -> st.SearchStrategy[Any]:
    return st.recursive(
        _scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(_keys, inner, max_size=4),
        ),
        max_leaves=24,
    )


def _near_valid() -> st.SearchStrategy[dict[Any, Any]]:
    """A valid spec with some of its parts, at any depth, replaced by anything."""
    base: dict[str, Any] = {
        "name": "fuzz",
        "prompt": "{who} asks: is {n} prime?",
        "slots": {"who": "names", "n": [2, 3, 4]},
        "vary": {"n": {"scale": "ordinal", "values": [2, 3], "baseline": 2}},
        "groups": {"women": {"who.gender": "female"}},
        "answer": {"field": "prime", "choices": [True, False], "correct": {"n": {2: True}}},
    }
    return st.dictionaries(st.sampled_from(_KNOWN) | _keys, _documents(), max_size=4).map(
        lambda changes: _merge(base, changes)
    )


def _merge(base: dict[Any, Any], changes: dict[Any, Any]) -> dict[Any, Any]:
    out = dict(base)
    for key, value in changes.items():
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _outcome(read: Callable[[], object]) -> SpecError | None:
    """The SpecError ``read`` raises, or None; anything else it raises fails the test."""
    try:
        read()
    except SpecError as error:
        return error
    return None


def _check(document: Any) -> None:
    error = _outcome(lambda: Spec.of(document))
    if error is None:
        # a spec that reads may still describe no scenario, and says so the same way
        error = _outcome(lambda: list(Spec.of(document).scenario().variants()))
        assert error is None or all(
            re.match(r"^(vary|groups|answer)[.:\[]", problem) for problem in error.problems
        ), error
        return
    assert error.problems
    if isinstance(document, dict) and document:
        roots = {_spelled(key) for key in document} | {"name", "prompt", "answer"}
        for problem in error.problems:
            assert any(problem.startswith(f"{root}{mark}") for root in roots for mark in ".[:"), (
                problem
            )


def _spelled(key: object) -> str:
    """A top-level key as a path spells it: a plain word or number as is, else in brackets."""
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key)
    if isinstance(key, str) and re.fullmatch(r"[\w\-.]+", key):
        return key
    return f"[{key!r}]"


@given(_documents())
def test_any_document_is_read_or_refused_with_paths(document: Any) -> None:
    _check(document)


@given(st.dictionaries(_keys, _documents(), max_size=6))
def test_any_mapping_is_read_or_refused_with_paths(document: dict[Any, Any]) -> None:
    _check(document)


@given(_near_valid())
def test_a_spec_broken_anywhere_is_read_or_refused_with_paths(document: dict[Any, Any]) -> None:
    _check(document)
