"""The session store: reopening replays to the same map, bad files are refused untouched.

Every test works on real files, through the store's API; the command line and the
crash test (real processes, real kills) are in tests/test_session_cli.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gcv import Hypothesize, Observe, Revise, Turn
from gcv.errors import OutOfSequence, StoreCorrupt, StoreExists
from gcv.history import TraceWriter, header_of, prefix
from gcv.reference.errors import GcvError
from gcv.replay import replay
from gcv.scenarios import builtin_scenarios, load_scenario, scenario_text
from gcv.store import (
    STORE_VERSION,
    StoredSession,
    create_session,
    import_trace,
    open_session,
)
from gcv.trace import load_trace
from tests.hostile.stores import plant_state, raw_edit

HEADER = {"agents": {"a": "Alice", "b": "Bob"}}


def _import(path: Path, name: str, snapshot_every: int) -> StoredSession:
    text = scenario_text(name)
    return import_trace(path, load_trace(text), json.loads(text), snapshot_every=snapshot_every)


def _small(path: Path) -> StoredSession:
    session = create_session(path, HEADER, snapshot_every=2)
    session.append(Turn("a", (Observe("o1", "401 errors"),)))
    session.append(Turn("a", (Hypothesize("h1", "token bug", depends_on=("o1",)),)))
    session.append(Turn("b", (Revise("o1"),)))
    return session


@contextmanager
def _raw(path: Path) -> Iterator[sqlite3.Connection]:
    """The store opened with plain sqlite3, committed and closed on leaving."""
    db = sqlite3.connect(path)
    try:
        with db:
            yield db
    finally:
        db.close()


def _files(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` with the SHA-256 of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


# Every scenario with snapshots, and (the epistemic one is slow to replay) all but one without.
STORES = [(name, 3) for name in builtin_scenarios()] + [
    (name, 0) for name in builtin_scenarios() if name != "phase2-epistemic"
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "snapshot_every"), STORES)
def test_reopening_gives_the_closed_map_and_every_prefix(
    tmp_path: Path, name: str, snapshot_every: int
) -> None:
    path = tmp_path / "s.gcv"
    trace = load_scenario(name)
    with _import(path, name, snapshot_every) as session:
        closed = session.verifier.state.digest()
        turns = session.turn
    with open_session(path) as session:
        assert session.verifier.state.digest() == closed
        # Around the first snapshot (turn 3), and the last turns (the epistemic trace's
        # turns are slow to replay, so not every prefix).
        for n in sorted({0, 1, 2, 3, 4, turns - 1, turns} & set(range(turns + 1))):
            replayed = replay(prefix(trace, n)).verifier.state.digest()
            assert session.state_at(n).state.digest() == replayed, (name, n)


def test_a_rejected_turn_is_logged_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.gcv"
    with _small(path) as session:
        before = session.verifier.state.digest()
        with pytest.raises(GcvError) as caught:
            session.append(Turn("a", (Observe("o2", "x"), Revise("nope"))))
        assert caught.value.code == "unknown-record"
        assert session.verifier.state.digest() == before and session.turn == 3
    with open_session(path) as session:
        assert session.verifier.state.digest() == before
        log = session.log()
        assert [(e.number, e.rejected) for e in log] == [
            (1, None),
            (2, None),
            (3, None),
            (4, "unknown-record"),
        ]
        assert session.export()["turns"][-1]["rejected"] == "unknown-record"
        assert session.append(Turn("a", (Observe("o2", "x"),))).turn == 4


def test_a_turn_stating_the_wrong_number_is_refused_and_not_logged(tmp_path: Path) -> None:
    with _small(tmp_path / "s.gcv") as session:
        with pytest.raises(OutOfSequence):
            session.append(Turn("a", (Observe("o2", "x"),)), number=3)
        assert len(session.log()) == 3
        assert session.append(Turn("a", (Observe("o2", "x"),)), number=4).turn == 4


def test_a_second_session_on_the_file_catches_up_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "s.gcv"
    with _small(path) as first, open_session(path) as second:
        first.append(Turn("a", (Observe("o2", "from the first"),)))
        report = second.append(Turn("b", (Observe("o3", "from the second"),)))
        assert report.turn == 5 and set(second.verifier.state.records) >= {"o2", "o3"}
        assert first.refresh() == 1
        assert first.verifier.state.digest() == second.verifier.state.digest()


def test_a_failed_write_rolls_the_map_back(tmp_path: Path) -> None:
    path = tmp_path / "s.gcv"
    with _small(path) as session:
        before = session.verifier.state.digest()
        # Make the store itself refuse the row: the turn applied in memory must be undone.
        with _raw(path) as db:
            db.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON log BEGIN SELECT RAISE(ABORT, 'full'); END"
            )
        with pytest.raises(StoreCorrupt, match="full"):
            session.append(Turn("a", (Observe("o2", "x"),)))
        assert session.verifier.state.digest() == before and session.turn == 3


def test_a_snapshot_of_another_engine_layout_is_passed_over(tmp_path: Path) -> None:
    path = tmp_path / "s.gcv"
    with _small(path) as session:
        closed = session.verifier.state.digest()
    with _raw(path) as db:
        db.execute("UPDATE snapshot SET layout = '[\"0.0.0\",[]]', state = x'00'")
    with open_session(path) as session:
        assert session.verifier.state.digest() == closed  # replayed from D_0


def test_the_log_is_append_only(tmp_path: Path) -> None:
    path = tmp_path / "s.gcv"
    _small(path).close()
    with _raw(path) as db:
        for statement in ("UPDATE log SET body = '{}'", "DELETE FROM log"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                db.execute(statement)


def test_create_refuses_an_existing_file_and_a_bad_header(tmp_path: Path) -> None:
    path = tmp_path / "s.gcv"
    path.write_text("keep me")
    with pytest.raises(StoreExists):
        create_session(path, HEADER)
    assert path.read_text() == "keep me"
    with pytest.raises(GcvError) as caught:
        create_session(tmp_path / "t.gcv", {"agents": {}})
    assert caught.value.code == "malformed-trace" and _files(tmp_path).keys() == {"s.gcv"}


def test_an_import_that_does_not_replay_as_the_trace_says_creates_nothing(
    tmp_path: Path,
) -> None:
    document = json.loads(scenario_text("phase2-debugging"))
    wrong = {"turn": 14, "speaker": "a", "operations": [{"op": "revise", "target": "nope"}]}
    document["turns"].append(wrong)  # said accepted, but it names no record
    trace = load_trace(json.dumps(document))
    with pytest.raises(GcvError, match=r"turns\[13\]"):
        import_trace(tmp_path / "s.gcv", trace, document)
    assert list(tmp_path.iterdir()) == []


def _newer(path: Path) -> None:
    with _raw(path) as db:
        db.execute(f"PRAGMA user_version = {STORE_VERSION + 1}")


def _format_1(path: Path) -> None:
    # A store as gcv 0.1.0 wrote it: a SHA-256 per row (of its body), not chained.
    path.unlink()
    with _raw(path) as db:
        db.execute(f"PRAGMA application_id = {int.from_bytes(b'gcvS', 'big')}")
        db.execute("PRAGMA user_version = 1")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute(
            "CREATE TABLE log (seq INTEGER PRIMARY KEY, turn INTEGER UNIQUE, body TEXT NOT "
            "NULL, sha256 TEXT NOT NULL, error_code TEXT, error TEXT)"
        )
        body = '{"speaker":"a","operations":[{"op":"observe","id":"o1","claim":"x"}]}'
        db.execute(
            "INSERT INTO log (turn, body, sha256) VALUES (1, ?, ?)",
            (body, hashlib.sha256(body.encode()).hexdigest()),
        )
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("format", "gcv-store"), ("header", json.dumps(HEADER)), ("snapshot_every", "0")],
        )


def _foreign_sqlite(path: Path) -> None:
    path.unlink()
    with _raw(path) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _text(path: Path) -> None:
    path.write_text("turn 1: alice observes\n")


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _truncate_to(fraction: float) -> object:
    def cut(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * fraction)])

    return cut


def _cut_one_byte(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-1])


def _edit_claim(path: Path) -> None:
    # Change a logged turn's text in place: the row's checksum no longer matches.
    data = path.read_bytes()
    logged = b'"claim":"token bug"'
    assert data.count(logged) == 1
    path.write_bytes(data.replace(logged, b'"claim":"token bog"'))


class _Planted:
    """A pickle that runs a command when it is loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def _plant_snapshot(path: Path) -> None:
    # The planted pickle with its state digest recomputed; its seal cannot be.
    blob = pickle.dumps(_Planted(path.parent / "planted-ran"))
    raw_edit(path, lambda db: plant_state(db, blob))


