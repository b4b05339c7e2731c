"""The Builder widget: a spec written by editing an example prompt, with a live preview.

The builder's state is a spec as data (``Spec.data()``'s form). Every method is one edit, a
pure function from ``modelscape.builder.edits``, ``values`` or ``protocol``: it checks its
arguments, computes the next state, and pushes the previous one on the undo stack. After every
edit the synced traits are recomputed, so the front end always shows the current draft; the
front end in turn sends edits as messages ``{"method": ..., "args": [...], "kwargs": {...}}``
that run through the same methods, and shows any error in ``error``.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets
import yaml
from pydantic import ValidationError

from modelscape._identity import AxisValue, JsonValue
from modelscape._yaml import describe, read_yaml
from modelscape.builder import edits, protocol, values
from modelscape.builder.draft import Assessment, Draft, assess, jsonable
from modelscape.builder.pieces import Piece, split
from modelscape.builder.preview import preview
from modelscape.builder.rows import PromptRows
from modelscape.builder.state import Data, prompt_texts
from modelscape.builder.view import view
from modelscape.errors import ModelscapeError, SpecError
from modelscape.specs import shipped_path
from modelscape.specs.spec import Spec
from modelscape.task.space import Scale

if TYPE_CHECKING:
    from pandas import DataFrame

__all__ = ["Builder"]

_STATIC = Path(__file__).parent / "static"
#: The methods the front end may call by message; ``load`` makes a new builder, so it is not one.
_MESSAGES = (
    *("mark", "remove", "drop", "rename", "per_version", "rows", "range", "add", "move"),
    *("extend", "vary", "versions", "version", "answer", "group", "edit", "instruct"),
    *("undo", "save"),
)

Number = int | float


class Builder(anywidget.AnyWidget):
    """Write a scenario spec from an example prompt, with a live preview.

    Show it in a notebook, select text to make a slot, choose the scale of what varies and
    which answer is correct, and save the YAML. Every edit is also a method, so the widget is
    optional, and each one can be taken back with ``undo``. ``draft`` is the spec so far with
    what is still missing; ``spec`` is the finished spec; ``prompts`` lists every variant.
    """

    _esm = _STATIC / "builder.js"
    _css = _STATIC / "builder.css"

    data = traitlets.Dict().tag(sync=True)
    problems = traitlets.List(traitlets.Unicode()).tag(sync=True)
    preview: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    view = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)

    def __init__(self, prompt: str = "", *, name: str = "scenario") -> None:
        if not isinstance(name, str) or not name.strip():
            raise SpecError(f"Builder: a name is a non-empty text, not {name!r}")
        if not isinstance(prompt, str):
            raise SpecError(f"Builder: the prompt is a text, not {type(prompt).__name__}")
        split(prompt, "prompt")
        super().__init__()
        self._state: Data = {"name": name, "prompt": prompt}
        self._history: list[Data] = []
        self._assessment: Assessment | None = None
        self._assessed: Data | None = None
        self.on_msg(self._receive)
        self._sync()

    # -- reading and writing ---------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | PathLike[str]) -> Builder:
        """A builder editing a spec: a YAML file, or a shipped spec by name, such as pressure.

        The spec may be incomplete, as a builder saves it mid-way; a complete one is read in
        the form ``Spec.data()`` writes, so saving it unchanged writes what ``Spec.dump`` does.
        """
        file = Path(path)
        if file.suffix not in (".yaml", ".yml") and not file.exists():
            file = shipped_path(str(path))
        try:
            data = read_yaml(file)
        except OSError as error:
            raise SpecError(f"cannot read {file}: {error.strerror}") from None
        except yaml.YAMLError as error:  # invalid, not UTF-8, or over a limit
            raise SpecError(f"{file}: {describe(error)}") from None
        if not isinstance(data, dict):
            raise SpecError(f"{file}: a spec is a mapping of keys such as name and prompt")
        # an unfinished spec is edited as written, and its draft lists what is wrong
        with contextlib.suppress(SpecError, ValidationError):
            data = Spec.of(data).data()
        builder = cls()
        builder._state = copy.deepcopy(data)
        builder._sync()
        return builder

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the spec as YAML, complete or not, and return its path."""
        file = Path(path)
        try:
            file.write_text(self._assess().yaml, encoding="utf-8")
        except OSError as error:
            raise SpecError(f"save: cannot write {file}: {error.strerror}") from None
        self.status = f"saved {file}"
        return file

    # -- what the builder holds ------------------------------------------------------------------
    @property
    def draft(self) -> Draft:
        """The spec as written so far, valid or not, with what is still missing or wrong."""
        return self._assess().draft

    @property
    def spec(self) -> Spec:
        """The spec, once it is complete; until then raises SpecError listing every problem."""
        assessment = self._assess()
        if assessment.spec is None or assessment.draft.problems:
            raise SpecError(assessment.draft.problems)
        return assessment.spec

    @property
    def prompts(self) -> DataFrame | PromptRows:
        """Every variant of the spec as one row, as ``Scenario.prompts`` gives it.

        That is a pandas DataFrame where pandas is installed. The widget extra does not
        install it, so without pandas the same rows come as ``PromptRows``, a list of dicts
        that a notebook shows as a table.
        """
        scenario = self.spec.scenario()
        try:
            import pandas  # noqa: F401 - only asked whether it is there
        except ImportError:
            return PromptRows(scenario.prompt_rows())
        return scenario.prompts()

    def pieces(self, version: AxisValue | None = None) -> tuple[Piece, ...]:
        """The pieces of prompt version ``version`` (the first by default), as ``mark`` counts
        them: literal text at even positions, slots at odd ones."""
        attribute, texts = prompt_texts(self._state, "pieces")
        key = edits.version_key(attribute, texts, version, "pieces")
        return tuple(split(texts[key], "prompt"))

    # -- the prompt and its slots ----------------------------------------------------------------
    def mark(
        self,
        piece: int,
        start: int,
        end: int,
        slot: str | None = None,
        *,
        version: AxisValue | None = None,
        lexicon: str | None = None,
    ) -> None:
        """Make characters ``start`` to ``end`` of prompt piece ``piece`` a slot.

        Pieces are those ``pieces(version)`` gives: the prompt cut into literal text (even
        positions) and slots (odd ones); offsets count the characters of a literal piece as a
        reader sees them, a doubled brace being one. Only that version changes. An existing
        ``slot`` is placed there; a new one takes the selection as its value (a number or a
        boolean if it spells one), or the values of the shipped ``lexicon``.
        """
        self._apply(edits.mark, piece, start, end, slot, version=version, lexicon=lexicon)

    def remove(self, slot: str) -> None:
        """Turn ``slot`` back into the text of its first value, in every prompt version.

        The slot is gone afterwards: it no longer varies, group conditions on it are dropped,
        and a correct answer that depended on it is cleared, to be set again.
        """
        self._apply(edits.remove, slot)

    def rename(self, slot: str, name: str) -> None:
        """Rename ``slot`` everywhere it is used: prompt versions, system prompt, what varies,
        groups and the correct answer, its properties (``slot.property``) included."""
        self._apply(edits.rename, slot, name)

    def drop(self, slot: str, property: str) -> None:
        """Remove ``property`` from every value of ``slot``, and every use of it."""
        self._apply(values.drop, slot, property)

    def per_version(self, slot: str, enabled: bool = True) -> None:
        """Give every value of ``slot`` one text per prompt version, or one text again.

        Each version starts with the value's one text; going back keeps the first version's.
        """
        self._apply(values.per_version, slot, enabled)

    def rows(self, slot: str, rows: Sequence[Mapping[str, JsonValue]]) -> None:
        """Replace the values of ``slot``; cells that spell numbers or booleans become them.

        A text may map each prompt version to its text.
        """
        self._apply(values.rows, slot, rows)

    def range(self, slot: str, start: Number, stop: Number, step: Number) -> None:
        """Make the values of ``slot`` the numbers from ``start`` up to ``stop``, ``step`` apart."""
        self._apply(values.range_of, slot, start, stop, step)

    def add(self, slot: str) -> None:
        """Add a value to ``slot``: a copy of its last value under a new label.

        The label continues the others: a number one step on, the other boolean, or the last
        text with a count; the copy is then edited with ``rows``.
        """
        self._apply(values.add, slot)

    def move(self, slot: str, row: int) -> None:
        """Move value ``row`` (from 0) of ``slot`` one place up; at the top, it is the baseline."""
        self._apply(values.move, slot, row)

    def extend(self, slot: str, property: str) -> None:
        """Give every value of ``slot`` a new ``property``, empty (null) until ``rows`` fills it."""
        self._apply(values.extend, slot, property)

    def versions(self, name: str | None, labels: Sequence[AxisValue] = ()) -> None:
        """Write the whole prompt in versions: one per label, all values of attribute ``name``.

        The first label is the baseline. A new version starts as a copy of the first. Without
        a name or labels, the first version becomes the one prompt again.
        """
        self._apply(edits.versions, name, labels)

    def version(self, label: AxisValue, text: str) -> None:
        """Set the text of prompt version ``label``, written like ``edit("prompt", ...)``."""
        self._apply(edits.version, label, text)

    # -- the protocol ----------------------------------------------------------------------------
    def vary(self, attribute: str, scale: Scale | None) -> None:
        """Vary ``attribute`` on ``scale``, or stop varying it with None."""
        self._apply(protocol.vary, attribute, scale)

    def answer(
        self,
        field: str | None,
        choices: Sequence[AxisValue],
        correct: AxisValue
        | Mapping[str, Mapping[AxisValue, AxisValue]]
        | Sequence[Mapping[str, JsonValue]]
        | None = None,
        *,
        pattern: str | None = None,
    ) -> None:
        """Read ``field`` of a JSON reply, or the first match of ``pattern``, one of ``choices``.

        ``correct`` is as in a spec; a table may also be given as pairs of a value and its
        answer, ``{attribute: [[value, answer], ...]}``.
        """
        self._apply(protocol.answer, field, choices, correct, pattern=pattern)

    def group(self, name: str, when: Mapping[str, JsonValue] | None) -> None:
        """Name the cases whose attributes match ``when``; None removes group ``name``."""
        self._apply(protocol.group, name, when)

    def edit(self, key: str, value: JsonValue) -> None:
        """Set a top-level field such as name, system, or cases; None clears it.

        A prompt is template text: slots in braces, and literal braces doubled. It sets the
        first version of a prompt in versions.
        """
        self._apply(edits.edit, key, value)

    def instruct(self) -> None:
        """End the system prompt with an instruction to reply in the answer's JSON format."""
        self._apply(edits.instruct)

    def undo(self) -> None:
        """Take back the last change."""
        if not self._history:
            raise SpecError("undo: nothing to take back")
        self._state = self._history.pop()
        self._sync()
        self.status = ""

    # -- machinery -------------------------------------------------------------------------------
    def _apply(self, edit: Callable[..., Data], *args: Any, **kwargs: Any) -> None:
        state = edit(self._state, *args, **kwargs)
        self._history.append(self._state)
        self._state = state
        self._sync()
        self.status = ""  # "saved ..." spoke of the spec before this edit

    def _assess(self) -> Assessment:
        # states are never changed in place, so the one assessed is current while it is the same
        if self._assessment is None or self._assessed is not self._state:
            self._assessment, self._assessed = assess(self._state), self._state
        return self._assessment

    def _sync(self) -> None:
        """Recompute every synced trait from the current state."""
        assessment = self._assess()
        shown = preview(self._state, assessment)
        with self.hold_sync():
            self.data = jsonable(self._state)
            self.problems = list(assessment.draft.problems)
            self.preview = jsonable(shown["rows"])
            self.view = view(self._state, assessment, shown)

    def _receive(self, _widget: object, content: object, _buffers: object) -> None:
        """Apply an edit the front end sent, and show what went wrong if it failed."""
        if not isinstance(content, Mapping) or content.get("method") not in _MESSAGES:
            method = content.get("method") if isinstance(content, Mapping) else content
            self.error = f"unknown edit {method!r}; edits: {', '.join(_MESSAGES)}"
            return
        method = str(content["method"])
        args = content.get("args") or []
        kwargs = content.get("kwargs") or {}
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            self.error = f"{method}: a message carries args as a list and kwargs as a mapping"
            return
        edit = getattr(self, method)
        try:
            edit(*args, **kwargs)
        except ModelscapeError as error:
            self.error = str(error)
        except Exception as error:
            if isinstance(error, TypeError) and not _fits(edit, args, kwargs):
                # the message's arguments do not fit the method: Python's words say how
                self.error = f"{method}: {error}"
                return
            # a bug, not a bad edit (a TypeError too, once the arguments fit): say so where
            # the user looks, and keep the traceback (the widget's comm logs it)
            self.error = (
                f"{method}: {type(error).__name__} inside the edit: {error} "
                "(a bug in modelscape; please report it)"
            )
            raise
        else:
            self.error = ""
            if method != "save":
                self.status = ""


def _fits(method: Callable[..., object], args: Sequence[Any], kwargs: Mapping[str, Any]) -> bool:
    """Whether ``args`` and ``kwargs`` bind to ``method``'s parameters."""
    try:
        inspect.signature(method).bind(*args, **kwargs)
    except TypeError:
        return False
    return True
