"""A minimal client for OpenAI-compatible chat-completions endpoints.

Works with hosted services and with local servers that speak the same
protocol (vLLM, llama.cpp's ``llama-server``, ...).  It asks for structured
output: the reply's JSON Schema as ``response_format`` ``json_schema``,
falling back once, for the rest of the client's life, to JSON mode
(``json_object``) when the server refuses the schema with HTTP 400 or 422.
Transport failures (timeouts, refused or dropped connections) and the
statuses 408, 429, 500, 502, 503 and 504 are retried at most ``retries``
times, with exponential back-off; anything else fails at once.  Every failure
is a :class:`~gcv.errors.EndpointError` (``endpoint-timeout`` when the
last attempt timed out) that names the endpoint and the cause, never the key.

This is the one module of ``reference`` that talks to the network; it uses
only the standard library (``http.client``), so it adds no dependency.
"""

from __future__ import annotations

import contextlib
import enum
import http.client
import json
import math
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import icontract

from gcv.errors import EndpointError, EndpointTimeout
from gcv.reference.errors import MalformedInput

__all__ = [
    "ENV_API_KEY",
    "ENV_ENDPOINT",
    "ENV_MODEL",
    "RETRIED_STATUSES",
    "SETTINGS",
    "ChatClient",
    "ClientConfig",
    "Completion",
    "ResponseFormat",
    "config_from",
]

ENV_ENDPOINT = ("GCV_ENDPOINT", "OPENAI_BASE_URL")
"""Environment variables read, in order, for the endpoint's base URL."""
ENV_MODEL = ("GCV_MODEL",)
"""Environment variables read for the model name."""
ENV_API_KEY = ("GCV_API_KEY", "OPENAI_API_KEY")
"""Environment variables read, in order, for the API key (local servers need none)."""

RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
"""HTTP statuses that are retried: the server may answer the same request later."""

_SCHEMA_REFUSED = frozenset({400, 422})
_CHUNK = 64 * 1024


class ResponseFormat(enum.Enum):
    """How the reply's structure is requested."""

    JSON_SCHEMA = "json_schema"
    """Constrained to the reply's JSON Schema (the default)."""
    JSON_OBJECT = "json_object"
    """Constrained to some JSON object (JSON mode)."""
    NONE = "none"
    """Not constrained: the prompt alone asks for JSON."""


def _fail(field: str, detail: str) -> MalformedInput:
    return MalformedInput(f"interpreter configuration: {field} {detail}", field=field)


