"""The chat-completions client end to end, against a scripted server on 127.0.0.1.

Every test talks to a real HTTP server over loopback through the real client
code: structured output and its fallback, bounded retries, timeouts, dropped
and refused connections, error statuses, answers off protocol or too large.
"""

from __future__ import annotations

import socket

import pytest

from gcv.errors import EndpointError, EndpointTimeout
from gcv.interpret.client import ChatClient, ClientConfig, ResponseFormat, config_from
from gcv.interpret.llm import LLMInterpreter
from gcv.interpret.protocol import Condition, Request
from gcv.interpret.validate import read_reply, response_schema
from gcv.reference.errors import MalformedInput
from tests.interpret.loopback import LOOPBACK, ScriptedEndpoint, Step, chat_answer, reply

OPERATIONS = '{"operations": [{"op": "observe", "id": "o1", "claim": "401s"}]}'
MESSAGES = [{"role": "user", "content": "hi"}]


def _client(url: str, **settings: object) -> ChatClient:
    # Short timeouts and no back-off keep the failure tests quick.
    options: dict[str, object] = {"timeout": 2.0, "backoff": 0.0, **settings}
    return ChatClient(ClientConfig(url, "scripted-model", **options))  # type: ignore[arg-type]


def test_a_turn_travels_to_the_endpoint_and_back() -> None:
    request = Request(0, "a", "I see 401s.", {"a": "Alice"})
    with ScriptedEndpoint([reply(OPERATIONS)]) as endpoint:
        client = _client(endpoint.url, api_key="sk-test", seed=7)
        answer = LLMInterpreter(client, Condition.DEFINITIONS).interpret(request)
    assert answer.text == OPERATIONS and answer.attempts == 1
    assert (answer.prompt_tokens, answer.completion_tokens) == (120, 30)
    [sent] = endpoint.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == "Bearer sk-test"
    body = sent.body
    assert body["model"] == "scripted-model" and body["temperature"] == 0.0
    assert body["seed"] == 7 and body["stream"] is False
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "I see 401s." in body["messages"][1]["content"]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == response_schema()


def test_no_key_no_authorization_header() -> None:
    with ScriptedEndpoint([reply(OPERATIONS)]) as endpoint:
        _client(endpoint.url).complete(MESSAGES, {})
    assert "Authorization" not in endpoint.requests[0].headers


