"""Provider targets: real models behind real APIs, and local GGUF files.

- :mod:`~modelscape.providers.openai`: ``OpenAICompatibleTarget`` (vLLM, llama.cpp's server,
  Ollama, LM Studio, OpenRouter) and ``OpenAITarget`` (OpenAI's own API)
- :mod:`~modelscape.providers.anthropic`: ``AnthropicTarget`` (Anthropic's messages API)
- :mod:`~modelscape.providers.llama`: ``LlamaCppTarget`` (a GGUF file run in this process)
- :mod:`~modelscape.providers.http`: what the HTTP targets share: the pooled session, the
  key, the call and its errors
- :mod:`~modelscape.providers.limiter`: ``AdaptiveLimiter``, the per-target AIMD limit
- :mod:`~modelscape.providers.options`: ``Generation`` and ``TargetOptions``
- :mod:`~modelscape.providers.names`: ``openai:MODEL`` and the other names, for the CLI

The HTTP targets need aiohttp (``pip install 'modelscape[providers]'``) and the local one
llama-cpp-python (``modelscape[llama]``). Names are loaded on first use, so that importing this
package needs neither.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from modelscape.providers.anthropic import AnthropicTarget
    from modelscape.providers.http import HttpTarget, close_session
    from modelscape.providers.limiter import AdaptiveLimiter
    from modelscape.providers.llama import LlamaCppTarget
    from modelscape.providers.names import provider_target
    from modelscape.providers.openai import OpenAICompatibleTarget, OpenAITarget
    from modelscape.providers.options import Generation, TargetOptions

__all__ = [
    "AdaptiveLimiter",
    "AnthropicTarget",
    "Generation",
    "HttpTarget",
    "LlamaCppTarget",
    "OpenAICompatibleTarget",
    "OpenAITarget",
    "TargetOptions",
    "close_session",
    "provider_target",
]

_LAZY = {
    "AdaptiveLimiter": "modelscape.providers.limiter",
    "AnthropicTarget": "modelscape.providers.anthropic",
    "Generation": "modelscape.providers.options",
    "HttpTarget": "modelscape.providers.http",
    "LlamaCppTarget": "modelscape.providers.llama",
    "OpenAICompatibleTarget": "modelscape.providers.openai",
    "OpenAITarget": "modelscape.providers.openai",
    "TargetOptions": "modelscape.providers.options",
    "close_session": "modelscape.providers.http",
    "provider_target": "modelscape.providers.names",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'modelscape.providers' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
