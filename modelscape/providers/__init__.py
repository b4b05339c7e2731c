"""Provider targets: real models behind real APIs, and local GGUF files.

Each provider is one module that holds its target and declares its kind of target name
(a :class:`~modelscape.target.registry.Provider`, registered in the ``modelscape.providers``
entry point group of ``pyproject.toml``):

- :mod:`~modelscape.providers.openai`: ``OpenAICompatibleTarget`` (vLLM, llama.cpp's server,
  Ollama, LM Studio, OpenRouter) and ``OpenAITarget`` (OpenAI's own API)
- :mod:`~modelscape.providers.responses`: ``OpenAIResponsesTarget`` (OpenAI's Responses API)
- :mod:`~modelscape.providers.azure`: ``AzureOpenAITarget`` (a deployment on Azure OpenAI)
- :mod:`~modelscape.providers.anthropic`: ``AnthropicTarget`` (Anthropic's messages API)
- :mod:`~modelscape.providers.gemini`: ``GeminiTarget`` (Google's Gemini API)
- :mod:`~modelscape.providers.bedrock`: ``BedrockTarget`` (AWS Bedrock's Converse API)
- :mod:`~modelscape.providers.llama`: ``LlamaCppTarget`` (a GGUF file run in this process)

and what they share:

- :mod:`~modelscape.providers.http`: the pooled session, the key, the call and its errors
- :mod:`~modelscape.providers.chat`: the OpenAI chat-completions shape, read once
- :mod:`~modelscape.providers.limiter`: ``AdaptiveLimiter``, the per-target AIMD limit
- :mod:`~modelscape.providers.options`: ``Generation`` and ``TargetOptions``
- :mod:`~modelscape.providers.structured`: structured answers
- :mod:`~modelscape.providers.names`: options read from a name, and ``provider_target``
- :mod:`~modelscape.providers.reference`: the targets reference page, written from the kinds

The HTTP targets need aiohttp (``pip install 'modelscape-map[providers]'``), Bedrock botocore
as well (``modelscape-map[bedrock]``) and the local one llama-cpp-python
(``modelscape-map[llama]``); each is imported only when a call is made, so this package imports
without any of them.
"""

from modelscape.providers.anthropic import AnthropicTarget
from modelscape.providers.azure import AzureOpenAITarget
from modelscape.providers.bedrock import BedrockTarget
from modelscape.providers.gemini import GeminiTarget
from modelscape.providers.http import HttpTarget
from modelscape.providers.limiter import AdaptiveLimiter
from modelscape.providers.llama import LlamaCppTarget
from modelscape.providers.names import provider_target
from modelscape.providers.openai import OpenAICompatibleTarget, OpenAITarget
from modelscape.providers.options import Generation, Price, TargetOptions
from modelscape.providers.responses import OpenAIResponsesTarget

__all__ = [
    "AdaptiveLimiter",
    "AnthropicTarget",
    "AzureOpenAITarget",
    "BedrockTarget",
    "GeminiTarget",
    "Generation",
    "HttpTarget",
    "LlamaCppTarget",
    "OpenAICompatibleTarget",
    "OpenAIResponsesTarget",
    "OpenAITarget",
    "Price",
    "TargetOptions",
    "provider_target",
]
