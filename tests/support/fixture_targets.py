"""The targets of the tests' own runs (:mod:`tests.support.runs`), all answering offline.

- Reference targets, as the shipped reference runs use them: an oracle with a little noise,
  the oracle with one planted flaw the report should find, and a random answerer.
- Stand-ins for small local models behind a provider: the same identity parameters a real
  ``openai-compatible`` target records (so the site calls them models), a reported model
  version, token usage and latency; a free-text one that never gives a readable answer and a
  structured one that always does (a favourite answer per prompt, another one now and then).
- Targets that fail: one never reached, one whose calls fail now and then.

Every reply is drawn from the request (its prompt, seed hint and repetition), so a run made
twice, in any process, stores the same outputs.
"""

from __future__ import annotations

import json
import random
from typing import Any

from modelscape._identity import JsonValue
from modelscape.scenario import Scenario
from modelscape.targets import CallableTarget
from modelscape.targets._oracle import OracleTarget
from modelscape.targets._reference import Flip, RandomTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest, Usage

NOISE = 0.05
#: What the random target picks from when the answer has no choices (arithmetic's numbers).
NUMBERS = [3, 4, 6, 9, 12, 17, 23, 41]

#: One planted flaw per scenario: the target's name and the flips that plant it.
PLANTED: dict[str, tuple[str, list[Flip]]] = {
    "return-window": ("late", [Flip(marker=r"\b3[246] days ago", answer=True)]),
    "pressure": ("sycophant", [Flip(marker="professor", answer=False)]),
    "review-injection": ("hijacked", [Flip(marker="HACKED", answer="HACKED")]),
    "evidence": ("first-told", [Flip(marker="Conclusion A", answer="A")]),
    "arithmetic": (
        "distracted",
        [
            Flip(marker="Four of the shells", answer=4),
            Flip(marker="printed 12 years", answer=12),
            Flip(marker="closes at 6", answer=6),
            Flip(marker="painted 3 years", answer=3),
        ],
    ),
}

#: The local models the stand-ins are named after: (name, served model, reported version, port).
MODELS = [
    ("gemma-3-270m", "gemma", "gemma-3-270m-q4_k_m.gguf", 8765),
    ("smollm2-135m", "smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", 8766),
]


def _choices(scenario: Scenario) -> tuple[str, list[JsonValue]]:
    reader: Any = scenario.answer
    return reader.field, list(reader.choices or NUMBERS)


def reference_targets(scenario: Scenario) -> list[Any]:
    """The oracle, the oracle with the scenario's planted flaw, and a random answerer."""
    field, choices = _choices(scenario)
    # Noise swaps an answer for another choice: an answer without choices gets none.
    noise = NOISE if getattr(scenario.answer, "choices", None) else 0.0
    planted, flips = PLANTED[scenario.name]
    return [
        OracleTarget(scenario, noise=noise, name="oracle"),
        OracleTarget(scenario, flips=flips, noise=noise, name=planted),
        RandomTarget([json.dumps({field: choice}) for choice in choices], name="random"),
    ]


def _model(
    scenario: Scenario, name: str, served: str, version: str, port: int, *, structured: bool
) -> CallableTarget:
    field, choices = _choices(scenario)
    target = name + ("-structured" if structured else "")

    def reply(request: TargetRequest) -> TargetOutput:
        prompt = request.prompt.messages[-1].content
        draw = random.Random(f"{target}|{request.seed}|{request.repetition}")
        if structured:
            favourite = random.Random(f"{target}|{prompt}").choice(choices)
            answer = favourite if draw.random() < 0.8 else draw.choice(choices)
            text = json.dumps({field: answer})
        else:  # a base model rambling on: never the JSON object asked for
            text = draw.choice(
                [
                    "I think the answer depends on the details of the case.",
                    "Let me think about this step by step. First, we need to",
                    "The answer is: it is not possible to say for certain",
                ]
            )
        return TargetOutput(
            text=text,
            model=version,
            usage=Usage(input_tokens=len(prompt.split()) + 40, output_tokens=len(text.split())),
            latency=round(0.2 + draw.random(), 3),
            finish_reason="stop" if structured else "length",
        )

    parameters: dict[str, JsonValue] = {
        "provider": "openai-compatible",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "model": served,
        "temperature": 0.7,
        "max_tokens": 32,
    }
    if structured:
        parameters["structured"] = "grammar"
    return CallableTarget(reply, name=target, parameters=parameters)


def model_targets(scenario: Scenario) -> list[Any]:
    """Each local model twice: free text first (the divergence's reference), then structured."""
    return [
        _model(scenario, *model, structured=structured)
        for model in MODELS
        for structured in (False, True)
    ]


def _unreachable(request: TargetRequest) -> str:
    raise ConnectionError("connection refused: 127.0.0.1:9")


def failing_targets(scenario: Scenario) -> list[Any]:
    """An oracle (``steady``, a name of its own so that no other run of its scenario shares
    it) beside a model never reached and one that fails a quarter of its calls."""
    field, choices = _choices(scenario)

    def _flaky(request: TargetRequest) -> str:
        draw = random.Random(f"flaky|{request.seed}|{request.repetition}")
        if draw.random() < 0.25:
            raise TimeoutError("the server did not answer within 30 s")
        return json.dumps({field: draw.choice(choices)})

    unreachable: dict[str, JsonValue] = {"provider": "openai-compatible", "model": "offline"}
    return [
        OracleTarget(scenario, noise=NOISE, name="steady"),
        CallableTarget(_unreachable, name="unreachable", parameters=unreachable),
        CallableTarget(_flaky, name="flaky"),
    ]
