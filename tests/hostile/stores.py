"""Session stores to damage: a small template, raw edits, and a forger's chain.

The forger recomputes the chain from the formula docs/sessions.md states, written here
again rather than taken from :mod:`gcv.store`, so that a test of the store does not
check the store's code against itself.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

from gcv.reference.errors import GcvError
from gcv.reference.operations import Hypothesize, Observe, Revise
from gcv.reference.verifier import Turn
from gcv.store import create_session

HEADER = {"name": "s", "agents": {"a": "Alice", "b": "Bob"}}
Edit = Callable[[sqlite3.Connection], None]


@cache
def template_bytes() -> bytes:
    """A store of three accepted turns and, between the second and third, a rejected one
    (logged entry 3), with a snapshot after turn 2: made once, copied for each test."""
    path = Path(tempfile.mkdtemp(prefix="gcv-template-")) / "s.gcv"
    with create_session(path, HEADER, snapshot_every=2) as session:
        session.append(Turn("a", (Observe("o1", "401 errors"),)))
        session.append(Turn("a", (Hypothesize("h1", "token bug", depends_on=("o1",)),)))
        try:
            session.append(Turn("b", (Revise("nope"),)))
        except GcvError as error:
            assert error.code == "unknown-record", error
        session.append(Turn("b", (Revise("o1"),)))
    data = path.read_bytes()
    shutil.rmtree(path.parent)
    return data


def files(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` with the SHA-256 of its bytes (a folder is its name only)."""
    return {
        p.name: "folder" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.iterdir()
    }


def raw_edit(path: Path, edit: Edit) -> None:
    """Edit the store with plain sqlite3, as anyone could: the append-only triggers dropped
    for the edit, then put back as they were (a forger leaves the schema as gcv made it)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        triggers = db.execute("SELECT sql FROM sqlite_schema WHERE type = 'trigger'").fetchall()
        db.execute("DROP TRIGGER IF EXISTS log_no_update")
        db.execute("DROP TRIGGER IF EXISTS log_no_delete")
        edit(db)
        for (sql,) in triggers:
            db.execute(sql)
    finally:
        db.close()


def statement(sql: str, *parameters: object) -> Edit:
    """The edit that runs one SQL statement."""

    def edit(db: sqlite3.Connection) -> None:
        db.execute(sql, parameters)

    return edit


def recompute_chain(db: sqlite3.Connection) -> None:
    """The chain and the head recomputed as docs/sessions.md states (a snapshot's seal
    cannot be: its key is not in the store)."""
    (header,) = db.execute("SELECT value FROM meta WHERE key = 'header'").fetchone()
    link = _sha256(["gcv-store/2", header])
    rows = db.execute("SELECT seq, turn, error_code, error, body FROM log ORDER BY seq")
    for seq, turn, code, error, body in rows.fetchall():
        link = _sha256([link, turn, code, error, body])
        db.execute("UPDATE log SET chain = ? WHERE seq = ?", (link, seq))
    db.execute("UPDATE meta SET value = ? WHERE key = 'head'", (link,))


def plant_state(db: sqlite3.Connection, state: bytes) -> None:
    """Every snapshot's state replaced by ``state``, its SHA-256 recomputed (its seal kept)."""
    digest = hashlib.sha256(state).hexdigest()
    db.execute("UPDATE snapshot SET state = ?, state_sha256 = ?", (state, digest))


def forge(path: Path, edit: Edit) -> None:
    """``edit``, then the chain recomputed: the edit a forger who read the docs would make."""

    def forged(db: sqlite3.Connection) -> None:
        edit(db)
        recompute_chain(db)

    raw_edit(path, forged)


def _sha256(values: list[object]) -> str:
    return hashlib.sha256(json.dumps(values, separators=(",", ":")).encode()).hexdigest()


