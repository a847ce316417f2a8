"""``gcv serve`` answers every request line and survives it (issue: one line killed it)."""

from __future__ import annotations

import io
import json

import pytest

from gcv.conformance import server
from gcv.conformance.server import MAX_LINE_BYTES, serve
from gcv.jsoninput import MAX_JSON_DEPTH, read_lines

HANDSHAKE = b'{"id": 9, "cmd": "handshake", "protocol": "gcv-conform/1"}'


def _answers(*lines: bytes | None) -> list[dict[str, object]]:
    out = io.StringIO()
    serve(list(lines), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "line",
    [
        b'{"id": 1, "cmd": ["start"]}',  # unhashable: raised TypeError in the dispatcher
        b'{"id": 1, "cmd": {"start": 1}}',
        b'{"id": 1, "cmd": "query", "query": ["verify"], "record": "o1"}',
        b'{"id": 1, "cmd": "apply", "speaker": "a", "operations": [{"op": ["observe"]}]}',
        f'{{"id": 1, "cmd": "start", "agents": [{_deep(400)}, {_deep(400)}]}}'.encode(),
        f'{{"id": 1, "cmd": "start", "agents": ["a"], "atoms": [{_deep(300)}]}}'.encode(),
        b'{"id": 1, "cmd": "start", "agents": ["\\ud800"]}',
        b'{"id": 1, "cmd": "start", "agents": ["a\\n"]}',
        b"\xff\xfe",
        b"[]",
        b"17",
    ],
)
def test_a_hostile_line_is_refused_and_the_next_is_answered(line: bytes) -> None:
    first, second = _answers(line, HANDSHAKE)
    assert first["ok"] is False, first
    assert first["error"]["code"] == "malformed-request", first  # type: ignore[index]
    assert second["id"] == 9 and second["ok"] is True, second


def test_nesting_exactly_at_the_bound_reaches_the_schema() -> None:
    # MAX_JSON_DEPTH levels in all: the request object is one of them.
    inner = _deep(MAX_JSON_DEPTH - 2)
    line = f'{{"id": 1, "cmd": "start", "agents": [{inner}]}}'.encode()
    (answer,) = _answers(line)
    assert "nested" not in answer["error"]["message"], answer  # type: ignore[index]
    beyond = f'{{"id": 1, "cmd": "start", "agents": [{_deep(MAX_JSON_DEPTH - 1)}]}}'.encode()
    (answer,) = _answers(beyond)
    assert f"nested more than {MAX_JSON_DEPTH} deep" in answer["error"]["message"], answer  # type: ignore[index]


@pytest.mark.parametrize(
    ("raw_id", "echoed"),
    [("3", 3), ("2.0", 2), ("true", None), ("-1", None), ('"3"', None), ("1.5", None)],
)
def test_the_id_is_echoed_as_the_response_schema_allows(raw_id: str, echoed: int | None) -> None:
    good = f'{{"id": {raw_id}, "cmd": "handshake", "protocol": "gcv-conform/1"}}'.encode()
    bad = f'{{"id": {raw_id}, "cmd": "query", "query": "standing", "record": "o1"}}'.encode()
    for answer in _answers(good, bad):
        assert answer["id"] == echoed and type(answer["id"]) is type(echoed), (raw_id, answer)


class _EndlessLine(io.RawIOBase):
    """A stream of one line of ``length`` bytes, then a handshake; never more than asked."""

    def __init__(self, length: int) -> None:
        self.left = length
        self.tail = b"\n" + HANDSHAKE + b"\n"
        self.largest = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> bytes:
        assert size is not None and size >= 0, "an unbounded readline holds the whole line"
        self.largest = max(self.largest, size)
        if self.left:
            chunk = min(size, self.left)
            self.left -= chunk
            return b"x" * chunk
        end = min(size, self.tail.find(b"\n") + 1)
        line, self.tail = self.tail[:end], self.tail[end:]
        return line


def test_an_over_long_line_is_refused_without_holding_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = _EndlessLine(3 * MAX_LINE_BYTES)

    class _Stdin:
        buffer = stream

    monkeypatch.setattr(server.sys, "stdin", _Stdin)
    assert server.main([]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["error"]["code"] == "malformed-request" and first["id"] is None, first
    assert f"at most {MAX_LINE_BYTES} bytes" in first["error"]["message"], first
    assert second["ok"] is True, second
    assert stream.largest <= MAX_LINE_BYTES + 1, stream.largest


def test_a_line_exactly_at_the_bound_is_read() -> None:
    assert list(read_lines(io.BytesIO(b"abcd\nabcde\n"), 4)) == [b"abcd", None]
    assert list(read_lines(io.BytesIO(b"abcd"), 4)) == [b"abcd"]
