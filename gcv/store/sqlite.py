"""Session stores in SQLite: one file per conversation, the embedded default.

A store is one SQLite file (the standard library's :mod:`sqlite3`, in WAL mode)
holding one conversation: the trace header (agents, Prop_0, M_0) and an
append-only log of every turn offered, each a ``gcv-trace/1`` turn object.
Each append is one SQLite transaction, so a process killed at any point leaves a
prefix of the accepted turns, each whole.  Writers serialise on SQLite's write lock
(``BEGIN IMMEDIATE``); a writer that waits longer than ``wait`` seconds gets
:class:`~gcv.errors.StoreBusy`.

Schema (format version :data:`~gcv.store.session.STORE_VERSION`; the file's
``application_id`` is :data:`STORE_APPLICATION_ID` and its ``user_version`` the
format version)::

    meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT
        -- format = 'gcv-store', header = the trace header (JSON), snapshot_every,
        -- head = the last row's chain link (the header's when the log is empty)
    log(seq INTEGER PRIMARY KEY, turn INTEGER UNIQUE, body TEXT NOT NULL,
        chain TEXT NOT NULL, error_code TEXT, error TEXT) STRICT
        -- turn IS NULL exactly for a rejected turn; UPDATE and DELETE abort
    snapshot(turn INTEGER PRIMARY KEY, seq INTEGER NOT NULL, layout TEXT NOT NULL,
             seal TEXT NOT NULL, state_sha256 TEXT NOT NULL, state BLOB NOT NULL) STRICT
        -- the Verifier after accepted turn ``turn`` (logged at row ``seq``), the latest
        -- only, sealed (gcv.store.session)

The tables are STRICT: SQLite refuses a value of another type, and its ``quick_check``
finds one written around that.  spec/gcv/spec/normative.md, "Session stores", records the choices.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from urllib.parse import quote

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
from gcv.store.session import (
    STORE_FORMAT,
    STORE_VERSION,
    Checkpoint,
    StoredSession,
    chain_start,
    stored_header,
)

__all__ = ["STORE_APPLICATION_ID", "SQLiteBackend", "create_file", "open_file", "shown"]

STORE_APPLICATION_ID = int.from_bytes(b"gcvS", "big")
_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_BYTES = 100

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE log (
    seq INTEGER PRIMARY KEY,
    turn INTEGER UNIQUE CHECK (turn >= 1),
    body TEXT NOT NULL,
    chain TEXT NOT NULL,
    error_code TEXT,
    error TEXT,
    CHECK ((turn IS NULL) = (error_code IS NOT NULL))
) STRICT;
CREATE TRIGGER log_no_update BEFORE UPDATE ON log
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TRIGGER log_no_delete BEFORE DELETE ON log
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TABLE snapshot (
    turn INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL,
    layout TEXT NOT NULL,
    seal TEXT NOT NULL,
    state_sha256 TEXT NOT NULL,
    state BLOB NOT NULL
) STRICT;
"""

_ROWS = "SELECT seq, turn, body, chain, error_code, error FROM log"
# Every column of every row up to a seq, in one pass: the bodies whole, each ended by
# char(30), which no body gcv writes holds (JSON escapes control characters), so that the
# count of rows fixes where each ends; the links whole (64 characters each); each turn
# number, or '-' for a rejected row; each rejection's code and message with their
# lengths.  The schema fixes each column's type.  The rows are read in the order of their
# seq (the table's rowid); a plan that read them otherwise would only make the seal fail.
_PREFIX = (
    "SELECT count(*), sum(seq), group_concat(body, char(30)), group_concat(chain, ''), "
    "group_concat(ifnull(turn, '-')), "
    "group_concat(length(error_code) || ':' || error_code || ':' || "
    "ifnull(length(error) || ':' || error, '-')) "
    "FROM log WHERE seq <= ?"
)


_SCHEMA_QUERY = "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"


@cache
def _expected_schema() -> list[tuple[object, ...]]:
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        return db.execute(_SCHEMA_QUERY).fetchall()
    finally:
        db.close()


