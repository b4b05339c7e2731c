"""Provider targets named by text, as the CLI and a targets.yaml name them.

=====================================  ================================================
``openai:MODEL``                       OpenAI's API; key from ``OPENAI_API_KEY``
``openai-responses:MODEL``             OpenAI's Responses API; the same key
``azure-openai:DEPLOYMENT@ENDPOINT``   Azure OpenAI; ``AZURE_OPENAI_API_KEY`` or a token
``anthropic:MODEL``                    Anthropic's API; key from ``ANTHROPIC_API_KEY``
``gemini:MODEL``                       Google's Gemini API; key from ``GEMINI_API_KEY``
``bedrock:MODEL_ID``                   AWS Bedrock's Converse API; AWS credentials
``openai-compatible:MODEL@URL``        any chat-completions server (vLLM, llama.cpp, ...)
``llama-cpp:PATH``                     a GGUF file run in this process
=====================================  ================================================

Each kind is declared by its own module, as a :class:`~modelscape.targets.registry.Provider`
registered in the ``modelscape.providers`` entry point group; :func:`provider_target` makes a
target of any registered kind. ``openai`` and ``anthropic`` also take ``MODEL@URL`` to reach a
proxy or a local stand-in; a URL on this machine needs no key. Options (temperature,
max_tokens, name, api_key_env, ...) are the fields of
:class:`~modelscape.targets.providers._settings.TargetOptions`, read by
:func:`target_options`; each kind declares those it refuses, and
:mod:`~modelscape.targets.providers.reference` writes them all into the targets reference page.
Each kind's factory hands the target the two settings objects built from them
(:attr:`~modelscape.targets.providers._settings.TargetOptions.generation` and ``.http``).
The HTTP targets need aiohttp (``modelscape-map[providers]``) and ``llama-cpp`` needs
llama-cpp-python (``modelscape-map[llama]``); a missing extra is reported by name when a
target of its kind is made.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from pydantic import ValidationError

from modelscape.errors import ExecutionError
from modelscape.targets.protocol import Target
from modelscape.targets.providers._settings import HttpOptions, TargetOptions
from modelscape.targets.registry import find_provider

__all__ = [
    "HTTP_ONLY",
    "KIND_ONLY",
    "LOCAL_ONLY",
    "provider_target",
    "split_model_url",
    "target_options",
]

#: Options that only targets reached over HTTP take: the HTTP options, and the key's variable.
HTTP_ONLY = frozenset({*HttpOptions.model_fields, "api_key_env"})
#: Options that only a model run in this process takes.
LOCAL_ONLY = frozenset({"context", "threads"})
#: Options of one kind each (Bedrock's region, Azure's API version), refused by the others.
KIND_ONLY = frozenset({"region", "api_version"})
_URL_AT = re.compile(r"@(?=https?://)")


def split_model_url(argument: str, *, kind: str) -> tuple[str, str | None]:
    """``MODEL@URL`` as its model and URL; a bare ``MODEL`` has no URL.

    The split is at the first ``@`` followed by ``http://`` or ``https://``, so model names
    that contain ``@`` stay whole.
    """
    parts = _URL_AT.split(argument, maxsplit=1)
    model = parts[0].strip()
    if not model:
        raise ExecutionError(f"{kind}:{argument}: name a model, as {kind}:MODEL")
    return model, (parts[1] if len(parts) == 2 else None)


def target_options(
    kind: str, argument: str, given: dict[str, Any], *, refuses: Collection[str] = ()
) -> TargetOptions:
    """The options given to ``KIND:ARGUMENT``, checked; ``refuses`` names those that do not
    apply to the kind, which are an error when set."""
    try:
        options = TargetOptions(**given)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in error.errors()
        )
        raise ExecutionError(f"target {kind}:{argument}: {problems}") from None
    misplaced = options.model_fields_set & set(refuses)
    if misplaced:
        raise ExecutionError(
            f"target {kind}:{argument}: {', '.join(sorted(misplaced))} "
            f"{'does' if len(misplaced) == 1 else 'do'} not apply to {kind} targets"
        )
    return options


def provider_target(kind: str, argument: str, **given: Any) -> Target:
    """The provider target ``KIND:ARGUMENT`` names, with the options given."""
    provider = find_provider(kind)
    if provider is None:
        raise ExecutionError(f"{kind!r} is not a registered target kind")
    return provider.target(argument, **given)
