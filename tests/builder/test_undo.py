"""Undo: any sequence of edits followed by as many undos gives back the start.

Edits are drawn at random from every method. Their arguments mostly come from the builder's
current state (its slots, attributes, values and prompt pieces), so that most edits succeed,
and sometimes are wrong on purpose. An edit either succeeds (and counts) or raises a
ModelscapeError that leaves the builder as it was; no other exception may escape.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.builder import Builder
from modelscape.errors import ModelscapeError

METHODS = (
    *("mark", "remove", "drop", "rename", "per_version", "rows", "range", "add", "move"),
    *("extend", "vary", "versions", "version", "answer", "group", "edit", "instruct"),
)
VERSIONED = Path(__file__).with_name("versioned.yaml")
ODD = st.sampled_from(["nope", "1bad", "", "all", 3, None])
CELLS = st.sampled_from(["Paris", "Lyon", "1", "2", "2.5", "true", "false", "", "a {b}"])


def _or_odd(draw: st.DrawFn, options: list[Any]) -> Any:
    """One of ``options`` most of the time, an unlikely argument sometimes."""
    if not options or draw(st.integers(0, 9)) == 0:
        return draw(ODD)
    return draw(st.sampled_from(options))


def _arguments(
    draw: st.DrawFn, builder: Builder, method: str
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    view = builder.view
    slots = [slot["name"] for slot in view["slots"]]
    attributes = {a["name"]: a["values"] for a in view["attributes"]}
    labels = view["versions"]["labels"]
    slot = _or_odd(draw, slots)
    attribute = _or_odd(draw, list(attributes))
    values = attributes.get(attribute) or ["x"]
    if method == "mark":
        prompt = draw(st.integers(0, max(len(view["prompts"]) - 1, 0)))
        pieces = view["prompts"][prompt]["pieces"] if view["prompts"] else []
        piece = draw(st.integers(0, max(len(pieces) - 1, 0)))
        size = len(pieces[piece]["text"]) if pieces else 0
        start = draw(st.integers(0, size))
        end = draw(st.integers(start, size + 1))
        kwargs: dict[str, Any] = {}
        if labels:
            kwargs["version"] = labels[prompt]
        if draw(st.booleans()):
            kwargs["lexicon"] = draw(st.sampled_from(["tones", "roles", "tone"]))
        name = draw(st.one_of(st.none(), st.sampled_from([*slots, "city", "x", "1bad"])))
        return (piece, start, end, name), kwargs
    if method in ("remove", "add", "instruct"):
        return ((slot,) if method != "instruct" else ()), {}
    if method == "rename":
        return (slot, draw(st.sampled_from(["town", "x", "1bad", *slots]))), {}
    if method in ("drop", "extend"):
        properties = [a.split(".", 1)[1] for a in attributes if a.startswith(f"{slot}.")]
        return (slot, _or_odd(draw, [*properties, "kind", "level"])), {}
    if method == "per_version":
        return (slot, draw(st.booleans())), {}
    if method == "rows":
        kind = draw(
            st.sampled_from([["Paris", "Lyon", "Nice"], ["1", "2", "2.5"], ["true", "false"]])
        )
        row = st.fixed_dictionaries(
            {"label": st.sampled_from(kind)}, optional={"text": CELLS, "kind": CELLS}
        )
        return (slot, draw(st.lists(row, max_size=3))), {}
    if method == "range":
        start = draw(st.sampled_from([0, 1, 2.5, -3]))
        return (
            slot,
            start,
            start + draw(st.sampled_from([0, 2, 4])),
            draw(st.sampled_from([1, 2, 0.5, 0])),
        ), {}
    if method == "move":
        return (slot, draw(st.integers(-1, 4))), {}
    if method == "vary":
        scale = draw(st.sampled_from([None, "nominal", "ordinal", "numeric", "loud"]))
        return (attribute, scale), {}
    if method == "versions":
        name = draw(st.sampled_from([None, "tone", "style", *slots[:1]]))
        pool = draw(
            st.sampled_from([["neutral", "polite", "plain"], [1, 2, 3], ["a", "a", "", True]])
        )
        chosen = draw(
            st.lists(st.sampled_from(pool), min_size=draw(st.sampled_from([0, 1, 1])), max_size=3)
        )
        return (name, chosen), {}
    if method == "version":
        text = draw(st.sampled_from(["Hi", "{", "Is it {x}?", *[f"Hi {{{s}}}" for s in slots]]))
        return (_or_odd(draw, labels), text), {}
    if method == "answer":
        choices = draw(
            st.lists(
                st.sampled_from([True, False, "yes", "no", 1]),
                min_size=1,
                max_size=3,
                unique_by=repr,
            )
        )
        correct: Any = None
        kind = draw(st.sampled_from(["none", "one", "mapping", "pairs", "rows"]))
        pick = st.sampled_from(choices)
        if kind == "one":
            correct = draw(pick)
        elif kind == "mapping":
            correct = {attribute: {value: draw(pick) for value in values}}
        elif kind == "pairs":
            correct = {attribute: [[value, draw(pick)] for value in values]}
        elif kind == "rows":
            correct = [{attribute: draw(st.sampled_from(values)), "answer": draw(pick)}]
        pattern = draw(st.sampled_from([None, None, "(yes|no)", "("]))
        field = None if pattern is not None and draw(st.booleans()) else "answer"
        return (field, choices, correct), {"pattern": pattern}
    if method == "group":
        when = None if draw(st.integers(0, 3)) == 0 else {attribute: draw(st.sampled_from(values))}
        return (draw(st.sampled_from(["g", "h", "all"])), when), {}
    key = draw(st.sampled_from(["name", "system", "prompt", "cases", "seed", "description", "nam"]))
    value = draw(
        st.sampled_from([None, "Is it true?", "text", 2, 0, "{", *[f"{{{s}}}" for s in slots]])
    )
    return (key, value), {}


def _call(
    builder: Builder, method: str
) -> st.SearchStrategy[tuple[tuple[Any, ...], dict[str, Any]]]:
    return st.composite(lambda draw: _arguments(draw, builder, method))()


def _fingerprint(builder: Builder) -> str:
    # repr tells True from 1 and 1.0, and keeps the order of keys
    return repr(builder.draft.data)


@given(st.sampled_from(["fresh", "pressure", "return-window", str(VERSIONED)]), st.data())
def test_as_many_undos_as_edits_give_back_the_start(kind: str, data: st.DataObject) -> None:
    builder = Builder("Is Paris the capital? yes") if kind == "fresh" else Builder.load(kind)
    start, start_draft, start_view = _fingerprint(builder), builder.draft, builder.view
    done = 0
    for _ in range(data.draw(st.integers(0, 12), label="edits")):
        method = data.draw(st.sampled_from(METHODS), label="method")
        args, kwargs = data.draw(_call(builder, method), label="arguments")
        before = _fingerprint(builder)
        call: Callable[..., None] = getattr(builder, method)
        try:
            call(*args, **kwargs)
        except ModelscapeError:
            assert _fingerprint(builder) == before, f"{method} failed but changed the builder"
        else:
            done += 1
        assert builder.problems == list(builder.draft.problems)
        # the preview shows whenever the prompt and slots make variants, complete or not
        assert bool(builder.preview) == (builder.view["cases"] > 0)
        assert bool(builder.preview) or not builder.draft.complete
    for _ in range(done):
        builder.undo()
    assert _fingerprint(builder) == start
    assert builder.draft == start_draft
    assert builder.view == start_view
    with pytest.raises(ModelscapeError, match="nothing to take back"):
        builder.undo()
