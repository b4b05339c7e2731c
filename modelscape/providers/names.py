"""Provider targets named by text, as the CLI and a targets.yaml name them.

=================================  ===================================================
``openai:MODEL``                   OpenAI's API; key from ``OPENAI_API_KEY``
``anthropic:MODEL``                Anthropic's API; key from ``ANTHROPIC_API_KEY``
``openai-compatible:MODEL@URL``    any chat-completions server (vLLM, llama.cpp, ...)
``llama-cpp:PATH``                 a GGUF file run in this process
=================================  ===================================================

``openai`` and ``anthropic`` also take ``MODEL@URL`` to reach a proxy or a local stand-in;
a URL on this machine needs no key. Options (temperature, max_tokens, name, api_key_env, ...)
are the fields of :class:`~modelscape.providers.options.TargetOptions`. The HTTP targets need
aiohttp (``modelscape[providers]``) and ``llama-cpp`` needs llama-cpp-python
(``modelscape[llama]``); each is imported only when a target of its kind is made, so that a
missing extra is reported by name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from modelscape.errors import ExecutionError
from modelscape.providers.options import ANTHROPIC_BASE_URL, OPENAI_BASE_URL, TargetOptions

if TYPE_CHECKING:
    from modelscape.execution.target import Target

__all__ = ["DEFAULT_KEY_VARIABLES", "PROVIDER_KINDS", "provider_target", "split_model_url"]

#: Where the key of each hosted provider is read from unless ``api_key_env`` says otherwise.
DEFAULT_KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
#: The kinds this module makes.
PROVIDER_KINDS = ("anthropic", "llama-cpp", "openai", "openai-compatible")

_HTTP_ONLY = {"allow_http_key", "api_key_env", "max_concurrency", "max_response_bytes"}
_LOCAL_ONLY = {"context", "threads"}
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


def _options(kind: str, argument: str, given: dict[str, Any]) -> TargetOptions:
    try:
        options = TargetOptions(**given)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in error.errors()
        )
        raise ExecutionError(f"target {kind}:{argument}: {problems}") from None
    misplaced = options.model_fields_set & (_HTTP_ONLY if kind == "llama-cpp" else _LOCAL_ONLY)
    if kind == "anthropic" and "seed" in options.model_fields_set:
        misplaced |= {"seed"}
    if misplaced:
        raise ExecutionError(
            f"target {kind}:{argument}: {', '.join(sorted(misplaced))} "
            f"{'does' if len(misplaced) == 1 else 'do'} not apply to {kind} targets"
        )
    return options


def _missing_extra(kind: str, error: ImportError) -> ExecutionError:
    extra = "llama" if kind == "llama-cpp" else "providers"
    return ExecutionError(
        f"{kind} targets need the {extra!r} extra ({error.name or error}): "
        f"pip install 'modelscape[{extra}]'"
    )


def provider_target(kind: str, argument: str, **given: Any) -> Target:
    """The provider target ``KIND:ARGUMENT`` names, with the options given."""
    options = _options(kind, argument, given)
    generation = options.generation.model_dump()
    common: dict[str, Any] = {
        "name": options.name,
        "version": options.version,
        "structured": options.structured,
    }
    try:
        if kind == "llama-cpp":
            from modelscape.providers.llama import LlamaCppTarget

            return LlamaCppTarget(
                argument, context=options.context, threads=options.threads, **common,
                **generation,
            )  # fmt: skip
        model, url = split_model_url(argument, kind=kind)
        common.update(
            max_concurrency=options.max_concurrency,
            allow_http_key=options.allow_http_key,
            max_response_bytes=options.max_response_bytes,
        )
        if kind == "anthropic":
            from modelscape.providers.anthropic import AnthropicTarget

            del generation["seed"]
            return AnthropicTarget(
                model,
                base_url=url or ANTHROPIC_BASE_URL,
                api_key_env=options.api_key_env or DEFAULT_KEY_VARIABLES["anthropic"],
                **common,
                **generation,
            )
        from modelscape.providers.openai import OpenAICompatibleTarget, OpenAITarget

        if kind == "openai":
            return OpenAITarget(
                model,
                base_url=url or OPENAI_BASE_URL,
                api_key_env=options.api_key_env or DEFAULT_KEY_VARIABLES["openai"],
                **common,
                **generation,
            )
        if kind == "openai-compatible":
            if url is None:
                raise ExecutionError(
                    f"openai-compatible:{argument}: name the server too, as "
                    "openai-compatible:MODEL@http://127.0.0.1:8080/v1"
                )
            return OpenAICompatibleTarget(
                model, base_url=url, api_key_env=options.api_key_env, **common, **generation
            )
    except ImportError as error:
        raise _missing_extra(kind, error) from None
    raise ExecutionError(f"{kind!r} is not a provider kind; the kinds are {PROVIDER_KINDS}")
