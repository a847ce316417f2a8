"""Every command gives the same answer on every damaged store, on both backends.

Each damaged store of the hostile tests (the three forgeries of issue 46 among them: a
snapshot taken from another store, a row before the snapshot replaced or two rows
swapped with the chain recomputed, the last rows deleted and the head moved) is read by
every command that reads a session: ``gcv session show`` (now and ``--at 1``), ``gcv
verify`` (now and ``--at 1``), ``gcv affected``, ``gcv session export``, the MCP tools
``state_at``, ``verify``, ``affected`` and ``explain``, then appended to by ``gcv session
append`` and by ``append_turn``.  Either every one refuses the store with the same code,
or every one answers, and the answers are the log's: the map that ``show`` prints is the
replay from D_0 of the turns ``export`` writes, and the tools answer from the same map.
No command answers from a state another refuses.
"""

from __future__ import annotations

import io
import json
import pickle
import re
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from gcv.agent.folder import SessionFolder
from gcv.agent.tools import call_tool
from gcv.cli import main
from gcv.history import initial_verifier
from gcv.reference.errors import GcvError
from gcv.reference.operations import Hypothesize, Observe, Revise
from gcv.reference.verifier import Turn
from gcv.session_cli import state_json
from gcv.store import create_session
from gcv.trace import load_trace
from tests.hostile.stores import HEADER, RawStore
from tests.store_backends import StoreDb, postgres_cluster, postgres_url, store_db

__all__ = ["postgres_cluster", "postgres_url", "store_db"]  # the fixtures this module uses

Outcome = tuple[str, Any]
"""("answer", what the command said) or ("refused", the error's code)."""


def _template(db: str) -> None:
    """Turns 1 and 2, a rejected entry (logged entry 3), turn 3; a snapshot after turn 2."""
    with create_session(db, HEADER, snapshot_every=2) as session:
        session.append(Turn("a", (Observe("o1", "401 errors"),)))
        session.append(Turn("a", (Hypothesize("h1", "token bug", depends_on=("o1",)),)))
        with pytest.raises(GcvError):
            session.append(Turn("b", (Revise("nope"),)))
        session.append(Turn("b", (Revise("o1"),)))


def _other_snapshot(db: str) -> bytes:
    """The snapshot at turn 2 of another conversation (o1 and o2, no h1)."""
    with create_session(db, HEADER, snapshot_every=2) as session:
        session.append(Turn("a", (Observe("o1", "401 errors"),)))
        session.append(Turn("b", (Observe("o2", "a planted record"),)))
    return RawStore(db).snapshot_state()


class _Planted:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("a planted snapshot was loaded",))


def _body(turn: dict[str, Any]) -> str:
    return json.dumps(turn, separators=(",", ":"))


_REVISE_NOPE = _body({"speaker": "a", "operations": [{"op": "revise", "target": "nope"}]})

Statement = tuple[str, tuple[object, ...]]
Damage = Callable[[RawStore, str], None]


def _edited(*statements: Statement) -> Damage:
    """The damage of these statements (in SQLite's form: :meth:`RawStore.run`)."""
    return lambda raw, other: raw.run(*statements)


def _forged(*statements: Statement) -> Damage:
    """These statements, then the chain recomputed as a forger who read the docs would."""

    def forge(raw: RawStore, other: str) -> None:
        raw.run(*statements)
        raw.recompute_chain()

    return forge


# Each damage: what it does to the store (``other`` names a second store it may use).
DAMAGE: dict[str, Damage] = {
    "intact": _edited(),
    "a snapshot from another store, its digest recomputed": lambda raw, other: raw.plant_state(
        _other_snapshot(other)
    ),
    "a planted pickle as the snapshot": lambda raw, other: raw.plant_state(
        pickle.dumps(_Planted())
    ),
    "turn 1 replaced by one that no longer applies, the chain recomputed": _forged(
        ("UPDATE log SET body = ? WHERE seq = 1", (_REVISE_NOPE,))
    ),
    "rows 1 and 2 swapped, the chain recomputed": _forged(
        ("UPDATE log SET seq = 1000000 WHERE seq = 1", ()),
        ("UPDATE log SET seq = 1 WHERE seq = 2", ()),
        ("UPDATE log SET seq = 2 WHERE seq = 1000000", ()),
    ),
    "the last rows deleted, the head moved": _forged(("DELETE FROM log WHERE seq > 2", ())),
    "the rows from the snapshot's on deleted, the head moved": _forged(
        ("DELETE FROM log WHERE seq >= 2", ())
    ),
    "a row before the snapshot edited": _edited(
        ("UPDATE log SET body = replace(body, '401', '402') WHERE seq = 1", ())
    ),
    "an agent removed from the header, the chain recomputed": _forged(
        ("UPDATE meta SET value = ? WHERE key = 'header'", ('{"agents":{"a":"A"}}',))
    ),
    "a rejected row made no turn, the chain recomputed": _forged(
        ("UPDATE log SET body = 'not json' WHERE seq = 3", ())
    ),
    "the last row removed, the head kept": _edited(("DELETE FROM log WHERE seq = 4", ())),
    "the snapshot's seal edited": _edited(("UPDATE snapshot SET seal = ?", ("0" * 64,))),
}

