"""The Bedrock target against a loopback Converse endpoint: the body, the SigV4 signature
(recomputed here from the AWS specification, independently of botocore), credentials and
regions."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from modelscape.errors import ExecutionError
from modelscape.targets._resolve import resolve_target
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.bedrock import BedrockTarget, bedrock_endpoint
from modelscape.task.prompt import Prompt
from tests.targets.providers.wire import SECRET, Seen, WireServer, converse_reply

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
ACCESS = "AKIDLOOPBACKTEST"
TOKEN = "session-token-" + "9" * 20
REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?", system="Answer briefly."), seed=42)


@pytest.fixture
def server() -> Iterator[WireServer]:
    running = WireServer(lambda seen: converse_reply()).start()
    yield running
    running.stop()


@pytest.fixture
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", TOKEN)


def ask(target: BedrockTarget, request: TargetRequest = REQUEST) -> TargetOutput:
    return asyncio.run(target(request))


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def expected_signature(seen: Seen, secret: str, *, body: bytes | None = None) -> str:
    """The SigV4 signature of a received request, computed as the AWS specification says."""
    authorization = seen.headers["Authorization"]
    algorithm, _, fields = authorization.partition(" ")
    assert algorithm == "AWS4-HMAC-SHA256"
    parts = dict(field.strip().split("=", 1) for field in fields.split(","))
    scope = parts["Credential"].split("/", 1)[1]
    day, region, service, terminator = scope.split("/")
    signed = parts["SignedHeaders"].split(";")
    lower = {name.lower(): value for name, value in seen.headers.items()}
    canonical = "\n".join(
        [
            "POST",
            # Every service but S3 encodes the (already encoded) path once more.
            quote(seen.raw_path, safe="/~"),
            "",
            "".join(f"{name}:{' '.join(lower[name].split())}\n" for name in signed),
            ";".join(signed),
            hashlib.sha256(seen.raw if body is None else body).hexdigest(),
        ]
    )
    to_sign = "\n".join(
        [
            "AWS4-HMAC-SHA256",
            lower["x-amz-date"],
            scope,
            hashlib.sha256(canonical.encode()).hexdigest(),
        ]
    )
    key = _hmac(("AWS4" + secret).encode(), day)
    for step in (region, service, terminator):
        key = _hmac(key, step)
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def test_the_request_is_signed_for_bedrock_in_the_targets_region(
    server: WireServer, credentials: None
) -> None:
    ask(BedrockTarget(MODEL, region="eu-west-1", base_url=server.url))
    (seen,) = server.seen
    authorization = seen.headers["Authorization"]
    assert authorization.startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS}/")
    assert "/eu-west-1/bedrock/aws4_request," in authorization
    signed = authorization.split("SignedHeaders=")[1].split(",")[0].split(";")
    assert {"host", "x-amz-date", "x-amz-security-token", "content-type"} <= set(signed)
    assert seen.headers["X-Amz-Security-Token"] == TOKEN
    assert SECRET not in str(seen.headers)  # the secret signs; it is never sent
    signature = authorization.rsplit("Signature=", 1)[1]
    assert signature == expected_signature(seen, SECRET)
    # The check can fail: another body or another secret gives another signature.
    assert signature != expected_signature(seen, SECRET, body=seen.raw + b" ")
    assert signature != expected_signature(seen, SECRET + "x")


def test_the_model_id_is_one_escaped_path_segment_sent_as_signed(
    server: WireServer, credentials: None
) -> None:
    ask(BedrockTarget("us.meta.llama3/v1:0", region="us-east-1", base_url=server.url))
    (seen,) = server.seen
    assert seen.raw_path == "/model/us.meta.llama3%2Fv1%3A0/converse"
    assert seen.headers["Authorization"].rsplit("Signature=", 1)[1] == expected_signature(
        seen, SECRET
    )


def test_the_body_is_a_converse_request(server: WireServer, credentials: None) -> None:
    target = BedrockTarget(
        MODEL,
        region="eu-west-1",
        base_url=server.url,
        generation=Generation(temperature=0.2, max_tokens=64, top_p=0.9, stop=["\n\n"]),
    )
    ask(target)
    assert server.seen[0].body == {
        "messages": [{"role": "user", "content": [{"text": "Is 7 prime?"}]}],
        "system": [{"text": "Answer briefly."}],
        "inferenceConfig": {
            "temperature": 0.2,
            "maxTokens": 64,
            "topP": 0.9,
            "stopSequences": ["\n\n"],
        },
    }


def test_the_reply_is_read(server: WireServer, credentials: None) -> None:
    reply = converse_reply("Yes.")
    reply["output"]["message"]["content"].append({"text": " Seven is prime."})
    server.then(body=reply)
    output = ask(BedrockTarget(MODEL, region="eu-west-1", base_url=server.url))
    assert output.text == "Yes. Seven is prime."
    assert output.finish_reason == "end_turn"
    assert output.usage is not None
    assert (output.usage.input_tokens, output.usage.output_tokens) == (13, 4)
    assert output.model is None  # Converse does not say which version answered


def test_structured_answers_force_the_answer_tool(server: WireServer, credentials: None) -> None:
    shape = AnswerShape(field="answer", choices=("yes", "no"))
    server.then(
        body={
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "toolUse": {
                                "toolUseId": "t1",
                                "name": "answer",
                                "input": {"answer": "no"},
                            }
                        }
                    ],
                }
            },
            "stopReason": "tool_use",
            "usage": {"inputTokens": 30, "outputTokens": 9},
        }
    )
    target = BedrockTarget(MODEL, region="eu-west-1", base_url=server.url, structured=True)
    output = ask(target, REQUEST.model_copy(update={"answer": shape}))
    tools = server.seen[0].body["toolConfig"]
    assert tools["toolChoice"] == {"tool": {"name": "answer"}}
    assert tools["tools"][0]["toolSpec"]["inputSchema"] == {"json": shape.json_schema()}
    assert output.data == {"answer": "no"}
    assert output.text == '{"answer": "no"}'
    assert target.parameters["structured"] == "tool"


def test_without_credentials_a_loopback_endpoint_gets_an_unsigned_request(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    ask(BedrockTarget(MODEL, region="eu-west-1", base_url=server.url))
    assert "Authorization" not in server.seen[0].headers


def test_an_access_key_without_its_secret_is_no_credential(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    with pytest.raises(TargetError, match="AWS_SECRET_ACCESS_KEY"):
        BedrockTarget(MODEL, region="eu-west-1")


def test_the_region_comes_from_the_name_options_or_environment(
    credentials: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    with pytest.raises(ExecutionError, match="name the AWS region"):
        resolve_target(f"bedrock:{MODEL}")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-2")
    target = resolve_target(f"bedrock:{MODEL}")
    assert target.parameters["region"] == "ap-southeast-2"
    assert target.parameters["base_url"] == bedrock_endpoint("ap-southeast-2")
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    assert resolve_target(f"bedrock:{MODEL}").parameters["region"] == "us-west-2"
    given = resolve_target(f"bedrock:{MODEL}", region="eu-central-1")
    assert given.parameters["region"] == "eu-central-1"
    assert given.identity.id != target.identity.id


@pytest.mark.parametrize("region", ["evil.example/x", "us-east-1.attacker.example", "", "US"])
def test_a_region_that_is_no_region_is_refused(credentials: None, region: str) -> None:
    with pytest.raises(ExecutionError, match="not an AWS region"):
        BedrockTarget(MODEL, region=region)


@pytest.mark.parametrize("option", [{"seed": False}, {"api_key_env": "MY_KEY"}])
def test_options_bedrock_has_no_use_for_are_refused(
    credentials: None, option: dict[str, object]
) -> None:
    with pytest.raises(ExecutionError, match=r"do(es)? not apply to bedrock"):
        resolve_target(f"bedrock:{MODEL}", region="us-east-1", **option)
