"""A target for a deployment on Azure OpenAI.

Azure serves OpenAI's chat-completions format under its own addresses: a resource's endpoint
(``https://RESOURCE.openai.azure.com``), a *deployment* (the name the resource's owner gave a
model) and an ``api-version`` query parameter, in
``POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=V``. The body and
the reply are those of chat completions (read by :mod:`~modelscape.targets.providers._chat`),
without ``model``: the deployment names it, and the reply's ``model`` says which version answered.

It authenticates in one of two ways, both from the environment at every call: an API key in the
``api-key`` header (``AZURE_OPENAI_API_KEY``), or, when no key is set, a Microsoft Entra ID
token as a bearer token (``AZURE_OPENAI_AD_TOKEN``, as ``az account get-access-token --resource
https://cognitiveservices.azure.com`` prints it). Getting and refreshing a token is left to the
tools made for it; the target reads whatever the variable holds when it calls.

This module declares the ``azure-openai:DEPLOYMENT[@ENDPOINT]`` kind of target (:data:`AZURE`);
the endpoint defaults to ``AZURE_OPENAI_ENDPOINT``.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from modelscape._version import requirement
from modelscape.errors import ExecutionError
from modelscape.targets.protocol import TargetError, TargetRequest
from modelscape.targets.providers._http import HttpTarget
from modelscape.targets.providers._names import LOCAL_ONLY, split_model_url, target_options
from modelscape.targets.providers._settings import (
    Generation,
    HttpOptions,
    TargetOptions,
    check_base_url,
    is_loopback,
)
from modelscape.targets.providers._structured import StructuredMode, structured_mode
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from modelscape.targets.registry import Provider

__all__ = ["AZURE", "AZURE_API_VERSION", "AZURE_TOKEN_ENV", "AzureOpenAITarget"]

#: The API version asked for unless another is set (Azure OpenAI's generally available one).
AZURE_API_VERSION = "2024-10-21"
#: The variable a Microsoft Entra ID token is read from when no API key is set.
AZURE_TOKEN_ENV = "AZURE_OPENAI_AD_TOKEN"
#: The variable the endpoint is read from when a target name gives none.
AZURE_ENDPOINT_ENV = "AZURE_OPENAI_ENDPOINT"


class AzureOpenAITarget(OpenAICompatibleTarget):
    """A deployment on Azure OpenAI: an OpenAI model under the deployment's name.

    ``endpoint`` is the resource's address and ``deployment`` the model's name there; with
    ``api_version`` and the generation parameters they form the identity (the key and the
    token never do). The key is read from ``api_key_env`` (``AZURE_OPENAI_API_KEY``) and sent
    as ``api-key``; when that variable is empty, the token in ``token_env``
    (``AZURE_OPENAI_AD_TOKEN``) is sent as a bearer token. One of them must be set when the
    target is made unless the endpoint is on this machine. The length bound is sent as
    ``max_completion_tokens``, which Azure's newer models require and the API version takes
    for all. ``structured`` (``True`` or ``"json_schema"``) asks for JSON of the answer's
    schema. The other options are those of :class:`OpenAICompatibleTarget`.
    """

    provider = "azure-openai"
    structured_modes: tuple[StructuredMode, ...] = ("json_schema",)

    def __init__(
        self,
        deployment: str,
        *,
        endpoint: str,
        api_version: str = AZURE_API_VERSION,
        name: str | None = None,
        version: str = "1",
        generation: Generation | None = None,
        http: HttpOptions | None = None,
        api_key_env: str | None = "AZURE_OPENAI_API_KEY",
        token_env: str | None = AZURE_TOKEN_ENV,
        require_key: bool | None = None,
        structured: bool | str = False,
    ) -> None:
        where = f"target {name or deployment!r}"
        base = check_base_url(endpoint, where=where)
        # What OpenAICompatibleTarget's body and structure read, set here since its
        # constructor (which would build another URL and identity) is not called.
        self.structured = structured_mode(structured, allowed=self.structured_modes, where=where)
        self.generation = Generation() if generation is None else generation
        self.model = deployment
        self.base_url = base
        self.token_field = "max_completion_tokens"
        self.api_version = api_version
        self.token_env = token_env
        if require_key is None:
            require_key = (api_key_env is not None or token_env is not None) and not is_loopback(
                base
            )
        path = f"/openai/deployments/{quote(deployment, safe='-._~')}/chat/completions"
        HttpTarget.__init__(
            self,
            url=f"{base}{path}?api-version={quote(api_version, safe='-._~')}",
            name=name or deployment,
            version=version,
            parameters={
                "endpoint": base,
                "deployment": deployment,
                "api_version": api_version,
                **self.generation.identity(),
                **({"structured": self.structured} if self.structured else {}),
            },
            # The plain-http check names the key's variable; a token is as secret as a key.
            api_key_env=api_key_env or token_env,
            require_key=require_key,
            http=HttpOptions() if http is None else http,
        )
        # Set after the check above, which needs only one variable's name.
        self.api_key_env = api_key_env

    @property
    def secret_variables(self) -> tuple[str, ...]:
        """The key's variable and the token's."""
        return tuple(v for v in (self.api_key_env, self.token_env) if v is not None)

    def _key(self) -> str:
        return os.environ.get(self.api_key_env, "").strip() if self.api_key_env else ""

    def api_key(self) -> str | None:
        """The API key now, else the Entra ID token now, else None (or an error if required)."""
        key = self._key()
        if key:
            return key
        token = os.environ.get(self.token_env, "").strip() if self.token_env else ""
        if token:
            return token
        if self.require_key:
            raise TargetError(
                f"{self.provider} target {self.name!r} needs a key or a token: set "
                f"{self.api_key_env or 'api_key_env'} (an API key of the resource) or "
                f"{self.token_env or 'token_env'} (a Microsoft Entra ID token)",
                retryable=False,
                kind="auth",
            )
        return None

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON, and the API key in ``api-key`` or the token as a bearer token."""
        headers = {"Content-Type": "application/json"}
        if key is not None and key == self._key():
            headers["api-key"] = key
        elif key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """The chat-completions body without ``model``: the deployment names the model."""
        body = super().body(request)
        if "model" not in request.settings:
            del body["model"]
        return body


