"""The oracle: a reference target that knows a scenario's correct answers.

It answers every prompt of a scenario with that prompt's correct answer, in the scenario's
answer format, so a run against it is the ceiling every other target is compared with. Flips
plant a known behaviour on top (answer something else when a marker appears in the prompt),
and ``noise`` adds run-to-run variation; the analysis should then find exactly what was
planted and nothing else. It is an ordinary target, chosen by name as ``oracle:SPEC``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from modelscape._identity import AxisValue, JsonValue
from modelscape.answers import FieldAnswer, PatternAnswer
from modelscape.errors import ExecutionError
from modelscape.scenario import Scenario
from modelscape.targets._reference import Flip, _ReferenceTarget
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.task.coordinate import same_value

__all__ = ["OracleTarget"]


class OracleTarget(_ReferenceTarget):
    """Answers each prompt of ``scenario`` correctly, unless a :class:`Flip` applies.

    The first flip whose marker matches the prompt gives the answer instead. With ``noise``
    > 0, that share of replies (drawn from the request's seed hint, so reproducible) give
    another of the answer's choices.
    """

    def __init__(
        self,
        scenario: Scenario,
        *,
        flips: Sequence[Flip] = (),
        noise: float = 0.0,
        name: str = "oracle",
        version: str = "1",
    ) -> None:
        if not 0 <= noise <= 1:
            raise ExecutionError(f"noise must be between 0 and 1, not {noise}")
        reader = scenario.answer
        choices = getattr(reader, "choices", None)
        if noise and (not choices or len(choices) < 2):
            raise ExecutionError("an oracle with noise needs an answer with at least two choices")
        super().__init__(
            name,
            version,
            {
                "kind": "oracle",
                "scenario": scenario.identity.id,
                "flips": [flip.model_dump(mode="json") for flip in flips],
                "noise": noise,
            },
        )
        self.reader = reader
        self.flips = tuple(flips)
        self.noise = noise
        self.choices: tuple[AxisValue, ...] = tuple(choices or ())
        self.answers: dict[str, AxisValue | None] = {
            variant.prompt.text: variant.reference for variant in scenario.variants()
        }

    def rule(self, text: str) -> JsonValue:
        """The answer to a prompt's text, before noise."""
        for flip in self.flips:
            if flip.applies(text):
                return flip.answer
        if text not in self.answers:
            raise TargetError(
                f"the oracle {self.name!r} does not know this prompt: {text[:80]!r}",
                retryable=False,
            )
        return self.answers[text]

    def _reply(self, value: JsonValue) -> TargetOutput:
        if isinstance(self.reader, FieldAnswer):
            data = {self.reader.field: value}
            return TargetOutput(text=json.dumps(data), data=data, model="oracle")
        if isinstance(self.reader, PatternAnswer):
            spelled = json.dumps(value) if isinstance(value, bool) else str(value)
            return TargetOutput(text=spelled, model="oracle")
        return TargetOutput(text=json.dumps(value), model="oracle")

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        value = self.rule(request.prompt.text)
        if self.noise:
            rng = random.Random(request.seed)
            if rng.random() < self.noise:
                others = [c for c in self.choices if not same_value(c, value)]
                value = rng.choice(others or list(self.choices))
        return self._reply(value)
