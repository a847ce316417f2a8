"""Tests written for mutants of the engine that the rest of the suite let live.

Each test names the behaviour the mutant changed; docs/verification.md ("Mutation
score") lists the survivors that are equivalent to the engine and why.
"""

from __future__ import annotations

import dataclasses

import pytest

from gcv.reference.apply import (
    _has_table_effect,
    _only_eliminates,
    _registers_as_the_table_says,
)
from gcv.reference.closure import (
    Grounding,
    Walk,
    _accepts_a_closed_set,
    _accepts_within_good_standing,
    _rejects_with_a_witness,
)
from gcv.reference.depmap import (
    AtomAdded,
    AttackAdded,
    AwarenessGained,
    Committed,
    DependencyAdded,
    DependencyMap,
    DissentRecorded,
    ModelReplaced,
    RecordAdded,
    Retracted,
    StandingChanged,
    StateView,
)
from gcv.reference.epistemic.abduction import Problem
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.formula import Atom, Formula, parse
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.updates import restrict
from gcv.reference.errors import GcvError, MalformedOperation
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
    _is_stable_order,
)
from gcv.reference.preconditions import find_violation
from gcv.reference.records import MAX_CLAIM_LENGTH, Kind, Record, Standing
from gcv.reference.verifier import Turn, Verifier

ATOM_P = Atom("p")


def _base() -> Verifier:
    v = Verifier(["a", "b", "c"], ["p"])
    v.apply_turn(
        Turn(
            "a",
            (
                Observe("o1", "401 errors"),
                Observe("o2", "3x traffic"),
                Hypothesize("h1", "token bug", depends_on=("o1",)),
                Hypothesize("h2", "retry loop"),
            ),
        )
    )
    return v


# One operation of each kind whose changes, together, are every kind of Change.
EVERY_CHANGE: tuple[Operation, ...] = (
    ExpandAwareness("q", ("b",)),  # AtomAdded, AwarenessGained
    Observe("o3", "pool exhausted", depends_on=("o2",)),  # RecordAdded, DependencyAdded, Committed
    Undermine("h2", "o2"),  # AttackAdded, StandingChanged, Committed
    Revise("o1"),  # AttackAdded (none), StandingChanged, Retracted (a committed to o1)
    Resolve("h1", authoritative=True, premises=("o3",), dissenters=("b",)),  # DissentRecorded
)


def test_an_accepted_turn_reports_every_change_it_made() -> None:
    """The journal is the turn's change report: each elementary change appears in it."""
    v = _base()
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
    v = _base()
    before = v.state.digest()
    failing = Question("q1", "why?", depends_on=("nowhere",))  # applied last: Question
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", (*EVERY_CHANGE, failing)))
    assert caught.value.code == "unknown-record", str(caught.value)
    assert v.state.digest() == before
    assert v.standing("h1") is Standing.ACTIVE and v.dissenters("h1") == ()
    assert "o1" in v.commitments("a") and not v.is_aware("b", "q")


def test_a_repeated_dissent_is_recorded_once() -> None:
    """Recording a dissent already on record changes nothing and reports nothing."""
    v = _base()
    v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("b",)),)))
    report = v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("b", "c")),)))
    assert [c for c in report.changes if isinstance(c, DissentRecorded)] == [
        DissentRecorded("h1", "c")
    ]
    assert v.dissenters("h1") == ("b", "c")


def test_a_malformed_operation_names_the_operation_and_the_problem() -> None:
    """Messages are not normative, but they must say what was wrong (spec/normative.md)."""
    with pytest.raises(MalformedOperation) as caught:
        Observe("o 1", "x")
    message = str(caught.value)
    assert "observe" in message and "'o 1'" in message and "identifier" in message


# -- every field of every operation is named when it is malformed ---------------------------

