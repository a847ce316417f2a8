"""A reader that closes standard output changes no command's effect, and prints no traceback.

Each command runs in a process of its own with its standard output on a real pipe.  The
reader either closes its end before the command starts (so every write meets EPIPE, for
certain) or reads one line and then closes it, as ``| head -1`` does.  No sleeps: the
order is fixed by the pipe alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.store import create_session, open_session

ROOT = Path(__file__).resolve().parents[2]
# Without the costly postconditions, so that a command starts and ends quickly.
ENV = {name: value for name, value in os.environ.items() if name != "ICONTRACT_SLOW"}
HEADER = {"name": "s", "agents": {"a": "Alice", "b": "Bob"}}


def _into_closed_pipe(argv: list[str], *, reads_a_line: bool) -> tuple[int, bytes, str]:
    """Run ``gcv argv`` into a pipe whose reader leaves: its exit code, the line read (if
    any) and its standard error."""
    read_end, write_end = os.pipe()
    if not reads_a_line:
        os.close(read_end)  # gone before the command writes anything
    with subprocess.Popen(
        [sys.executable, "-m", "gcv.cli", *argv],
        stdout=write_end,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env=ENV,
    ) as command:
        os.close(write_end)
        first = b""
        if reads_a_line:
            with os.fdopen(read_end, "rb") as reader:
                first = reader.readline()
        assert command.stderr is not None
        err = command.stderr.read().decode()
        code = command.wait()
    return code, first, err


@pytest.mark.parametrize(
    "reads_a_line",
    [
        pytest.param(False, id="closed-at-start"),
        pytest.param(True, id="head-1", marks=pytest.mark.slow),  # the same, less certainly
    ],
)
def test_append_into_a_closed_pipe_applies_every_turn(tmp_path: Path, reads_a_line: bool) -> None:
    store, turns = tmp_path / "s.gcv", tmp_path / "turns.jsonl"
    create_session(store, HEADER).close()
    lines = [
        {"speaker": "a", "operations": [{"op": "observe", "id": f"o{k}", "claim": f"c{k}"}]}
        for k in range(1, 6)
    ]
    turns.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, first, err = _into_closed_pipe(
        ["session", "append", "--db", str(store), str(turns)], reads_a_line=reads_a_line
    )
    assert (code, err) == (0, ""), err
    assert first == (b"T1 Alice:\n" if reads_a_line else b"")
    with open_session(store) as session:
        assert session.turn == 5 and sorted(session.verifier.state.records) == [
            "o1",
            "o2",
            "o3",
            "o4",
            "o5",
        ]


@pytest.mark.slow  # a process per command
@pytest.mark.parametrize(
    "argv",
    [
        ["replay"],
        ["scenarios", "--json"],
        ["paper", "--json"],
        ["evidence", "docs/facts-example.tsv", "Arden"],
        ["interpret-eval", "--native"],
        ["session", "show", "--db", "STORE"],
        ["session", "show", "--db", "STORE", "--json"],
        ["session", "export", "--db", "STORE"],
        ["export", "--format", "json", "phase2-debugging"],
        ["draw", "phase2-debugging", "--format", "dot"],
        ["explore", "phase2-debugging"],
        ["verify", "h1"],
    ],
    ids=" ".join,
)
def test_every_command_into_a_closed_pipe_ends_with_its_own_code_and_no_traceback(
    tmp_path: Path, argv: list[str]
) -> None:
    store = tmp_path / "s.gcv"
    with create_session(store, HEADER):
        pass
    argv = [str(store) if word == "STORE" else word for word in argv]
    code, _, err = _into_closed_pipe(argv, reads_a_line=False)
    assert (code, err) == (0, ""), err
