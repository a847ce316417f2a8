"""A turn's updates (Algorithm 1, Appendix A.3): each operation checked, then applied to D_t.

:func:`apply_operations` owns the turn: the fixed operation order and Observe's
simultaneous hard announcements.  Each operation is checked by
:func:`~gcv.reference.preconditions.find_violation` against the state as the turn has
left it so far, then applied through the dependency map's journaled primitives.  The
label and attack effects come from the operation table
:data:`~gcv.reference.rules.RULES`; what is specific to an operation (which Dep links it
records, who commits) is spelled out below.  The epistemic effect comes from the sibling
table :data:`~gcv.reference.epistemic.table.DEL_RULES` and is applied in the same call,
so it is part of the same atomic turn.
"""

from __future__ import annotations

from collections.abc import Sequence

import icontract

from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.abduction import keeps_the_queue
from gcv.reference.epistemic.effects import (
    EpistemicState,
    announce_simultaneously,
    apply_effect,
    find_empty_announcement,
    find_epistemic_violation,
)
from gcv.reference.epistemic.formula import Formula
from gcv.reference.epistemic.table import DEL_RULES
from gcv.reference.errors import GcvError, NoSurvivingWorld
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Resolve,
    Revise,
    Support,
    Undermine,
    in_application_order,
    own_formula,
    target_of,
)
from gcv.reference.preconditions import find_violation
from gcv.reference.records import Kind, Record
from gcv.reference.rules import RULES, Registration

__all__ = ["apply_announcements", "apply_operation", "apply_operations"]


def _register(
    dmap: DependencyMap,
    record: RecordId,
    claim: str,
    kind: Kind,
    speaker: AgentId,
    depends_on: tuple[RecordId, ...],
    formula: Formula | None = None,
) -> None:
    dmap.add_record(Record(record, claim, speaker, dmap.turn + 1, kind, formula))
    for support in depends_on:
        dmap.add_dependency(record, support)


def _register_evidence(dmap: DependencyMap, op: Support | Undermine, speaker: AgentId) -> None:
    # "Support and Undermine register their evidence as a record of its own";
    # without a claim the evidence is an existing record, reused.
    if op.evidence_claim is not None:
        _register(
            dmap, op.evidence, op.evidence_claim, Kind.EVIDENCE, speaker, op.evidence_depends_on
        )
    dmap.commit(speaker, op.evidence)


def _attackers(op: Operation) -> tuple[RecordId, ...]:
    match op:
        case Undermine():
            return (op.evidence,)
        case Revise():
            return op.attackers
    return ()


def _has_table_effect(dmap: DependencyMap, op: Operation) -> bool:
    """The target carries the label the operation table gives it and the attacks it adds."""
    rule, target = RULES[op.operation], target_of(op)
    if target is None:
        return True
    label_ok = rule.target_becomes is None or dmap.standing[target] is rule.target_becomes
    attacks_ok = not rule.attacks_target or all(
        attacker in dmap.ratt.get(target, ()) for attacker in _attackers(op)
    )
    return label_ok and attacks_ok


def _registers_as_the_table_says(before: int, dmap: DependencyMap, op: Operation) -> bool:
    """Table 3's registration column: a new record exactly when the row says so."""
    added = len(dmap.records) - before
    match RULES[op.operation].registers:
        case Registration.ALWAYS:
            return added == 1
        case Registration.NEVER:
            return added == 0
    with_claim = isinstance(op, Support | Undermine) and op.evidence_claim is not None
    return added == int(with_claim)


@icontract.snapshot(lambda dmap: len(dmap.records), name="records")
@icontract.ensure(
    lambda OLD, dmap, op: _registers_as_the_table_says(OLD.records, dmap, op),
    "Table 3: Observe and Hypothesize register a record (a Question none: B.3 T1), Support "
    "and Undermine their evidence when it carries a claim, the others none",
)
@icontract.ensure(
    lambda dmap, op: _has_table_effect(dmap, op),
    "Table 3: Undermine leaves its target weakened, Revise abandoned, Resolve resolved, "
    "each attacked by the operation's evidence or attackers",
)
def apply_operation(
    dmap: DependencyMap, op: Operation, speaker: AgentId, *, announce: bool = True
) -> None:
    """Apply one operation to ``dmap`` inside its open transaction.

    Its argumentation effect (Table 3) and its epistemic effect (the DEL
    realisation) are both applied; with ``announce`` false, an Observe's hard
    announcement is left for :func:`apply_announcements` to apply with the turn's
    others (they are simultaneous).

    Raises
    ------
    PreconditionViolation
        The operation's precondition (Table 3's, then the epistemic ones) does
        not hold; the transaction undoes whatever the turn changed.
    """
    own, introduces = own_formula(op), isinstance(op, Hypothesize) and bool(op.introduces)
    violation = find_violation(op, dmap.view(), speaker)
    # Only an operation that carries a formula or new atoms has epistemic inputs to check.
    if violation is None and (own is not None or introduces):
        violation = find_epistemic_violation(op, dmap.model)
    if violation is not None:
        raise violation
    _apply_argumentation(dmap, op, speaker)
    if announce or not DEL_RULES[op.operation].simultaneous:
        _apply_epistemic(dmap, op)


