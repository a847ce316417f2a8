"""A conversation kept in a store: the chained log, its sealed snapshots, the live map.

The backend (:mod:`gcv.store.sqlite`, :mod:`gcv.store.postgres`) holds the rows; this
module is what every backend shares: the chain each row carries, the seal that binds a
snapshot to the log, and the rule that the log decides.

The log decides.  Every open checks the whole log before anything is answered, and
builds the live map from it, so every command and tool answers from the same state or
refuses the store with the same code:

- with a snapshot whose seal holds (:mod:`gcv.store.seal`: a keyed MAC over the
  checkpoint's turn, row and chain link, the header's digest, a digest of every row up
  to the checkpoint as the backend stores it, and the state's digest), the rows up to the
  checkpoint are checked against the seal in one pass of the database, the rows after it
  along the chain, and the map is the snapshot with those rows replayed;
- otherwise (no snapshot, no key, a seal that fails: another store's snapshot, a row
  before it edited, the log cut short of it) the snapshot is passed over: the chain is
  followed from the header and the map replayed from D_0.

A row that does not follow the chain, or an accepted turn that no longer applies, is
``store-corrupt`` naming that row, for every command.

Whole, at about 660 lines: it is one rule, that the log decides, and the chain, the seal
check, the rows' decoding and :class:`StoredSession` are its parts: every open and every
append reads them all. The backends, the seal's MAC and the snapshot format are their own
modules already.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.metadata
import json
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import icontract

from gcv.errors import OutOfSequence, StoreCorrupt
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
from gcv.reference.errors import GcvError, MalformedInput
from gcv.reference.verifier import Turn, TurnReport, Verifier
from gcv.store.seal import seal, store_key
from gcv.store.snapshot import collector_paused, dump_state, layout, load_state
from gcv.trace import MAX_TRACE_BYTES

__all__ = [
    "STORE_FORMAT",
    "STORE_VERSION",
    "Backend",
    "Checkpoint",
    "StoredSession",
    "chain_link",
    "chain_start",
    "stored_header",
]

STORE_FORMAT = "gcv-store"
STORE_VERSION = 3
"""3: sealed snapshots (2: unsealed snapshots; 1, gcv 0.1.0: a SHA-256 per row, not
chained; both refused, see docs/sessions.md for the upgrade)."""
_CHAIN_TAG = f"{STORE_FORMAT}/2"  # the chain's formula is format 2's, unchanged
_SEAL_TAG = f"{STORE_FORMAT}/{STORE_VERSION}/seal"
_ENGINE_VERSION = importlib.metadata.version("grounded-continuation")
_NO_END = 2**62


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
    return _sha256(_canonical([_CHAIN_TAG, header_text]))


# Once per logged turn each time a log is checked whole: the check's wrapper, not the check,
# cost 10^5 turns a second and a half (tests/benchmarks/bench_defaults.py), so it is slow-tier.
@icontract.ensure(lambda result: len(result) == 64, enabled=icontract.SLOW)
def chain_link(
    previous: str, turn: int | None, error_code: str | None, error: str | None, body: str
) -> str:
    """A row's link: the SHA-256 of ``[previous link, turn, error_code, error, body]``.

    Written as JSON with no spaces and ASCII escapes, so that any implementation can
    recompute it; each link covers every row before it and the header.
    """
    return _sha256(_canonical([previous, turn, error_code, error, body]))


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A snapshot as its row describes it: the accepted turn, the log row that logged it,
    the engine layout that wrote it, its seal and the SHA-256 of its state."""

    turn: int
    seq: int
    layout: str
    seal: str
    state_sha256: str


