"""Durable sessions: a conversation's turns in SQLite, reopened by replay.

A store is one SQLite file (the standard library's :mod:`sqlite3`, in WAL mode)
holding one conversation: the trace header (agents, Prop_0, M_0) and an
append-only log of every turn offered, each a ``gcv-trace/1`` turn object.
Accepted turns carry their number; rejected turns carry their error and no
number, as in a trace.  Each append is one SQLite transaction, so a process
killed at any point leaves a prefix of the accepted turns, each whole.
Reopening replays the log onto D_0, from the latest snapshot when there is one.

Each row carries a chained SHA-256 (:func:`chain_link`) over the previous row's link and
its own columns, starting from one over the header, and the meta table keeps the last
link: a row edited, reordered, removed or added by hand, or an edited header, breaks the
chain at the first bad row, and the store is refused as ``store-corrupt`` there.  It is
integrity, not authentication: anyone who can write the file can recompute the chain.

Schema (format version :data:`STORE_VERSION`; the file's ``application_id`` is
:data:`STORE_APPLICATION_ID` and its ``user_version`` the format version)::

    meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)
        -- format = 'gcv-store', header = the trace header (JSON), snapshot_every,
        -- head = the last row's chain link (the header's when the log is empty)
    log(seq INTEGER PRIMARY KEY, turn INTEGER UNIQUE, body TEXT NOT NULL,
        chain TEXT NOT NULL, error_code TEXT, error TEXT)
        -- turn IS NULL exactly for a rejected turn; UPDATE and DELETE abort
    snapshot(turn INTEGER PRIMARY KEY, layout TEXT NOT NULL, sha256 TEXT NOT NULL,
             state BLOB NOT NULL)
        -- the Verifier after accepted turn ``turn`` (the latest one is kept), pickled by
        -- the engine whose state layout is ``layout``; another engine's is not read;
        -- sha256 is over the chain link of turn ``turn``'s row, then the state

Writers serialise on SQLite's write lock (``BEGIN IMMEDIATE``): an append
first applies the turns other processes committed since it last read, so no
turn is lost or applied twice; a writer that waits longer than ``wait`` seconds
gets :class:`~gcv.errors.StoreBusy`.  spec/normative.md, "Session
stores", records the choices.
"""

from __future__ import annotations

import dataclasses
import enum
import gc
import hashlib
import importlib.metadata
import io
import json
import os
import pickle
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import icontract

from gcv.errors import (
    MalformedTrace,
    OutOfSequence,
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreExists,
    StoreForeign,
    StoreMissing,
    StoreReadOnly,
    StoreVersion,
)
from gcv.history import (
    LoggedTurn,
    header_of,
    initial_verifier,
    replays_to,
    trace_document,
    turn_from_json,
    turn_to_json,
)
from gcv.jsoninput import parse_json
from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.errors import GcvError, MalformedInput
from gcv.reference.verifier import Turn, TurnReport, Verifier
from gcv.trace import MAX_TRACE_BYTES, Trace

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "DEFAULT_WAIT_SECONDS",
    "STORE_APPLICATION_ID",
    "STORE_FORMAT",
    "STORE_VERSION",
    "StoredSession",
    "chain_link",
    "chain_start",
    "create_session",
    "import_trace",
    "open_session",
]

STORE_FORMAT = "gcv-store"
STORE_VERSION = 2
"""2: the chained log (1, gcv 0.1.0: a SHA-256 per row, not chained; refused, see
docs/sessions.md for its upgrade)."""
STORE_APPLICATION_ID = int.from_bytes(b"gcvS", "big")
DEFAULT_SNAPSHOT_EVERY = 5000
"""Accepted turns between snapshots (0: none); docs/performance.md has the figures."""
DEFAULT_WAIT_SECONDS = 10.0
"""How long an append waits for another process's write lock before StoreBusy."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
_ENGINE_VERSION = importlib.metadata.version("grounded-continuation")
_HEADER_BYTES = 100

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE log (
    seq INTEGER PRIMARY KEY,
    turn INTEGER UNIQUE CHECK (turn >= 1),
    body TEXT NOT NULL,
    chain TEXT NOT NULL,
    error_code TEXT,
    error TEXT,
    CHECK ((turn IS NULL) = (error_code IS NOT NULL))
);
CREATE TRIGGER log_no_update BEFORE UPDATE ON log
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TRIGGER log_no_delete BEFORE DELETE ON log
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TABLE snapshot (
    turn INTEGER PRIMARY KEY,
    layout TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    state BLOB NOT NULL
);
"""

