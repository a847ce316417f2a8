"""The eight operations: Table 3's preconditions, their effects, the fixed order, atomic turns."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.conformance.cases.turns import WRITTEN_OUT_OF_ORDER
from gcv.reference.apply import find_violation
from gcv.reference.depmap import StateView
from gcv.reference.epistemic.formula import Atom, Formula
from gcv.reference.errors import GcvError, MalformedOperation
from gcv.reference.operations import (
    ORDER,
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
from gcv.reference.records import GOOD_STANDING, MAX_CLAIM_LENGTH, Kind, Standing
from gcv.reference.verifier import Turn, Verifier
from gcv.spec import core, transition
from gcv.translate import spec_map
from tests.maps import four_active
from tests.strategies import AGENTS, turns_over

A, W, X, R = Standing.ACTIVE, Standing.WEAKENED, Standing.ABANDONED, Standing.RESOLVED


def base() -> Verifier:
    """o1, o2 active; h1 active on o1; h2 weakened by o1; h3 abandoned; h4 resolved."""
    v = Verifier(list(AGENTS), ["p"])
    v.apply_turn(
        Turn(
            "a",
            (
                Observe("o1", "401s"),
                Observe("o2", "3x traffic"),
                Hypothesize("h1", "token bug", depends_on=("o1",)),
                Hypothesize("h2", "Redis -> auth", depends_on=("o2",)),
                Hypothesize("h3", "DB outage"),
                Hypothesize("h4", "retry storm"),
            ),
        )
    )
    v.apply_turn(Turn("b", (Undermine("h2", "o1"), Revise("h3"), Resolve("h4"))))
    assert [v.standing(r) for r in ("h1", "h2", "h3", "h4")] == [A, W, X, R]
    return v


# (operation, speaker, code, field, record): one row per precondition of Table 3.
REJECTIONS: list[tuple[Operation, str, str, str, str | None]] = [
    (Observe("o1", "again"), "a", "duplicate-record", "id", "o1"),
    (Observe("o9", "x", depends_on=("zz",)), "a", "unknown-record", "depends_on", "zz"),
    (Observe("o9", "x", depends_on=("o9",)), "a", "self-reference", "depends_on", "o9"),
    (Hypothesize("h1", "again"), "a", "duplicate-record", "id", "h1"),
    (Hypothesize("h9", "x", depends_on=("o1", "zz")), "a", "unknown-record", "depends_on", "zz"),
    (Support("zz", "e9", "c"), "a", "unknown-record", "target", "zz"),
    (Support("h3", "e9", "c"), "a", "wrong-standing", "target", "h3"),
    (Support("h1", "h1"), "a", "self-reference", "evidence", "h1"),
    (Support("h1", "zz"), "a", "unknown-record", "evidence", "zz"),
    (Support("h1", "h3"), "a", "wrong-standing", "evidence", "h3"),
    (Support("h1", "h2"), "a", "wrong-standing", "evidence", "h2"),
    (Support("h1", "o2", "c"), "a", "duplicate-record", "evidence", "o2"),
    (Support("h1", "e9", "c", ("zz",)), "a", "unknown-record", "evidence_depends_on", "zz"),
    (Support("h1", "e9", "c", ("e9",)), "a", "self-reference", "evidence_depends_on", "e9"),
    (Undermine("zz", "o1"), "a", "unknown-record", "target", "zz"),
    (Undermine("h3", "o1"), "a", "wrong-standing", "target", "h3"),
    (Undermine("h4", "o1"), "a", "wrong-standing", "target", "h4"),
    (Undermine("h1", "h3"), "a", "wrong-standing", "evidence", "h3"),
    (Undermine("h1", "h1"), "a", "self-reference", "evidence", "h1"),
    (Undermine("h1", "o2", "c"), "a", "duplicate-record", "evidence", "o2"),
    (Revise("zz"), "a", "unknown-record", "target", "zz"),
    (Revise("h1", ("zz",)), "a", "unknown-record", "attackers", "zz"),
    (Revise("h1", ("h1",)), "a", "self-reference", "attackers", "h1"),
    (Revise("h1", ("h3",)), "a", "wrong-standing", "attackers", "h3"),
    (Resolve("zz"), "a", "unknown-record", "target", "zz"),
    (Resolve("h2"), "a", "wrong-standing", "target", "h2"),
    (Resolve("h3"), "a", "wrong-standing", "target", "h3"),
    (Resolve("h1", subsumes=("zz",)), "a", "unknown-record", "subsumes", "zz"),
    (Resolve("h1", subsumes=("h1",)), "a", "self-reference", "subsumes", "h1"),
    (Resolve("h1", authoritative=True, premises=("h2",)), "a", "wrong-standing", "premises", "h2"),
    (Resolve("h1", authoritative=True, premises=("zz",)), "a", "unknown-record", "premises", "zz"),
    (
        Resolve("h1", authoritative=True, dissenters=("zz",)),
        "a",
        "unknown-agent",
        "dissenters",
        None,
    ),
    (
        Resolve("h1", authoritative=True, dissenters=("a",)),
        "a",
        "self-reference",
        "dissenters",
        None,
    ),
    (ExpandAwareness("p"), "a", "already-aware", "atom", None),
    (ExpandAwareness("q", ("zz",)), "a", "unknown-agent", "agents", None),
]


@pytest.mark.parametrize(
    ("op", "speaker", "code", "field", "record"),
    REJECTIONS,
    ids=[f"{op.name}-{code}-{field}" for op, _, code, field, _ in REJECTIONS],
)
def test_rejection_names_the_operation_field_and_record_and_changes_nothing(
    op: Operation, speaker: str, code: str, field: str, record: str | None
) -> None:
    v = base()
    before = v.state.digest()
    harmless = Observe("fresh", "a valid operation written first")
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn(speaker, (harmless, op)))
    error = caught.value
    assert (error.code, error.field, error.record) == (code, field, record), str(error)
    assert (error.turn, error.operation_index, error.operation) == (3, 1, op.name)
    assert v.state.digest() == before, "a rejected turn must leave D_t exactly as it was"
    assert "fresh" not in v.state.records and v.state.turn == 2


def test_every_operation_but_question_has_a_rejection_row() -> None:
    # A Question has no precondition of Table 3: its id names an issue, checked against
    # nothing (T3.question.issue-ids-apart).
    assert {op.name for op, *_ in REJECTIONS} == {rule.name for rule in ORDER} - {"question"}


def test_a_question_may_take_a_record_id_and_a_record_an_issue_id() -> None:
    v = base()
    v.apply_turn(Turn("a", (Question("o2", "why?"), Question("o2", "why, again?"))))
    v.apply_turn(Turn("b", (Observe("q7", "401s"),)))
    v.apply_turn(Turn("c", (Question("q7", "and this?"),)))
    assert "q7" in v.state.records and v.state.turn == 5


def test_resolve_rejects_an_attacked_target() -> None:
    """Unreachable through the engine (Lemma 2.2 keeps S_t unattacked), so checked on a view."""
    view = StateView(AGENTS, {"h": A, "e": A}, {"h": ["e"]}, {a: [] for a in AGENTS})
    error = find_violation(Resolve("h"), view, "a")
    assert error is not None and (error.code, error.record) == ("attacked-target", "h")


def test_unknown_speaker_is_rejected() -> None:
    v = base()
    before = v.state.digest()
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("zz", (Observe("o9", "x"),)))
    assert (caught.value.code, caught.value.field, caught.value.turn) == (
        "unknown-agent",
        "speaker",
        3,
    )
    assert v.state.digest() == before


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Observe("", "x"), "id"),
        (lambda: Observe("o 1", "x"), "id"),
        (lambda: Observe("o1", ""), "claim"),
        (lambda: Observe("o1", "x" * 10_001), "claim"),
        (lambda: Observe("o1", "x", kind=Kind.HYPOTHESIS), "kind"),
        (lambda: Hypothesize("h1", "x", kind=Kind.EVIDENCE), "kind"),
        (lambda: Hypothesize("h1", "x", depends_on=("o1", "o1")), "depends_on"),
        (lambda: Hypothesize("h1", "x", depends_on=["o1"]), "depends_on"),  # type: ignore[arg-type]
        (lambda: Support("h1", "e1", evidence_depends_on=("o1",)), "evidence_depends_on"),
        (lambda: Resolve("h1", dissenters=("b",)), "dissenters"),
        (lambda: Resolve("h1", premises=("a1",)), "premises"),
        (lambda: Resolve("h1", authoritative="yes"), "authoritative"),  # type: ignore[arg-type]
        (lambda: ExpandAwareness("not an atom"), "atom"),
        (lambda: Question("q1", "   "), "claim"),
    ],
)
def test_malformed_operations_are_rejected_when_built(build: object, field: str) -> None:
    with pytest.raises(MalformedOperation) as caught:
        build()  # type: ignore[operator]
    assert caught.value.field == field


def test_the_engines_order_is_the_specs() -> None:
    """The engine's ORDER (its rules) and process_turn's ORDER (its process_<kind>) are two
    statements of clause order.kinds: one sequence of operations, each settled where the
    other settles it (the observations' announcement)."""
    assert [rule.name for rule in ORDER] == [kind for kind, *_ in transition.ORDER]
    settled = [rule.name for rule in ORDER if rule.settle is not None]
    assert settled == [kind for kind, _, settle in transition.ORDER if settle is not None]


def test_operations_apply_in_the_fixed_order_not_as_written() -> None:
    """The conformance case ``core/turns/fixed-order-not-written-order``'s turn, whose
    report must also list the operations in the fixed order."""
    v = Verifier(["a"])
    report = v.apply_turn(Turn("a", WRITTEN_OUT_OF_ORDER))
    names = [rule.name for rule in ORDER]
    applied = [op.name for op in report.applied]
    assert applied == sorted(applied, key=names.index)
    assert applied == [op.name for op in reversed(WRITTEN_OUT_OF_ORDER)], "not as written"
    assert v.standing("h1") is W and v.attackers("h1") == ("o1",)


def test_an_observation_cannot_rest_on_a_hypothesis_of_the_same_turn() -> None:
    v = Verifier(["a"])
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", (Hypothesize("h1", "bug"), Observe("o1", "x", depends_on=("h1",)))))
    assert (caught.value.code, caught.value.operation_index) == ("unknown-record", 1)


def test_undermine_registers_evidence_attacks_and_weakens() -> None:
    v = base()
    report = v.apply_turn(Turn("c", (Undermine("h1", "e1", "wrong error code", ("o2",)),)))
    assert v.standing("h1") is W and v.attackers("h1") == ("e1",)
    assert v.state.records["e1"].kind is Kind.EVIDENCE and v.dependencies("e1") == ("o2",)
    assert "e1" in v.commitments("c")
    assert report.turn == 3


def test_undermine_of_a_weakened_target_keeps_it_weakened_and_adds_the_attack() -> None:
    v = base()
    v.apply_turn(Turn("c", (Undermine("h2", "o2"),)))
    assert v.standing("h2") is W and set(v.attackers("h2")) == {"o1", "o2"}


def test_revise_abandons_from_any_label_and_keeps_abandoned_abandoned() -> None:
    v = base()
    v.apply_turn(
        Turn("c", (Revise("h1", ("o2",)), Revise("h2"), Revise("h3", ("o1",)), Revise("h4")))
    )
    assert [v.standing(r) for r in ("h1", "h2", "h3", "h4")] == [X, X, X, X]
    assert v.attackers("h3") == ("o1",) and v.attackers("h4") == ()


def test_revise_retracts_the_speakers_commitment() -> None:
    v = base()
    assert "o1" in v.commitments("a")
    v.apply_turn(Turn("a", (Revise("o1"),)))
    assert "o1" not in v.commitments("a")


def test_support_adds_the_evidence_to_dep_without_changing_standing() -> None:
    v = base()
    v.apply_turn(Turn("c", (Support("h2", "o2"), Support("h4", "e2", "mechanism", ("o1",)))))
    assert v.dependencies("h2") == ("o2",) and v.standing("h2") is W
    assert v.dependencies("h4") == ("e2",) and v.standing("h4") is R
    assert {"o2", "e2"} <= set(v.commitments("c"))


def test_consensual_resolve_commits_everyone_and_subsumption_makes_a_cycle() -> None:
    v = base()
    v.apply_turn(Turn("a", (Hypothesize("h5", "chain", depends_on=("h1",)),)))
    v.apply_turn(Turn("b", (Resolve("h5", subsumes=("h1",)),)))
    assert v.standing("h5") is R and v.dependencies("h1") == ("o1", "h5")
    assert all("h5" in v.commitments(agent) for agent in AGENTS)
    assert set(v.affected_star("h1")) == {"h1", "h5"}, "h1 lies on the cycle h1 -> h5 -> h1"


def test_authoritative_resolve_records_premises_and_dissent() -> None:
    v = base()
    v.apply_turn(
        Turn("a", (Resolve("h1", authoritative=True, premises=("o2",), dissenters=("b",)),))
    )
    assert v.dependencies("h1") == ("o1", "o2") and v.dissenters("h1") == ("b",)
    assert "h1" in v.commitments("a") and "h1" not in v.commitments("b")


def test_expand_awareness_for_named_agents() -> None:
    v = base()
    v.apply_turn(Turn("c", (ExpandAwareness("mis_monitor", ("a",)),)))
    assert "mis_monitor" in v.state.atoms
    assert [v.is_aware(x, "mis_monitor") for x in AGENTS] == [True, False, False]
    v.apply_turn(Turn("c", (ExpandAwareness("mis_monitor"),)))  # the others still gain it
    assert all(v.is_aware(x, "mis_monitor") for x in AGENTS)


def test_queries_do_not_mutate() -> None:
    v = base()
    before = v.state.digest()
    for record in v.state.records:
        v.verify(record), v.affected(record), v.affected_star(record)
        v.affected_star_active(record), v.standing(record), v.dependencies(record)
    assert v.state.digest() == before


def test_unknown_records_in_queries_are_typed_errors() -> None:
    v = base()
    for query in (v.affected, v.affected_star, v.affected_star_active, v.standing, v.dependencies):
        with pytest.raises(GcvError) as caught:
            query("zz")
        assert caught.value.code == "unknown-record" and caught.value.record == "zz"
    assert not v.verify("zz").grounded and v.verify("zz").witness is None
    with pytest.raises(GcvError, match="unknown-agent"):
        v.commitments("zz")


@pytest.mark.slow
@given(st.data())
def test_random_turns_keep_every_invariant(data: st.DataObject) -> None:
    """Random turns, many violating some precondition: after each, Lemma 2.2 holds, the
    indexes are exact inverses, nothing re-enters S_t, a rejected turn changes nothing,
    and both queries agree with the spec."""
    v = Verifier(list(AGENTS), ["p"])
    for _ in range(data.draw(st.integers(1, 30), label="turns")):
        turn = data.draw(turns_over(tuple(v.state.records)))
        before_digest = v.state.digest()
        before_standing = dict(v.state.standing)
        try:
            v.apply_turn(turn)
        except GcvError:
            assert v.state.digest() == before_digest, turn
            continue
        for record, label in before_standing.items():
            if label not in GOOD_STANDING:
                assert v.standing(record) not in GOOD_STANDING, (turn, record)
        d = spec_map(v.state)
        assert core.is_conflict_free_map(d), turn
        dep_pairs = {(a, b) for a, bs in v.state.dep.items() for b in bs}
        assert dep_pairs == {(a, b) for b, as_ in v.state.rdep.items() for a in as_}
        att_pairs = {(a, b) for a, bs in v.state.att.items() for b in bs}
        assert att_pairs == {(a, b) for b, as_ in v.state.ratt.items() for a in as_}
        for record in v.state.records:
            assert v.verify(record).grounded == core.is_grounded(d, record), record
            assert set(v.affected_star(record)) == core.compute_affected_star(d, record)


# -- what a malformed operation or a broken precondition says ------------------------------

ATOM_P = Atom("p")


def test_a_malformed_operation_names_the_operation_and_the_problem() -> None:
    """Messages are not normative, but they must say what was wrong (spec/gcv/spec/normative.md)."""
    with pytest.raises(MalformedOperation) as caught:
        Observe("o 1", "x")
    message = str(caught.value)
    assert "observe" in message and "'o 1'" in message and "identifier" in message


BAD_ID = "not an id"
MALFORMED: list[tuple[type, dict[str, object], str]] = [
    (Observe, {"id": BAD_ID, "claim": "c"}, "id"),
    (Observe, {"id": "o1", "claim": ""}, "claim"),
    (Observe, {"id": "o1", "claim": "c", "kind": Kind.EVIDENCE}, "kind"),
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
    assert caught.value.detail.startswith(cls.name + ": "), caught.value.detail  # type: ignore[attr-defined]


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
    v = four_active()
    with pytest.raises(GcvError, match="'zz' is not in Ags"):
        v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("zz",)),)))
    with pytest.raises(GcvError, match="speaker 'a' cannot dissent"):
        v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, dissenters=("a",)),)))


