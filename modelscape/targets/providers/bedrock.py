"""A target for a model on AWS Bedrock, through the Converse API.

The request is ``POST {endpoint}/model/{MODEL_ID}/converse``, signed with AWS Signature
Version 4 for the service ``bedrock`` in the target's region. The signature is made by
botocore's own signer (``botocore.auth.SigV4Auth``) over the exact bytes sent: signing is easy
to get subtly wrong by hand, and botocore is what AWS maintains for it. botocore is an optional
dependency (``modelscape-map[bedrock]``), imported only when a call is signed.

Credentials come from the environment at every call: ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY`` and, for temporary credentials, ``AWS_SESSION_TOKEN``. They are
never part of the identity; the secret and the session token are scrubbed from every reply.
Other sources of credentials (profiles, instance roles) are not read: an instance role would
mean calling a metadata service on every run's machine, and a profile is one command away from
the environment (``aws configure export-credentials --format env``).

The body holds ``messages`` (each a role and a list of content blocks), ``system`` blocks and
``inferenceConfig`` (``maxTokens``, ``temperature``, ``topP``, ``stopSequences``); Converse
takes no seed. The reply holds ``output.message.content`` (its text blocks joined make the
reply), ``stopReason`` and ``usage`` in input and output tokens. It does not say which model
version answered.

This module declares the ``bedrock:MODEL_ID[@URL]`` kind of target (:data:`BEDROCK`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from modelscape._version import requirement
from modelscape.errors import ExecutionError
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest, Usage
from modelscape.targets.providers._chat import token_count
from modelscape.targets.providers._http import HttpTarget, provider_message, unscrubbed
from modelscape.targets.providers._names import (
    LOCAL_ONLY,
    split_model_url,
    target_options,
)
from modelscape.targets.providers._settings import (
    Generation,
    HttpOptions,
    TargetOptions,
    check_base_url,
    is_loopback,
)
from modelscape.targets.providers._structured import (
    ANSWER_TOOL,
    StructuredMode,
    StructuredTarget,
    structured_mode,
)
from modelscape.targets.registry import Provider

__all__ = ["BEDROCK", "SIGNING_SERVICE", "BedrockTarget", "bedrock_endpoint", "read_converse"]

#: The service name Bedrock's runtime signs requests for.
SIGNING_SERVICE = "bedrock"
ACCESS_KEY_ENV = "AWS_ACCESS_KEY_ID"
SECRET_KEY_ENV = "AWS_SECRET_ACCESS_KEY"
SESSION_TOKEN_ENV = "AWS_SESSION_TOKEN"
# Where a region is read from when a target names none, in the order the AWS tools read them.
_REGION_ENV = ("AWS_REGION", "AWS_DEFAULT_REGION")

_REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]+")
_FIXED = frozenset({"messages", "system"})
# The generation parameters Converse has: no seed.
_TAKES = frozenset({"temperature", "max_tokens", "top_p", "stop"})


def bedrock_endpoint(region: str) -> str:
    """The address of Bedrock's runtime in ``region``."""
    return f"https://bedrock-runtime.{region}.amazonaws.com"


def read_converse(
    payload: dict[str, Any],
    *,
    provider: str,
    url: str | None = None,
    latency: float | None = None,
    scrub: Callable[[str], str] = unscrubbed,
    structured: bool = False,
) -> TargetOutput:
    """The output a Converse reply holds: the text blocks joined, the answer tool's input as
    data when ``structured``, the stop reason and token usage."""
    where = provider if url is None else f"{provider} at {url}"
    output = payload.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        if "message" in payload and "output" not in payload:  # an error sent with a 200
            detail = provider_message(json.dumps(payload).encode(), scrub)
            raise TargetError(f"{where} sent an error in its reply: {detail}")
        raise TargetError(f"{where} sent a reply without output.message.content")
    blocks = [block for block in content if isinstance(block, dict)]
    text = "".join(block["text"] for block in blocks if isinstance(block.get("text"), str))
    data = None
    if structured:
        uses = (block.get("toolUse") for block in blocks)
        data = next(
            (
                use["input"]
                for use in uses
                if isinstance(use, dict)
                and use.get("name") == ANSWER_TOOL
                and isinstance(use.get("input"), dict)
            ),
            None,
        )
    if data is not None and not text:
        text = json.dumps(data, ensure_ascii=False)
    usage = payload.get("usage")
    stop = payload.get("stopReason")
    return TargetOutput(
        text=text,
        data=data,
        usage=Usage(
            input_tokens=token_count(usage.get("inputTokens")),
            output_tokens=token_count(usage.get("outputTokens")),
        )
        if isinstance(usage, dict)
        else None,
        finish_reason=stop if isinstance(stop, str) else None,
        latency=latency,
    )


