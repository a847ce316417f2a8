"""Writers killed while an append is in flight, and writers appending at once, on both
backends (SQLite and PostgreSQL), with real processes and real SIGKILLs.

The appender reports on a pipe (its standard output) each turn it has committed, and,
where a round asks, that it is inside an append's transaction with the row written and
not committed, where it then waits for a line that never comes.  The test reads those
reports, never the clock: it kills the appender after it reported its k-th commit
(somewhere in the next append), or once it reports a row in flight.  After each kill
the store reopens to a prefix of the turns sent, every reported commit in it, the turn
in flight not, each turn once, in order.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.reference.operations import Observe
from gcv.reference.verifier import Turn
from gcv.store import create_session, open_session
from tests.store_backends import StoreDb, postgres_cluster, postgres_url, store_db

__all__ = ["postgres_cluster", "postgres_url", "store_db"]  # the fixtures this module uses

ROOT = Path(__file__).resolve().parent.parent

# argv: the store, the first turn's number, how many turns, the turn to hold in flight
# (0: none).  Reports "committed K" after each append, "in flight K" when holding one.
_APPENDER = """
import sys
from gcv.reference.operations import Observe
from gcv.reference.verifier import Turn
from gcv.store import open_session, session as stored
db, first, count, hold = sys.argv[1], *map(int, sys.argv[2:5])
insert = stored.StoredSession._insert
def held(self, entry):
    logged = insert(self, entry)
    if entry.number == hold:
        print(f"in flight {entry.number}", flush=True)
        sys.stdin.readline()  # inside the transaction, until killed
    return logged
stored.StoredSession._insert = held
with open_session(db) as session:
    for k in range(first, first + count):
        session.append(Turn("a", (Observe(f"o{k}", f"fact {k}"),)), k)
        print(f"committed {k}", flush=True)
print("done", flush=True)
"""


def _appender(db: str, first: int, count: int, hold: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _APPENDER, db, str(first), str(count), str(hold)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _logged(db: str) -> list[str]:
    with open_session(db) as session:
        log = session.log()
    assert all(e.rejected is None for e in log)
    assert [e.number for e in log] == list(range(1, len(log) + 1))
    return [op.id for e in log for op in e.turn.operations]  # type: ignore[attr-defined]


# (turns committed before the kill, whether the next one is held in flight)
ROUNDS = [(3, True), (0, True), (5, False), (1, True), (2, False), (4, True)]


@pytest.mark.slow
def test_a_writer_killed_with_an_append_in_flight_leaves_a_prefix(store_db: StoreDb) -> None:
    db = store_db("k")
    create_session(db, {"agents": {"a": "Alice"}}, snapshot_every=4).close()
    reached = 0
    for committed, in_flight in ROUNDS:
        first = reached + 1
        hold = first + committed if in_flight else 0
        writer = _appender(db, first, 10_000, hold)
        assert writer.stdout is not None
        said = [writer.stdout.readline().strip() for _ in range(committed + in_flight)]
        writer.send_signal(signal.SIGKILL)
        assert writer.wait() == -signal.SIGKILL, "the kill found the appender running"
        writer.communicate()
        assert said == [f"committed {k}" for k in range(first, first + committed)] + (
            [f"in flight {hold}"] if in_flight else []
        ), said
        logged = _logged(db)
        assert logged == [f"o{k}" for k in range(1, len(logged) + 1)], "a prefix, each once"
        assert len(logged) >= reached + committed, "every reported commit is kept"
        if in_flight:
            assert len(logged) == hold - 1, "the turn in flight was never committed"
        reached = len(logged)
    with open_session(db) as session:  # and the store goes on
        assert session.append(Turn("a", (Observe("last", "x"),))).turn == reached + 1


@pytest.mark.slow
def test_writers_appending_at_once_are_serialised(store_db: StoreDb) -> None:
    """Three processes append to one session at once, each stating no number: every turn
    is logged once, each writer's in the order it sent them."""
    db = store_db("w")
    create_session(db, {"agents": {"a": "Alice"}}, snapshot_every=7).close()
    script = (
        "import sys\nfrom gcv.store import open_session\nfrom gcv.reference.verifier import "
        "Turn\nfrom gcv.reference.operations import Observe\nwith open_session(sys.argv[1]) as s:"
        "\n    for k in range(40):\n        s.append(Turn('a', (Observe(f'{sys.argv[2]}{k}', "
        "'x'),)))\n"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", script, db, name], cwd=ROOT, stderr=subprocess.PIPE)
        for name in ("p", "q", "r")
    ]
    for writer in writers:
        _, err = writer.communicate()
        assert writer.returncode == 0, err
    ids = _logged(db)
    assert len(ids) == 120
    for name in ("p", "q", "r"):
        assert [i for i in ids if i[0] == name] == [f"{name}{k}" for k in range(40)]