def test_a_refused_schema_falls_back_to_json_mode_once_and_for_good() -> None:
    refused = Step(status=400, body={"error": {"message": "json_schema not supported"}})
    with ScriptedEndpoint([refused, reply(OPERATIONS), reply(OPERATIONS)]) as endpoint:
        client = _client(endpoint.url)
        first = client.complete(MESSAGES, response_schema())
        second = client.complete(MESSAGES, response_schema())
    formats = [r.body["response_format"]["type"] for r in endpoint.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert (first.attempts, second.attempts) == (2, 1)
    assert client.response_format is ResponseFormat.JSON_OBJECT


def test_json_mode_refused_too_is_an_error_that_suggests_no_format() -> None:
    refused = Step(status=400, body={"error": {"message": "unsupported"}})
    with (
        ScriptedEndpoint([refused, refused]) as endpoint,
        pytest.raises(EndpointError, match="response-format none") as caught,
    ):
        _client(endpoint.url).complete(MESSAGES, {})
    assert caught.value.code == "endpoint-error" and len(endpoint.requests) == 2


def test_no_response_format_when_configured_off() -> None:
    with ScriptedEndpoint([reply(OPERATIONS)]) as endpoint:
        _client(endpoint.url, response_format=ResponseFormat.NONE).complete(MESSAGES, {})
    assert "response_format" not in endpoint.requests[0].body


@pytest.mark.parametrize("status", [429, 500, 502, 503])
def test_a_transient_status_is_retried(status: int) -> None:
    with ScriptedEndpoint([Step(status=status), Step(status=status), reply(OPERATIONS)]) as e:
        completion = _client(e.url, retries=2).complete(MESSAGES, {})
    assert completion.content == OPERATIONS and completion.attempts == 3
    assert len(e.requests) == 3


def test_retries_are_bounded() -> None:
    with (
        ScriptedEndpoint([Step(status=503)] * 5) as endpoint,
        pytest.raises(EndpointError, match="HTTP 503 after 3 attempts"),
    ):
        _client(endpoint.url, retries=2).complete(MESSAGES, {})
    assert len(endpoint.requests) == 3


def test_the_back_off_doubles() -> None:
    waits: list[float] = []
    with ScriptedEndpoint([Step(status=500)] * 3 + [reply(OPERATIONS)]) as endpoint:
        config = ClientConfig(endpoint.url, "m", timeout=2.0, retries=3, backoff=0.5)
        ChatClient(config, sleep=waits.append).complete(MESSAGES, {})
    assert waits == [0.5, 1.0, 2.0]


def test_an_error_status_is_not_retried_and_never_shows_the_key() -> None:
    denied = Step(status=401, body={"error": {"message": "invalid api key"}})
    with (
        ScriptedEndpoint([denied, reply(OPERATIONS)]) as endpoint,
        pytest.raises(EndpointError, match="HTTP 401") as caught,
    ):
        _client(endpoint.url, api_key="sk-secret-123").complete(MESSAGES, {})
    assert len(endpoint.requests) == 1
    assert "sk-secret-123" not in str(caught.value)


def test_a_slow_server_times_out_on_every_attempt() -> None:
    slow = Step(delay=5.0, body=chat_answer(OPERATIONS))
    with ScriptedEndpoint([slow, slow]) as endpoint, pytest.raises(EndpointTimeout) as caught:
        _client(endpoint.url, timeout=0.2, retries=1).complete(MESSAGES, {})
    assert caught.value.code == "endpoint-timeout" and "2 attempts" in str(caught.value)
    assert len(endpoint.requests) == 2


def test_a_slow_answer_then_a_prompt_one() -> None:
    slow = Step(delay=5.0, body=chat_answer(OPERATIONS))
    with ScriptedEndpoint([slow, reply(OPERATIONS)]) as endpoint:
        completion = _client(endpoint.url, timeout=0.2, retries=1).complete(MESSAGES, {})
    assert completion.attempts == 2


def test_a_body_that_stalls_halfway_times_out() -> None:
    stalled = Step(stall=5.0, body=chat_answer(OPERATIONS))
    with ScriptedEndpoint([stalled]) as endpoint, pytest.raises(EndpointTimeout):
        _client(endpoint.url, timeout=0.2, retries=0).complete(MESSAGES, {})


def test_a_dropped_connection_is_retried() -> None:
    with ScriptedEndpoint([Step(drop=True), reply(OPERATIONS)]) as endpoint:
        completion = _client(endpoint.url, retries=1).complete(MESSAGES, {})
    assert completion.attempts == 2 and len(endpoint.requests) == 2


def test_a_refused_connection_fails_after_the_retries() -> None:
    with socket.socket() as probe:  # a loopback port with nobody listening
        probe.bind((LOOPBACK, 0))
        port = probe.getsockname()[1]
    client = _client(f"http://{LOOPBACK}:{port}/v1", retries=2)
    with pytest.raises(EndpointError, match="after 3 attempts") as caught:
        client.complete(MESSAGES, {})
    assert caught.value.code == "endpoint-error" and client.requests == 3


@pytest.mark.parametrize(
    "body",
    [b"<html>502 Bad Gateway</html>", {"choices": []}, {"choices": [{"text": "x"}]}, [1, 2]],
)
def test_an_answer_that_is_not_a_chat_completion_is_an_endpoint_error(body: object) -> None:
    with (
        ScriptedEndpoint([Step(body=body)]) as endpoint,
        pytest.raises(EndpointError, match="not a chat completion"),
    ):
        _client(endpoint.url).complete(MESSAGES, {})
    assert len(endpoint.requests) == 1, "an answer off protocol is not retried"


def test_an_oversized_answer_is_refused() -> None:
    big = chat_answer("x" * 5000)
    with (
        ScriptedEndpoint([Step(body=big)]) as endpoint,
        pytest.raises(EndpointError, match=r"limit 1024|exceeds 1024"),
    ):
        _client(endpoint.url, max_response_bytes=1024).complete(MESSAGES, {})


def test_an_empty_message_reaches_validation_as_an_empty_reply() -> None:
    with ScriptedEndpoint([reply(None)]) as endpoint:
        completion = _client(endpoint.url).complete(MESSAGES, {})
    assert completion.content == ""
    assert read_reply(completion.content).problems[0].code == "malformed-reply"


def test_a_truncated_reply_is_reported_with_its_finish_reason() -> None:
    cut = Step(body=chat_answer('{"operations": [{"op": "obs', finish_reason="length"))
    with ScriptedEndpoint([cut]) as endpoint:
        completion = _client(endpoint.url).complete(MESSAGES, {})
    assert completion.finish_reason == "length"
    assert "not valid JSON" in read_reply(completion.content).problems[0].detail


# -- configuration ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"endpoint": "ftp://127.0.0.1/v1"}, "endpoint"),
        ({"endpoint": "http:///v1"}, "endpoint"),
        ({"endpoint": "http://user:pw@127.0.0.1/v1"}, "endpoint"),
        ({"endpoint": "http://127.0.0.1/v1?x=1"}, "endpoint"),
        ({"endpoint": "http://127.0.0.1:99999/v1"}, "endpoint"),
        ({"model": " "}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": "10"}, "timeout"),
        ({"retries": -1}, "retries"),
        ({"retries": 11}, "retries"),
        ({"retries": True}, "retries"),
        ({"temperature": 3}, "temperature"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"response_format": "xml"}, "response_format"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_a_malformed_setting_is_named(settings: dict[str, object], field: str) -> None:
    base: dict[str, object] = {"endpoint": "http://127.0.0.1:8080/v1", "model": "m"}
    with pytest.raises(MalformedInput) as caught:
        config_from({**base, **settings}, {})
    assert caught.value.code == "malformed-input" and caught.value.field == field


def test_settings_win_over_the_environment() -> None:
    env = {
        "GCV_ENDPOINT": "http://127.0.0.1:1/v1",
        "GCV_MODEL": "env-model",
        "OPENAI_BASE_URL": "http://127.0.0.1:2/v1",
        "OPENAI_API_KEY": "sk-openai",
        "MY_KEY": "sk-mine",
    }
    config = config_from({"model": "flag-model"}, env)
    assert (config.endpoint, config.model, config.api_key) == (
        "http://127.0.0.1:1/v1",
        "flag-model",
        "sk-openai",
    )
    assert config_from({"api_key_env": "MY_KEY"}, env).api_key == "sk-mine"
    assert "sk-openai" not in repr(config)


def test_endpoint_and_model_are_required() -> None:
    with pytest.raises(MalformedInput, match="GCV_ENDPOINT"):
        config_from({"model": "m"}, {})
    with pytest.raises(MalformedInput, match="GCV_MODEL"):
        config_from({"endpoint": "http://127.0.0.1:8080/v1"}, {})


def test_a_full_chat_completions_url_is_used_as_is() -> None:
    config = ClientConfig("http://127.0.0.1:8080/v1/chat/completions", "m")
    assert config.url == "http://127.0.0.1:8080/v1/chat/completions"
