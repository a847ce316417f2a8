"""Options are refused by the parser, I/O failures are one plain line, output never crashes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.errors import EndpointTimeout
from gcv.interpret.client import ChatClient, ClientConfig
from tests.conformance.helpers import fake

SERVE = ["--", sys.executable, "-m", "gcv.cli", "serve"]


def _one_line_refusal(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "options",
    [
        ["--timeout", "-1"],
        ["--timeout", "nan"],
        ["--timeout", "inf"],
        ["--start-timeout", "0"],
        ["--fuzz", "-1"],
        ["--fuzz", "10", "--fuzz-turns", "0"],
        ["--max-fail", "0"],
        ["--json", "/no/such/folder/report.json"],
        ["--junit", "/no/such/folder/report.xml"],
        ["--junit", "/"],
    ],
)
def test_conform_refuses_a_bad_option_before_it_runs(
    options: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started = tmp_path / "pids.txt"  # the fake writes its pid here when it starts
    monkeypatch.setenv("GCV_FAKE_PIDS", str(started))
    assert main(["conform", *options, "--", *fake("correct")]) == 2
    assert "error:" in _one_line_refusal(capsys)
    assert not started.exists(), "refused before the implementation ran"


@pytest.mark.parametrize("content", [b"\xff\xfe\x00\x01binary", None])
def test_conform_reports_an_unreadable_known_failures_file(
    content: bytes | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "known.txt"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    assert main(["conform", "--known-failures", str(path), *SERVE]) == 2
    err = _one_line_refusal(capsys)
    assert "not UTF-8" in err or "is a directory" in err, err


@pytest.mark.parametrize("runs", ["0", "-3", "x"])
def test_audit_gossip_refuses_too_few_runs(runs: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["audit", "gossip", "--runs", runs])
    assert stop.value.code == 2
    assert "--runs" in capsys.readouterr().err


@pytest.mark.parametrize(
    "options",
    [
        ["--endpoint", "http://[::1", "--model", "m"],
        ["--config", "/"],
        ["--config", "NON_UTF8"],
        ["--config", "DEEP"],
    ],
)
def test_interpret_eval_refuses_a_bad_setting_plainly(
    options: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"NON_UTF8": b"model = '\xff'\n", "DEEP": b"a = " + b"[" * 5000 + b"]" * 5000}
    for index, word in enumerate(options):
        if word in files:
            path = tmp_path / f"{word}.toml"
            path.write_bytes(files[word])
            options[index] = str(path)
    assert main(["interpret-eval", *options]) == 2
    _one_line_refusal(capsys)


@pytest.fixture
def slow_headers() -> Iterator[str]:
    """A server that sends a status line, then one header byte every 0.2 s, for 30 s."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(150):
                if stop.wait(0.2):
                    return
                try:
                    connection.sendall(b"X")
                except OSError:
                    return

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join(5)
    listener.close()


@pytest.mark.slow
def test_the_interpreter_timeout_is_total(slow_headers: str) -> None:
    # The socket's timeout is per read: each byte reset it, and the request waited 30 s.
    client = ChatClient(ClientConfig(slow_headers, "m", timeout=1.0, retries=0))
    # With a per-read timeout the 150 bytes arrive in time and the request ends otherwise.
    with pytest.raises(EndpointTimeout):
        client.complete([{"role": "user", "content": "hi"}], {"type": "object"})


def test_output_escapes_what_the_terminal_cannot_encode(tmp_path: Path) -> None:
    document = {
        "format": "gcv-trace/1",
        "name": "caf\u00e9",
        "agents": {"a": "Zo\u00eb"},
        "turns": [],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "gcv.cli", "replay", str(path)],
        env=dict(os.environ, PYTHONIOENCODING="ascii"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "caf\\xe9" in result.stdout, result.stdout


def test_a_deeply_nested_answer_is_an_endpoint_error() -> None:
    from gcv.errors import EndpointError
    from tests.interpret.loopback import ScriptedEndpoint, Step

    # json.loads raised RecursionError, which the client did not catch.
    with ScriptedEndpoint([Step(body=b"[" * 100_000 + b"]" * 100_000)]) as endpoint:
        client = ChatClient(ClientConfig(endpoint.url, "m", timeout=5.0, retries=0))
        with pytest.raises(EndpointError, match="not a chat completion"):
            client.complete([{"role": "user", "content": "hi"}], {"type": "object"})