def shown(path: Path | str) -> str:
    """``path`` for a one-line message: control characters escaped, a long name's ends kept."""
    text = str(path)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= 200 else f"{text[:100]}...{text[-60:]}"


def _os_failure(path: Path, error: OSError, doing: str = "open") -> StoreError:
    """The typed error of an OS failure on the store ``path`` (permission, name too long...)."""
    reason = error.strerror or str(error)
    return StoreError(f"{shown(path)}: cannot {doing} the store: {reason}", field="db")


def _sqlite_failure(where: str, error: sqlite3.Error) -> StoreError:
    """The typed error of an SQLite failure, by SQLite's primary result code."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_READONLY:
        return StoreReadOnly(f"{where}: the store cannot be written ({error})", field="db")
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreBusy(f"{where}: another process holds the store ({error})", field="db")
    if code in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL):
        return StoreError(f"{where}: {error}", field="db")
    # Damage, and what gcv never writes (a constraint or trigger someone added, say).
    return StoreCorrupt(f"{where}: {error}", field="db")


def _check_file(path: Path) -> None:
    """Refuse, before SQLite opens it, a file that is not a store of a format we read."""
    where = shown(path)
    try:
        if not path.is_file():
            raise StoreMissing(f"{where}: no session store there", field="db")
        with path.open("rb") as file:
            head = file.read(_HEADER_BYTES)
        size = path.stat().st_size
    except OSError as error:
        raise _os_failure(path, error) from None
    if len(head) < _HEADER_BYTES and _SQLITE_MAGIC.startswith(head[: len(_SQLITE_MAGIC)]):
        raise StoreCorrupt(f"{where}: truncated ({len(head)} bytes, no SQLite header)", field="db")
    if not head.startswith(_SQLITE_MAGIC):
        raise StoreForeign(f"{where}: not an SQLite database", field="db")
    # The SQLite file header: user_version at offset 60, application_id at 68 (big-endian).
    if int.from_bytes(head[68:72], "big") != STORE_APPLICATION_ID:
        raise StoreForeign(f"{where}: an SQLite database, but not a gcv session store", field="db")
    # SQLite writes whole pages (the page size at offset 16; 1 means 65536).
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or size % page_size:
        raise StoreCorrupt(f"{where}: truncated ({size} bytes, pages of {page_size})", field="db")
    version = int.from_bytes(head[60:64], "big")
    if version != STORE_VERSION:
        later = "newer than this gcv reads" if version > STORE_VERSION else "older"
        raise StoreVersion(
            f"{where}: store format {version} is {later}; this gcv reads format "
            f"{STORE_VERSION} (docs/sessions.md, 'Upgrading a store')",
            field="db",
        )


def _check_writable(path: Path) -> None:
    """Refuse a store that this process cannot write, or whose folder it cannot write.

    SQLite's WAL mode writes ``-wal`` and ``-shm`` files beside the store even to read
    it, and on a read-only store leaves them there; so a read-only store or folder is
    refused before SQLite opens it, and the folder is left as it was.
    """
    for place in (path, path.parent):
        if not os.access(place, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
            what = "store" if place == path else f"folder {shown(place)}"
            raise StoreReadOnly(f"{shown(path)}: the {what} is read-only", field="db")


def _lenient_text(data: bytes) -> str:
    # A damaged TEXT value is not UTF-8; decoded with surrogates it fails the chain or the
    # JSON reader, naming its row, rather than failing inside sqlite3.
    return data.decode("utf-8", "surrogateescape")


def _connect(path: Path, *, create: bool, wait: float, durable: bool = True) -> sqlite3.Connection:
    mode = "rwc" if create else "rw"
    # isolation_level=None: no implicit transactions; every write says BEGIN IMMEDIATE.
    db = sqlite3.connect(
        f"file:{quote(str(path))}?mode={mode}", uri=True, timeout=wait, isolation_level=None
    )
    db.text_factory = _lenient_text
    # FULL: a turn reported accepted survives power loss; NORMAL (WAL): it survives the
    # process being killed, and the last turns may be lost with power.
    db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
    return db


class SQLiteBackend:
    """One store file through one connection (:class:`~gcv.store.session.Backend`)."""

    kind = "sqlite"

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self.path = path
        self.where = shown(path)

    @contextmanager
    def typed(self) -> Iterator[None]:
        """SQLite's and the OS's failures as the store's typed errors."""
        try:
            yield
        except sqlite3.Error as error:
            raise _sqlite_failure(self.where, error) from None
        except OSError as error:
            raise _os_failure(self.path, error) from None
        except UnicodeDecodeError as error:
            # sqlite3 decodes SQLite's own message strictly; one quoting damaged bytes fails.
            quoted = bytes(error.object).decode("utf-8", "backslashreplace")
            raise StoreCorrupt(f"{self.where}: {quoted}", field="db") from None

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction (nested in a write's, it is that one)."""
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            if self._db.in_transaction:
                self._db.execute("COMMIT")

    @contextmanager
    def writing(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` (the file's write lock) ... ``COMMIT``, or ``ROLLBACK``."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def meta(self) -> dict[str, object]:
        """The meta table (after SQLite's quick check, in the caller's read)."""
        problems = [str(row[0]) for row in self._db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise StoreCorrupt(f"{self.where}: {'; '.join(problems[:3])}", field="db")
        # The tables, constraints and triggers gcv creates, and no other: a STRICT table
        # keeps each column's type (quick_check finds a value written around it), so a
        # schema edited to drop that, or the append-only rule, is damage.
        if self._db.execute(_SCHEMA_QUERY).fetchall() != _expected_schema():
            raise StoreCorrupt(f"{self.where}: the schema is not a gcv store's", field="db")
        return {str(k): v for k, v in self._db.execute("SELECT key, value FROM meta")}

    def rows(self, after_seq: int, upto_seq: int = 2**62) -> list[tuple[object, ...]]:
        """The rows with ``after_seq < seq <= upto_seq``, in order."""
        query = f"{_ROWS} WHERE seq > ? AND seq <= ? ORDER BY seq"
        return self._db.execute(query, (after_seq, upto_seq)).fetchall()

    def accepted(self, after_turn: int, until_turn: int, upto_seq: int) -> list[tuple[object, ...]]:
        """The accepted rows in ``(after_turn, until_turn]``, ``seq <= upto_seq``."""
        query = f"{_ROWS} WHERE turn > ? AND turn <= ? AND seq <= ? ORDER BY turn"
        return self._db.execute(query, (after_turn, until_turn, upto_seq)).fetchall()

    def head(self) -> object:
        """The recorded last link."""
        heads = self._db.execute("SELECT value FROM meta WHERE key = 'head'").fetchall()
        return heads[0][0] if heads else None

    def end(self) -> tuple[object, object]:
        """The recorded last link and the last row's ``seq``, in one statement."""
        found = self._db.execute(
            "SELECT (SELECT value FROM meta WHERE key = 'head'), "
            "(SELECT ifnull(max(seq), 0) FROM log)"
        ).fetchone()
        return found[0], found[1]

    def checkpoint(self) -> tuple[object, ...] | None:
        """The latest snapshot's ``(turn, seq, layout, seal, state_sha256)``."""
        found = self._db.execute(
            "SELECT turn, seq, layout, seal, state_sha256 FROM snapshot ORDER BY turn DESC LIMIT 1"
        ).fetchall()
        return tuple(found[0]) if found else None

    def snapshot_state(self, turn: int) -> object:
        """The state of the snapshot at ``turn``."""
        found = self._db.execute("SELECT state FROM snapshot WHERE turn = ?", (turn,)).fetchall()
        return found[0][0] if found else None

    def prefix(self, upto_seq: int) -> tuple[object, ...]:
        """The rows up to ``upto_seq`` in one pass (see ``_PREFIX``)."""
        return tuple(self._db.execute(_PREFIX, (upto_seq,)).fetchone())

    def insert(
        self, turn: int | None, body: str, chain: str, error_code: str | None, error: str | None
    ) -> int:
        """Log a row; return its ``seq``."""
        cursor = self._db.execute(
            "INSERT INTO log (turn, body, chain, error_code, error) VALUES (?, ?, ?, ?, ?)",
            (turn, body, chain, error_code, error),
        )
        assert cursor.lastrowid is not None, "an INSERT has a row id"
        return cursor.lastrowid

    def set_head(self, link: str) -> None:
        """Record the last link."""
        self._db.execute("UPDATE meta SET value = ? WHERE key = 'head'", (link,))

    def put_snapshot(self, checkpoint: Checkpoint, state: bytes) -> None:
        """Keep the snapshot, and no other (one left by a log since cut short included)."""
        self._db.execute("DELETE FROM snapshot")
        self._db.execute(
            "INSERT INTO snapshot (turn, seq, layout, seal, state_sha256, state) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
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


def _snapshot_count(where: str, text: object) -> int:
    if not (isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 9):
        raise StoreCorrupt(f"{where}: snapshot_every is not a count of turns", field="db")
    return int(text)


def _session(backend: SQLiteBackend) -> StoredSession:
    """The session of an open store: its meta table checked, then the log (the session's)."""
    with backend.typed(), backend.reading():
        meta = backend.meta()
    if meta.get("format") != STORE_FORMAT or not all(
        isinstance(meta.get(key), str) for key in ("header", "head", "snapshot_every")
    ):
        raise StoreCorrupt(f"{backend.where}: the store's meta table is incomplete", field="db")
    header_text = meta["header"]
    assert isinstance(header_text, str), "checked above"
    header = stored_header(backend.where, header_text)
    every = _snapshot_count(backend.where, meta["snapshot_every"])
    return StoredSession(backend, header_text, header, every)


def open_file(path: Path, *, wait: float, durable: bool) -> StoredSession:
    """Open the store file at ``path``, checked before anything is written to it.

    A store refused here is left byte for byte: the checks run through a read-only
    handle that creates no ``-wal`` or ``-shm`` file, unless a ``-wal`` left by a killed
    writer is there, which opening read-write completes first.
    """
    _check_file(path)
    _check_writable(path)
    where = shown(path)
    if not path.with_name(path.name + "-wal").exists():
        try:
            probe = sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True)
        except sqlite3.Error as error:
            raise _sqlite_failure(where, error) from None
        probe.text_factory = _lenient_text
        checked = _session(SQLiteBackend(probe, path))
    else:
        checked = None
    try:
        db = _connect(path, create=False, wait=wait, durable=durable)
    except sqlite3.Error as error:
        if checked is not None:
            checked.close()
        raise _sqlite_failure(where, error) from None
    backend = SQLiteBackend(db, path)
    if checked is None:
        return _session(backend)
    # Checked through the probe: the read-write handle only follows what was added since.
    checked.move_to(backend)
    return checked


def create_file(
    path: Path, header_text: str, snapshot_every: int, fill: Callable[[StoredSession], None]
) -> None:
    """Build a store under a temporary name beside ``path``, fill it, then link it into
    place: ``path`` appears whole or not at all, and nothing is left beside it otherwise."""
    try:
        exists = path.exists()
    except OSError as error:
        raise _os_failure(path, error, "create") from None
    if exists:
        raise StoreExists(f"{shown(path)}: already exists; a new session needs a new file")
    building = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        try:
            _build(building, header_text, snapshot_every)
        except sqlite3.Error as error:
            raise StoreError(f"{shown(path)}: cannot create a store there ({error})") from None
        with open_file(building, wait=10.0, durable=True) as session:
            fill(session)
        os.link(building, path)
    except FileExistsError:
        raise StoreExists(
            f"{shown(path)}: already exists; a new session needs a new file"
        ) from None
    except OSError as error:
        raise _os_failure(path, error, "create") from None
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with suppress(OSError):
                building.with_name(building.name + suffix).unlink()


def _build(building: Path, header_text: str, snapshot_every: int) -> None:
    building.unlink(missing_ok=True)
    db = _connect(building, create=True, wait=10.0)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA application_id = {STORE_APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {STORE_VERSION}")
        db.executescript(_SCHEMA)
        db.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("format", STORE_FORMAT),
                ("header", header_text),
                ("snapshot_every", str(snapshot_every)),
                ("head", chain_start(header_text)),
            ],
        )
    finally:
        db.close()