BAD_ID = "not an id"
MALFORMED: list[tuple[type, dict[str, object], str]] = [
    (Observe, {"id": BAD_ID, "claim": "c"}, "id"),
    (Observe, {"id": "o1", "claim": ""}, "claim"),
    (Observe, {"id": "o1", "claim": "c", "kind": Kind.QUESTION}, "kind"),
    (Observe, {"id": "o1", "claim": "c", "depends_on": ("a", "a")}, "depends_on"),
    (Hypothesize, {"id": BAD_ID, "claim": "c"}, "id"),
    (Hypothesize, {"id": "h1", "claim": " "}, "claim"),
    (Hypothesize, {"id": "h1", "claim": "c", "kind": Kind.PREMISE}, "kind"),
    (Hypothesize, {"id": "h1", "claim": "c", "depends_on": (BAD_ID,)}, "depends_on"),
    (Support, {"target": BAD_ID, "evidence": "e1"}, "target"),
    (Support, {"target": "h1", "evidence": BAD_ID}, "evidence"),
    (Support, {"target": "h1", "evidence": "e1", "evidence_claim": ""}, "evidence_claim"),
    (
        Support,
        {"target": "h1", "evidence": "e1", "evidence_claim": "c", "evidence_depends_on": ["o1"]},
        "evidence_depends_on",
    ),
    (Undermine, {"target": BAD_ID, "evidence": "e1"}, "target"),
    (Undermine, {"target": "h1", "evidence": BAD_ID}, "evidence"),
    (
        Undermine,
        {"target": "h1", "evidence": "e1", "evidence_claim": "x" * 10_001},
        "evidence_claim",
    ),
    (
        Undermine,
        {"target": "h1", "evidence": "e1", "evidence_depends_on": ("o1",)},
        "evidence_depends_on",
    ),
    (Revise, {"target": BAD_ID}, "target"),
    (Revise, {"target": "h1", "attackers": ("o1", "o1")}, "attackers"),
    (Resolve, {"target": BAD_ID}, "target"),
    (Resolve, {"target": "h1", "subsumes": (BAD_ID,)}, "subsumes"),
    (Resolve, {"target": "h1", "authoritative": 1}, "authoritative"),
    (Resolve, {"target": "h1", "authoritative": True, "premises": ("p", "p")}, "premises"),
    (Resolve, {"target": "h1", "authoritative": True, "dissenters": (BAD_ID,)}, "dissenters"),
    (ExpandAwareness, {"atom": BAD_ID}, "atom"),
    (ExpandAwareness, {"atom": "p", "agents": ("a", "a")}, "agents"),
    (Question, {"id": BAD_ID, "claim": "why?"}, "id"),
    (Question, {"id": "q1", "claim": ""}, "claim"),
    (Question, {"id": "q1", "claim": "why?", "depends_on": (BAD_ID,)}, "depends_on"),
    # The epistemic layer's fields: a formula must be a formula of the language (not its
    # text, not the bare base class), introduced atoms must be writable in a formula.
    (Observe, {"id": "o1", "claim": "c", "formula": "p"}, "formula"),
    (Hypothesize, {"id": "h1", "claim": "c", "formula": Formula()}, "formula"),
    (Hypothesize, {"id": "h1", "claim": "c", "introduces": ["p"]}, "introduces"),
    (Hypothesize, {"id": "h1", "claim": "c", "introduces": ("p", "true")}, "introduces"),
    (Hypothesize, {"id": "h1", "claim": "c", "introduces": ("p", "p")}, "introduces"),
    (Support, {"target": "h1", "evidence": "e1", "formula": 1}, "formula"),
    (Support, {"target": "h1", "evidence": "e1", "specific": 1}, "specific"),
    (Undermine, {"target": "h1", "evidence": "e1", "formula": "~p"}, "formula"),
    (Undermine, {"target": "h1", "evidence": "e1", "downgrade": "radical"}, "downgrade"),
    (Revise, {"target": "h1", "formula": ATOM_P.name}, "formula"),
    (Revise, {"target": "h1", "announce": "yes"}, "announce"),
    (Resolve, {"target": "h1", "formula": Formula()}, "formula"),
    (Resolve, {"target": "h1", "authoritative": True, "formula": ATOM_P}, "formula"),
    (Question, {"id": "q1", "claim": "why?", "formula": ("p",)}, "formula"),
]