def _check_number(name: str, value: object, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(name, f"must be a number, not {value!r}")
    if not (low <= value <= high) or math.isnan(value):
        raise _fail(name, f"must lie in [{low}, {high}], not {value!r}")


def _check_integer(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(name, f"must be an integer, not {value!r}")
    if not low <= value <= high:
        raise _fail(name, f"must lie in [{low}, {high}], not {value!r}")


def _check_endpoint(endpoint: object) -> None:
    if not isinstance(endpoint, str) or not endpoint:
        raise _fail("endpoint", "must be a URL such as http://127.0.0.1:8080/v1")
    try:
        parts = urlsplit(endpoint)
    except ValueError as error:  # e.g. "http://[::1": an unclosed IPv6 bracket
        raise _fail("endpoint", f"is not a URL ({error}): {endpoint[:100]!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _fail("endpoint", f"must be an http:// or https:// URL, not {endpoint!r}")
    if parts.username is not None or parts.password is not None:
        raise _fail("endpoint", "must not carry credentials; give the key by environment")
    if parts.query or parts.fragment:
        raise _fail("endpoint", f"must have no query or fragment: {endpoint!r}")
    try:
        parts.port  # noqa: B018 -- urlsplit checks the port only when asked
    except ValueError:
        raise _fail("endpoint", f"has an invalid port: {endpoint!r}") from None


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """Where the endpoint is, which model to ask, and how patiently.

    Parameters
    ----------
    endpoint:
        The base URL (``http://127.0.0.1:8080/v1``); ``/chat/completions`` is
        appended unless the URL already ends with it.
    model:
        The model name the server expects.
    api_key:
        Sent as a bearer token when given; never printed.
    timeout:
        Seconds allowed for each request, from connecting to the last byte.
    retries:
        How many times a failed request is repeated (0 to 10).
    backoff:
        Seconds before the first repetition, doubled for each further one.
    response_format, temperature, max_tokens, seed:
        Sent with every request (``seed`` only when given).
    max_response_bytes:
        A longer answer is refused.

    Raises
    ------
    MalformedInput
        Naming the first field that is not well formed.
    """

    endpoint: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0
    retries: int = 2
    backoff: float = 1.0
    response_format: ResponseFormat = ResponseFormat.JSON_SCHEMA
    temperature: float = 0.0
    max_tokens: int = 2048
    seed: int | None = None
    max_response_bytes: int = 8 * 1024 * 1024

    def __post_init__(self) -> None:
        _check_endpoint(self.endpoint)
        if not isinstance(self.model, str) or not self.model.strip():
            raise _fail("model", "must be a non-empty name")
        if self.api_key is not None and not isinstance(self.api_key, str):
            raise _fail("api_key", "must be a string")
        _check_number("timeout", self.timeout, 0.001, 3600)
        _check_integer("retries", self.retries, 0, 10)
        _check_number("backoff", self.backoff, 0, 60)
        if not isinstance(self.response_format, ResponseFormat):
            raise _fail(
                "response_format", f"must be a ResponseFormat, not {self.response_format!r}"
            )
        _check_number("temperature", self.temperature, 0, 2)
        _check_integer("max_tokens", self.max_tokens, 1, 1_000_000)
        if self.seed is not None:
            _check_integer("seed", self.seed, -(2**63), 2**63 - 1)
        _check_integer("max_response_bytes", self.max_response_bytes, 1024, 1 << 30)

    @property
    def url(self) -> str:
        """The chat-completions URL requests are posted to."""
        base = self.endpoint.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


SETTINGS = (
    "endpoint",
    "model",
    "api_key",
    "api_key_env",
    "timeout",
    "retries",
    "backoff",
    "response_format",
    "temperature",
    "max_tokens",
    "seed",
)
"""The settings :func:`config_from` takes."""


def _first(environ: Mapping[str, str], names: Sequence[str]) -> str | None:
    return next((environ[n] for n in names if environ.get(n)), None)


def _response_format(value: object) -> ResponseFormat:
    try:
        return ResponseFormat(value)
    except ValueError:
        known = [f.value for f in ResponseFormat]
        raise _fail("response_format", f"must be one of {known}, not {value!r}") from None


def _has_no_key_in_repr(result: ClientConfig) -> bool:
    return result.api_key is None or result.api_key not in repr(result)


@icontract.ensure(lambda result: _has_no_key_in_repr(result), "the key is never printed")
def config_from(settings: Mapping[str, object], environ: Mapping[str, str]) -> ClientConfig:
    """Build a :class:`ClientConfig` from explicit settings, then the environment.

    ``settings`` (command-line flags over a configuration file) win; the
    endpoint, model and key missing from them are read from :data:`ENV_ENDPOINT`,
    :data:`ENV_MODEL` and :data:`ENV_API_KEY`, or from the variable the setting
    ``api_key_env`` names.

    Raises
    ------
    MalformedInput
        An unknown setting, a missing endpoint or model, or a malformed value.

    Examples
    --------
    >>> env = {"GCV_ENDPOINT": "http://127.0.0.1:8080/v1", "OPENAI_API_KEY": "sk-x"}
    >>> config = config_from({"model": "qwen2.5-7b", "retries": 1}, env)
    >>> config.url, config.model, config.retries, config.api_key
    ('http://127.0.0.1:8080/v1/chat/completions', 'qwen2.5-7b', 1, 'sk-x')
    """
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise _fail(unknown[0], f"is not a setting; the settings are {sorted(SETTINGS)}")
    given = dict(settings)
    key_env = given.pop("api_key_env", None)
    if key_env is not None and not isinstance(key_env, str):
        raise _fail("api_key_env", "must name an environment variable")
    endpoint = given.pop("endpoint", None) or _first(environ, ENV_ENDPOINT)
    model = given.pop("model", None) or _first(environ, ENV_MODEL)
    if endpoint is None:
        raise _fail("endpoint", f"is missing: give --endpoint or set {ENV_ENDPOINT[0]}")
    if model is None:
        raise _fail("model", f"is missing: give --model or set {ENV_MODEL[0]}")
    key = given.pop("api_key", None)
    if key is None:
        key = environ.get(key_env) if key_env else _first(environ, ENV_API_KEY)
    if "response_format" in given:
        given["response_format"] = _response_format(given["response_format"])
    return ClientConfig(endpoint=endpoint, model=model, api_key=key, **given)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Completion:
    """A chat completion's text and how it was obtained."""

    content: str
    attempts: int
    response_format: ResponseFormat
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class _Transient(Exception):
    """A failure that the same request might not meet again."""

    def __init__(self, detail: str, *, timed_out: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.timed_out = timed_out


def _excerpt(data: bytes) -> str:
    try:
        document = json.loads(data)
        error = document.get("error") if isinstance(document, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        text = message if isinstance(message, str) else data.decode("utf-8", "replace")
    except (ValueError, RecursionError):
        text = data.decode("utf-8", "replace")
    text = "".join(c if c.isprintable() else " " for c in text).strip()
    return text if len(text) <= 300 else text[:297] + "..."


def _cut(connection: http.client.HTTPConnection) -> None:
    """End ``connection`` from the watchdog's thread: a blocked read returns at once."""
    if connection.sock is not None:
        with contextlib.suppress(OSError):
            connection.sock.shutdown(socket.SHUT_RDWR)


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _is_bounded(client: ChatClient, result: Completion) -> bool:
    # One request, its retries, and at most one structured-output fallback.
    return 1 <= result.attempts <= client.config.retries + 2


class ChatClient:
    """Posts chat-completion requests to one endpoint, within bounded retries.

    ``response_format`` starts as the configuration's and drops to JSON mode for
    good the first time the server refuses a JSON Schema.  ``requests`` counts
    every request sent.  ``sleep`` is the back-off's clock (tests pass a fake).

    Examples
    --------
    >>> client = ChatClient(ClientConfig("http://127.0.0.1:8080/v1", "m"))
    >>> client.response_format.value, client.requests
    ('json_schema', 0)
    """

    def __init__(
        self, config: ClientConfig, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.config = config
        self.response_format = config.response_format
        self.requests = 0
        self._sleep = sleep

    def _body(self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any]) -> bytes:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": list(messages),
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "stream": False,
        }
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        match self.response_format:
            case ResponseFormat.JSON_SCHEMA:
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "gcv_operations", "schema": schema, "strict": False},
                }
            case ResponseFormat.JSON_OBJECT:
                body["response_format"] = {"type": "json_object"}
        return json.dumps(body).encode()

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "gcv-interpreter/1",
        }
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        return headers

    def _connection(self) -> http.client.HTTPConnection:
        parts = urlsplit(self.config.url)
        host, port, timeout = parts.hostname or "", parts.port, self.config.timeout
        if parts.scheme == "https":
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def _read(self, response: http.client.HTTPResponse, deadline: float) -> bytes:
        limit = self.config.max_response_bytes
        declared = response.getheader("Content-Length") or ""
        if declared.isdigit() and int(declared) > limit:
            raise EndpointError(
                f"{self.config.url}: the answer has {declared} bytes; limit {limit}"
            )
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read1(_CHUNK):
            size += len(chunk)
            if size > limit:
                raise EndpointError(f"{self.config.url}: the answer exceeds {limit} bytes")
            if time.monotonic() > deadline:
                raise self._timed_out()
            chunks.append(chunk)
        if time.monotonic() > deadline:  # the watchdog cut the answer short
            raise self._timed_out()
        return b"".join(chunks)

    def _timed_out(self) -> _Transient:
        return _Transient(f"no complete answer within {self.config.timeout} s", timed_out=True)

    def _post(self, body: bytes) -> tuple[int, bytes]:
        parts = urlsplit(self.config.url)
        deadline = time.monotonic() + self.config.timeout
        connection = self._connection()
        self.requests += 1
        # The socket's timeout bounds each read only: a server that sends its headers a
        # byte at a time would never time out. The watchdog cuts the connection at the
        # deadline, so the timeout is total.
        watchdog = threading.Timer(self.config.timeout, _cut, (connection,))
        watchdog.start()
        try:
            connection.request("POST", parts.path or "/", body, self._headers())
            response = connection.getresponse()
            return response.status, self._read(response, deadline)
        except (OSError, http.client.HTTPException) as error:
            if isinstance(error, TimeoutError) or time.monotonic() >= deadline:
                raise self._timed_out() from None
            if isinstance(error, ssl.SSLError):
                raise EndpointError(f"{self.config.url}: TLS failed: {error}") from None
            raise _Transient(f"{type(error).__name__}: {error}") from None
        finally:
            watchdog.cancel()
            connection.close()

    def _completion(self, data: bytes, attempts: int) -> Completion:
        try:
            document = json.loads(data)
            choice = document["choices"][0]
            message = choice["message"]
            content = message.get("content")
        except (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError):
            # The content itself goes to read_reply, which bounds it (reference.jsoninput).
            raise EndpointError(
                f"{self.config.url}: the answer is not a chat completion: {_excerpt(data)}"
            ) from None
        if content is not None and not isinstance(content, str):
            raise EndpointError(f"{self.config.url}: the message content is not text")
        usage = document.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        finish = choice.get("finish_reason")
        return Completion(
            # A refusal or an empty message is the model's answer; validation reports it.
            content=content or "",
            attempts=attempts,
            response_format=self.response_format,
            finish_reason=finish if isinstance(finish, str) else None,
            prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
            completion_tokens=_int_or_none(usage.get("completion_tokens")),
        )

    @icontract.require(lambda messages: len(messages) > 0, "at least one message")
    @icontract.ensure(
        lambda self, result: _is_bounded(self, result),
        "retries are bounded: at most retries + 1 requests, plus one format fallback",
    )
    def complete(
        self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any]
    ) -> Completion:
        """Ask for one chat completion whose content follows ``schema``.

        Raises
        ------
        EndpointTimeout
            The last allowed attempt timed out.
        EndpointError
            Any other failure: refused, dropped, an HTTP error status, an answer
            too large or not a chat completion.
        """
        attempts = failures = 0
        while True:
            attempts += 1
            try:
                status, data = self._post(self._body(messages, schema))
            except _Transient as error:
                failures += 1
                if failures > self.config.retries:
                    cls = EndpointTimeout if error.timed_out else EndpointError
                    raise cls(
                        f"{self.config.url}: {error.detail} (after {attempts} attempts)"
                    ) from None
                self._sleep(self.config.backoff * 2 ** (failures - 1))
                continue
            if status == 200:
                return self._completion(data, attempts)
            if status in _SCHEMA_REFUSED and self.response_format is ResponseFormat.JSON_SCHEMA:
                self.response_format = ResponseFormat.JSON_OBJECT
                continue
            if status in RETRIED_STATUSES and failures < self.config.retries:
                failures += 1
                self._sleep(self.config.backoff * 2 ** (failures - 1))
                continue
            hint = ""
            if status in _SCHEMA_REFUSED and self.response_format is ResponseFormat.JSON_OBJECT:
                hint = " (if the server has no JSON mode, try --response-format none)"
            raise EndpointError(
                f"{self.config.url}: HTTP {status} after {attempts} attempts: "
                f"{_excerpt(data)}{hint}"
            )
