"""Durable sessions: a conversation's turns in a store, reopened by replay.

A store keeps one conversation: the trace header (agents, Prop_0, M_0) and an
append-only, hash-chained log of every turn offered, each a ``gcv-trace/1`` turn
object; accepted turns carry their number, rejected turns their error.  Each append is
one transaction, so a writer killed at any point leaves a prefix of the accepted turns,
each whole.  The log decides: a snapshot is a sealed cache of the map, never an
authority (:mod:`gcv.store.session`, :mod:`gcv.store.seal`).

Two backends share one interface: SQLite, one file per session, the embedded default
(:mod:`gcv.store.sqlite`), and PostgreSQL, many sessions in one database, for a
service of several workers or machines (:mod:`gcv.store.postgres`).  ``db`` names the
store: a file path, or ``postgresql://...#SESSION`` (the session's name after ``#``).
docs/sessions.md has the commands and the schemas; spec/gcv/spec/normative.md, "Session
stores", the choices.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import icontract

from gcv.errors import MalformedTrace
from gcv.history import header_of, initial_verifier
from gcv.reference.errors import GcvError, MalformedInput
from gcv.store.session import STORE_FORMAT, STORE_VERSION, StoredSession, chain_link, chain_start
from gcv.store.sqlite import STORE_APPLICATION_ID, create_file, open_file
from gcv.trace import Trace, load_trace

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "DEFAULT_WAIT_SECONDS",
    "STORE_APPLICATION_ID",
    "STORE_FORMAT",
    "STORE_VERSION",
    "StoredSession",
    "chain_link",
    "chain_start",
    "copy_session",
    "create_session",
    "import_trace",
    "is_database_url",
    "open_session",
]

DEFAULT_SNAPSHOT_EVERY = 5000
"""Accepted turns between snapshots (0: none); docs/performance.md has the figures."""
DEFAULT_WAIT_SECONDS = 10.0
"""How long an append waits for another process's write lock before StoreBusy."""

_URL_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(db: str | Path) -> bool:
    """Whether ``db`` names a PostgreSQL session (``postgresql://...#SESSION``), not a file.

    >>> is_database_url("postgresql:///gcv?host=/run/postgresql#talk"), is_database_url("t.gcv")
    (True, False)
    """
    return isinstance(db, str) and db.startswith(_URL_SCHEMES)


def open_session(
    db: str | Path, *, wait: float = DEFAULT_WAIT_SECONDS, durable: bool = True
) -> StoredSession:
    """Open the store ``db``: its whole log is checked and its map built (from a sealed
    snapshot, when one holds).

    ``durable=False`` commits without waiting for the disk (SQLite's
    ``synchronous=NORMAL``; PostgreSQL's ``synchronous_commit=off``): a turn survives
    the process being killed, but the last turns before a power loss may be lost.

    Raises
    ------
    StoreMissing, StoreForeign, StoreVersion, StoreCorrupt
        No store there; not a store (not SQLite, or another application's);
        another format; truncated or damaged.  The store is not changed.
    """
    if is_database_url(db):
        from gcv.store.postgres import open_database_session

        return open_database_session(str(db), wait=wait, durable=durable)
    return open_file(Path(db), wait=wait, durable=durable)


def _publish(
    db: str | Path,
    header: Mapping[str, Any],
    snapshot_every: int,
    fill: Callable[[StoredSession], None],
) -> StoredSession:
    """Create a store and fill it: it appears whole or not at all."""
    if snapshot_every < 0:
        raise MalformedInput("snapshot_every is a number of turns, 0 or more", field="snapshot")
    initial_verifier(header)  # a header that cannot start a conversation creates nothing
    header_text = json.dumps(header_of(header), ensure_ascii=False)
    if is_database_url(db):
        from gcv.store.postgres import create_database_session

        create_database_session(str(db), header_text, snapshot_every, fill)
    else:
        create_file(Path(db), header_text, snapshot_every, fill)
    return open_session(db)


def create_session(
    db: str | Path, header: Mapping[str, Any], *, snapshot_every: int = DEFAULT_SNAPSHOT_EVERY
) -> StoredSession:
    """Create a store at ``db`` for a conversation with the trace header ``header``.

    ``header`` holds a trace's ``agents`` (identifier -> display name) and,
    optionally, ``atoms``, ``model`` (M_0), ``name``, ``description``, ``source``.

    Raises
    ------
    StoreExists
        ``db`` already exists (it is left alone).
    MalformedTrace
        The header is not one a trace could have.
    """
    return _publish(db, header, snapshot_every, lambda session: None)


def import_trace(
    db: str | Path,
    trace: Trace,
    document: Mapping[str, Any],
    *,
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
) -> StoredSession:
    """Create a store at ``db`` holding the parsed ``trace`` (whose JSON is ``document``).

    Each turn is appended; one the trace marks rejected must be rejected with
    that code.  Nothing is created unless every turn is handled as the trace says.

    Raises
    ------
    MalformedTrace
        A turn is not handled as the trace says (naming it).
    StoreExists
        ``db`` already exists.
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

    return _publish(db, document, snapshot_every, fill)


@icontract.ensure(
    lambda source, result: result.turn == source.turn, "the copy holds the same turns"
)
def copy_session(
    source: StoredSession, db: str | Path, *, snapshot_every: int = DEFAULT_SNAPSHOT_EVERY
) -> StoredSession:
    """A new store at ``db`` holding ``source``'s conversation, every turn re-applied and
    every rejected one rejected again with its code (SQLite to PostgreSQL, or back).

    Raises
    ------
    StoreExists
        ``db`` already exists.
    MalformedTrace
        A turn is not handled as ``source`` logged it.
    """
    document = source.export()
    trace = load_trace(json.dumps(document))
    return import_trace(db, trace, document, snapshot_every=snapshot_every)
