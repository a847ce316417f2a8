"""A scripted chat-completions endpoint on 127.0.0.1, for the client's offline tests.

Each request gets the next scripted :class:`Step`: a status and body, after an
optional delay, or a dropped connection, or a body that stalls halfway.  The
server binds to the loopback address only, answers at most ``max_requests``
requests, and records each one (path, headers, JSON body) for the test to read.
When the script runs out it answers 500, so a test that sends too many
requests fails on its count rather than hanging.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Step:
    """What the endpoint does with one request."""

    status: int = 200
    body: Any = b""
    delay: float = 0.0
    drop: bool = False
    stall: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body).encode()


def chat_answer(content: str | None, *, finish_reason: str = "stop") -> dict[str, Any]:
    """A chat completion shaped as OpenAI-compatible servers send it."""
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "scripted-model",
        "system_fingerprint": "fp_scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
    }


def reply(content: str | None) -> Step:
    """A 200 answer whose message content is ``content``."""
    return Step(body=chat_answer(content))


@dataclass(frozen=True)
class Captured:
    """One request as the endpoint received it."""

    path: str
    headers: dict[str, str]
    body: Any


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, endpoint: ScriptedEndpoint) -> None:
        super().__init__((LOOPBACK, 0), _Handler)
        self.endpoint = endpoint


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def do_POST(self) -> None:
        endpoint = self.server.endpoint
        assert self.client_address[0] == LOOPBACK, self.client_address
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        step = endpoint.record(
            Captured(self.path, dict(self.headers.items()), json.loads(raw) if raw else None)
        )
        if step is None:  # over the request bound: refuse outright
            self.close_connection = True
            return
        if step.delay:
            endpoint.release.wait(step.delay)
        if step.drop:
            self.close_connection = True
            return
        data = step.payload()
        self.send_response(step.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in step.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if step.stall:
            half = len(data) // 2
            self.wfile.write(data[:half])
            self.wfile.flush()
            endpoint.release.wait(step.stall)
            data = data[half:]
        with contextlib.suppress(OSError):  # the client may have given up first
            self.wfile.write(data)


class ScriptedEndpoint:
    """Serve ``steps`` in order on 127.0.0.1; use as a context manager."""

    def __init__(self, steps: Iterable[Step], *, max_requests: int = 64) -> None:
        self.steps = deque(steps)
        self.max_requests = max_requests
        self.requests: list[Captured] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL, as a user would pass it to ``--endpoint``."""
        host, port = self._server.server_address[:2]
        assert host == LOOPBACK, host
        return f"http://{LOOPBACK}:{port}/v1"

    def record(self, request: Captured) -> Step | None:
        with self._lock:
            if len(self.requests) >= self.max_requests:
                return None
            self.requests.append(request)
            if self.steps:
                return self.steps.popleft()
            return Step(status=500, body={"error": {"message": "the script is exhausted"}})

    def __enter__(self) -> ScriptedEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()  # wake any delayed handler
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