def _azure(argument: str, **given: Any) -> AzureOpenAITarget:
    options = target_options("azure-openai", argument, given, refuses=AZURE.refuses)
    deployment, url = split_model_url(argument, kind="azure-openai")
    endpoint = url or os.environ.get(AZURE_ENDPOINT_ENV, "").strip()
    if not endpoint:
        raise ExecutionError(
            f"azure-openai:{argument}: name the resource's endpoint, as "
            "azure-openai:DEPLOYMENT@https://RESOURCE.openai.azure.com, or set "
            f"{AZURE_ENDPOINT_ENV}"
        )
    return AzureOpenAITarget(
        deployment,
        endpoint=endpoint,
        api_version=options.api_version or AZURE_API_VERSION,
        **options.provider_keywords(),
        api_key_env=options.api_key_env or AZURE.key_variable,
    )


#: ``azure-openai:DEPLOYMENT@ENDPOINT`` (or the endpoint from ``AZURE_OPENAI_ENDPOINT``): a
#: deployment on Azure OpenAI; the key from ``AZURE_OPENAI_API_KEY``, or a token from
#: ``AZURE_OPENAI_AD_TOKEN``.
AZURE = Provider(
    kind="azure-openai",
    make=_azure,
    key_variable="AZURE_OPENAI_API_KEY",
    extra=requirement("providers"),
    requires=("aiohttp",),
    forms=("azure-openai:DEPLOYMENT@ENDPOINT", "azure-openai:DEPLOYMENT"),
    summary="a deployment on Azure OpenAI (chat completions); the endpoint from the name or "
    f"{AZURE_ENDPOINT_ENV}, and without a key a Microsoft Entra ID token from {AZURE_TOKEN_ENV}",
    options=TargetOptions,
    refuses=LOCAL_ONLY | {"region"},
    defaults={"api_version": AZURE_API_VERSION},
)