# The classes a snapshot may name: the Verifier's state and the values in it.  Anything
# else (a function, a class from elsewhere) makes the snapshot corrupt, so a damaged or
# planted snapshot cannot call code on load.
_STATE_CLASSES = (Verifier, DependencyMap, EpistemicState, PlausibilityModel)
_ENGINE_PACKAGE = Verifier.__module__.rpartition(".")[0] + "."


class _SnapshotUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "array" and name in ("array", "_array_reconstructor"):
            return super().find_class(module, name)
        if module.startswith(_ENGINE_PACKAGE):
            found = super().find_class(module, name)
            if found in _STATE_CLASSES or (
                isinstance(found, type)
                and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum))
            ):
                return found
        raise pickle.UnpicklingError(f"a snapshot cannot name {module}.{name}")


def _layout(verifier: Verifier) -> str:
    """The engine's state layout: the package version, where the engine lives, and the
    map's attributes.

    A snapshot pickled by an engine with another layout (or under another package name)
    would unpickle into a state the running code does not expect, or not at all, so it is
    passed over and the log replayed instead.
    """
    fields = sorted(verifier.state.__getstate__())
    return json.dumps([_ENGINE_VERSION, _ENGINE_PACKAGE, fields], separators=(",", ":"))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canonical(values: list[object]) -> bytes:
    # ASCII escapes: a damaged column may decode to lone surrogates, which still hash.
    return json.dumps(values, separators=(",", ":")).encode()


@icontract.ensure(lambda result: len(result) == 64)
def chain_start(header_text: str) -> str:
    """The chain's first link: the SHA-256 of ``["gcv-store/2", header]`` (the header as stored).

    >>> chain_start("{}") == _sha256(b'["gcv-store/2","{}"]')
    True
    """
    return _sha256(_canonical([f"{STORE_FORMAT}/{STORE_VERSION}", header_text]))


# Once per logged turn each time a store opens: the check's wrapper, not the check, cost
# 10^5 turns a second and a half (tests/benchmarks/bench_defaults.py), so it is slow-tier.
@icontract.ensure(lambda result: len(result) == 64, enabled=icontract.SLOW)
def chain_link(
    previous: str, turn: int | None, error_code: str | None, error: str | None, body: str
) -> str:
    """A row's link: the SHA-256 of ``[previous link, turn, error_code, error, body]``.

    Written as JSON with no spaces and ASCII escapes, so that any implementation can
    recompute it; each link covers every row before it and the header.
    """
    return _sha256(_canonical([previous, turn, error_code, error, body]))


def _shown(path: Path) -> str:
    """``path`` for a message: a name too long to print keeps its two ends."""
    text = str(path)
    return text if len(text) <= 200 else f"{text[:100]}...{text[-60:]}"


def _os_failure(path: Path, error: OSError, doing: str = "open") -> StoreError:
    """The typed error of an OS failure on the store ``path`` (permission, name too long...)."""
    reason = error.strerror or str(error)
    return StoreError(f"{_shown(path)}: cannot {doing} the store: {reason}", field="db")