class Backend(Protocol):
    """Where a session's rows live: what :class:`StoredSession` asks of SQLite or PostgreSQL.

    Rows are ``(seq, turn, body, chain, error_code, error)``, in ``seq`` order.  Reads
    happen inside :meth:`reading` (one consistent view), writes inside :meth:`writing`
    (the session's write lock and one transaction, rolled back on any exception).
    """

    where: str
    """The store, as messages name it."""
    kind: str
    """The backend's name, part of every seal (a digest of rows is the backend's own)."""

    def typed(self) -> AbstractContextManager[None]:
        """Turn the driver's and the OS's failures into the store's typed errors."""
        ...

    def reading(self) -> AbstractContextManager[None]:
        """One consistent view of the session for the reads inside."""
        ...

    def writing(self) -> AbstractContextManager[None]:
        """The session's write lock, and one transaction (StoreBusy past the wait)."""
        ...

    def rows(self, after_seq: int, upto_seq: int = _NO_END) -> Iterable[tuple[object, ...]]:
        """The rows with ``after_seq < seq <= upto_seq``."""
        ...

    def accepted(
        self, after_turn: int, until_turn: int, upto_seq: int
    ) -> Iterable[tuple[object, ...]]:
        """The accepted rows with ``after_turn < turn <= until_turn``, ``seq <= upto_seq``,
        in turn order."""
        ...

    def head(self) -> object:
        """The recorded last link."""
        ...

    def end(self) -> tuple[object, object]:
        """The recorded last link and the last row's ``seq`` (0 when none), in one read."""
        ...

    def checkpoint(self) -> tuple[object, ...] | None:
        """The latest snapshot's ``(turn, seq, layout, seal, state_sha256)``, or None."""
        ...

    def snapshot_state(self, turn: int) -> object:
        """The state bytes of the snapshot at ``turn``."""
        ...

    def prefix(self, upto_seq: int) -> tuple[object, ...]:
        """The rows up to ``upto_seq`` as a few aggregates that determine every column
        of every row (counted, delimited, typed by the schema), in one pass."""
        ...

    def insert(
        self, turn: int | None, body: str, chain: str, error_code: str | None, error: str | None
    ) -> int:
        """Log a row after the last; return its ``seq``."""
        ...

    def set_head(self, link: str) -> None:
        """Record the last link."""
        ...

    def put_snapshot(self, checkpoint: Checkpoint, state: bytes) -> None:
        """Keep ``state`` as the snapshot at ``checkpoint``, and no older one."""
        ...

    def close(self) -> None:
        """Close the connection (idempotent)."""
        ...


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


def _row(where: str, values: tuple[object, ...]) -> _Row:
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
        raise StoreCorrupt(f"{where}: {place}: a column holds a value of the wrong type")
    return _Row(seq, turn, body, link, error_code, error)


def _check_rows(where: str, rows: Iterable[tuple[object, ...]], checked: _Checked) -> _Checked:
    """Follow the chain from ``checked`` over ``rows`` (in ``seq`` order); return the new end.

    A row whose link does not follow, or an accepted turn out of its place, is
    ``store-corrupt`` naming that row: the first one edited, moved, removed or added.
    """
    for values in rows:
        row = _row(where, values)
        expected = chain_link(checked.link, row.turn, row.error_code, row.error, row.body)
        if row.link != expected:
            raise StoreCorrupt(
                f"{where}: {row.place}: the log's chain breaks here (a row or the header "
                "was edited, moved or removed)",
                field="db",
            )
        if row.turn is None:  # an accepted one is read when it is replayed
            _decoded_turn(where, row)
        accepted = checked.accepted + (row.turn is not None)
        if row.turn is not None and row.turn != accepted:
            raise StoreCorrupt(f"{where}: {row.place} is logged where turn {accepted} belongs")
        checked = _Checked(row.seq, row.link, accepted)
    return checked


def _check_head(where: str, head: object, checked: _Checked) -> None:
    """The recorded head is the last row's link: a removed last row is caught here."""
    if head != checked.link:
        raise StoreCorrupt(
            f"{where}: the log's recorded head does not match its end (rows removed after "
            f"logged entry {checked.seq}, or the header or head edited)",
            field="db",
        )


def _prefix_digest(aggregates: tuple[object, ...]) -> str:
    digest = hashlib.sha256()
    for value in aggregates:
        if isinstance(value, str):
            value = value.encode("utf-8", "surrogateescape")
        digest.update(value if isinstance(value, bytes) else repr(value).encode())
        digest.update(b"\x00")
    return digest.hexdigest()