@pytest.mark.parametrize(
    ("cls", "fields", "field"),
    MALFORMED,
    ids=[f"{cls.__name__}-{field}" for cls, _, field in MALFORMED],
)
def test_a_malformed_field_is_named_with_its_operation(
    cls: type, fields: dict[str, object], field: str
) -> None:
    with pytest.raises(MalformedOperation) as caught:
        cls(**fields)
    assert caught.value.field == field, (caught.value.field, field)
    assert caught.value.detail.startswith(cls.operation.value + ": "), caught.value.detail  # type: ignore[attr-defined]


def test_every_field_of_every_operation_has_a_malformed_row() -> None:
    named = {(cls, field) for cls, _, field in MALFORMED}
    operations = (Observe, Hypothesize, Support, Undermine, Revise, Resolve, ExpandAwareness)
    for cls in (*operations, Question):
        for field in dataclasses.fields(cls):
            assert (cls, field.name) in named, (cls.__name__, field.name)


def test_a_flag_that_is_not_a_boolean_is_described() -> None:
    with pytest.raises(MalformedOperation, match="expected true or false, got 'yes'"):
        Resolve("h1", authoritative="yes")  # type: ignore[arg-type]


def test_agent_errors_name_the_agent() -> None:
    v = _base()
    with pytest.raises(GcvError, match="'zz' is not in Ags"):
        v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("zz",)),)))
    with pytest.raises(GcvError, match="speaker 'a' cannot dissent"):
        v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("a",)),)))


# -- the digest tells states apart ------------------------------------------------------------


def test_the_digest_changes_with_the_state_and_only_with_it() -> None:
    """Every "a rejected turn changed nothing" check compares digests, so they must differ
    whenever the canonical state does, and agree on equal states built in another order."""
    v, w = _base(), Verifier(["a", "b", "c"], ["p"])
    w.apply_turn(
        Turn(
            "a",
            (
                Hypothesize("h2", "retry loop"),
                Observe("o2", "3x traffic"),
                Hypothesize("h1", "token bug", depends_on=("o1",)),
                Observe("o1", "401 errors"),
            ),
        )
    )
    assert v.state.digest() == w.state.digest()
    seen = {v.state.digest()}
    for op in EVERY_CHANGE:
        v.apply_turn(Turn("a", (op,)))
        assert v.state.digest() not in seen, op
        seen.add(v.state.digest())


# -- the contracts of the Verify walk reject wrong answers -----------------------------------


def test_a_walk_is_named_record_by_record() -> None:
    """The Verifier names the walk's numbers back: every field, in order."""
    name = ("h", "o", "x")
    assert Walk(True, closure=(0, 2, 1)).named("h", name) == Grounding("h", True, ("h", "x", "o"))
    rejected = Walk(False, witness=1, path=(0, 2, 1)).named("h", name)
    assert rejected == Grounding("h", False, witness="o", path=("h", "x", "o"))
    assert Walk(False).named("h", name).witness is None


