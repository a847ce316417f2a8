"""Session stores in PostgreSQL (psycopg 3): many sessions in one database, many writers.

``db`` is a libpq URL with the session's name after ``#``:
``postgresql://user@host/dbname?host=/run/postgresql#incident-42``.  The tables live in
the connection's current schema (``options=-csearch_path=...`` picks another), created
on first use; one database serves any number of sessions, workers and machines.

Schema (format version :data:`~gcv.store.session.STORE_VERSION`)::

    gcv_store(key text PRIMARY KEY, value text NOT NULL)
        -- format = 'gcv-store', version = the format version
    gcv_session(name text PRIMARY KEY, header text NOT NULL,
                snapshot_every integer NOT NULL, head text NOT NULL)
    gcv_log(session text REFERENCES gcv_session, seq bigint, turn integer, body text,
            chain text, error_code text, error text,
            PRIMARY KEY (session, seq), UNIQUE (session, turn))
        -- a trigger refuses UPDATE and DELETE
    gcv_snapshot(session text REFERENCES gcv_session, turn integer, seq bigint,
                 layout text, seal text, state_sha256 text, state bytea,
                 PRIMARY KEY (session, turn))

The chain, the seal and the rule that the log decides are the SQLite store's
(:mod:`gcv.store.session`); ``body`` is ``text``, not ``jsonb``, since the chain covers
the turn as written.  An append locks its session's row (``SELECT ... FOR UPDATE``), so
appenders to one session, in any process on any machine, are serialised by the
database and appenders to different sessions do not wait on one another; a killed
writer's transaction, and its lock, end with its connection.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gcv.errors import (
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreExists,
    StoreForeign,
    StoreMissing,
    StoreReadOnly,
    StoreVersion,
)
from gcv.reference.errors import MalformedInput
from gcv.store.session import (
    STORE_FORMAT,
    STORE_VERSION,
    Checkpoint,
    StoredSession,
    chain_start,
    stored_header,
)

__all__ = [
    "PostgresBackend",
    "create_database_session",
    "open_database_session",
    "session_names",
    "session_url",
    "split_url",
]

SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")

_SCHEMA = """
CREATE TABLE gcv_store (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE gcv_session (
    name text PRIMARY KEY,
    header text NOT NULL,
    snapshot_every integer NOT NULL CHECK (snapshot_every >= 0),
    head text NOT NULL
);
CREATE TABLE gcv_log (
    session text NOT NULL REFERENCES gcv_session (name),
    seq bigint NOT NULL CHECK (seq >= 1),
    turn integer CHECK (turn >= 1),
    body text NOT NULL,
    chain text NOT NULL,
    error_code text,
    error text,
    PRIMARY KEY (session, seq),
    UNIQUE (session, turn),
    CHECK ((turn IS NULL) = (error_code IS NOT NULL))
);
CREATE FUNCTION gcv_log_append_only() RETURNS trigger LANGUAGE plpgsql AS
    $$ BEGIN RAISE EXCEPTION 'the log is append-only'; END $$;
CREATE TRIGGER gcv_log_append_only BEFORE UPDATE OR DELETE ON gcv_log
    FOR EACH ROW EXECUTE FUNCTION gcv_log_append_only();
CREATE TABLE gcv_snapshot (
    session text NOT NULL REFERENCES gcv_session (name),
    turn integer NOT NULL,
    seq bigint NOT NULL,
    layout text NOT NULL,
    seal text NOT NULL,
    state_sha256 text NOT NULL,
    state bytea NOT NULL,
    PRIMARY KEY (session, turn)
);
"""
# Created once per database, under a lock that every creator takes (its key: 'gcvS').
_SCHEMA_LOCK = int.from_bytes(b"gcvS", "big")

_ROWS = "SELECT seq, turn, body, chain, error_code, error FROM gcv_log WHERE session = %s"
# As the SQLite store's: every column of every row up to a seq, in one pass.
_PREFIX = (
    "SELECT count(*), sum(seq), string_agg(body, E'\\x1e' ORDER BY seq), "
    "string_agg(chain, '' ORDER BY seq), "
    "string_agg(coalesce(turn::text, '-'), ',' ORDER BY seq), "
    "string_agg(length(error_code) || ':' || error_code || ':' || "
    "coalesce(length(error) || ':' || error, '-'), ',' ORDER BY seq) "
    "FROM gcv_log WHERE session = %s AND seq <= %s"
)


def split_url(db: str) -> tuple[str, str]:
    """(the libpq URL, the session's name) of ``postgresql://...#NAME``.

    >>> split_url("postgresql:///gcv?host=/tmp#talk")
    ('postgresql:///gcv?host=/tmp', 'talk')

    Raises
    ------
    MalformedInput
        No session name after ``#``, or not a plain word (field ``db``).
    """
    url, _, name = db.partition("#")
    if not SESSION_NAME.match(name):
        raise MalformedInput(
            f"{shown_url(url)}#{name[:40]!r}: a PostgreSQL store names its session after "
            "'#': letters, digits, '-' and '_', at most 64",
            field="db",
        )
    return url, name


def shown_url(url: str) -> str:
    """``url`` for a message: without its password, control characters escaped."""
    parts = urlsplit(url)
    if parts.password is not None:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        url = urlunsplit(parts._replace(netloc=netloc))
    return url if url.isprintable() else url.encode("unicode_escape").decode("ascii")


def session_url(url: str, name: str) -> str:
    """The store of session ``name`` in the database at ``url``."""
    return f"{url}#{name}"


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise StoreError(
            "a PostgreSQL store needs psycopg 3: pip install 'grounded-continuation[postgres]'",
            field="db",
        ) from None
    return psycopg


def _failure(where: str, error: Exception) -> StoreError:
    """The typed error of a psycopg failure, by its SQLSTATE class."""
    psycopg = _psycopg()
    errors = psycopg.errors
    text = " ".join(str(error).split())
    if isinstance(error, errors.LockNotAvailable | errors.DeadlockDetected):
        return StoreBusy(f"{where}: another process holds the session ({text})", field="db")
    if isinstance(error, errors.InsufficientPrivilege | errors.ReadOnlySqlTransaction):
        return StoreReadOnly(f"{where}: the store cannot be written ({text})", field="db")
    if isinstance(error, errors.UndefinedTable | errors.UndefinedColumn):
        return StoreForeign(f"{where}: not a gcv store's schema ({text})", field="db")
    if isinstance(error, psycopg.DataError | psycopg.IntegrityError | psycopg.InternalError):
        return StoreCorrupt(f"{where}: {text}", field="db")
    return StoreError(f"{where}: {text}", field="db")


class PostgresBackend:
    """One session of a PostgreSQL store through one connection
    (:class:`~gcv.store.session.Backend`)."""

    kind = "postgresql"

    def __init__(self, connection: Any, where: str, name: str, wait: float) -> None:
        self._db = connection
        self.where = where
        self.name = name
        self._wait_ms = max(1, int(wait * 1000))
        self._depth = 0

    @contextmanager
    def typed(self) -> Iterator[None]:
        """psycopg's failures as the store's typed errors."""
        psycopg = _psycopg()
        try:
            yield
        except psycopg.Error as error:
            raise _failure(self.where, error) from None

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One REPEATABLE READ transaction (nested in another, that one)."""
        if self._depth:
            yield
            return
        self._depth += 1
        try:
            with self._db.transaction():
                self._db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                yield
        finally:
            self._depth -= 1

    @contextmanager
    def writing(self) -> Iterator[None]:
        """One transaction holding the session's row lock (``store-busy`` past the wait)."""
        self._depth += 1
        try:
            with self._db.transaction():
                self._db.execute(f"SET LOCAL lock_timeout = {self._wait_ms}")
                found = self._db.execute(
                    "SELECT 1 FROM gcv_session WHERE name = %s FOR UPDATE", (self.name,)
                ).fetchall()
                if not found:
                    raise StoreMissing(f"{self.where}: the session is gone", field="db")
                yield
        finally:
            self._depth -= 1

    def rows(self, after_seq: int, upto_seq: int = 2**62) -> list[tuple[object, ...]]:
        """The rows with ``after_seq < seq <= upto_seq``, in order."""
        query = f"{_ROWS} AND seq > %s AND seq <= %s ORDER BY seq"
        return list(self._db.execute(query, (self.name, after_seq, upto_seq)).fetchall())

    def accepted(self, after_turn: int, until_turn: int, upto_seq: int) -> list[tuple[object, ...]]:
        """The accepted rows in ``(after_turn, until_turn]``, ``seq <= upto_seq``."""
        query = f"{_ROWS} AND turn > %s AND turn <= %s AND seq <= %s ORDER BY turn"
        params = (self.name, after_turn, min(until_turn, 2**31 - 1), upto_seq)
        return list(self._db.execute(query, params).fetchall())

    def head(self) -> object:
        """The recorded last link."""
        found = self._db.execute(
            "SELECT head FROM gcv_session WHERE name = %s", (self.name,)
        ).fetchall()
        return found[0][0] if found else None

    def end(self) -> tuple[object, object]:
        """The recorded last link and the last row's ``seq``, in one round trip."""
        found = self._db.execute(
            "SELECT head, (SELECT coalesce(max(seq), 0) FROM gcv_log WHERE session = %s) "
            "FROM gcv_session WHERE name = %s",
            (self.name, self.name),
        ).fetchall()
        return (found[0][0], found[0][1]) if found else (None, None)

    def checkpoint(self) -> tuple[object, ...] | None:
        """The latest snapshot's ``(turn, seq, layout, seal, state_sha256)``."""
        found = self._db.execute(
            "SELECT turn, seq, layout, seal, state_sha256 FROM gcv_snapshot WHERE session = %s "
            "ORDER BY turn DESC LIMIT 1",
            (self.name,),
        ).fetchall()
        return tuple(found[0]) if found else None

    def snapshot_state(self, turn: int) -> object:
        """The state of the snapshot at ``turn``."""
        found = self._db.execute(
            "SELECT state FROM gcv_snapshot WHERE session = %s AND turn = %s", (self.name, turn)
        ).fetchall()
        return bytes(found[0][0]) if found else None

    def prefix(self, upto_seq: int) -> tuple[object, ...]:
        """The rows up to ``upto_seq`` in one pass (see ``_PREFIX``)."""
        return tuple(self._db.execute(_PREFIX, (self.name, upto_seq)).fetchone())

    def insert(
        self, turn: int | None, body: str, chain: str, error_code: str | None, error: str | None
    ) -> int:
        """Log a row after the last (under the session's lock); return its ``seq``."""
        (seq,) = self._db.execute(
            "INSERT INTO gcv_log (session, seq, turn, body, chain, error_code, error) "
            "SELECT %s, coalesce(max(seq), 0) + 1, %s, %s, %s, %s, %s FROM gcv_log "
            "WHERE session = %s RETURNING seq",
            (self.name, turn, body, chain, error_code, error, self.name),
        ).fetchone()
        return int(seq)

    def set_head(self, link: str) -> None:
        """Record the last link."""
        self._db.execute("UPDATE gcv_session SET head = %s WHERE name = %s", (link, self.name))

    def put_snapshot(self, checkpoint: Checkpoint, state: bytes) -> None:
        """Keep the snapshot, and no other (one left by a log since cut short included)."""
        self._db.execute("DELETE FROM gcv_snapshot WHERE session = %s", (self.name,))
        self._db.execute(
            "INSERT INTO gcv_snapshot (session, turn, seq, layout, seal, state_sha256, state) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (
                self.name,
                checkpoint.turn,
                checkpoint.seq,
                checkpoint.layout,
                checkpoint.seal,
                checkpoint.state_sha256,
                state,
            ),
        )

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._db.close()


def _connect(url: str, where: str, durable: bool) -> Any:
    psycopg = _psycopg()
    try:
        connection = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as error:
        raise StoreError(f"{where}: cannot connect: {' '.join(str(error).split())}") from None
    try:
        connection.execute(f"SET synchronous_commit = {'on' if durable else 'off'}")
        _check_schema(connection, where)
    except BaseException:
        connection.close()
        raise
    return connection


def _check_schema(connection: Any, where: str) -> None:
    """Create the tables in a database that has none; refuse one holding another format."""
    psycopg = _psycopg()
    try:
        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            exists = connection.execute("SELECT to_regclass('gcv_store') IS NOT NULL").fetchone()[0]
            if not exists:
                if connection.execute("SELECT to_regclass('gcv_session')").fetchone()[0]:
                    raise StoreForeign(f"{where}: a gcv_session table not of a gcv store")
                connection.execute(_SCHEMA)
                connection.execute(
                    "INSERT INTO gcv_store VALUES ('format', %s), ('version', %s)",
                    (STORE_FORMAT, str(STORE_VERSION)),
                )
            meta = dict(connection.execute("SELECT key, value FROM gcv_store").fetchall())
    except psycopg.Error as error:
        raise _failure(where, error) from None
    if meta.get("format") != STORE_FORMAT:
        raise StoreForeign(f"{where}: the database's gcv_store is not a gcv store's", field="db")
    if meta.get("version") != str(STORE_VERSION):
        raise StoreVersion(
            f"{where}: store format {meta.get('version')!r}; this gcv reads format "
            f"{STORE_VERSION} (docs/sessions.md, 'Upgrading a store')",
            field="db",
        )


def _opened(url: str, name: str, where: str, wait: float, durable: bool) -> StoredSession:
    connection = _connect(url, where, durable)
    backend = PostgresBackend(connection, where, name, wait)
    try:
        with backend.typed():
            found = connection.execute(
                "SELECT header, snapshot_every FROM gcv_session WHERE name = %s", (name,)
            ).fetchall()
        if not found:
            raise StoreMissing(f"{where}: no such session in the database", field="db")
        header_text, every = found[0]
        header = stored_header(where, header_text)
        if not isinstance(every, int) or every < 0:
            raise StoreCorrupt(f"{where}: snapshot_every is not a count of turns", field="db")
        return StoredSession(backend, header_text, header, every)
    except BaseException:
        backend.close()
        raise


def session_names(url: str) -> list[str]:
    """The names of the sessions in the database at ``url``, sorted."""
    connection = _connect(url, shown_url(url), durable=True)
    try:
        with PostgresBackend(connection, shown_url(url), "", 10.0).typed():
            found = connection.execute("SELECT name FROM gcv_session ORDER BY name").fetchall()
    finally:
        connection.close()
    return [str(name) for (name,) in found]


def open_database_session(db: str, *, wait: float, durable: bool) -> StoredSession:
    """Open session ``#NAME`` of the PostgreSQL database ``db`` names."""
    url, name = split_url(db)
    where = f"{shown_url(url)}#{name}"
    return _opened(url, name, where, wait, durable)


def create_database_session(
    db: str, header_text: str, snapshot_every: int, fill: Callable[[StoredSession], None]
) -> None:
    """Create session ``#NAME`` and fill it, in one transaction: it appears whole or not at
    all (a second creator of the same name gets ``store-exists``)."""
    url, name = split_url(db)
    where = f"{shown_url(url)}#{name}"
    connection = _connect(url, where, durable=True)
    psycopg = _psycopg()
    try:
        with connection.transaction():
            try:
                inserted = connection.execute(
                    "INSERT INTO gcv_session (name, header, snapshot_every, head) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO NOTHING RETURNING name",
                    (name, header_text, snapshot_every, chain_start(header_text)),
                ).fetchall()
            except psycopg.Error as error:
                raise _failure(where, error) from None
            if not inserted:
                raise StoreExists(f"{where}: already exists; a new session needs a new name")
            backend = PostgresBackend(connection, where, name, 10.0)
            backend._depth = 1  # inside this transaction: its reads and writes are this one's
            session = StoredSession(
                backend, header_text, stored_header(where, header_text), snapshot_every
            )
            fill(session)
    finally:
        connection.close()
