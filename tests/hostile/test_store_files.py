"""Hostile files and arguments against the session store, one test per defect of issue 35.

Each feeds ``gcv`` the input, in this process, and asserts exit code 2, one line on
standard error naming the problem (its code), no traceback, and every file of the
store's folder left byte for byte (or, where the input is harmless, the right answer).
A forger's edits (the chain recomputed from the formula docs/sessions.md states, not by
the store's own code) are made by :func:`tests.hostile.stores.forge`.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.store import open_session
from tests.hostile.stores import Edit, files, forge, raw_edit, statement, template_bytes


def _make_store(path: Path) -> None:
    path.write_bytes(template_bytes())


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.gcv"
    _make_store(path)
    return path


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder another user can enter (pytest's own are private to their owner)."""
    folder = Path(tempfile.mkdtemp(prefix="gcv-store-"))
    folder.chmod(0o777)
    yield folder
    for path in [folder, *folder.iterdir()]:
        path.chmod(stat.S_IRWXU)
    shutil.rmtree(folder)


@contextmanager
def _unprivileged() -> Iterator[None]:
    """Run as the user ``nobody`` when the tests run as root, whom permissions do not bind."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    try:
        code = main([str(word) for word in argv])
    except SystemExit as stop:  # the option parser's refusal
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _refused(
    capsys: pytest.CaptureFixture[str],
    folder: Path,
    needle: str,
    *argv: object,
    as_nobody: bool = False,
) -> str:
    """Run ``gcv argv`` (``as_nobody``: unprivileged): exit 2, one line naming ``needle``,
    ``folder`` unchanged."""
    before = files(folder)
    with _unprivileged() if as_nobody else nullcontext():
        code, _, err = _run(capsys, *argv)
    assert code == 2, (argv, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert needle in err, (needle, err)
    assert files(folder) == before, "a refused command left the files as they were"
    return err


def _set_body(seq: int, body: str) -> Edit:
    return statement("UPDATE log SET body = ? WHERE seq = ?", body, seq)


def _set_header(header: str) -> Edit:
    return statement("UPDATE meta SET value = ? WHERE key = 'header'", header)


# -- 1. /dev/zero: a line is refused once past its bound, never read whole --------------------


def test_1_an_endless_line_is_refused_at_its_bound(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(
        capsys,
        store.parent,
        "line 1: longer than 67108864 bytes",
        "session",
        "append",
        "--db",
        store,
        "/dev/zero",
    )


# -- 2. append given a directory, a missing, non-UTF-8 or unreadable file ---------------------


@pytest.mark.parametrize("kind", ["directory", "missing", "not UTF-8"])
def test_2_append_names_a_turn_file_it_cannot_read(
    store: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    turns = store.parent / "turns"
    if kind == "directory":
        turns.mkdir()
    elif kind == "not UTF-8":
        turns.write_bytes(b'{"speaker": "a\xff", "operations": []}\n')
    needle = {
        "directory": "is a directory, not a file",
        "missing": "no such file",
        "not UTF-8": "line 1: a turn line is not UTF-8",
    }[kind]
    _refused(capsys, store.parent, needle, "session", "append", "--db", store, turns)


def test_2_append_names_an_unreadable_turn_file(
    open_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, turns = open_folder / "s.gcv", open_folder / "turns.jsonl"
    _make_store(store)
    store.chmod(0o666)
    turns.write_text('{"speaker": "a", "operations": []}\n')
    turns.chmod(0)
    _refused(
        capsys,
        open_folder,
        "[unreadable-file]",
        *("session", "append", "--db", store, turns),
        as_nobody=True,
    )


# -- 3. an unreadable store, a name too long ----------------------------------------------------


def test_3_an_unreadable_store_is_a_store_error(
    open_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = open_folder / "s.gcv"
    _make_store(store)
    store.chmod(0)
    err = _refused(
        capsys, open_folder, "[store-error]", "session", "show", "--db", store, as_nobody=True
    )
    assert "Permission denied" in err


@pytest.mark.parametrize(
    "argv", [["session", "show"], ["session", "new", "--agents", "a"], ["verify", "o1"]]
)
def test_3_a_name_too_long_is_a_store_error(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(capsys, tmp_path, "[store-error]", *argv, "--db", tmp_path / ("x" * 4000))
    assert "File name too long" in err and len(err) < 400


# -- 4. session new --trace: not JSON, nested 10^5 deep -----------------------------------------


@pytest.mark.parametrize("content", ["{not json", "[" * 100_000 + "]" * 100_000])
def test_4_a_bad_trace_for_a_new_session_is_malformed_and_creates_nothing(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "garbage.json"
    trace.write_text(content)
    _refused(
        capsys,
        tmp_path,
        "[malformed-trace]",
        "session",
        "new",
        "--db",
        tmp_path / "n.gcv",
        "--trace",
        trace,
    )


# -- 5. a body stored as a BLOB ------------------------------------------------------------------


def _blob_bodies(path: Path) -> None:
    """Every body made a BLOB: refused by the STRICT table, so written around it by first
    editing the schema, as only a hand with ``writable_schema`` can."""
    with pytest.raises(sqlite3.IntegrityError, match="cannot store BLOB"):
        raw_edit(path, statement("UPDATE log SET body = CAST(body AS BLOB)"))

    def loosen(db: sqlite3.Connection) -> None:
        db.execute("PRAGMA writable_schema = ON")
        db.execute(
            "UPDATE sqlite_schema SET sql = replace(sql, ') STRICT', ')') WHERE name = 'log'"
        )

    raw_edit(path, loosen)
    raw_edit(path, statement("UPDATE log SET body = CAST(body AS BLOB)"))


@pytest.mark.parametrize(
    "argv",
    [
        ["session", "show"],
        ["session", "show", "--json"],
        ["session", "export"],
        ["session", "append", "/dev/null"],
        ["verify", "o1"],
    ],
)
def test_5_a_body_stored_as_a_blob_is_corrupt_for_every_command(
    store: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _blob_bodies(store)
    _refused(capsys, store.parent, "the schema is not a gcv store's", *argv, "--db", store)


# -- 6. a rejected or pre-snapshot row forged to non-JSON, [] or {"speaker": "a"} --------------


@pytest.mark.parametrize("body", ["not json", "[]", '{"speaker":"a"}'])
@pytest.mark.parametrize(("seq", "place"), [(1, "turn 1"), (3, "logged entry 3")])
@pytest.mark.parametrize("argv", [["session", "show", "--at", "1"], ["session", "export"]])
def test_6_a_forged_row_that_is_no_turn_is_corrupt(
    store: Path,
    body: str,
    seq: int,
    place: str,
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    forge(store, _set_body(seq, body))
    _refused(capsys, store.parent, f"[store-corrupt] {store}: {place}", *argv, "--db", store)


# -- 7. a stored header nested 10^5 deep, or {} -------------------------------------------------


@pytest.mark.parametrize(
    ("header", "needle"),
    [("[" * 100_000 + "]" * 100_000, "nested more than 32 deep"), ("{}", "header is damaged")],
)
@pytest.mark.parametrize("argv", [["session", "show"], ["session", "append", "/dev/null"]])
def test_7_a_forged_header_is_corrupt(
    store: Path, header: str, needle: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    forge(store, _set_header(header))
    err = _refused(capsys, store.parent, "[store-corrupt]", *argv, "--db", store)
    assert needle in err


# -- 8. damaged bytes that SQLite's check reports in bytes that are not UTF-8 ------------------


def test_8_damage_reported_in_bytes_that_are_not_utf8_is_corrupt(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(store.read_bytes())
    data[3700:3716] = b"\xff" * 16
    store.write_bytes(bytes(data))
    _refused(capsys, store.parent, "[store-corrupt]", "session", "show", "--db", store)


# -- 9. edits a per-row checksum missed: the chain catches them --------------------------------


def _replace_turn_1(db: sqlite3.Connection) -> None:
    body = json.dumps({"speaker": "a", "operations": [{"op": "revise", "target": "nope"}]})
    db.execute("UPDATE log SET body = ? WHERE seq = 1", (body,))


def _swap_rows_1_and_2(db: sqlite3.Connection) -> None:
    db.execute("UPDATE log SET seq = -1 WHERE seq = 1")
    db.execute("UPDATE log SET seq = 1 WHERE seq = 2")
    db.execute("UPDATE log SET seq = 2 WHERE seq = -1")


def _remove_agent_b(db: sqlite3.Connection) -> None:
    db.execute("UPDATE meta SET value = ? WHERE key = 'header'", ('{"agents": {"a": "Alice"}}',))


EDITS = {
    "turn 1 replaced": (_replace_turn_1, "turn 1: the log's chain breaks here"),
    "rows 1 and 2 swapped": (_swap_rows_1_and_2, "turn 2: the log's chain breaks here"),
    "an agent removed from the header": (_remove_agent_b, "turn 1: the log's chain breaks here"),
    "the last row removed": (
        statement("DELETE FROM log WHERE seq = 4"),
        "the log's recorded head does not match its end",
    ),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("argv", [["session", "show", "--json"], ["session", "export"]])
def test_9_an_edited_replaced_reordered_or_removed_row_breaks_the_chain(
    store: Path, edit: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    change, needle = EDITS[edit]
    raw_edit(store, change)
    _refused(capsys, store.parent, needle, *argv, "--db", store)


def test_9_a_forged_turn_that_does_not_apply_is_corrupt_at_replay(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forge(store, _replace_turn_1)
    for argv in (["session", "show", "--at", "1"], ["session", "export"]):
        err = _refused(capsys, store.parent, "[store-corrupt]", *argv, "--db", store)
        assert "turn 1 no longer applies" in err or "does not replay" in err, err


# -- 10. a read-only store or folder has its own code -------------------------------------------


@pytest.mark.parametrize("command", ["show", "append"])
@pytest.mark.parametrize("read_only", ["store", "folder"])
def test_10_a_read_only_store_or_folder_is_store_readonly(
    open_folder: Path, read_only: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store, turns = open_folder / "s.gcv", open_folder / "turns.jsonl"
    _make_store(store)
    turns.write_text('{"speaker": "a", "operations": []}\n')
    store.chmod(0o666)
    (store if read_only == "store" else open_folder).chmod(0o444 if read_only == "store" else 0o555)
    argv = ["session", command, "--db", store, *([turns] if command == "append" else [])]
    # Even a read leaves -wal and -shm files beside a read-only store: refused before it.
    err = _refused(capsys, open_folder, "[store-readonly]", *argv, as_nobody=True)
    assert f"the {read_only}" in err, err


# -- 11. --keep-going with a rejected turn says so ----------------------------------------------


def test_11_keep_going_names_the_rejected_lines_on_stderr(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    turns = store.parent / "turns.jsonl"
    lines = [
        {"speaker": "a", "operations": [{"op": "observe", "id": "o9", "claim": "x"}]},
        {"speaker": "a", "operations": [{"op": "revise", "target": "nope"}]},
    ]
    turns.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = _run(capsys, "session", "append", "--db", store, turns, "--keep-going")
    assert code == 2 and err == "gcv: 1 of 2 turns rejected (lines 2)\n"


# -- 12. an empty operations list is a no-op turn; a repeated key is refused ----------------


def test_12_a_turn_with_no_operations_is_accepted_and_changes_nothing_but_the_turn(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_session(store) as session:
        records = session.verifier.state.snapshot()["records"]
    turns = store.parent / "turns.jsonl"
    turns.write_text('{"speaker": "a", "operations": []}\n')
    code, out, err = _run(capsys, "session", "append", "--db", store, turns, "--json")
    assert code == 0 and json.loads(out)["turn"] == 4, err
    with open_session(store) as session:
        assert session.turn == 4 and session.verifier.state.snapshot()["records"] == records


def test_12_a_repeated_key_is_refused_and_nothing_is_logged(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    turns = store.parent / "turns.jsonl"
    turns.write_text('{"speaker": "a", "speaker": "b", "operations": []}\n')
    err = _refused(
        capsys,
        store.parent,
        "line 1: a turn line: an object repeats the key 'speaker'",
        "session",
        "append",
        "--db",
        store,
        turns,
    )
    assert "[malformed-input]" in err


# -- options: --wait ------------------------------------------------------------------------------


@pytest.mark.parametrize("wait", ["nan", "-1", "inf", "1e309", "0"])
def test_append_refuses_a_wait_that_is_no_duration(
    store: Path, wait: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(
        capsys,
        store.parent,
        "argument --wait",
        "session",
        "append",
        "--db",
        store,
        "--wait",
        wait,
        "/dev/null",
    )


@pytest.mark.parametrize("version", ["v9", "../../../../etc"])
def test_interpret_eval_refuses_a_prompt_version_it_does_not_ship(
    tmp_path: Path, version: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(
        capsys,
        tmp_path,
        "is not a prompt version (one of: v1, v2)",
        "interpret-eval",
        "--native",
        "--prompts",
        version,
    )
