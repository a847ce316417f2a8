"""Fuzzed store files: every read answers right or is refused with a typed store error.

Each example damages a copy of a small store: bytes overwritten or cut, log rows edited,
reordered, removed or copied, the header or the meta table edited, the snapshot
changed; some with the chain recomputed, as a forger would (:mod:`tests.hostile.stores`).
The store is then opened and read (the map, the log, the map as of turn 1, the export)
and appended to.  Each read must give the original answers, or, for a forged store,
answers that agree with its own log (the export replays to the map); or fail with a
:class:`~gcv.errors.StoreError`, leaving every file of the folder byte for byte.
Anything else (an untyped exception, a contract broken) fails the test.

The test command runs a small seeded sample; the deep profile runs 10,000 store files
(``GCV_FUZZ_EXAMPLES=N`` sets another count)::

    GCV_HYPOTHESIS_PROFILE=deep .venv/bin/python -m pytest tests/hostile/test_store_fuzz.py
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcv.errors import StoreError
from gcv.reference.errors import GcvError
from gcv.reference.operations import Observe
from gcv.reference.verifier import Turn
from gcv.store import open_session
from tests.hostile.corpus import JSON_VALUES, mutated
from tests.hostile.stores import files, raw_edit, recompute_chain, template_bytes

DEEP = os.environ.get("GCV_HYPOTHESIS_PROFILE") == "deep"
EXAMPLES = int(os.environ.get("GCV_FUZZ_EXAMPLES", 10_000 if DEEP else 25))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=not DEEP,  # the test command's run is the same sample every time
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SCRATCH = Path(tempfile.mkdtemp(prefix="gcv-store-fuzz-"))
OUTCOMES: Counter[str] = Counter()
"""How the examples of this run ended (printed at the end of the test)."""

ROWS = (1, 2, 3, 4)  # the template's log: turns 1 and 2, a rejected entry 3, turn 3
COLUMN_VALUES = st.one_of(
    st.none(),
    st.integers(-3, 6),
    st.sampled_from(["", "x", "unknown-record", "0" * 64]),
    st.binary(max_size=8),
)


@dataclass(frozen=True)
class Answers:
    """What a reader of the store gets: the map's digest, the log, D_1's digest, the export."""

    digest: str
    log: tuple[tuple[int, str | None, str], ...]
    at_1: str
    export: str


def _read(path: Path) -> tuple[Answers, int]:
    with open_session(path) as session:
        digest = session.verifier.state.digest()
        log = tuple((e.number, e.rejected, repr(e.turn)) for e in session.log())
        at_1 = session.state_at(1).state.digest() if session.last_turn() >= 1 else ""
        exported = json.dumps(session.export(), sort_keys=True)
        return Answers(digest, log, at_1, exported), session.turn


@cache
def _original() -> Answers:
    path = SCRATCH / "original.gcv"
    path.write_bytes(template_bytes())
    return _read(path)[0]


@cache
def _original_bodies() -> dict[int, Any]:
    path = SCRATCH / "bodies.gcv"
    path.write_bytes(template_bytes())
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return {seq: json.loads(body) for seq, body in db.execute("SELECT seq, body FROM log")}
    finally:
        db.close()


# -- the damage ----------------------------------------------------------------------------------


def _bodies() -> st.SearchStrategy[object]:
    """A row's new body: a mutated turn object, any JSON, text that is not JSON, bytes."""
    return st.one_of(
        st.sampled_from(ROWS).flatmap(lambda seq: mutated(_original_bodies()[seq])).map(json.dumps),
        JSON_VALUES.map(json.dumps),
        st.sampled_from(["", "{", "[]", '{"speaker":"a","speaker":"b","operations":[]}']),
        st.binary(max_size=20),
    )


def _headers() -> st.SearchStrategy[str]:
    original = {"name": "s", "agents": {"a": "Alice", "b": "Bob"}}
    return st.one_of(
        mutated(original).map(json.dumps),
        st.sampled_from(["{}", "[]", "not json", "[" * 5000 + "]" * 5000]),
    )


