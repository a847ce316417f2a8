"""``gcv mcp --http`` as a service: Host and Origin checked on every address, a bearer
token off loopback, several workers over one store, sessions closed when idle.

Driven with raw HTTP requests (the standard library's :mod:`http.client`), as an
attacker's page or a stray client would send them, not through the SDK's client.
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gcv.cli import main

TOKEN = "correct-horse-battery-staple-42"


@contextmanager
def _service(folder: Path, *options: str, env: dict[str, str] | None = None) -> Iterator[int]:
    """``gcv mcp --http`` with ``options``; its port once it says it listens."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gcv.cli", "mcp", "--sessions", str(folder), "--http", *options],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert process.stderr is not None
        announced = process.stderr.readline()  # the readiness handshake
        assert "listening on http://" in announced, announced
        yield int(announced.rsplit(":", 1)[1].split("/")[0])
    finally:
        process.terminate()
        process.wait()
        assert process.stderr is not None
        process.stderr.close()


def _post(
    port: int, message: dict[str, Any], headers: dict[str, str]
) -> tuple[int, dict[str, Any] | str]:
    """POST one JSON-RPC message to /mcp with exactly ``headers`` (and the content types)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        for name, value in {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        }.items():
            connection.putheader(name, value)
        body = json.dumps(message).encode()
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        text = response.read().decode()
        try:
            return response.status, json.loads(text)
        except ValueError:
            return response.status, text
    finally:
        connection.close()


def _create(session: str) -> dict[str, Any]:
    arguments = {"session": session, "agents": {"a": "Alice"}}
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "open_session", "arguments": arguments},
    }


def _stores(folder: Path) -> list[str]:
    """The session stores in ``folder`` (without SQLite's files beside the open ones)."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".gcv"))


def _host(port: int) -> str:
    return f"127.0.0.1:{port}"


def test_off_loopback_without_a_token_there_is_no_service(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GCV_MCP_TOKEN", raising=False)
    assert main(["mcp", "--sessions", str(tmp_path), "--http", "--host", "0.0.0.0"]) == 2
    assert "every request must carry a token" in capsys.readouterr().err
    short = tmp_path / "token"
    short.write_text("abc\n")
    argv = ["mcp", "--sessions", str(tmp_path), "--http", "--token-file", str(short)]
    assert main(argv) == 2 and "shorter than 16" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [short]


@pytest.mark.slow
def test_off_loopback_a_foreign_host_or_origin_and_no_token_are_refused(tmp_path: Path) -> None:
    """Bound to every address, two workers: the issue's request (a foreign Origin and
    Host) is refused and creates nothing; without the token nothing is served at all."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    folder = tmp_path / "sessions"
    folder.mkdir()
    options = ("--host", "0.0.0.0", "--workers", "2", "--token-file", str(token_file))
    with _service(folder, *options, "--allow-host", "gcv.internal") as port:
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        refusals = [
            ({"Host": "evil.example", "Origin": "http://evil.example"}, 401),
            ({"Host": _host(port)}, 401),
            ({"Host": _host(port), "Authorization": "Bearer wrong-token-wrong-token"}, 401),
            ({"Host": _host(port), "Authorization": TOKEN}, 401),
            ({**bearer, "Host": "evil.example", "Origin": "http://evil.example"}, 421),
            ({**bearer, "Host": "evil.example"}, 421),
            ({**bearer, "Host": _host(port), "Origin": "http://evil.example"}, 403),
            ({**bearer, "Host": "gcv.internal:8765", "Origin": "http://evil.example"}, 403),
        ]
        for headers, status in refusals:
            assert _post(port, _create("planted"), headers)[0] == status, headers
        assert list(folder.iterdir()) == [], "a refused request creates nothing"
        # The same request from an allowed host, with the token, is served.
        status, answer = _post(port, _create("welcome"), {**bearer, "Host": "gcv.internal"})
        assert status == 200, answer
        assert isinstance(answer, dict) and answer["result"]["structuredContent"]["created"]
        assert _stores(folder) == ["welcome.gcv"]


@pytest.mark.slow
def test_on_loopback_a_foreign_host_or_origin_is_refused(tmp_path: Path) -> None:
    with _service(tmp_path) as port:
        for headers, status in [
            ({"Host": "evil.example"}, 421),
            ({"Host": _host(port), "Origin": "http://evil.example"}, 403),
            ({"Host": f"localhost:{port}", "Origin": "https://127.0.0.1.evil.example"}, 403),
        ]:
            assert _post(port, _create("planted"), headers)[0] == status, headers
        assert list(tmp_path.iterdir()) == []
        status, _ = _post(port, _create("ok"), {"Host": _host(port)})
        assert status == 200 and _stores(tmp_path) == ["ok.gcv"]


def _limit_descriptors(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


@pytest.mark.slow
def test_many_sessions_under_a_descriptor_limit_all_open_and_the_service_goes_on(
    tmp_path: Path,
) -> None:
    """One client opens 40 sessions from a server allowed 64 descriptors and at most 8
    open sessions (an SQLite session holds 3; ``python -m tests.benchmarks.many_sessions``
    opens 1,500 under ``ulimit -n 1024``): every create succeeds, nothing is left beside
    the stores, and the service goes on serving."""
    max_open = 8
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "gcv.cli", "mcp", "--sessions", str(tmp_path)),
            *("--http", "--max-open", str(max_open)),
        ],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: _limit_descriptors(64),
    )
    try:
        assert process.stderr is not None
        port = int(process.stderr.readline().rsplit(":", 1)[1].split("/")[0])
        outcomes = []
        for k in range(40):
            status, answer = _post(port, _create(f"m{k}"), {"Host": _host(port)})
            assert status == 200, answer
            assert isinstance(answer, dict)
            result = answer["result"]
            outcomes.append(result["structuredContent"].get("error", {}).get("code", "created"))
        created = [f"m{k}.gcv" for k, said in enumerate(outcomes) if said == "created"]
        assert _stores(tmp_path) == sorted(created), "a refused create leaves no store"
        leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
        assert leftovers == [], "nor anything else"
        assert outcomes == ["created"] * 40, outcomes
        status, answer = _post(port, _create("m0"), {"Host": _host(port)})  # still serving
        assert status == 200 and isinstance(answer, dict)
    finally:
        process.terminate()
        process.wait()


# Creates sessions, keeping every one open, until the descriptors run out; prints the
# outcome of each create, one line each.
_UNTIL_EMFILE = """
import resource, sys
from gcv.errors import StoreError
from gcv.store import create_session
resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))
kept = []
for k in range(40):
    try:
        kept.append(create_session(f"{sys.argv[1]}/m{k}.gcv", {"agents": {"a": "A"}}))
        print("created", flush=True)
    except StoreError as error:
        print(error.code, flush=True)
"""


@pytest.mark.slow
def test_a_create_refused_for_want_of_descriptors_leaves_nothing(tmp_path: Path) -> None:
    said = subprocess.run(
        [sys.executable, "-c", _UNTIL_EMFILE, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "created" in said and said[-1] == "store-error", said  # the limit was reached
    created = [f"m{k}.gcv" for k, outcome in enumerate(said) if outcome == "created"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(created), "nothing else"
