"""Provider targets: real models behind real APIs, and local GGUF files.

Each provider is one module that holds its target and declares its kind of target name
(a :class:`~modelscape.targets.registry.Provider`, registered in the ``modelscape.providers``
entry point group of ``pyproject.toml``):

- :mod:`~modelscape.targets.providers.openai`: ``OpenAICompatibleTarget`` (vLLM, llama.cpp's server,
  Ollama, LM Studio, OpenRouter) and ``OpenAITarget`` (OpenAI's own API)
- :mod:`~modelscape.targets.providers.responses`: ``OpenAIResponsesTarget`` (OpenAI's Responses API)
- :mod:`~modelscape.targets.providers.azure`: ``AzureOpenAITarget`` (a deployment on Azure OpenAI)
- :mod:`~modelscape.targets.providers.anthropic`: ``AnthropicTarget`` (Anthropic's messages API)
- :mod:`~modelscape.targets.providers.gemini`: ``GeminiTarget`` (Google's Gemini API)
- :mod:`~modelscape.targets.providers.bedrock`: ``BedrockTarget`` (AWS Bedrock's Converse API)
- :mod:`~modelscape.targets.providers.llama`: ``LlamaCppTarget`` (a GGUF file run in this process)

and what they share:

- :mod:`~modelscape.targets.providers._http`: the pooled session, the key, the call and its errors
- :mod:`~modelscape.targets.providers._chat`: the OpenAI chat-completions shape, read once
- :mod:`~modelscape.targets.providers._limiter`: ``AdaptiveLimiter``, the per-target AIMD limit
- :mod:`~modelscape.targets.providers._settings`: ``Generation``, ``HttpOptions`` (the two
  settings objects every constructor takes) and ``TargetOptions`` (a targets.yaml entry's)
- :mod:`~modelscape.targets.providers._structured`: structured answers
- :mod:`~modelscape.targets.providers._names`: options read from a name, and ``provider_target``
- :mod:`~modelscape.targets.providers.reference`: the targets reference page, written from the kinds

The HTTP targets need aiohttp (``pip install 'modelscape-map[providers]'``), Bedrock botocore
as well (``modelscape-map[bedrock]``) and the local one llama-cpp-python
(``modelscape-map[llama]``); each is imported only when a call is made, so this package imports
without any of them.
"""

from modelscape.targets.providers._http import HttpTarget
from modelscape.targets.providers._limiter import AdaptiveLimiter
from modelscape.targets.providers._names import provider_target
from modelscape.targets.providers._settings import Generation, HttpOptions, Price, TargetOptions
from modelscape.targets.providers.anthropic import AnthropicTarget
from modelscape.targets.providers.azure import AzureOpenAITarget
from modelscape.targets.providers.bedrock import BedrockTarget
from modelscape.targets.providers.gemini import GeminiTarget
from modelscape.targets.providers.llama import LlamaCppTarget
from modelscape.targets.providers.openai import OpenAICompatibleTarget, OpenAITarget
from modelscape.targets.providers.responses import OpenAIResponsesTarget

__all__ = [
    "AdaptiveLimiter",
    "AnthropicTarget",
    "AzureOpenAITarget",
    "BedrockTarget",
    "GeminiTarget",
    "Generation",
    "HttpOptions",
    "HttpTarget",
    "LlamaCppTarget",
    "OpenAICompatibleTarget",
    "OpenAIResponsesTarget",
    "OpenAITarget",
    "Price",
    "TargetOptions",
    "provider_target",
]
