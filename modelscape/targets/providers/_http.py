"""What every HTTP provider target shares: the pooled client, identity, the key, the call, and
how a call fails.

**The pooled client** is in :mod:`modelscape.targets.providers._session`.

**Keys and identity.** A provider target is an ordinary
:class:`~modelscape.targets.protocol.Target`. Its identity holds what shapes the replies
(provider, base URL, model, generation parameters) and never the API key, nor the name of the
variable it is read from. The key is read from the environment at every call and put in a
request header. A server may echo that header anywhere in its reply, so the key is scrubbed
from every text that comes back (the reply, the reported model name, JSON data, errors), each
whole, before anything is cut to length. A key is only sent over https or to this machine
(loopback), unless ``allow_http_key`` says the plain-http network is trusted.

**Cost.** A target given a :class:`~modelscape.targets.providers._settings.Price` (``price:`` in a
targets.yaml) records in every output's usage what its tokens cost at that price; the price is
not part of the identity, since it changes no reply.

**Size.** A reply is read in pieces into one buffer and abandoned past ``max_response_bytes``
(32 MiB unless set), after decompression: a runaway or hostile server cannot fill the memory.
That observation fails at once with the limit in its error; asking again would fetch the same.
The buffer is emptied as soon as its text is decoded, and the text dropped once parsed, so a
reply costs about twice its size while it is read (its bytes, then its text, then what the
JSON holds), not a joined copy of its pieces and every stage at once (design note 035).

**Failures.** How a call can fail, and what the runner then does (see :class:`TargetError`)::

    HTTP 429                      retried after the provider's Retry-After; the limiter
                                  halves. A Retry-After beyond the policy's max_delay fails
                                  the observation at once (not within this run)
    HTTP 5xx                      retried (after Retry-After when the provider sent one)
    HTTP 401, 403                 fails at once; kind "auth", so a run of them stops the target
    HTTP 4xx otherwise            fails at once with the provider's own message
    connection refused or reset   retried under the RetryPolicy; kind "connection", so a run of
                                  identical ones stops the target (ExecutionConfig.stop_after)
    no reply within the timeout   retried; the limiter halves. The timeout (the runner's
                                  ExecutionConfig.timeout) starts when the request is sent,
                                  not while it waits for a place under the limiter
    a 200 that is not a reply     retried: proxies and overloaded servers send such pages
    a reply over the size limit   fails at once
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit

from modelscape._identity import Identity, JsonValue
from modelscape.errors import ExecutionError
from modelscape.targets._cleaning import redact_output
from modelscape.targets.protocol import IdentifiedTarget, TargetError, TargetOutput, TargetRequest
from modelscape.targets.providers._limiter import AdaptiveLimiter
from modelscape.targets.providers._replicas import Outcome, Replicas
from modelscape.targets.providers._session import acquire, new_session, release
from modelscape.targets.providers._settings import HttpOptions, is_loopback

if TYPE_CHECKING:
    import aiohttp
    import yarl

__all__ = [
    "HttpTarget",
    "parse_retry_after",
    "provider_message",
    "unscrubbed",
]

# Provider messages are kept whole up to this length; an HTML error page is not.
_MESSAGE_LIMIT = 500


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait that a response asks for, or None when it does not say.

    Reads ``Retry-After`` as seconds or as an HTTP date (RFC 9110, section 10.2.3), and the
    millisecond ``retry-after-ms`` that some providers send alongside it, which wins because it
    is finer.
    """
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000.0)
        except ValueError:
            pass
    value = headers.get("Retry-After")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:  # "nan" says nothing; "inf" and other huge waits mean "not within this run"
        return None if math.isnan(seconds) else max(0.0, seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(tz=UTC)).total_seconds())


def unscrubbed(text: str) -> str:
    """``text`` as it is: the scrubber of a target that sends no key."""
    return text