def test_the_walk_contracts_refuse_wrong_answers() -> None:
    """Each clause of Lemma 2.1's postconditions, failing alone, makes its check fail."""
    h, o, x = 0, 1, 2
    supports = [[o], [], []]
    good = [1, 0, 1]
    # Accepted, but the closure leaves S_t.
    assert not _accepts_within_good_standing(Walk(True, (h, o)), good)
    # Accepted, starting at h, but not closed under Dep.
    assert not _accepts_a_closed_set(Walk(True, (h,)), supports, h)
    # Rejected: one clause wrong at a time.
    right = Walk(False, witness=o, path=(h, o))
    assert _rejects_with_a_witness(right, supports, good, h)
    wrong = [
        Walk(False, witness=None, path=(h, o)),  # no witness
        Walk(False, witness=o, path=(x, o)),  # path starts elsewhere
        Walk(False, witness=o, path=(h, x)),  # path ends elsewhere
        Walk(False, witness=x, path=(h, x)),  # witness in S_t
        Walk(False, witness=o, path=(h, x, o)),  # not a Dep path
    ]
    for answer in wrong:
        assert not _rejects_with_a_witness(answer, supports, good, h), answer


def test_a_repeated_attack_is_recorded_once_and_undone_cleanly() -> None:
    """Re-adding a recorded attack journals nothing, so undoing the turn removes nothing twice."""
    v = _base()
    v.apply_turn(Turn("b", (Undermine("h2", "o2"),)))
    report = v.apply_turn(Turn("b", (Undermine("h2", "o2"),)))
    assert not [c for c in report.changes if isinstance(c, AttackAdded)], report.changes
    before = v.state.digest()
    failing = Question("q1", "why?", depends_on=("nowhere",))
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("b", (Undermine("h2", "o2"), failing)))
    assert caught.value.code == "unknown-record" and v.state.digest() == before
    assert v.attackers("h2") == ("o2",)


# -- the operation table's effect check (apply_operation's postcondition) ---------------------


def test_the_effect_check_refuses_a_wrong_label_or_a_missing_attack() -> None:
    dmap = DependencyMap(["a"])
    with dmap.transaction():
        for record in ("h1", "o1", "o2"):
            dmap.add_record(Record(record, "c", "a", 1, Kind.HYPOTHESIS))
    assert not _has_table_effect(dmap, Undermine("h1", "o1")), "h1 is still active"
    with dmap.transaction():
        dmap.set_standing("h1", Standing.WEAKENED)
    assert not _has_table_effect(dmap, Undermine("h1", "o1")), "weakened, but no attack"
    with dmap.transaction():
        dmap.add_attack("o1", "h1")
    assert _has_table_effect(dmap, Undermine("h1", "o1"))
    assert not _has_table_effect(dmap, Undermine("h1", "o2")), "(o2, h1) was not added"
    assert _has_table_effect(dmap, Observe("o3", "c")), "no target: nothing to check"


def test_the_registration_check_reads_the_table_column() -> None:
    dmap = DependencyMap(["a"])
    with dmap.transaction():
        dmap.add_record(Record("o1", "c", "a", 1, Kind.OBSERVATION))
    assert _registers_as_the_table_says(0, dmap, Observe("o1", "c"))
    assert not _registers_as_the_table_says(1, dmap, Observe("o2", "c")), "nothing added"
    assert not _registers_as_the_table_says(0, dmap, Revise("o1")), "Revise registers nothing"
    assert _registers_as_the_table_says(0, dmap, Support("h1", "o1", evidence_claim="e"))
    assert not _registers_as_the_table_says(0, dmap, Support("h1", "o1")), "existing evidence"


# -- precondition messages say what was wrong --------------------------------------------------


def test_precondition_messages_name_the_record_and_the_accepted_labels() -> None:
    v = _base()
    v.apply_turn(Turn("b", (Revise("h2"),)))
    cases = [
        (Support("zz", "o1"), "'zz' is not registered"),
        (Support("h2", "o1"), "support needs its target active, resolved, weakened; 'h2' is"),
        (Support("h1", "h1"), "'h1' cannot be its own evidence"),
    ]
    for op, words in cases:
        with pytest.raises(GcvError) as caught:
            v.apply_turn(Turn("a", (op,)))
        assert words in str(caught.value), (words, str(caught.value))


# -- second round: what the first batch left --------------------------------------------------