def _sqlite_failure(path: Path, error: sqlite3.Error) -> StoreError:
    """The typed error of an SQLite failure, by SQLite's primary result code."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_READONLY:
        return StoreReadOnly(f"{_shown(path)}: the store cannot be written ({error})", field="db")
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreBusy(f"{_shown(path)}: another process holds the store ({error})", field="db")
    if code in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL):
        return StoreError(f"{_shown(path)}: {error}", field="db")
    # Damage, and what gcv never writes (a constraint or trigger someone added, say).
    return StoreCorrupt(f"{_shown(path)}: {error}", field="db")


def _check_file(path: Path) -> None:
    """Refuse, before SQLite opens it, a file that is not a store of a format we read."""
    try:
        if not path.is_file():
            raise StoreMissing(f"{_shown(path)}: no session store there", field="db")
        with path.open("rb") as file:
            head = file.read(_HEADER_BYTES)
        size = path.stat().st_size
    except OSError as error:
        raise _os_failure(path, error) from None
    if len(head) < _HEADER_BYTES and _SQLITE_MAGIC.startswith(head[: len(_SQLITE_MAGIC)]):
        raise StoreCorrupt(f"{path}: truncated ({len(head)} bytes, no SQLite header)", field="db")
    if not head.startswith(_SQLITE_MAGIC):
        raise StoreForeign(f"{path}: not an SQLite database", field="db")
    # The SQLite file header: user_version at offset 60, application_id at 68 (big-endian).
    if int.from_bytes(head[68:72], "big") != STORE_APPLICATION_ID:
        raise StoreForeign(f"{path}: an SQLite database, but not a gcv session store", field="db")
    # SQLite writes whole pages (the page size at offset 16; 1 means 65536).
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or size % page_size:
        raise StoreCorrupt(f"{path}: truncated ({size} bytes, pages of {page_size})", field="db")
    version = int.from_bytes(head[60:64], "big")
    if version != STORE_VERSION:
        later = "newer than this gcv reads" if version > STORE_VERSION else "older (unchained)"
        raise StoreVersion(
            f"{path}: store format {version} is {later}; this gcv reads format "
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
            what = "store" if place == path else f"folder {_shown(place)}"
            raise StoreReadOnly(f"{_shown(path)}: the {what} is read-only", field="db")


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


@contextmanager
def _sqlite_as_typed(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as error:
        raise _sqlite_failure(path, error) from None
    except OSError as error:
        raise _os_failure(path, error) from None
    except UnicodeDecodeError as error:
        # sqlite3 decodes SQLite's own message strictly; one quoting damaged bytes fails.
        quoted = bytes(error.object).decode("utf-8", "backslashreplace")
        raise StoreCorrupt(f"{_shown(path)}: {quoted}", field="db") from None


@dataclass(frozen=True, slots=True)
class _Checked:
    """How far the log has been checked: the last row's ``seq``, its link, accepted turns."""

    seq: int
    link: str
    accepted: int


@dataclass(frozen=True, slots=True)
class _Row:
    seq: int
    turn: int | None
    body: str
    link: str
    error_code: str | None
    error: str | None

    @property
    def place(self) -> str:
        """The row in a message: its turn, or its position when it was rejected."""
        return f"turn {self.turn}" if self.turn is not None else f"logged entry {self.seq}"


_ROWS = "SELECT seq, turn, body, chain, error_code, error FROM log"


def _row(path: Path, values: tuple[object, ...]) -> _Row:
    """A log row whose columns have the types gcv writes (a BLOB body, say, is damage)."""
    seq, turn, body, link, error_code, error = values
    if not (
        isinstance(seq, int)
        and isinstance(turn, int | None)
        and isinstance(body, str)
        and isinstance(link, str)
        and isinstance(error_code, str | None)
        and isinstance(error, str | None)
    ):
        place = f"turn {turn}" if isinstance(turn, int) else f"logged entry {seq}"
        raise StoreCorrupt(f"{path}: {place}: a column holds a value of the wrong type")
    return _Row(seq, turn, body, link, error_code, error)


