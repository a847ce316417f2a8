"""The dependency map's journal, undo and digest (reference/gcv/reference/depmap.py): an accepted
turn reports every elementary change it made, a rejected one undoes them all, a change already made
is not journalled twice, and the digest tells states apart."""

from __future__ import annotations

import pytest

from gcv.reference.depmap import (
    AtomAdded,
    AttackAdded,
    AwarenessGained,
    Committed,
    DependencyAdded,
    DissentRecorded,
    RecordAdded,
    Retracted,
    StandingChanged,
)
from gcv.reference.epistemic.formula import parse
from gcv.reference.errors import GcvError
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Undermine,
)
from gcv.reference.records import Standing
from gcv.reference.verifier import Turn, Verifier
from tests.maps import OPENING, four_active

EVERY_CHANGE: tuple[Operation, ...] = (
    ExpandAwareness("q", ("b",)),  # AtomAdded, AwarenessGained
    Observe("o3", "pool exhausted", depends_on=("o2",)),  # RecordAdded, DependencyAdded, Committed
    Undermine("h2", "o2"),  # AttackAdded, StandingChanged, Committed
    Revise("o1"),  # AttackAdded (none), StandingChanged, Retracted (a committed to o1)
    Resolve("h1", authoritative=True, premises=("o3",), dissenters=("b",)),  # DissentRecorded
)


def test_an_accepted_turn_reports_every_change_it_made() -> None:
    """The journal is the turn's change report: each elementary change appears in it."""
    v = four_active()
    report = v.apply_turn(Turn("a", EVERY_CHANGE))
    kinds = {type(change) for change in report.changes}
    # The epistemic layer journals its own changes too; these are the argumentation ones.
    assert kinds >= {
        AtomAdded,
        AwarenessGained,
        RecordAdded,
        DependencyAdded,
        Committed,
        AttackAdded,
        StandingChanged,
        Retracted,
        DissentRecorded,
    }, kinds
    assert DissentRecorded("h1", "b") in report.changes
    assert Retracted("a", "o1") in report.changes
    assert StandingChanged("h2", Standing.ACTIVE, Standing.WEAKENED) in report.changes
    assert StandingChanged("o1", Standing.ACTIVE, Standing.ABANDONED) in report.changes


def test_a_rejected_turn_undoes_every_kind_of_change() -> None:
    """All or none: a turn whose last operation fails leaves D_t exactly as it was."""
    v = four_active()
    before = v.state.digest()
    # Applied last: a Question whose chi names an atom outside Prop_t.
    failing = Question("q9", "why?", formula=parse("nowhere"))
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", (*EVERY_CHANGE, failing)))
    assert caught.value.code == "unknown-atom", str(caught.value)
    assert v.state.digest() == before
    assert v.standing("h1") is Standing.ACTIVE and v.dissenters("h1") == ()
    assert "o1" in v.commitments("a") and not v.is_aware("b", "q")


def test_a_repeated_dissent_is_recorded_once() -> None:
    """Recording a dissent already on record changes nothing and reports nothing."""
    v = four_active()
    v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("b",)),)))
    report = v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("b", "c")),)))
    assert [c for c in report.changes if isinstance(c, DissentRecorded)] == [
        DissentRecorded("h1", "c")
    ]
    assert v.dissenters("h1") == ("b", "c")


def test_a_repeated_attack_is_recorded_once_and_undone_cleanly() -> None:
    """Re-adding a recorded attack journals nothing, so undoing the turn removes nothing twice."""
    v = four_active()
    v.apply_turn(Turn("b", (Undermine("h2", "o2"),)))
    report = v.apply_turn(Turn("b", (Undermine("h2", "o2"),)))
    assert not [c for c in report.changes if isinstance(c, AttackAdded)], report.changes
    before = v.state.digest()
    failing = Question("q9", "why?", formula=parse("nowhere"))  # chi outside Prop_t
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("b", (Undermine("h2", "o2"), failing)))
    assert caught.value.code == "unknown-atom" and v.state.digest() == before
    assert v.attackers("h2") == ("o2",)


def test_the_digest_changes_with_the_state_and_only_with_it() -> None:
    """Every "a rejected turn changed nothing" check compares digests, so they must differ
    whenever the canonical state does, and agree on equal states built in another order."""
    v, w = four_active(), Verifier(["a", "b", "c"], ["p"])
    w.apply_turn(Turn("a", tuple(reversed(OPENING))))  # the same turn, written backwards
    assert v.state.digest() == w.state.digest()
    seen = {v.state.digest()}
    for op in EVERY_CHANGE:
        v.apply_turn(Turn("a", (op,)))
        assert v.state.digest() not in seen, op
        seen.add(v.state.digest())


def test_dep_keeps_the_registered_identifier_objects() -> None:
    """Dep and rdep hold the identifier objects the records were registered with, not an
    operation's equal copies, so the walks compare keys by identity."""
    v = four_active()
    copy_of_o1 = "".join(["o", "1"])
    assert copy_of_o1 == "o1" and copy_of_o1 is not v.state.records["o1"].id
    v.apply_turn(Turn("a", (Hypothesize("h3", "pool", depends_on=(copy_of_o1,)),)))
    (support,) = v.state.dep["h3"]
    assert support is v.state.records["o1"].id
    assert next(r for r in v.state.rdep["o1"] if r == "h3") is v.state.records["h3"].id


def test_the_snapshot_lists_a_records_formula_as_its_text() -> None:
    v = Verifier(["a", "b", "c"], ["p", "q"])
    v.apply_turn(
        Turn("a", (Observe("o1", "p or q", formula=parse("p | q")), Observe("o2", "no formula")))
    )
    records = {r["id"]: r for r in v.state.snapshot()["records"]}  # type: ignore[union-attr]
    assert records["o1"]["formula"] == "p | q"
    assert "formula" not in records["o2"]