class BedrockTarget(StructuredTarget, HttpTarget):
    """A model on AWS Bedrock, asked through the Converse API with SigV4-signed requests.

    ``model`` is the Bedrock model ID or inference profile (such as
    ``anthropic.claude-3-5-haiku-20241022-v1:0``) and ``region`` the AWS region; the endpoint
    defaults to that region's runtime, and another ``base_url`` (a VPC endpoint, a loopback
    stand-in) is used as given but still signed for ``region``. Model, region, endpoint and the
    generation parameters form the identity. Credentials are read from the environment at every
    call (see the module); they must be set when the target is made unless the endpoint is on
    this machine, where an unsigned request is sent if none are. Converse has no seed, so a
    ``generation`` that sets one is refused.
    ``structured`` (``True`` or ``"tool"``) gives the model one tool whose input schema is the
    answer's and makes it call that tool (models that cannot be forced to use a tool refuse
    such a request with an error).
    """

    provider = "bedrock"
    structured_modes: tuple[StructuredMode, ...] = ("tool",)

    def __init__(
        self,
        model: str,
        *,
        region: str,
        base_url: str | None = None,
        name: str | None = None,
        version: str = "1",
        generation: Generation | None = None,
        http: HttpOptions | None = None,
        require_key: bool | None = None,
        structured: bool | str = False,
    ) -> None:
        where = f"target {name or model!r}"
        if not _REGION.fullmatch(region):
            raise ExecutionError(f"{where}: {region!r} is not an AWS region, such as us-east-1")
        base = check_base_url(base_url or bedrock_endpoint(region), where=where)
        self.structured = structured_mode(structured, allowed=self.structured_modes, where=where)
        self.generation = (Generation() if generation is None else generation).limited_to(
            _TAKES, where=where
        )
        if require_key is None:
            require_key = not is_loopback(base)
        self.model = model
        self.region = region
        self.base_url = base
        parameters = self.generation.identity(takes=_TAKES)
        super().__init__(
            # The model ID is one path segment: its colons and slashes are escaped, as AWS's
            # own clients escape them, and the URL is sent exactly as signed.
            url=f"{base}/model/{quote(model, safe='-._~')}/converse",
            name=name or model,
            version=version,
            parameters={
                "base_url": base,
                "region": region,
                "model": model,
                **parameters,
                **({"structured": self.structured} if self.structured else {}),
            },
            api_key_env=SECRET_KEY_ENV,
            require_key=require_key,
            http=HttpOptions() if http is None else http,
        )
        self.exact_url = True  # the URL must reach the server exactly as it was signed

    @property
    def secret_variables(self) -> tuple[str, ...]:
        """The secret access key and the session token."""
        return (SECRET_KEY_ENV, SESSION_TOKEN_ENV)

    def api_key(self) -> str | None:
        """The secret access key now (with an access key ID beside it), or None."""
        access = os.environ.get(ACCESS_KEY_ENV, "").strip()
        secret = os.environ.get(SECRET_KEY_ENV, "").strip()
        if access and secret:
            return secret
        if self.require_key:
            raise TargetError(
                f"{self.provider} target {self.name!r} needs AWS credentials: set "
                f"{ACCESS_KEY_ENV} and {SECRET_KEY_ENV} (and {SESSION_TOKEN_ENV} for "
                "temporary credentials)",
                retryable=False,
                kind="auth",
            )
        return None

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON; the signature is added per request (:meth:`request_headers`)."""
        return {"Content-Type": "application/json"}

    def request_headers(self, key: str | None, data: bytes) -> dict[str, str]:
        """The headers with botocore's SigV4 signature over this request, when there are
        credentials: ``Authorization``, ``X-Amz-Date`` and, for temporary credentials,
        ``X-Amz-Security-Token``."""
        headers = self.headers(key)
        if key is None:
            return headers
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        credentials = Credentials(
            os.environ.get(ACCESS_KEY_ENV, "").strip(),
            key,
            os.environ.get(SESSION_TOKEN_ENV, "").strip() or None,
        )
        request = AWSRequest(method="POST", url=self.url, data=data, headers=headers)
        SigV4Auth(credentials, SIGNING_SERVICE, self.region).add_auth(request)
        return {name: str(value) for name, value in request.headers.items()}

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """Messages, system blocks, the inference config of the parameters set, and the answer
        tool when structured. Settings carried by the request are added last, except messages
        and system (``additionalModelRequestFields`` passes a model's own parameters)."""
        prompt = request.prompt
        body: dict[str, Any] = {
            "messages": [
                {"role": m.role, "content": [{"text": m.content}]} for m in prompt.messages
            ]
        }
        if prompt.system:
            body["system"] = [{"text": prompt.system}]
        fields = self.generation.fields(
            request.seed, token_field="maxTokens", stop_field="stopSequences"
        )
        config = {{"top_p": "topP"}.get(k, k): v for k, v in fields.items()}
        if config:
            body["inferenceConfig"] = config
        if self.structured is not None:
            body["toolConfig"] = {
                "tools": [
                    {
                        "toolSpec": {
                            "name": ANSWER_TOOL,
                            "description": "Give your answer.",
                            "inputSchema": {"json": self.shape(request).json_schema()},
                        }
                    }
                ],
                "toolChoice": {"tool": {"name": ANSWER_TOOL}},
            }
        body.update((k, v) for k, v in request.settings.items() if k not in _FIXED)
        return body

    def output(self, payload: dict[str, Any], latency: float) -> TargetOutput:
        """The text blocks joined, the answer tool's input, the stop reason and usage."""
        return read_converse(
            payload,
            provider=self.provider,
            url=self.url,
            latency=latency,
            scrub=self.scrub,
            structured=self.structured is not None,
        )


def _bedrock(argument: str, **given: Any) -> BedrockTarget:
    # Credentials have fixed names (AWS's own), and Converse takes no seed.
    options = target_options("bedrock", argument, given, refuses=BEDROCK.refuses)
    model, url = split_model_url(argument, kind="bedrock")
    region = options.region or next(
        (os.environ[v].strip() for v in _REGION_ENV if os.environ.get(v, "").strip()), None
    )
    if region is None:
        raise ExecutionError(
            f"bedrock:{argument}: name the AWS region, with region: in a targets.yaml or "
            f"{' or '.join(_REGION_ENV)} in the environment"
        )
    return BedrockTarget(
        model,
        region=region,
        base_url=url,
        **options.provider_keywords(),
    )


#: ``bedrock:MODEL_ID`` (or ``bedrock:MODEL_ID@URL``): a model on AWS Bedrock through the
#: Converse API; credentials from ``AWS_ACCESS_KEY_ID`` and ``AWS_SECRET_ACCESS_KEY``.
BEDROCK = Provider(
    kind="bedrock",
    make=_bedrock,
    key_variable=SECRET_KEY_ENV,
    extra=requirement("bedrock"),
    requires=("aiohttp", "botocore"),
    forms=("bedrock:MODEL_ID", "bedrock:MODEL_ID@URL"),
    summary="AWS Bedrock's Converse API, signed with AWS Signature Version 4; credentials from "
    "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, the region from region: "
    "or AWS_REGION or AWS_DEFAULT_REGION",
    options=TargetOptions,
    refuses=LOCAL_ONLY | {"api_key_env", "api_version", "seed"},
)