def _check_rows(path: Path, rows: Iterable[tuple[object, ...]], checked: _Checked) -> _Checked:
    """Follow the chain from ``checked`` over ``rows`` (in ``seq`` order); return the new end.

    A row whose link does not follow, or an accepted turn out of its place, is
    ``store-corrupt`` naming that row: the first one edited, moved, removed or added.
    """
    for values in rows:
        row = _row(path, values)
        expected = chain_link(checked.link, row.turn, row.error_code, row.error, row.body)
        if row.link != expected:
            raise StoreCorrupt(
                f"{path}: {row.place}: the log's chain breaks here (a row or the header "
                "was edited, moved or removed)",
                field="db",
            )
        accepted = checked.accepted + (row.turn is not None)
        if row.turn is not None and row.turn != accepted:
            raise StoreCorrupt(f"{path}: {row.place} is logged where turn {accepted} belongs")
        checked = _Checked(row.seq, row.link, accepted)
    return checked


def _decoded_turn(path: Path, row: _Row) -> Turn:
    """The Turn of a logged row, read by the bounded JSON reader; damage is ``store-corrupt``."""
    data = parse_json(row.body, MAX_TRACE_BYTES, StoreCorrupt, f"{path}: {row.place}")
    if not isinstance(data, dict):
        raise StoreCorrupt(f"{path}: {row.place} is not a turn object")
    try:
        return turn_from_json(data)
    # The body passed the chain, so it is what was logged, or a forgery with a recomputed
    # chain: whatever its shape, it is a damaged store, not a failure of the reader.
    except (GcvError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise StoreCorrupt(f"{path}: {row.place} is not a turn object ({error!r})") from None


@contextmanager
def _collector_paused() -> Iterator[None]:
    # A replay or a snapshot makes or walks one object per record, edge and label, and they
    # all live on: the cyclic collector's passes over them are wasted work, about half the
    # time of a reopen at 10^5 turns (docs/performance.md, "Session store").
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class StoredSession:
    """One conversation kept in a store: the live Verifier and its durable log.

    Make one with :func:`create_session`, :func:`open_session` or
    :func:`import_trace`; it is a context manager that closes the store.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from gcv.reference.operations import Hypothesize, Observe, Revise
    >>> path = Path(tempfile.mkdtemp()) / "talk.gcv"
    >>> with create_session(path, {"agents": {"a": "Alice", "b": "Bob"}}) as session:
    ...     _ = session.append(Turn("a", (Observe("o1", "401s"),)))
    ...     _ = session.append(Turn("a", (Hypothesize("h1", "token bug", depends_on=("o1",)),)))
    ...     _ = session.append(Turn("b", (Revise("o1"),)))
    >>> with open_session(path) as session:
    ...     now, before = session.verifier, session.state_at(2)
    ...     session.turn, now.verify("h1").grounded, before.verify("h1").grounded
    (3, False, True)
    """

    def __init__(
        self,
        db: sqlite3.Connection,
        path: Path,
        header: Mapping[str, Any],
        snapshot_every: int,
        checked: _Checked,
    ) -> None:
        self._db = db
        self.path = path
        self.header = header_of(header)
        self.snapshot_every = snapshot_every
        self._checked = checked
        self._live: Verifier | None = None

    # -- reading the log -----------------------------------------------------------

    @property
    def verifier(self) -> Verifier:
        """The live Verifier: D_t after the last turn this process has read or appended.

        Loaded on first use, so that a query as of an earlier turn does not replay to the end.
        """
        if self._live is None:
            self._live = self._load(None)
        return self._live

    @property
    def turn(self) -> int:
        """The number of accepted turns the live Verifier has applied."""
        return self.verifier.state.turn

    def last_turn(self) -> int:
        """The number of accepted turns in the store (this or any process's)."""
        with _sqlite_as_typed(self.path):
            self._check_new_rows()
        return self._checked.accepted

    def _check_new_rows(self) -> None:
        """Follow the chain over the rows other processes appended since this one last read."""
        query = f"{_ROWS} WHERE seq > ? ORDER BY seq"
        with closing(self._db.execute(query, (self._checked.seq,))) as rows:
            self._checked = _check_rows(self.path, rows, self._checked)

    def _replay_onto(self, verifier: Verifier, until: int | None) -> None:
        """Apply the checked accepted turns after ``verifier``'s, up to ``until``."""
        query = f"{_ROWS} WHERE turn > ? AND turn <= ? AND seq <= ? ORDER BY turn"
        last = until if until is not None else 2**62
        with closing(
            self._db.execute(query, (verifier.state.turn, last, self._checked.seq))
        ) as rows:
            for values in rows:
                row = _row(self.path, values)
                if row.turn != verifier.state.turn + 1:
                    missing = verifier.state.turn + 1
                    raise StoreCorrupt(f"{self.path}: accepted turn {missing} missing")
                turn = _decoded_turn(self.path, row)
                try:
                    verifier.apply_turn(turn)
                except GcvError as error:
                    raise StoreCorrupt(
                        f"{self.path}: {row.place} no longer applies: {error}"
                    ) from None

    def _snapshot_before(self, until: int | None, layout: str) -> Verifier | None:
        found = self._db.execute(
            "SELECT snapshot.turn, snapshot.sha256, state, log.chain FROM snapshot "
            "LEFT JOIN log ON log.turn = snapshot.turn AND log.seq <= ? "
            "WHERE snapshot.turn <= ? AND layout = ? ORDER BY snapshot.turn DESC LIMIT 1",
            (self._checked.seq, until if until is not None else 2**62, layout),
        ).fetchall()
        if not found:
            return None
        number, digest, blob, link = found[0]
        if not (isinstance(blob, bytes) and isinstance(link, str)):
            raise StoreCorrupt(f"{self.path}: the snapshot at turn {number} is damaged")
        # The digest covers the turn's link, so a snapshot belongs to this log only.
        if _sha256(link.encode() + blob) != digest:
            raise StoreCorrupt(f"{self.path}: the snapshot at turn {number} is damaged")
        try:
            verifier = _SnapshotUnpickler(io.BytesIO(blob)).load()
        except Exception as error:  # a damaged pickle can fail in any of pickle's ways
            raise StoreCorrupt(f"{self.path}: the snapshot at turn {number}: {error}") from None
        if not isinstance(verifier, Verifier) or verifier.state.turn != number:
            raise StoreCorrupt(f"{self.path}: the snapshot at turn {number} is not that state")
        return verifier

    def _load(self, until: int | None) -> Verifier:
        with _sqlite_as_typed(self.path), _collector_paused():
            self._check_new_rows()
            start = initial_verifier(self.header)
            verifier = self._snapshot_before(until, _layout(start)) or start
            self._replay_onto(verifier, until)
        return verifier

    def refresh(self) -> int:
        """Apply the turns other processes appended since this one last read; return how many."""
        before = self.turn
        with _sqlite_as_typed(self.path):
            self._check_new_rows()
            self._replay_onto(self.verifier, None)
        return self.turn - before

    @icontract.ensure(lambda turn, result: result.state.turn == turn, "the map as of turn N")
    def state_at(self, turn: int) -> Verifier:
        """A new Verifier holding D_N: the session's map after its first ``turn`` accepted turns.

        Raises
        ------
        MalformedInput
            ``turn`` is negative or beyond the session's last turn (field ``at``).
        """
        last = self.last_turn()
        if not 0 <= turn <= last:
            raise MalformedInput(f"turn {turn} is not in the session (0 to {last})", field="at")
        return self._load(turn)

    def log(self) -> list[LoggedTurn]:
        """Every turn offered, accepted or rejected, in the order offered."""
        entries: list[LoggedTurn] = []
        accepted = 0
        with _sqlite_as_typed(self.path):
            self._check_new_rows()
            query = f"{_ROWS} WHERE seq <= ? ORDER BY seq"
            with closing(self._db.execute(query, (self._checked.seq,))) as rows:
                for values in rows:
                    row = _row(self.path, values)
                    turn = _decoded_turn(self.path, row)
                    if row.turn is None:  # rejected: the number it would have taken
                        entries.append(
                            LoggedTurn(accepted + 1, turn, row.error_code, row.error or "")
                        )
                    else:
                        accepted = row.turn
                        entries.append(LoggedTurn(row.turn, turn))
        return entries

    def export(self) -> dict[str, Any]:
        """The session as a ``gcv-trace/1`` document (rejected turns marked with their code).

        The exported trace replays to the session's map: the log is replayed from D_0
        to check it, since the map may have come from a snapshot.

        Raises
        ------
        StoreCorrupt
            The logged turns do not replay to the map (a row or a snapshot forged with
            the chain recomputed).
        """
        self.refresh()
        document = trace_document(self.header, self.log())
        # A snapshot stands in for the turns before it; the export must be those turns.
        try:
            agrees = replays_to(document, self.verifier)
        except GcvError as error:
            raise StoreCorrupt(f"{self.path}: the log does not replay: {error}") from None
        if not agrees:
            raise StoreCorrupt(f"{self.path}: the log does not replay to the snapshot's map")
        return document

    # -- appending -----------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise _sqlite_failure(self.path, error) from None
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _insert(self, entry: LoggedTurn) -> _Checked:
        """Log ``entry`` as the chain's next row and move the head; return the new end."""
        body = json.dumps(
            {k: v for k, v in turn_to_json(entry).items() if k not in ("turn", "rejected", "why")},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        number = None if entry.rejected is not None else entry.number
        error = entry.error or None
        link = chain_link(self._checked.link, number, entry.rejected, error, body)
        cursor = self._db.execute(
            "INSERT INTO log (turn, body, chain, error_code, error) VALUES (?, ?, ?, ?, ?)",
            (number, body, link, entry.rejected, error),
        )
        self._db.execute("UPDATE meta SET value = ? WHERE key = 'head'", (link,))
        assert cursor.lastrowid is not None, "an INSERT has a row id"
        return _Checked(cursor.lastrowid, link, self._checked.accepted + (number is not None))

    def _snapshot(self, link: str) -> None:
        with _collector_paused():
            blob = pickle.dumps(self.verifier, protocol=pickle.HIGHEST_PROTOCOL)
        self._db.execute(
            "INSERT INTO snapshot (turn, layout, sha256, state) VALUES (?, ?, ?, ?)",
            (self.turn, _layout(self.verifier), _sha256(link.encode() + blob), blob),
        )
        self._db.execute("DELETE FROM snapshot WHERE turn < ?", (self.turn,))

    @icontract.ensure(
        lambda self, result: result.turn == self.turn, "the accepted turn is the session's last"
    )
    def append(self, turn: Turn, number: int | None = None) -> TurnReport:
        """Apply ``turn`` and log it, in one transaction; a rejected turn is logged with its error.

        ``number``, when given, is the turn number the caller expects the turn to
        take; a turn that would take another is refused and not logged (so a
        retried append cannot apply a turn twice).

        Raises
        ------
        GcvError
            The engine rejected the turn (it is logged; D_t is unchanged).
        OutOfSequence
            ``number`` is not the session's next turn (nothing is logged).
        StoreBusy
            Another process held the write lock for longer than the wait.
        StoreCorrupt
            Catching up on other processes' turns found the log damaged.
        """
        rejection: GcvError | None = None
        applied = False
        try:
            with self._write(), _sqlite_as_typed(self.path):
                self._check_new_rows()
                _check_head(self._db, self.path, self._checked)
                self._replay_onto(self.verifier, None)
                following = self.turn + 1
                if number is not None and number != following:
                    raise OutOfSequence(
                        f"turn {number} is out of sequence; the next is {following}",
                        field="turn",
                    )
                try:
                    report = self.verifier.apply_turn(turn)
                except GcvError as error:
                    rejection = error
                    logged = self._insert(LoggedTurn(following, turn, error.code, str(error)))
                else:
                    applied = True
                    logged = self._insert(LoggedTurn(following, turn))
                    if self.snapshot_every and self.turn % self.snapshot_every == 0:
                        self._snapshot(logged.link)
        except BaseException:
            # The transaction rolled back; so must the map, if the turn reached it.
            if applied:
                self._live = None  # reloaded from the store when next used
            raise
        self._checked = logged  # committed
        if rejection is not None:
            raise rejection
        return report

    def close(self) -> None:
        """Close the store (idempotent)."""
        self._db.close()

    def __enter__(self) -> StoredSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_session(
    path: str | Path, *, wait: float = DEFAULT_WAIT_SECONDS, durable: bool = True
) -> StoredSession:
    """Open the store at ``path``; its map is replayed to the last accepted turn when first used.

    ``durable=False`` commits without waiting for the disk (SQLite's
    ``synchronous=NORMAL``): a turn survives the process being killed, but the
    last turns before a power loss may be lost.

    Raises
    ------
    StoreMissing, StoreForeign, StoreVersion, StoreCorrupt
        No store there; not a store (not SQLite, or another application's);
        a newer format; truncated or damaged.  The file is not changed.
    """
    path = Path(path)
    _check_file(path)
    _check_writable(path)
    recovering = path.with_name(path.name + "-wal").exists()
    checked: _Checked | None = None
    if not recovering:
        # Check the file through a read-only handle that creates no -wal or -shm beside it,
        # so that a store refused here is left exactly as it was.
        with _sqlite_as_typed(path):
            probe = sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True)
            probe.text_factory = _lenient_text
        try:
            _, checked = _read_checked(probe, path, None)
        finally:
            probe.close()
    with _sqlite_as_typed(path):
        db = _connect(path, create=False, wait=wait, durable=durable)
    try:
        # Opening read-write recovers a WAL left by a killed writer; check what that gave.
        meta, checked = _read_checked(db, path, checked)
        return StoredSession(
            db, path, _stored_header(path, meta), _stored_count(path, meta), checked
        )
    except BaseException:
        db.close()
        raise


def _stored_header(path: Path, meta: Mapping[str, str]) -> dict[str, Any]:
    """The stored trace header, read by the bounded JSON reader and able to start D_0."""
    header = parse_json(meta["header"], MAX_TRACE_BYTES, StoreCorrupt, f"{path}: the header")
    if not isinstance(header, dict):
        raise StoreCorrupt(f"{path}: the stored header is not an object", field="db")
    try:
        initial_verifier(header)
    except GcvError as error:
        raise StoreCorrupt(f"{path}: the stored header is damaged: {error}", field="db") from None
    return header


def _stored_count(path: Path, meta: Mapping[str, str]) -> int:
    text = meta.get("snapshot_every", "0")
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise StoreCorrupt(f"{path}: snapshot_every is not a count of turns", field="db")
    return int(text)


def _read_checked(
    db: sqlite3.Connection, path: Path, checked: _Checked | None
) -> tuple[dict[str, str], _Checked]:
    """The meta table, after SQLite's quick check and the whole chain (unless ``checked``
    already holds the probe's end, when only the rows appended since are followed).

    Read in one transaction, so that another process's append cannot fall between the
    rows and the head.
    """
    with _sqlite_as_typed(path):
        db.execute("BEGIN")
        try:
            if checked is None:
                problems = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    raise StoreCorrupt(f"{path}: {'; '.join(problems[:3])}", field="db")
            meta = {
                str(key): value
                for key, value in db.execute("SELECT key, value FROM meta").fetchall()
            }
            if meta.get("format") != STORE_FORMAT or not all(
                isinstance(meta.get(key), str) for key in ("header", "head", "snapshot_every")
            ):
                raise StoreCorrupt(f"{path}: the store's meta table is incomplete", field="db")
            start = checked or _Checked(0, chain_start(meta["header"]), 0)
            query = f"{_ROWS} WHERE seq > ? ORDER BY seq"
            with closing(db.execute(query, (start.seq,))) as rows:
                checked = _check_rows(path, rows, start)
            _check_head(db, path, checked)
        finally:
            db.execute("COMMIT")
    return meta, checked


def _check_head(db: sqlite3.Connection, path: Path, checked: _Checked) -> None:
    """The meta table's head is the last row's link: a removed last row is caught here."""
    heads = db.execute("SELECT value FROM meta WHERE key = 'head'").fetchall()
    head = heads[0][0] if heads else None
    if head != checked.link:
        raise StoreCorrupt(
            f"{path}: the log's recorded head does not match its end (rows removed after "
            f"logged entry {checked.seq}, or the header or head edited)",
            field="db",
        )


def _build(path: Path, header: Mapping[str, Any], snapshot_every: int) -> Path:
    """Write a new store next to ``path`` under a temporary name and return that name."""
    building = path.with_name(f".{path.name}.{os.getpid()}.new")
    building.unlink(missing_ok=True)
    db = _connect(building, create=True, wait=DEFAULT_WAIT_SECONDS)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA application_id = {STORE_APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {STORE_VERSION}")
        db.executescript(_SCHEMA)
        header_text = json.dumps(header_of(header), ensure_ascii=False)
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
    return building


def _publish(
    path: str | Path,
    header: Mapping[str, Any],
    snapshot_every: int,
    fill: Callable[[StoredSession], None],
) -> StoredSession:
    """Build a store, fill it, then link it into place: ``path`` appears whole or not at all."""
    path = Path(path)
    if snapshot_every < 0:
        raise MalformedInput("snapshot_every is a number of turns, 0 or more", field="snapshot")
    initial_verifier(header)  # a header that cannot start a conversation creates nothing
    try:
        exists = path.exists()
    except OSError as error:
        raise _os_failure(path, error, "create") from None
    if exists:
        raise StoreExists(f"{path}: already exists; a new session needs a new file", field="db")
    try:
        building = _build(path, header, snapshot_every)
    except sqlite3.Error as error:
        raise StoreError(f"{path}: cannot create a store there ({error})", field="db") from None
    except OSError as error:
        raise _os_failure(path, error, "create") from None
    try:
        with open_session(building) as session:
            fill(session)
        os.link(building, path)
    except FileExistsError:
        raise StoreExists(f"{path}: already exists; a new session needs a new file") from None
    except OSError as error:
        raise _os_failure(path, error, "create") from None
    finally:
        building.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            with suppress(FileNotFoundError):
                building.with_name(building.name + suffix).unlink()
    return open_session(path)


def create_session(
    path: str | Path, header: Mapping[str, Any], *, snapshot_every: int = DEFAULT_SNAPSHOT_EVERY
) -> StoredSession:
    """Create a store at ``path`` for a conversation with the trace header ``header``.

    ``header`` holds a trace's ``agents`` (identifier -> display name) and,
    optionally, ``atoms``, ``model`` (M_0), ``name``, ``description``, ``source``.

    Raises
    ------
    StoreExists
        ``path`` already exists (it is left alone).
    MalformedTrace
        The header is not one a trace could have.
    """
    return _publish(path, header, snapshot_every, lambda session: None)


def import_trace(
    path: str | Path,
    trace: Trace,
    document: Mapping[str, Any],
    *,
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
) -> StoredSession:
    """Create a store at ``path`` holding the parsed ``trace`` (whose JSON is ``document``).

    Each turn is appended; one the trace marks rejected must be rejected with
    that code.  Nothing is created unless every turn is handled as the trace says.

    Raises
    ------
    MalformedTrace
        A turn is not handled as the trace says (naming it).
    StoreExists
        ``path`` already exists.
    """

    def fill(session: StoredSession) -> None:
        for index, trace_turn in enumerate(trace.turns):
            try:
                session.append(trace_turn.turn)
                outcome = None
            except GcvError as error:
                outcome = error
            if (outcome and outcome.code) != trace_turn.rejected:
                said = trace_turn.rejected or "accepted"
                got = f"rejected: {outcome}" if outcome else "accepted"
                raise MalformedTrace(
                    f"turns[{index}]: the trace says {said}, but the turn was {got}",
                    field=f"turns[{index}]",
                )

    return _publish(path, document, snapshot_every, fill)