class RawStore:
    """A session's rows edited with the backend's own client, as anyone with access could
    (the append-only rule lifted for the edit, then restored): in an SQLite file or in a
    PostgreSQL session (``postgresql://...#NAME``)."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.postgres = db.startswith("postgresql://")

    def _statements(self, *statements: tuple[str, tuple[object, ...]]) -> list[list[tuple]]:  # type: ignore[type-arg]
        """Run SQLite-form statements (``log``, ``meta``, ``snapshot``; ``?``) in one
        transaction, on either backend; return each one's rows."""
        if not self.postgres:
            found: list[list[tuple]] = []  # type: ignore[type-arg]

            def edit(db: sqlite3.Connection) -> None:
                db.execute("BEGIN")
                found.extend(db.execute(sql, args).fetchall() for sql, args in statements)
                db.execute("COMMIT")

            raw_edit(Path(self.db), edit)
            return found
        import psycopg

        url, name = self.db.split("#")
        with psycopg.connect(url, autocommit=True) as connection, connection.transaction():
            connection.execute("ALTER TABLE gcv_log DISABLE TRIGGER gcv_log_append_only")
            results = []
            for sql, args in statements:
                cursor = connection.execute(*_in_postgres(sql, name, args))
                results.append(cursor.fetchall() if cursor.description else [])
            connection.execute("ALTER TABLE gcv_log ENABLE TRIGGER gcv_log_append_only")
            return results

    def rows(self) -> list[tuple[int, int | None, str | None, str | None, str]]:
        """``(seq, turn, error_code, error, body)`` of every row, in order."""
        (found,) = self._statements(
            ("SELECT seq, turn, error_code, error, body FROM log ORDER BY seq", ())
        )
        return found

    def header(self) -> str:
        """The stored header."""
        (found,) = self._statements(("SELECT value FROM meta WHERE key = 'header'", ()))
        return str(found[0][0])

    def run(self, *statements: tuple[str, tuple[object, ...]]) -> None:
        """Run these SQLite-form statements (see :func:`_in_postgres` for the other)."""
        self._statements(*statements)

    def recompute_chain(self) -> None:
        """The chain and the head recomputed as docs/sessions.md states."""
        link = _sha256(["gcv-store/2", self.header()])
        statements: list[tuple[str, tuple[object, ...]]] = []
        for seq, turn, code, error, body in self.rows():
            link = _sha256([link, turn, code, error, body])
            statements.append(("UPDATE log SET chain = ? WHERE seq = ?", (link, seq)))
        statements.append(("UPDATE meta SET value = ? WHERE key = 'head'", (link,)))
        self.run(*statements)

    def snapshot_state(self) -> bytes:
        """The state of the (latest) snapshot."""
        (found,) = self._statements(("SELECT state FROM snapshot ORDER BY turn DESC", ()))
        return bytes(found[0][0])  # type: ignore[arg-type]

    def plant_state(self, state: bytes) -> None:
        """Every snapshot's state replaced, its SHA-256 recomputed (its seal cannot be)."""
        digest = hashlib.sha256(state).hexdigest()
        self.run(("UPDATE snapshot SET state = ?, state_sha256 = ?", (state, digest)))


# SQLite's tables and their PostgreSQL twins, which carry the session's name.
_TABLES = {" log": " gcv_log", " snapshot": " gcv_snapshot"}


def _in_postgres(sql: str, name: str, args: tuple[object, ...]) -> tuple[str, tuple[object, ...]]:
    """A statement of :meth:`RawStore.run`'s SQLite form, for the session ``name``."""
    if "FROM meta WHERE key = 'header'" in sql:
        return "SELECT header FROM gcv_session WHERE name = %s", (name,)
    if "UPDATE meta SET value = ? WHERE key = 'head'" in sql:
        return "UPDATE gcv_session SET head = %s WHERE name = %s", (*args, name)
    if "UPDATE meta SET value = ? WHERE key = 'header'" in sql:
        return "UPDATE gcv_session SET header = %s WHERE name = %s", (*args, name)
    for sqlite_name, postgres_name in _TABLES.items():
        sql = sql.replace(f"FROM{sqlite_name}", f"FROM{postgres_name}")
        sql = sql.replace(f"UPDATE{sqlite_name} ", f"UPDATE{postgres_name} ")
    sql = sql.replace("?", "%s")
    # Every statement names the session: its own WHERE, or one added.
    if " WHERE " in sql:
        sql = sql.replace(" WHERE ", " WHERE session = %s AND ", 1)
    elif " ORDER BY " in sql:
        sql = sql.replace(" ORDER BY ", " WHERE session = %s ORDER BY ", 1)
    else:
        sql += " WHERE session = %s"
        return sql, (*args, name)
    before_where = sql.split(" WHERE ", 1)[0].count("%s")
    values = list(args)
    values.insert(before_where, name)
    return sql, tuple(values)