def test_precondition_messages_name_the_record_and_the_accepted_labels() -> None:
    v = four_active()
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


def test_a_decision_cannot_rest_on_itself() -> None:
    """Resolve's premises may not cite the target (a Dep self-loop would ground it on itself)."""
    v = four_active()
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", (Resolve("h1", authoritative=True, premises=("h1",)),)))
    assert (caught.value.code, caught.value.field, caught.value.record) == (
        "self-reference",
        "premises",
        "h1",
    )


def test_a_claim_may_be_exactly_as_long_as_the_limit() -> None:
    """Claims are 1 to 10,000 characters (spec/gcv/spec/normative.md): 10,000 is allowed."""
    assert len(Observe("o1", "x" * MAX_CLAIM_LENGTH).claim) == MAX_CLAIM_LENGTH
    with pytest.raises(MalformedOperation, match="at most 10000 characters"):
        Observe("o1", "x" * (MAX_CLAIM_LENGTH + 1))


def test_an_attacked_target_error_names_the_field_and_the_attackers() -> None:
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
    """Messages are not normative, but each names the offending value
    (spec/gcv/spec/normative.md)."""
    assert "got list" in _error(lambda: Revise("h1", ["o1"]))  # type: ignore[arg-type]
    assert "['o1', 'o1']" in _error(lambda: Revise("h1", ("o1", "o1")))
    assert "non-empty" in _error(lambda: Observe("o1", ""))
    assert "'hypothesis'" in _error(lambda: Observe("o1", "c", kind=Kind.HYPOTHESIS))
    assert "['observation', 'premise']" in _error(lambda: Observe("o1", "c", Kind.EVIDENCE))
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
    v = four_active()
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


def test_an_operation_without_its_epistemic_defaults_is_shown_with_every_field_it_sets() -> None:
    """The repr leaves out epistemic fields at their defaults, and only those."""
    assert repr(Support("h1", "e1", specific=True)) == (
        "Support(target='h1', evidence='e1', evidence_claim=None, evidence_depends_on=(), "
        "specific=True)"
    )
