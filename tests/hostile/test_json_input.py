"""Every JSON input is bounded, shallow and valid Unicode before a schema sees it."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv import jsoninput
from gcv.cli import main
from gcv.conformance.vectors import load_vector_file
from gcv.errors import MalformedTrace, MalformedVectors
from gcv.interpret.validate import read_reply
from gcv.jsoninput import MAX_JSON_DEPTH, ecma_pattern
from gcv.trace import MAX_TRACE_BYTES, load_trace


def _deep(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _trace(**fields: object) -> dict[str, object]:
    return {"format": "gcv-trace/1", "agents": {"a": "Alice"}, "turns": []} | fields


# Two equal lists deep inside a uniqueItems array made the schema check recurse until
# RecursionError; the depth is now refused before the schema is consulted.
@pytest.mark.parametrize(
    "document",
    [
        _trace(atoms=[_deep(300), _deep(300)]),
        _trace(
            turns=[
                {
                    "turn": 1,
                    "speaker": "a",
                    "operations": [
                        {"op": "observe", "id": "o1", "claim": "c", "depends_on": [_deep(300)] * 2}
                    ],
                }
            ]
        ),
    ],
)
def test_deep_nesting_in_a_trace_is_a_malformed_trace(document: object) -> None:
    with pytest.raises(MalformedTrace, match=f"nested more than {MAX_JSON_DEPTH} deep"):
        load_trace(json.dumps(document))


def test_deep_nesting_in_a_reply_or_a_vector_file_is_refused() -> None:
    reply = json.dumps({"operations": [_deep(300), _deep(300)]})
    (problem,) = read_reply(reply).problems
    assert problem.code == "malformed-reply" and "nested more than" in problem.detail, problem
    vectors = json.dumps({"format": "gcv-vectors/1", "cases": [_deep(300), _deep(300)]})
    with pytest.raises(MalformedVectors, match="nested more than"):
        load_vector_file(vectors)


@pytest.mark.parametrize(
    "document",
    [
        _trace(name="\ud800"),
        _trace(description="x\udfffy"),
        _trace(agents={"a": "\ud800"}),
        _trace(turns=[{"turn": 1, "speaker": "a", "text": "\ud83d", "operations": []}]),
        _trace(**{"\ud800": "x"}),  # found by the fuzz harness: the message quoted the key
    ],
)
def test_a_lone_surrogate_is_refused_before_it_is_printed(
    document: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps(document)  # ensure_ascii: the surrogate travels as an escape
    with pytest.raises(MalformedTrace, match="lone surrogate") as caught:
        load_trace(text)
    str(caught.value).encode("utf-8")  # the message itself can be printed
    path = tmp_path / "t.json"
    path.write_text(text, encoding="ascii")
    assert main(["replay", str(path)]) == 2
    assert "lone surrogate" in capsys.readouterr().err


def test_a_lone_surrogate_in_a_reply_is_a_malformed_reply() -> None:
    reply = '{"operations": [{"op": "observe", "id": "o1", "claim": "\\ud800"}]}'
    (problem,) = read_reply(reply).problems
    assert problem.code == "malformed-reply" and "lone surrogate" in problem.detail, problem


@pytest.mark.slow
def test_a_huge_sparse_trace_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "sparse.json"
    with path.open("wb") as handle:
        handle.truncate(4 << 30)  # 4 GiB of holes: read whole, it needs 4 GiB of memory

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    result = subprocess.run(
        [sys.executable, "-m", "gcv.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        preexec_fn=cap_memory,
        check=False,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert f"at most {MAX_TRACE_BYTES} bytes" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("/", "is a directory"),
        ("/proc/self/mem", "cannot be read"),
        ("/no/such/trace.json", "no such file"),
    ],
)
def test_a_trace_that_cannot_be_read_is_reported_plainly(
    target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", target]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1, err


def test_a_trace_from_a_pipe_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    document = json.dumps(_trace(name="piped"))

    def write() -> None:
        with contextlib.suppress(BrokenPipeError):  # its reader may have come and gone
            fifo.write_text(document)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert main(["replay", str(fifo)]) == 0
    finally:
        # A reader that does not wait releases a writer still waiting for one, and is a
        # no-op once the writer is done. (A blocking open here hung for good whenever
        # the writer had closed the pipe but its thread had not yet ended.)
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        writer.join()
    assert "piped" in capsys.readouterr().out


@pytest.mark.parametrize("identifier", ["a\n", "a\r", "\na"])
def test_the_schemas_read_dollar_as_ecma_262_does(identifier: str) -> None:
    # "a\n" passed the identifier pattern ^...$ under Python's re, then met another code.
    document = _trace(agents={identifier: "Alice"})
    with pytest.raises(MalformedTrace) as caught:
        load_trace(json.dumps(document))
    assert "does not match" in caught.value.detail, caught.value


def test_ecma_pattern_keeps_escaped_and_class_dollars() -> None:
    assert ecma_pattern(r"^a\$[$]$") == r"^a\$[$]\Z"


def test_an_error_quotes_at_most_a_bounded_excerpt() -> None:
    document = _trace(agents={"a": "Alice"}, atoms=["-" + "x" * 1_000_000])
    with pytest.raises(MalformedTrace) as caught:
        load_trace(json.dumps(document))
    assert len(str(caught.value)) < 2000, len(str(caught.value))


_STRINGS = st.sampled_from(["a", "\ud800", "b\udfff", "\u00e9", ""])
_SMALL = st.recursive(
    st.none() | st.integers() | _STRINGS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_STRINGS, inner, max_size=3),
    max_leaves=5,
)


@pytest.mark.parametrize("wraps", [0, 1, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1])
@given(st.data())
def test_the_quick_bounds_check_finds_what_the_naming_walk_finds(
    wraps: int, data: st.DataObject
) -> None:
    """json_depth_problem passes a document on the level-by-level check alone, and names
    the place only when it fails: the two must agree, at the depth bound's edges too."""
    document = data.draw(_SMALL)
    for _ in range(wraps):
        key = data.draw(_STRINGS)
        document = data.draw(st.sampled_from([[document], {key: document}, [1, document, "a"]]))
    assert jsoninput._is_within_bounds(document) == (jsoninput._first_problem(document) is None)