def test_a_decision_cannot_rest_on_itself() -> None:
    """Resolve's premises may not cite the target (a Dep self-loop would ground it on itself)."""
    v = _base()
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, premises=("h1",)),)))
    assert (caught.value.code, caught.value.field, caught.value.record) == (
        "self-reference",
        "premises",
        "h1",
    )


def test_a_claim_may_be_exactly_as_long_as_the_limit() -> None:
    """Claims are 1 to 10,000 characters (spec/normative.md): 10,000 is allowed."""
    assert len(Observe("o1", "x" * MAX_CLAIM_LENGTH).claim) == MAX_CLAIM_LENGTH
    with pytest.raises(MalformedOperation, match="at most 10000 characters"):
        Observe("o1", "x" * (MAX_CLAIM_LENGTH + 1))


def test_an_attacked_target_error_names_the_field_and_the_attackers() -> None:
    A = Standing.ACTIVE
    view = StateView(("a",), {"h": A, "e": A, "f": A}, {"h": ["f", "e"]}, {"a": []})
    error = find_violation(Resolve("h"), view, "a")
    assert error is not None and (error.code, error.field, error.record) == (
        "attacked-target",
        "target",
        "h",
    )
    assert "attacked by e, f" in error.detail, error.detail


def _error(build: object) -> str:
    with pytest.raises(GcvError) as caught:
        build()  # type: ignore[operator]
    return caught.value.detail


def test_malformed_operation_messages_say_what_was_wrong() -> None:
    """Messages are not normative, but each names the offending value (spec/normative.md)."""
    assert "got list" in _error(lambda: Revise("h1", ["o1"]))  # type: ignore[arg-type]
    assert "['o1', 'o1']" in _error(lambda: Revise("h1", ("o1", "o1")))
    assert "non-empty" in _error(lambda: Observe("o1", ""))
    assert "'hypothesis'" in _error(lambda: Observe("o1", "c", kind=Kind.HYPOTHESIS))
    assert "['observation', 'premise']" in _error(lambda: Observe("o1", "c", Kind.QUESTION))
    assert "evidence_claim" in _error(lambda: Support("h1", "e1", evidence_depends_on=("o1",)))
    assert "authoritative" in _error(lambda: Resolve("h1", dissenters=("b",)))


def test_epistemic_field_messages_say_what_was_wrong() -> None:
    """The same for the fields the epistemic layer added."""
    assert "observe: expected a formula, got str" in _error(
        lambda: Observe("o1", "c", formula="p")  # type: ignore[arg-type]
    )
    assert "expected a formula, got Formula" in _error(lambda: Resolve("h1", formula=Formula()))
    assert "expected a tuple of atoms, got list" in _error(
        lambda: Hypothesize("h1", "c", introduces=["p"])  # type: ignore[arg-type]
    )
    assert "'true' cannot be written as an atom" in _error(
        lambda: Hypothesize("h1", "c", introduces=("true",))
    )
    assert "repeats an atom: ['p', 'p']" in _error(
        lambda: Hypothesize("h1", "c", introduces=("p", "p"))
    )
    assert "'radical' is not one of ['lexicographic', 'conservative']" in _error(
        lambda: Undermine("h1", "e1", downgrade="radical")
    )
    assert "only a consensual Resolve announces a formula" in _error(
        lambda: Resolve("h1", authoritative=True, formula=ATOM_P)
    )


def test_precondition_messages_name_the_offending_record() -> None:
    v = _base()
    v.apply_turn(Turn("b", (Revise("h2"),)))
    cases: list[tuple[Operation, str]] = [
        (Observe("o1", "again"), "'o1' is already registered"),
        (Observe("o9", "c", depends_on=("o9",)), "'o9' cannot cite itself in depends_on"),
        (Observe("o9", "c", depends_on=("zz",)), "'zz' is not registered"),
        (Revise("h1", ("h2",)), "'h2' is abandoned; attackers must be active or resolved"),
        (ExpandAwareness("p"), "already aware of 'p'"),
    ]
    for op, words in cases:
        with pytest.raises(GcvError) as caught:
            v.apply_turn(Turn("a", (op,)))
        assert words in caught.value.detail, (words, caught.value.detail)