SQL_EDITS = st.one_of(
    st.tuples(st.just("UPDATE log SET body = ? WHERE seq = ?"), _bodies(), st.sampled_from(ROWS)),
    st.tuples(
        st.sampled_from([f"UPDATE log SET {c} = ? WHERE seq = ?" for c in ("turn", "chain")]),
        COLUMN_VALUES,
        st.sampled_from(ROWS),
    ),
    st.tuples(
        st.sampled_from(
            [f"UPDATE log SET {c} = ? WHERE seq = ?" for c in ("error_code", "error", "seq")]
        ),
        COLUMN_VALUES,
        st.sampled_from(ROWS),
    ),
    st.tuples(st.just("DELETE FROM log WHERE seq = ?"), st.sampled_from(ROWS)),
    st.tuples(
        st.just(
            "INSERT INTO log (turn, body, chain, error_code, error) "
            "SELECT NULL, body, chain, 'unknown-record', 'again' FROM log WHERE seq = ?"
        ),
        st.sampled_from(ROWS),
    ),
    st.tuples(st.just("UPDATE meta SET value = ? WHERE key = 'header'"), _headers()),
    st.tuples(
        st.just("UPDATE meta SET value = ? WHERE key = ?"),
        COLUMN_VALUES,
        st.sampled_from(["head", "snapshot_every", "format"]),
    ),
    st.tuples(
        st.sampled_from([f"UPDATE snapshot SET {c} = ?" for c in ("turn", "layout", "sha256")]),
        COLUMN_VALUES,
    ),
    st.tuples(st.just("UPDATE snapshot SET state = ?"), st.binary(max_size=64)),
    st.tuples(st.just("DELETE FROM snapshot")),
)
BYTE_EDITS = st.tuples(
    st.lists(
        st.tuples(st.integers(0, len(template_bytes()) - 1), st.binary(min_size=1, max_size=16)),
        min_size=1,
        max_size=4,
    ),
    st.none() | st.integers(0, len(template_bytes())),
)


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, Any, bool]:
    """(``sql`` or ``bytes``, the edits, whether the chain is recomputed after them)."""
    if draw(st.booleans()):
        return "sql", draw(st.lists(SQL_EDITS, min_size=1, max_size=3)), draw(st.booleans())
    return "bytes", draw(BYTE_EDITS), False


def _damage(path: Path, kind: str, edits: Any, forged: bool) -> bool:
    """Apply the damage; return whether the chain was recomputed after it."""
    path.write_bytes(template_bytes())
    if kind == "bytes":
        writes, cut = edits
        data = bytearray(path.read_bytes())
        for offset, replacement in writes:
            data[offset : offset + len(replacement)] = replacement
        path.write_bytes(bytes(data[:cut] if cut is not None else data))
        return False

    recomputed = False

    def edit(db: sqlite3.Connection) -> None:
        nonlocal recomputed
        for sql, *parameters in edits:
            with suppress(sqlite3.IntegrityError):  # an edit the schema refuses is not made
                db.execute(sql, parameters)
        if forged:
            # A forger's chain over values that are not text (a BLOB body) cannot be written.
            with suppress(TypeError, sqlite3.Error):
                recompute_chain(db)
                recomputed = True

    raw_edit(path, edit)
    return recomputed


# -- the property ----------------------------------------------------------------------------------


@pytest.mark.slow  # a few seconds even for the test command's sample
@pytest.mark.timeout(0 if DEEP else 600)  # the deep run's 10,000 stores take minutes
@FUZZ
@given(damaged())
def test_a_damaged_store_answers_right_or_is_refused_untouched(
    damage: tuple[str, Any, bool],
) -> None:
    folder = Path(tempfile.mkdtemp(dir=SCRATCH))
    try:
        OUTCOMES[_outcome(folder / "s.gcv", *damage)] += 1
    finally:
        shutil.rmtree(folder)


def _outcome(path: Path, kind: str, edits: Any, forge: bool) -> str:
    forged = _damage(path, kind, edits, forge)
    before = files(path.parent)
    try:
        answers, turns = _read(path)
    except StoreError:
        assert files(path.parent) == before, "a refused store is left byte for byte"
        return "refused"
    # Integrity, not authentication: a forged store answers from its own log, and its
    # export (which replays that log from D_0) agrees with its map, or it was refused.
    if not forged:
        assert answers == _original(), "a store whose chain holds answers as it was written"
    try:
        with open_session(path) as session:
            session.append(Turn("a", (Observe("o-new", "appended"),)))
            assert session.turn == turns + 1
    except GcvError as error:  # a store error, or the turn refused by a forged map
        assert isinstance(error, StoreError) or forged, error
    return "forged, read" if forged else "read as written"


@pytest.mark.slow
def test_the_fuzz_sample_reaches_every_outcome() -> None:
    """The sample is not vacuous: it refuses stores, reads intact ones and forged ones."""
    if not OUTCOMES:
        test_a_damaged_store_answers_right_or_is_refused_untouched()
    print(dict(OUTCOMES))
    assert set(OUTCOMES) == {"refused", "read as written", "forged, read"}, OUTCOMES