def provider_message(body: bytes | bytearray, scrub: Callable[[str], str] = unscrubbed) -> str:
    """The provider's own words from an error body: ``error.message`` where it has one.

    ``scrub`` runs on the whole message before it is cut to length, so that a secret in it
    cannot leave a prefix of itself behind.
    """
    text = body.decode("utf-8", errors="replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return scrub(str(error["message"]))[:_MESSAGE_LIMIT]
        if isinstance(error, str):
            return scrub(error)[:_MESSAGE_LIMIT]
    return scrub(text)[:_MESSAGE_LIMIT] or "(empty body)"


def _parsed(body: bytearray) -> Any:
    """The JSON value in ``body`` (None when it holds none), as ``json.loads`` reads bytes;
    ``body`` is emptied once decoded, so that its bytes and their text are not both held
    while the JSON is parsed."""
    try:
        text = body.decode(json.detect_encoding(body), "surrogatepass")
    except (UnicodeDecodeError, LookupError):
        return None
    finally:
        body.clear()
    try:
        return json.loads(text)
    except ValueError:
        return None


class HttpTarget(IdentifiedTarget):
    """The shared half of a provider target that speaks JSON over HTTP.

    A subclass says where to send a request (``url``), how to write the body and headers, and
    how to read a reply. ``http`` (:class:`~modelscape.targets.providers._settings.HttpOptions`)
    says how calls are made. This class holds the identity, reads the key, limits concurrency
    adaptively (:class:`~modelscape.targets.providers._limiter.AdaptiveLimiter`), sends the call
    through the pooled session, classifies failures, and records the latency: the seconds from
    sending the request to reading the whole reply, without any wait for the limiter.
    """

    #: The provider's label in messages and in the identity.
    provider = "http"
    #: Whether ``url`` is sent byte for byte, as a provider that signs it needs, instead of
    #: being normalised by the HTTP client.
    exact_url = False

    def __init__(
        self,
        *,
        url: str,
        name: str,
        version: str,
        parameters: Mapping[str, JsonValue],
        api_key_env: str | None,
        require_key: bool,
        http: HttpOptions,
        replicas: Sequence[str] = (),
    ) -> None:
        for address in (url, *replicas):
            if (
                api_key_env is not None
                and urlsplit(address).scheme != "https"
                and not is_loopback(address)
                and not http.allow_http_key
            ):
                raise ExecutionError(
                    f"target {name!r} would send its API key ({api_key_env}) over plain http to "
                    f"{urlsplit(address).hostname}, where anyone on the way can read it: use an "
                    "https URL, or set allow_http_key (allow_http_key: true in a targets.yaml) "
                    "if that network is trusted"
                )
        self.url = url
        #: The servers calls are spread over, when there are several (see replicas.py).
        self.replicas = (
            Replicas([url, *replicas], where=f"{self.provider} target {name!r}")
            if replicas
            else None
        )
        self.api_key_env = api_key_env
        self.require_key = require_key
        self.http = http
        self.max_response_bytes = http.max_response_bytes
        self.price = http.price
        self.limiter = AdaptiveLimiter(http.max_concurrency)
        self._session: aiohttp.ClientSession | None = None
        self._entered = 0
        self._identity = Identity(
            kind="target",
            name=name,
            version=version,
            parameters={"provider": self.provider, **parameters},
        )
        if require_key:
            self.api_key()  # a missing key is an error now, before any call is made

    def api_key(self) -> str | None:
        """The key from the environment now, or None when this target uses none."""
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env, "").strip()
        if key:
            return key
        if self.require_key:
            raise TargetError(
                f"{self.provider} target {self.name!r} needs an API key: set the environment "
                f"variable {self.api_key_env} (or name another one with api_key_env)",
                retryable=False,
                kind="auth",
            )
        return None

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """The JSON body of a request."""
        raise NotImplementedError

    def headers(self, key: str | None) -> dict[str, str]:
        """The request headers, the key among them."""
        raise NotImplementedError

    def request_headers(self, key: str | None, data: bytes) -> dict[str, str]:
        """The headers of one request whose body is ``data``: :meth:`headers`, unless the
        provider signs each request (AWS)."""
        return self.headers(key)

    @property
    def secret_variables(self) -> tuple[str, ...]:
        """The environment variables whose values are secrets, scrubbed from every reply."""
        return () if self.api_key_env is None else (self.api_key_env,)

    def output(self, payload: dict[str, Any], latency: float) -> TargetOutput:
        """The output read from a successful reply."""
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        """Take a share of the running loop's pooled session for the calls to come."""
        if self._entered == 0:
            self._session = await acquire()
        self._entered += 1
        return self

    async def aclose(self) -> None:
        """Give back this target's share of the pooled session (the last share closes it)."""
        if self._entered == 0:
            return
        self._entered -= 1
        if self._entered == 0 and self._session is not None:
            session, self._session = self._session, None
            await release(session)

    def _endpoint(self) -> AbstractContextManager[Outcome]:
        """Where the next call goes: the one URL, or the replica with the fewest in flight."""
        if self.replicas is None:
            return nullcontext(Outcome(self.url))
        return self.replicas.call(f"{self.provider} target {self.name!r}")

    @asynccontextmanager
    async def _client(self) -> AsyncIterator[aiohttp.ClientSession]:
        """The pooled session when this target is open, or one for this call alone."""
        if self._session is not None and not self._session.closed:
            yield self._session
            return
        session = new_session()
        try:
            yield session
        finally:
            await session.close()

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        import aiohttp
        import yarl

        key = self.api_key()
        data = json.dumps(self.body(request), ensure_ascii=False).encode()
        headers = self.request_headers(key, data)
        with self._endpoint() as outcome:
            url = outcome.url
            address: str | yarl.URL = yarl.URL(url, encoded=True) if self.exact_url else url
            async with self._client() as session, self.limiter.slot() as slot:
                started = time.perf_counter()
                try:
                    async with session.post(address, data=data, headers=headers) as response:
                        status = response.status
                        reply_headers = response.headers
                        raw = await self._read(response)
                except aiohttp.ClientError as error:
                    # Refused, reset or unresolvable: the endpoint, not this request, is at fault.
                    endpoint = isinstance(error, (aiohttp.ClientConnectionError, OSError))
                    if endpoint:
                        outcome.fail()
                    raise TargetError(
                        self.scrub(f"{self.provider} at {url}: {type(error).__name__}: {error}"),
                        kind="connection" if endpoint else None,
                    ) from None
                latency = time.perf_counter() - started
                if status == 429:
                    slot.throttled()
            if status >= 500:
                outcome.fail()
            else:
                outcome.succeed()
        if status >= 400:
            raise self._failure(status, reply_headers, raw)
        head = bytes(raw[: 8 * _MESSAGE_LIMIT])  # for the message, should it not be JSON
        payload = _parsed(raw)
        if not isinstance(payload, dict):
            raise TargetError(
                f"{self.provider} at {self.url} answered {status} without a JSON object: "
                f"{provider_message(head, self.scrub)!r}"
            )
        output = self.output(payload, latency)
        if self.replicas is not None:
            # A replica serving another model must not answer for this target.
            refused = self.replicas.answered(url, output.model)
            if refused is not None:
                raise TargetError(refused)
        if self.price is not None and output.usage is not None:
            output = output.model_copy(update={"usage": self.price.charge(output.usage)})
        # A server may echo the Authorization header into any field of a reply.
        return output if key is None else redact_output(output, self.scrub)

    async def _read(self, response: aiohttp.ClientResponse) -> bytearray:
        """The whole body, read in pieces into one buffer, up to ``max_response_bytes``."""
        limit = self.max_response_bytes
        length = response.content_length
        if length is not None and length > limit and "Content-Encoding" not in response.headers:
            raise self._too_large(f"announced {length:,} bytes")
        # One buffer, grown in place: a list of pieces joined at the end held the reply twice.
        body = bytearray()
        # Decompressed pieces are counted: a small gzip body can unpack to gigabytes.
        async for piece in response.content.iter_any():
            if len(body) + len(piece) > limit:
                body.clear()
                raise self._too_large(f"sent over {limit:,} bytes")
            body += piece
        return body

    def _too_large(self, what: str) -> TargetError:
        return TargetError(
            f"{self.provider} at {self.url} {what}, more than this target reads "
            f"(max_response_bytes {self.max_response_bytes:,}); raise it if such replies "
            "are expected",
            retryable=False,
        )

    def _failure(
        self, status: int, headers: Mapping[str, str], raw: bytes | bytearray
    ) -> TargetError:
        message = provider_message(raw, self.scrub)
        text = f"{self.provider} answered HTTP {status}: {message}"
        if status == 429 or status >= 500:
            return TargetError(text, retry_after=parse_retry_after(headers))
        return TargetError(text, retryable=False, kind="auth" if status in (401, 403) else None)

    def scrub(self, text: str) -> str:
        """``text`` with every secret, wherever it appears, replaced by ``[key]``."""
        # A provider may echo the key back in an error ("Incorrect API key provided: ...").
        for variable in self.secret_variables:
            secret = os.environ.get(variable, "").strip()
            if secret:
                text = text.replace(secret, "[key]")
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._identity}, url={self.url!r})"