def test_the_order_contract_refuses_a_wrong_order() -> None:
    ops: tuple[Operation, ...] = (Question("q1", "why?"), Observe("o1", "401s"))
    assert _is_stable_order(ops, [(1, ops[1]), (0, ops[0])])
    assert not _is_stable_order(ops, [(0, ops[0]), (1, ops[1])]), "Question before Observe"
    assert not _is_stable_order(ops, [(1, ops[1])]), "an operation is missing"


# -- the epistemic layer inside the engine modules ----------------------------------------------


def test_dep_keeps_the_registered_identifier_objects() -> None:
    """Dep and rdep hold the identifier objects the records were registered with, not an
    operation's equal copies, so the walks compare keys by identity."""
    v = _base()
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


def test_a_turn_reports_the_atoms_and_awareness_it_added() -> None:
    """Each ModelReplaced is followed by an AtomAdded for each atom it added and an
    AwarenessGained for each new (agent, atom) pair; undoing the turn restores M_t."""
    v = Verifier(["a", "b", "c"], ["p"])
    v.apply_turn(Turn("a", (ExpandAwareness("q", ("b",)),)))
    ops = (ExpandAwareness("q", ("a",)), Hypothesize("h1", "r", introduces=("r",)))
    before = v.state.epistemic
    report = v.apply_turn(Turn("a", ops))
    changes = [c for c in report.changes if not isinstance(c, RecordAdded)]
    assert isinstance(changes[0], ModelReplaced) and changes[0].before is before, changes
    assert [c for c in changes if not isinstance(c, ModelReplaced)] == [
        AwarenessGained("a", "q"),
        AtomAdded("r"),
        AwarenessGained("a", "r"),
        AwarenessGained("b", "r"),
        AwarenessGained("c", "r"),
    ]
    # one replacement per operation: the expansion's, then the hypothesis's
    replaced = [k for k, c in enumerate(changes) if isinstance(c, ModelReplaced)]
    assert len(replaced) == 2, changes
    last = replaced[-1]
    assert changes[last + 1] == AtomAdded("r"), changes
    assert changes[last].after is v.state.epistemic  # type: ignore[union-attr]
    # The same turn refused at its end leaves M_t as it was.
    w = Verifier(["a", "b", "c"], ["p"])
    w.apply_turn(Turn("a", (ExpandAwareness("q", ("b",)),)))
    kept = w.state.epistemic
    with pytest.raises(GcvError):
        w.apply_turn(Turn("a", (*ops, Question("q1", "why?", depends_on=("nowhere",)))))
    assert w.state.epistemic is kept


def test_an_operation_that_leaves_m_t_as_it_is_journals_nothing_epistemic() -> None:
    """A decision (authoritative Resolve) has no DEL update: M_t is not replaced."""
    v = Verifier(["a", "b", "c"], ["p"])
    v.apply_turn(Turn("a", (Hypothesize("h1", "p", formula=ATOM_P),)))
    before = v.state.epistemic
    report = v.apply_turn(Turn("b", (Resolve("h1", authoritative=True),)))
    assert not [c for c in report.changes if isinstance(c, ModelReplaced)], report.changes
    assert v.state.epistemic is before


def test_a_turn_without_formulas_journals_nothing_epistemic() -> None:
    """No formula, no epistemic step: every operation's report is the argumentation alone."""
    v = _base()
    report = v.apply_turn(
        Turn(
            "b",
            (
                Hypothesize("h3", "pool exhausted"),
                Support("h1", "o2"),
                Undermine("h2", "e1", "counter"),
                Revise("o2", ("o1",)),
                Question("q1", "why?"),
            ),
        )
    )
    assert not [c for c in report.changes if isinstance(c, ModelReplaced)], report.changes
    assert not v.model.is_explicit