# What the forgeries must come to: refused with this code, or answered (None).
EXPECTED: dict[str, str | None] = {
    "intact": None,
    "a snapshot from another store, its digest recomputed": None,
    "a planted pickle as the snapshot": None,
    "turn 1 replaced by one that no longer applies, the chain recomputed": "store-corrupt",
    "rows 1 and 2 swapped, the chain recomputed": "store-corrupt",
    "the last rows deleted, the head moved": None,
    "the rows from the snapshot's on deleted, the head moved": None,
    "a row before the snapshot edited": "store-corrupt",
    "an agent removed from the header, the chain recomputed": "store-corrupt",
    "a rejected row made no turn, the chain recomputed": "store-corrupt",
    "the last row removed, the head kept": "store-corrupt",
    "the snapshot's seal edited": None,
}


def _cli(*argv: str) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    if code == 2:
        found = re.search(r"\[([a-z-]+)\]", err.getvalue())
        assert found, err.getvalue()
        return "refused", found.group(1)
    return "answer", out.getvalue()


def _tool(folder: SessionFolder, name: str, **arguments: Any) -> Outcome:
    try:
        return "answer", call_tool(folder, name, {"session": "s", **arguments})
    except GcvError as error:
        return "refused", error.code
    finally:
        folder.close()  # each call opens the store anew, as a new worker would


def _outcomes(db: str, folder: SessionFolder) -> dict[str, Outcome]:
    said = {
        "show": _cli("session", "show", "--db", db, "--json"),
        "show --at 1": _cli("session", "show", "--db", db, "--at", "1", "--json"),
        "verify": _cli("verify", "o1", "--db", db, "--json"),
        "verify --at 1": _cli("verify", "o1", "--db", db, "--at", "1", "--json"),
        "affected": _cli("affected", "o1", "--db", db, "--json"),
        "export": _cli("session", "export", "--db", db),
        "tool state_at": _tool(folder, "state_at"),
        "tool state_at 1": _tool(folder, "state_at", at=1),
        "tool verify": _tool(folder, "verify", record="o1"),
        "tool affected": _tool(folder, "affected", record="o1"),
        "tool explain": _tool(folder, "explain", record="o1"),
    }
    # Appends last: each changes the store when it is answered.
    turn = {"speaker": "a", "operations": [{"op": "observe", "id": "o-new", "claim": "x"}]}
    feed = Path(folder.path if folder.database is None else "/tmp") / f"turn-{id(db)}.jsonl"
    feed.write_text(json.dumps(turn) + "\n")
    said["append"] = _cli("session", "append", "--db", db, str(feed))
    feed.unlink()
    turn2 = {**turn, "operations": [{"op": "observe", "id": "o-newer", "claim": "y"}]}
    said["tool append_turn"] = _tool(folder, "append_turn", **turn2)
    return said


@pytest.mark.slow  # about ten seconds for the 24 stores
@pytest.mark.parametrize("damage", DAMAGE)
def test_every_command_gives_the_same_answer_on_a_damaged_store(
    store_db: StoreDb, damage: str
) -> None:
    db = store_db("s")
    _template(db)
    DAMAGE[damage](RawStore(db), store_db("other"))
    place = db.rsplit("#", 1)[0] if "#" in db else str(Path(db).parent)
    outcomes = _outcomes(db, SessionFolder(place))
    refusals = {command: what for command, (kind, what) in outcomes.items() if kind == "refused"}
    if refusals:
        assert set(refusals) == set(outcomes) and len(set(refusals.values())) == 1, outcomes
        assert next(iter(refusals.values())) == EXPECTED[damage], refusals
        return
    assert EXPECTED[damage] is None, outcomes
    # Answered: from the log's replay.  show's map is the replay of export's turns, as of
    # the reads before the appends.
    document = json.loads(outcomes["export"][1])
    replayed = initial_verifier(document)
    for trace_turn in load_trace(json.dumps(document)).turns:
        if trace_turn.rejected is None:
            replayed.apply_turn(trace_turn.turn)
    shown = json.loads(outcomes["show"][1])
    assert shown == json.loads(json.dumps(state_json(replayed))), damage
    assert outcomes["tool state_at"][1]["state"] == shown
    verified = json.loads(outcomes["verify"][1])
    assert verified["grounded"] == replayed.verify("o1").grounded
    assert outcomes["tool verify"][1]["grounded"] == verified["grounded"]
    assert json.loads(outcomes["affected"][1])["affected"] == sorted(replayed.affected_star("o1"))
    at_1 = json.loads(outcomes["show --at 1"][1])
    assert outcomes["tool state_at 1"][1]["state"] == at_1
