"""Structured answers: a provider target that asks for replies of the answer reader's shape.

A target made with ``structured`` set asks its provider to constrain every reply to the
:class:`~modelscape.targets._shape.AnswerShape` the request carries, in one of these ways:

===============  ==========================================================================
``json_schema``  OpenAI's structured outputs: ``response_format`` of type ``json_schema``
                 (OpenAI, vLLM, llama.cpp's ``llama-server``, LM Studio, Ollama)
``json_object``  ``response_format`` of type ``json_object`` with a ``schema``, as
                 llama-cpp-python's server and some hosts take it
``grammar``      a GBNF ``grammar`` (llama.cpp, in-process or served); the only way that
                 can also constrain a reply that is not JSON (``text_match``)
``tool``         Anthropic: one tool whose input is the answer, which the model must call
===============  ==========================================================================

``structured: true`` picks the provider's own way (the first a target lists). The way is part
of the target's identity, so structured and plain runs of one model are two targets whose
observations never mix; it is also recorded in provenance and shown on report pages. Plain
targets leave their identity as it was, so runs stored before structured answers existed stay
valid.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from modelscape.errors import ExecutionError
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import TargetError, TargetRequest

__all__ = [
    "ANSWER_TOOL",
    "STRUCTURED_MODES",
    "STRUCTURED_WAYS",
    "StructuredMode",
    "StructuredTarget",
    "structured_mode",
]

StructuredMode: TypeAlias = Literal["json_schema", "json_object", "grammar", "tool"]
#: The tool a target in ``tool`` mode makes the model call: the call's input is the answer.
ANSWER_TOOL = "answer"
#: Every way a target may constrain its replies.
STRUCTURED_MODES: tuple[StructuredMode, ...] = ("json_schema", "json_object", "grammar", "tool")
#: What each way sends, in a sentence (the targets reference page lists them).
STRUCTURED_WAYS: dict[StructuredMode, str] = {
    "json_schema": "the answer's JSON schema, in the field the API has for it: "
    "`response_format` of type `json_schema` (strict) on chat completions, `text.format` on "
    "the Responses API, `generationConfig.responseJsonSchema` with a JSON MIME type on Gemini",
    "json_object": "`response_format` of type `json_object` with the answer's schema beside "
    "it, as llama-cpp-python's server and some hosts take it",
    "grammar": "a GBNF grammar of the whole reply, as `grammar` in a llama.cpp server's "
    "request or to the model run in this process; the only way that can shape a reply that "
    "is not JSON",
    "tool": "one tool whose input schema is the answer's, which the model is made to call "
    "(`tool_choice` on Anthropic, `toolConfig` on Bedrock); its input is the answer",
}
# The ways that ask for JSON, so cannot constrain a plain-text answer.
_JSON_ONLY = frozenset({"json_schema", "json_object", "tool"})


def structured_mode(
    value: bool | str | None, *, allowed: tuple[StructuredMode, ...], where: str
) -> StructuredMode | None:
    """The way a target constrains its replies, from what a user set: None when off, the
    target's own way (the first allowed) for True, and a named way if the target has it."""
    if value is None or value is False:
        return None
    if value is True:
        return allowed[0]
    for mode in allowed:
        if value == mode:
            return mode
    raise ExecutionError(
        f"{where}: structured must be true, false or one of {', '.join(allowed)}, not {value!r}"
    )


class StructuredTarget:
    """What a provider target that can constrain its replies shares.

    Subclasses set ``structured`` (a way, or None when off) and have a ``name``.
    """

    structured: StructuredMode | None
    name: str

    def check_shape(self, shape: AnswerShape | None) -> None:
        """Refuse, before any call, an experiment whose answers this target cannot shape."""
        mode = self.structured
        if mode is None:
            return
        if shape is None:
            raise ExecutionError(
                f"target {self.name!r} asks for structured answers ({mode}), but this "
                "experiment does not say what shape its answers take: make it with "
                "Scenario.experiment (whose answer reader gives the shape), pass answer_shape "
                "to Experiment, or leave structured off"
            )
        if shape.field is None and mode in _JSON_ONLY:
            raise ExecutionError(
                f"target {self.name!r}: structured answers by {mode} are JSON, but this "
                f"scenario reads {shape.describe()}; only a grammar (llama.cpp targets, "
                "structured: grammar) can shape such a reply, or leave structured off"
            )

    def shape(self, request: TargetRequest) -> AnswerShape:
        """The shape to ask for; a request without one cannot be shaped."""
        if request.answer is None:
            raise TargetError(
                f"target {self.name!r} asks for structured answers but the request carries "
                "no answer shape",
                retryable=False,
            )
        return request.answer
