"""The store's interface on both backends: the same answers from SQLite and PostgreSQL,
and a session moved from one to the other by export and import."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from gcv import Hypothesize, Observe, Revise, Turn
from gcv.cli import main
from gcv.errors import OutOfSequence, StoreExists
from gcv.reference.errors import GcvError
from gcv.store import copy_session, create_session, open_session
from tests.store_backends import StoreDb, postgres_cluster, postgres_url, store_db

__all__ = ["postgres_cluster", "postgres_url", "store_db"]  # the fixtures this module uses

HEADER = {"agents": {"a": "Alice", "b": "Bob"}}


def _gcv(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(word) for word in argv])
    return code, out.getvalue(), err.getvalue()


def test_a_session_answers_alike_on_each_backend(store_db: StoreDb) -> None:
    db = store_db("talk")
    with create_session(db, HEADER, snapshot_every=2) as session:
        session.append(Turn("a", (Observe("o1", "401 errors"),)))
        session.append(Turn("a", (Hypothesize("h1", "token bug", depends_on=("o1",)),)))
        with pytest.raises(GcvError, match="unknown-record"):
            session.append(Turn("b", (Revise("nope"),)))
        with pytest.raises(OutOfSequence):
            session.append(Turn("b", (Revise("o1"),)), number=9)
        session.append(Turn("b", (Revise("o1"),)), number=3)
    with pytest.raises(StoreExists):
        create_session(db, HEADER)
    with open_session(db) as first, open_session(db) as second:
        assert (first.turn, first.verifier.verify("h1").witness) == (3, "o1")
        assert first.state_at(2).verify("h1").grounded
        assert [(e.number, e.rejected) for e in first.log()] == [
            (1, None),
            (2, None),
            (3, "unknown-record"),
            (3, None),
        ]
        second.append(Turn("b", (Observe("o2", "from the second"),)))
        assert (
            first.refresh() == 1 and first.verifier.state.digest() == second.verifier.state.digest()
        )
    code, out, _ = _gcv("verify", "h1", "--db", db, "--at", 2, "--json")
    assert code == 0 and json.loads(out)["grounded"]


@pytest.mark.needs_program("initdb", "pg_ctl")
def test_a_session_moves_between_sqlite_and_postgresql(tmp_path: Path, postgres_url: str) -> None:
    """Exported from SQLite, imported into PostgreSQL, exported again, imported into a new
    SQLite file: every export the same trace; and copy_session does it in one call."""
    first, second = tmp_path / "first.gcv", tmp_path / "second.gcv"
    exports = [tmp_path / f"export-{k}.json" for k in range(3)]
    assert _gcv("session", "import", "phase2-debugging", "--db", first)[0] == 0
    assert _gcv("session", "export", "--db", first, "-o", exports[0])[0] == 0
    assert _gcv("session", "import", exports[0], "--db", f"{postgres_url}#moved")[0] == 0
    assert _gcv("session", "export", "--db", f"{postgres_url}#moved", "-o", exports[1])[0] == 0
    assert _gcv("session", "import", exports[1], "--db", second)[0] == 0
    assert _gcv("session", "export", "--db", second, "-o", exports[2])[0] == 0
    texts = [path.read_text() for path in exports]
    assert texts[0] == texts[1] == texts[2]
    with open_session(first) as source, copy_session(source, f"{postgres_url}#copied") as copy:
        assert copy.export() == source.export()


@pytest.mark.needs_program("initdb", "pg_ctl")
def test_a_postgresql_store_names_its_session(postgres_url: str) -> None:
    for db, needle in [
        (postgres_url, "names its session after '#'"),
        (f"{postgres_url}#../x", "names its session after '#'"),
        (f"{postgres_url}#nobody", "[store-missing]"),
        ("postgresql://nobody@/gcv?host=/nonexistent#s", "[store-error]"),
    ]:
        code, _, err = _gcv("session", "show", "--db", db)
        assert code == 2 and needle in err and err.count("\n") == 1, err


def test_a_name_with_a_newline_is_one_line_of_message(tmp_path: Path) -> None:
    code, _, err = _gcv("session", "show", "--db", tmp_path / "two\nlines.gcv")
    assert code == 2 and err.count("\n") == 1 and "two\\nlines.gcv" in err, err


def test_an_empty_trace_name_is_refused_not_taken_for_the_default() -> None:
    code, _, err = _gcv("verify", "o1", "--trace", "")
    assert code == 2 and re.search(r"\[[a-z-]+\]", err), err
    assert _gcv("replay", "")[0] == 2
