"""Deterministic reference targets: ordinary targets for tests, demos and calibration.

They answer without a model, from the prompt and the request's seed hint alone, so a whole
pipeline runs offline and a known behaviour can be planted and then found again:

- ``echo``: the prompt's last user message, back.
- ``constant:TEXT``: always ``TEXT``.
- ``random:A,B,...``: one of the choices, drawn from the seed hint (varies by repetition,
  reproducible run after run).
- ``scripted:FILE``: replies from a JSON or YAML mapping of prompt substrings to replies.
- ``planted:REGEX``: a JSON reply ``{"answer": ...}`` read from the prompt by a rule; in
  Python, :class:`PlantedTarget` adds flips (answers that change when a marker appears).
- ``oracle:SPEC``: the correct answer to every prompt of a spec (a file or a shipped name);
  see :mod:`modelscape.targets._oracle`.

:mod:`modelscape.targets._reference_kinds` makes them from their names.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from modelscape._identity import Identity, JsonValue
from modelscape._model import FrozenModel
from modelscape.errors import ExecutionError
from modelscape.targets.protocol import (
    IdentifiedTarget,
    TargetError,
    TargetOutput,
    TargetRequest,
    as_output,
)

__all__ = [
    "ConstantTarget",
    "EchoTarget",
    "Flip",
    "PlantedTarget",
    "RandomTarget",
    "ScriptedTarget",
]

Reply: TypeAlias = str | dict[str, Any] | list[Any]


class _ReferenceTarget(IdentifiedTarget):
    """Name, version, parameters and identity shared by the reference targets."""

    def __init__(self, name: str, version: str, parameters: Mapping[str, JsonValue]) -> None:
        self._identity = Identity(
            kind="target", name=name, version=version, parameters=dict(parameters)
        )


class EchoTarget(_ReferenceTarget):
    """Replies with the prompt's last user message: shows exactly what a target receives."""

    def __init__(self, *, name: str = "echo") -> None:
        super().__init__(name, "1", {"kind": "echo"})

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        return TargetOutput(text=request.prompt.messages[-1].content, model="echo")


class ConstantTarget(_ReferenceTarget):
    """Always replies with the same text: a target with no variation at all."""

    def __init__(self, text: str, *, name: str = "constant") -> None:
        super().__init__(name, "1", {"kind": "constant", "text": text})
        self.text = text

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        return TargetOutput(text=self.text, model="constant")


class RandomTarget(_ReferenceTarget):
    """Replies with one of ``choices``, drawn from the request's seed hint.

    Answers ignore the prompt entirely, so every difference between coordinates is noise: a
    calibration target for false positives.
    """

    def __init__(self, choices: Sequence[str], *, name: str = "random") -> None:
        if not choices:
            raise ExecutionError("a random target needs at least one choice")
        super().__init__(name, "1", {"kind": "random", "choices": list(choices)})
        self.choices = tuple(choices)

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        return TargetOutput(text=random.Random(request.seed).choice(self.choices), model="random")


class ScriptedTarget(_ReferenceTarget):
    """Replies from a script: the reply of the first substring found in the prompt, in order,
    or the result of a function of the prompt text.

    Replies are text, or JSON (a dict or list: stored as ``data`` with its text). Without a
    ``default``, a prompt that no entry matches is a non-retryable :class:`TargetError`.
    """

    def __init__(
        self,
        script: Mapping[str, Reply] | Callable[[str], Reply],
        *,
        default: Reply | None = None,
        name: str = "scripted",
        version: str = "1",
    ) -> None:
        if callable(script):
            described: JsonValue = getattr(script, "__qualname__", repr(script))
        else:
            described = json.loads(json.dumps(dict(script)))
        super().__init__(
            name, version, {"kind": "scripted", "script": described, "default": default}
        )
        self.script = script
        self.default = default

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        text = request.prompt.text
        if callable(self.script):
            return as_output(self.script(text), where=f"script of {self.name!r}")
        for marker, reply in self.script.items():
            if marker in text:
                return as_output(reply, where=f"script of {self.name!r}")
        if self.default is not None:
            return as_output(self.default, where=f"script of {self.name!r}")
        raise TargetError(
            f"no entry of the script of {self.name!r} matches the prompt {text[:80]!r}",
            retryable=False,
        )


class Flip(FrozenModel):
    """A planted change of behaviour: answer ``answer`` instead when ``marker`` is in the prompt.

    ``marker`` is a regular expression. With ``above``, the flip happens only when the number
    in the marker's first group is greater than ``above`` (a threshold, such as a pressure
    level past which answers flip).
    """

    marker: str
    answer: JsonValue
    above: float | None = None

    def applies(self, text: str) -> bool:
        """Whether this flip changes the answer to a prompt."""
        match = re.search(self.marker, text)
        if match is None:
            return False
        if self.above is None:
            return True
        try:
            return float(match.group(1)) > self.above
        except (IndexError, ValueError):
            return False


class PlantedTarget(_ReferenceTarget):
    """Replies ``{"answer": ...}`` by a rule of the prompt: a known behaviour to find again.

    The answer is what ``answer`` (a regular expression) reads from the prompt: its first group,
    or the whole match. The first :class:`Flip` that applies replaces it. Anything the rule
    does not read (names, wording) cannot change the answer. With ``noise`` > 0, that share of
    replies (drawn from the seed hint) answer another of ``choices`` instead, which gives
    run-to-run variation.
    """

    def __init__(
        self,
        answer: str,
        *,
        flips: Sequence[Flip] = (),
        noise: float = 0.0,
        choices: Sequence[JsonValue] = (),
        field: str = "answer",
        name: str = "planted",
        version: str = "1",
    ) -> None:
        if not 0 <= noise <= 1:
            raise ExecutionError(f"noise must be between 0 and 1, not {noise}")
        if noise and len(choices) < 2:
            raise ExecutionError("a planted target with noise needs at least two choices")
        try:
            self.pattern = re.compile(answer)
        except re.error as error:
            raise ExecutionError(f"planted target: invalid pattern {answer!r}: {error}") from None
        super().__init__(
            name,
            version,
            {
                "kind": "planted",
                "answer": answer,
                "flips": [f.model_dump(mode="json") for f in flips],
                "noise": noise,
                "choices": list(choices),
                "field": field,
            },
        )
        self.flips = tuple(flips)
        self.noise = noise
        self.choices = tuple(choices)
        self.field = field

    def rule(self, text: str) -> JsonValue:
        """The planted answer to a prompt's text, before noise."""
        for flip in self.flips:
            if flip.applies(text):
                return flip.answer
        match = self.pattern.search(text)
        if match is None:
            return None
        return match.group(1) if self.pattern.groups else match.group(0)

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        value = self.rule(request.prompt.text)
        if self.noise:
            rng = random.Random(request.seed)
            if rng.random() < self.noise:
                value = rng.choice([c for c in self.choices if c != value] or list(self.choices))
        reply = {self.field: value}
        return TargetOutput(text=json.dumps(reply), data=reply, model="planted")