def test_a_registered_record_keeps_its_formula() -> None:
    """Observe, Hypothesize and Question register their formulas; target operations read them."""
    v = Verifier(["a", "b", "c"], ["p", "q"])
    ops = (
        Observe("o1", "p or q", formula=parse("p | q")),
        Hypothesize("h1", "p", formula=ATOM_P),
        Question("q1", "q?", formula=parse("q")),
    )
    v.apply_turn(Turn("a", ops))
    assert [v.state.records[r].formula for r in ("o1", "h1", "q1")] == [
        parse("p | q"),
        ATOM_P,
        parse("q"),
    ]


def test_an_argumentation_violation_is_reported_before_the_formula_is_read() -> None:
    """Table 3's precondition comes first, and a valid formula does not clear it."""
    v = _base()
    v.apply_turn(Turn("b", (Revise("h2"),)))
    cases: list[tuple[Operation, str]] = [
        (Observe("o1", "again", formula=ATOM_P), "duplicate-record"),
        (Support("h2", "e1", "more", formula=ATOM_P), "wrong-standing"),
        (Hypothesize("h3", "x", depends_on=("zz",), introduces=("r",)), "unknown-record"),
        (Question("q1", "why?", depends_on=("zz",), formula=Atom("nowhere")), "unknown-record"),
    ]
    for op, code in cases:
        before = v.state.digest()
        with pytest.raises(GcvError) as caught:
            v.apply_turn(Turn("a", (op,)))
        assert caught.value.code == code, (op, str(caught.value))
        assert v.state.digest() == before


def test_announcement_errors_name_the_observation() -> None:
    """The simultaneous announcement names the observation at which no world was left, and an
    implicit model too large to build is blamed on the first observation with a formula."""
    v = Verifier(["a", "b", "c"], ["p", "q"])
    ops = (
        Observe("o0", "no formula"),
        Observe("o1", "p", formula=ATOM_P),
        Observe("o2", "q", formula=parse("q")),
        Observe("o3", "not p", formula=parse("~p")),
    )
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", ops))
    error = caught.value
    assert (error.code, error.field, error.record, error.operation_index) == (
        "no-surviving-world",
        "formula",
        "o3",
        3,
    )
    assert "announcing ~p with the turn's earlier observations no world of W_t is left" in str(
        error
    )
    big = Verifier(["a"], [f"p{i}" for i in range(19)])
    ops = (
        Observe("o0", "no formula"),
        *(Observe(f"o{k}", "x", formula=Atom("p0")) for k in (1, 2)),
    )
    with pytest.raises(GcvError) as caught:
        big.apply_turn(Turn("a", ops))
    assert (caught.value.code, caught.value.record, caught.value.operation_index) == (
        "model-too-large",
        "o1",
        1,
    )


def test_the_announcement_contract_refuses_added_worlds_and_dropped_problems() -> None:
    """apply_announcements' postcondition: worlds are only eliminated, problems stay queued."""
    m = PlausibilityModel.implicit(["a"], ["p"]).explicit()
    state = EpistemicState(m)
    assert _only_eliminates(state, state)
    assert _only_eliminates(state, EpistemicState(restrict(m, 0b10)))
    assert not _only_eliminates(EpistemicState(restrict(m, 0b10)), state), "a world was added"
    problem = Problem("a", ATOM_P, "o1", m)
    assert not _only_eliminates(EpistemicState(m, (problem,)), EpistemicState(restrict(m, 0b10)))


def test_an_operation_without_its_epistemic_defaults_is_shown_with_every_field_it_sets() -> None:
    """The repr leaves out epistemic fields at their defaults, and only those."""
    assert repr(Support("h1", "e1", specific=True)) == (
        "Support(target='h1', evidence='e1', evidence_claim=None, evidence_depends_on=(), "
        "specific=True)"
    )