def _decoded_turn(where: str, row: _Row) -> Turn:
    """The Turn of a logged row, read by the bounded JSON reader; damage is ``store-corrupt``."""
    data = parse_json(row.body, MAX_TRACE_BYTES, StoreCorrupt, f"{where}: {row.place}")
    if not isinstance(data, dict):
        raise StoreCorrupt(f"{where}: {row.place} is not a turn object")
    try:
        return turn_from_json(data)
    # The body passed the chain, so it is what was logged, or a forgery with a recomputed
    # chain: whatever its shape, it is a damaged store, not a failure of the reader.
    except (GcvError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise StoreCorrupt(f"{where}: {row.place} is not a turn object ({error!r})") from None


def stored_header(where: str, text: object) -> dict[str, Any]:
    """The stored trace header, read by the bounded JSON reader (that it can start D_0 is
    checked when the session is opened, which builds D_0)."""
    if not isinstance(text, str):
        raise StoreCorrupt(f"{where}: the stored header is not text", field="db")
    header = parse_json(text, MAX_TRACE_BYTES, StoreCorrupt, f"{where}: the header")
    if not isinstance(header, dict):
        raise StoreCorrupt(f"{where}: the stored header is not an object", field="db")
    return header


@cache
def _engine_layout() -> str:
    """This engine's state layout (it does not depend on the conversation)."""
    return layout(Verifier(["a"]), _ENGINE_VERSION)


class StoredSession:
    """One conversation kept in a store: the live Verifier and its durable log.

    Make one with :func:`~gcv.store.create_session`, :func:`~gcv.store.open_session`
    or :func:`~gcv.store.import_trace`; it is a context manager that closes the store.
    Opening checks the whole log and builds the live map (see the module's docstring).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from gcv.store import create_session, open_session
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
        self, backend: Backend, header_text: str, header: Mapping[str, Any], snapshot_every: int
    ) -> None:
        self._backend = backend
        self.where = backend.where
        self.header = header_of(header)
        self._header_text = header_text
        self.snapshot_every = snapshot_every
        self._layout = _engine_layout()
        try:
            try:
                start_map = initial_verifier(self.header)
            except GcvError as error:
                raise StoreCorrupt(
                    f"{self.where}: the stored header is damaged: {error}", field="db"
                ) from None
            with backend.typed(), backend.reading():
                self._checkpoint = self._sealed_checkpoint()
                if self._checkpoint is None:
                    start = _Checked(0, chain_start(header_text), 0)
                else:
                    start = self._checked_at(self._checkpoint)
                self._checked = _check_rows(self.where, backend.rows(start.seq), start)
                _check_head(self.where, backend.head(), self._checked)
                self._live: Verifier | None = self._load(None, start_map)
        except BaseException:
            backend.close()
            raise

    # -- the seal ------------------------------------------------------------------

    def _seal_of(self, checkpoint: Checkpoint, link: str, key: bytes) -> str:
        rows = _prefix_digest(self._backend.prefix(checkpoint.seq))
        header = _sha256(self._header_text.encode("utf-8", "surrogateescape"))
        fields: list[object] = [
            _SEAL_TAG,
            self._backend.kind,
            checkpoint.turn,
            checkpoint.seq,
            link,
            header,
            rows,
            checkpoint.layout,
            checkpoint.state_sha256,
        ]
        return seal(key, fields)

    def _sealed_checkpoint(self) -> Checkpoint | None:
        """The latest snapshot's checkpoint if its seal holds over the log as it is now."""
        found = self._backend.checkpoint()
        key = store_key()
        if found is None or key is None:
            return None
        turn, seq, written_by, sealed, state_sha256 = found
        if not (
            isinstance(turn, int)
            and isinstance(seq, int)
            and isinstance(written_by, str)
            and isinstance(sealed, str)
            and isinstance(state_sha256, str)
        ):
            return None
        if written_by != self._layout:  # another engine's: passed over
            return None
        checkpoint = Checkpoint(turn, seq, written_by, sealed, state_sha256)
        rows = list(self._backend.rows(seq - 1, seq))
        if len(rows) != 1 or not isinstance(rows[0][3], str) or rows[0][1] != turn:
            return None  # the checkpoint's row is gone, or moved
        expected = self._seal_of(checkpoint, rows[0][3], key)
        return checkpoint if hmac.compare_digest(expected, sealed) else None

    def _checked_at(self, checkpoint: Checkpoint) -> _Checked:
        (row,) = self._backend.rows(checkpoint.seq - 1, checkpoint.seq)
        link = row[3]
        assert isinstance(link, str), "the seal covered this row"
        return _Checked(checkpoint.seq, link, checkpoint.turn)

    # -- reading the log -----------------------------------------------------------

    @property
    def verifier(self) -> Verifier:
        """The live Verifier: D_t after the last turn this process has read or appended."""
        if self._live is None:  # after a failed write: reloaded from the store
            with self._backend.typed(), self._backend.reading():
                self._live = self._load(None)
        return self._live

    @property
    def turn(self) -> int:
        """The number of accepted turns the live Verifier has applied."""
        return self.verifier.state.turn

    @property
    def path(self) -> str:
        """The store as messages name it (a file, or a database and session)."""
        return self.where

    def last_turn(self) -> int:
        """The number of accepted turns in the store (this or any process's)."""
        self.refresh()
        return self._checked.accepted

    def _check_new_rows(self) -> None:
        """Follow the chain over the rows other processes appended since this one last read."""
        self._checked = _check_rows(
            self.where, self._backend.rows(self._checked.seq), self._checked
        )
        _check_head(self.where, self._backend.head(), self._checked)

    def _replay_onto(self, verifier: Verifier, until: int | None) -> None:
        """Apply the checked accepted turns after ``verifier``'s, up to ``until``."""
        last = until if until is not None else _NO_END
        rows = self._backend.accepted(verifier.state.turn, last, self._checked.seq)
        for values in rows:
            row = _row(self.where, values)
            if row.turn != verifier.state.turn + 1:
                missing = verifier.state.turn + 1
                raise StoreCorrupt(f"{self.where}: accepted turn {missing} missing")
            turn = _decoded_turn(self.where, row)
            try:
                verifier.apply_turn(turn)
            except GcvError as error:
                raise StoreCorrupt(
                    f"{self.where}: {row.place} no longer applies: {error}"
                ) from None

    def _from_snapshot(self, until: int | None) -> Verifier | None:
        checkpoint = self._checkpoint
        if checkpoint is None or (until is not None and until < checkpoint.turn):
            return None
        blob = self._backend.snapshot_state(checkpoint.turn)
        if not isinstance(blob, bytes) or _sha256(blob) != checkpoint.state_sha256:
            return None  # the state is not the sealed one: the sealed rows are replayed
        try:
            verifier = load_state(blob)
        except ValueError as error:  # sealed, yet unreadable: the key's holder wrote it
            raise StoreCorrupt(
                f"{self.where}: the snapshot at turn {checkpoint.turn}: {error}"
            ) from None
        if verifier.state.turn != checkpoint.turn:
            raise StoreCorrupt(f"{self.where}: the snapshot at turn {checkpoint.turn} is not it")
        return verifier

    def _load(self, until: int | None, start: Verifier | None = None) -> Verifier:
        """D_until (D_t when None): the sealed snapshot, or ``start`` (a fresh D_0), with
        the turns after it replayed."""
        with collector_paused():
            verifier = self._from_snapshot(until) or start or initial_verifier(self.header)
            self._replay_onto(verifier, until)
        return verifier

    def refresh(self) -> int:
        """Apply the turns other processes appended since this one last read; return how many."""
        before = self.turn
        with self._backend.typed():
            # One read when nothing was added: the head is still the last link checked, and
            # the last row still the last one checked.
            found = self._backend.end()
            if found == (self._checked.link, self._checked.seq) and self._live is not None:
                return 0
        with self._backend.typed(), self._backend.reading():
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
        with self._backend.typed(), self._backend.reading():
            return self._load(turn)

    def log(self) -> list[LoggedTurn]:
        """Every turn offered, accepted or rejected, in the order offered."""
        self.refresh()
        entries: list[LoggedTurn] = []
        accepted = 0
        with self._backend.typed(), self._backend.reading():
            for values in self._backend.rows(0, self._checked.seq):
                row = _row(self.where, values)
                turn = _decoded_turn(self.where, row)
                if row.turn is None:  # rejected: the number it would have taken
                    entries.append(LoggedTurn(accepted + 1, turn, row.error_code, row.error or ""))
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
            The logged turns do not replay to the map (a snapshot sealed over another
            state: the key's holder wrote it).
        """
        document = trace_document(self.header, self.log())
        try:
            agrees = replays_to(document, self.verifier)
        except GcvError as error:
            raise StoreCorrupt(f"{self.where}: the log does not replay: {error}") from None
        if not agrees:
            raise StoreCorrupt(f"{self.where}: the log does not replay to the snapshot's map")
        return document

    # -- appending -----------------------------------------------------------------

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
        seq = self._backend.insert(number, body, link, entry.rejected, error)
        self._backend.set_head(link)
        return _Checked(seq, link, self._checked.accepted + (number is not None))

    def _snapshot(self, logged: _Checked) -> Checkpoint | None:
        """Seal and keep a snapshot of the live map at the row just logged (no key: none)."""
        key = store_key()
        if key is None:
            return None
        blob = dump_state(self.verifier)
        unsealed = Checkpoint(self.turn, logged.seq, self._layout, "", _sha256(blob))
        checkpoint = Checkpoint(
            unsealed.turn,
            unsealed.seq,
            unsealed.layout,
            self._seal_of(unsealed, logged.link, key),
            unsealed.state_sha256,
        )
        self._backend.put_snapshot(checkpoint, blob)
        return checkpoint

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
        checkpoint = self._checkpoint
        try:
            with self._backend.typed(), self._backend.writing():
                self._check_new_rows()
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
                        checkpoint = self._snapshot(logged) or checkpoint
        except BaseException:
            # The transaction rolled back; so must the map, if the turn reached it.
            if applied:
                self._live = None  # reloaded from the store when next used
            raise
        self._checked, self._checkpoint = logged, checkpoint  # committed
        if rejection is not None:
            raise rejection
        return report

    def move_to(self, backend: Backend) -> None:
        """Go on through ``backend``, another connection to the same store (the old one is
        closed), following the rows added since this one last read."""
        self._backend.close()
        self._backend = backend
        try:
            self.refresh()
        except BaseException:
            backend.close()
            raise

    def close(self) -> None:
        """Close the store (idempotent)."""
        self._backend.close()

    def __enter__(self) -> StoredSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