def _apply_argumentation(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    """Table 3's effect on Args, Dep, Cm and dissent, then the table's attacks and labels."""
    match op:
        case Observe():
            _register(dmap, op.id, op.claim, op.kind, speaker, op.depends_on, op.formula)
            dmap.commit(speaker, op.id)
        case Hypothesize():
            _register(dmap, op.id, op.claim, op.kind, speaker, op.depends_on, op.formula)
        case Support():
            _register_evidence(dmap, op, speaker)
            dmap.add_dependency(op.target, op.evidence)
        case Undermine():
            _register_evidence(dmap, op, speaker)
        case Revise():
            dmap.retract(speaker, op.target)
        case Resolve():
            # A.3: a subsuming resolution adds the cross-hypothesis link that did not
            # exist when the subsumed records were created.
            for subsumed in op.subsumes:
                dmap.add_dependency(subsumed, op.target)
            for premise in op.premises:
                dmap.add_dependency(op.target, premise)
            for dissenter in op.dissenters:
                dmap.record_dissent(op.target, dissenter)
            # Consensual [!gamma]: everyone commits; a decision commits its speaker.
            for agent in (speaker,) if op.authoritative else dmap.agents:
                dmap.commit(agent, op.target)
    # The attack and label effects are the operation table's (Lemma 2.2's proof).
    rule, target = RULES[op.operation], target_of(op)
    if target is not None:
        if rule.attacks_target:
            for attacker in _attackers(op):
                dmap.add_attack(attacker, target)
        if rule.target_becomes is not None:
            dmap.set_standing(target, rule.target_becomes)


def _apply_epistemic(dmap: DependencyMap, op: Operation) -> None:
    """The DEL table's update of M_t (all of Expand-Awareness's effect, Definition A.3).

    An operation with no formula of its own or its target's, and no new atoms, leaves
    M_t as it is, at no cost.
    """
    target = target_of(op)
    target_formula = dmap.records[target].formula if target is not None else None
    introduces = isinstance(op, Hypothesize) and bool(op.introduces)
    inputs = own_formula(op) is not None or target_formula is not None or introduces
    if not inputs and not isinstance(op, ExpandAwareness):
        return
    dmap.replace_epistemic(
        apply_effect(
            dmap.epistemic,
            op,
            target_formula=target_formula,
            standing=dmap.standing,
            literal_abduction=dmap.literal_abduction,
        )
    )


def apply_operations(
    dmap: DependencyMap, operations: tuple[Operation, ...], speaker: AgentId
) -> tuple[Operation, ...]:
    """Apply one turn's operations to ``dmap`` inside its open transaction; return them in the
    order applied.

    The order is Algorithm 1's (:func:`~gcv.reference.operations.in_application_order`:
    by kind, written order within a kind).  Observe's hard announcements wait until the
    turn's last Observe and apply together (DEL_RULES: simultaneous).

    Raises
    ------
    GcvError
        The first operation, in application order, that fails, located by the turn, its
        written position and its kind.
    """
    number = dmap.turn + 1
    deferred: list[tuple[int, Observe]] = []
    ordered = in_application_order(operations)
    for index, op in ordered:
        simultaneous = DEL_RULES[op.operation].simultaneous
        if deferred and not simultaneous:
            _announce(dmap, deferred, number)
        try:
            apply_operation(dmap, op, speaker, announce=not simultaneous)
        except GcvError as error:
            raise error.locate(
                turn=number, operation_index=index, operation=op.operation.value
            ) from None
        if simultaneous and isinstance(op, Observe) and op.formula is not None:
            deferred.append((index, op))
    if deferred:
        _announce(dmap, deferred, number)
    return tuple(op for _, op in ordered)


def _announce(dmap: DependencyMap, deferred: list[tuple[int, Observe]], number: int) -> None:
    try:
        apply_announcements(dmap, [op for _, op in deferred])
    except GcvError as error:
        index = next((i for i, op in deferred if op.id == error.record), deferred[0][0])
        raise error.locate(turn=number, operation_index=index, operation="observe") from None
    deferred.clear()


def _only_eliminates(before: EpistemicState, after: EpistemicState) -> bool:
    if after is before:
        return True
    kept = set(before.model.explicit().worlds)
    return keeps_the_queue(before.problems, after.problems) and all(
        w in kept for w in after.model.worlds
    )


@icontract.snapshot(lambda dmap: dmap.epistemic, name="epistemic")
@icontract.ensure(
    lambda OLD, dmap: _only_eliminates(OLD.epistemic, dmap.epistemic),
    "[!psi] eliminates worlds and adds none; posed problems stay queued",
)
def apply_announcements(dmap: DependencyMap, observations: Sequence[Observe]) -> None:
    """Apply the hard announcements of one turn's observations, simultaneously.

    Each psi is read in M_t as the turn's Observe phase found it; the worlds where
    any fails are eliminated at once, and each observation poses its abductive
    problems (Definition A.2).

    Raises
    ------
    NoSurvivingWorld
        No world satisfies them all; ``record`` names the observation at which
        the conjunction (in the turn's order) first became unsatisfiable.
    """
    announced = [(op.id, op.formula) for op in observations if op.formula is not None]
    if not announced:
        return
    try:
        model = dmap.model.explicit()
    except GcvError as error:
        error.record = announced[0][0]
        raise
    position = find_empty_announcement(model, [formula for _, formula in announced])
    if position is not None:
        record, formula = announced[position]
        raise NoSurvivingWorld(
            f"after announcing {formula} with the turn's earlier observations no world of "
            "W_t is left",
            field="formula",
            record=record,
        )
    dmap.replace_epistemic(announce_simultaneously(dmap.epistemic, announced))