DAMAGE = {
    "newer format": (_newer, "store-version"),
    "format 1 (unchained)": (_format_1, "store-version"),
    "foreign sqlite": (_foreign_sqlite, "store-foreign"),
    "text file": (_text, "store-foreign"),
    "empty file": (_empty, "store-corrupt"),
    "truncated to a tenth": (_truncate_to(0.1), "store-corrupt"),
    "truncated to half": (_truncate_to(0.5), "store-corrupt"),
    "one byte short": (_cut_one_byte, "store-corrupt"),
    "edited turn": (_edit_claim, "store-corrupt"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_bad_file_is_refused_with_its_code_and_left_as_it_was(
    tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "s.gcv"
    _small(path).close()
    spoil, code = DAMAGE[damage]
    spoil(path)  # type: ignore[operator]
    before = _files(tmp_path)
    with pytest.raises(GcvError) as caught, open_session(path) as session:
        session.verifier  # noqa: B018 (the map is replayed when first used)
    assert caught.value.code == code, caught.value
    assert _files(tmp_path) == before
    assert not (tmp_path / "planted-ran").exists()


def test_a_planted_snapshot_is_passed_over_and_never_loaded(tmp_path: Path) -> None:
    path = tmp_path / "s.gcv"
    with _small(path) as session:
        closed = session.verifier.state.digest()
    _plant_snapshot(path)
    with open_session(path) as session:  # replayed from D_0: the log decides
        assert session.verifier.state.digest() == closed and session.turn == 3
    assert not (tmp_path / "planted-ran").exists()


def test_a_sealed_snapshot_that_is_no_state_is_refused_unloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sealed by the key's holder, yet a pickle naming os.system: the unpickler refuses it."""
    path = tmp_path / "s.gcv"
    _small(path).close()
    blob = pickle.dumps(_Planted(tmp_path / "planted-ran"))

    def sealed_plant(self: StoredSession, checkpoint: object, state: bytes) -> None:
        original(self, checkpoint, blob)

    from gcv.store import sqlite as backend

    original = backend.SQLiteBackend.put_snapshot
    monkeypatch.setattr(backend.SQLiteBackend, "put_snapshot", sealed_plant)
    monkeypatch.setattr("gcv.store.session.dump_state", lambda verifier: blob)
    with open_session(path) as session:
        session.append(Turn("a", (Observe("o2", "x"),)))  # turn 4: a snapshot falls due
    with pytest.raises(StoreCorrupt, match="snapshot at turn 4"):
        open_session(path)
    assert not (tmp_path / "planted-ran").exists()


def test_a_missing_store_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(GcvError) as caught:
        open_session(tmp_path / "nowhere.gcv")
    assert caught.value.code == "store-missing" and list(tmp_path.iterdir()) == []


def test_the_trace_writer_records_a_history_that_replays() -> None:
    writer = TraceWriter(header_of(json.loads(scenario_text("phase2-debugging"))))
    for trace_turn in load_scenario("phase2-debugging").turns:
        writer.apply_turn(trace_turn.turn)
    with pytest.raises(GcvError):
        writer.apply_turn(Turn("a", (Revise("no-such-record"),)))
    result = replay(load_trace(json.dumps(writer.document())))
    assert result.ok and len(result.turns) == 14
    assert result.verifier.state.digest() == writer.verifier.state.digest()


def test_the_python_example_of_docs_sessions_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "sessions.md").read_text()
    example = page.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(example, "docs/sessions.md", "exec"), namespace)
    assert namespace["trace"] == load_scenario("phase2-debugging")
    with open_session(tmp_path / "talk.gcv") as session:
        assert session.turn == 1 and session.verifier.verify("o1").grounded
