"""A turn's updates (Algorithm 1, Appendix A.3): each operation checked, then applied to D_t.

:func:`apply_operations` owns the turn: the operations in the fixed order of
:data:`~gcv.reference.operations.ORDER`, and after the last of a kind what its rule
settles for the turn (Observe's simultaneous hard announcements).
:func:`apply_operation` checks one operation against the state as the turn has left it
so far (its rule's ``check``: Table 3's preconditions, then those on M_t), then applies
it (its rule's ``apply``: its argumentation effect and its epistemic effect, in the same
call, so both are part of the same atomic turn).  Every operation goes through the same
two calls: nothing here names one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import icontract

from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.errors import GcvError, PreconditionViolation
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.operations import Operation, in_application_order, rule_of, target_of
from gcv.reference.rules.rule import Registration, Rule

__all__ = ["apply_operation", "apply_operations", "find_violation"]


def is_relation_over(
    relation: Mapping[RecordId, Collection[RecordId]], members: Collection[RecordId]
) -> bool:
    """Check that ``relation`` relates only ``members``: Dep_t maps Args_t to subsets of
    Args_t, and Att_t is a subset of Args_t x Args_t (Definition 2.1)."""
    return all(
        key in members and all(value in members for value in values)
        for key, values in relation.items()
    )


def is_well_formed_view(view: StateView) -> bool:
    """Check that ``view`` is a state the engine can be in: each agent of Ags has an
    awareness set A_i, and the recorded attacks relate registered records only."""
    return all(agent in view.awareness for agent in view.agents) and is_relation_over(
        view.attackers, view.standing
    )


@icontract.require(
    lambda view: is_well_formed_view(view),
    "the view is a state of Definition 2.1: every agent has A_i, Att_t relates records of Args_t",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda result: result is None or isinstance(result, PreconditionViolation),
    "a violation is reported as a typed PreconditionViolation, never raised",
)
def find_violation(
    op: Operation, view: StateView, speaker: AgentId
) -> PreconditionViolation | None:
    """Return the first precondition ``op`` violates in ``view``, or ``None``: its rule's
    ``check`` (Table 3's clauses, then those on M_t).  Pure: it never raises and never
    mutates, so it can be searched by CrossHair and replayed against the Z3 encoding.

    Parameters
    ----------
    op:
        The operation, already well formed.
    view:
        The state it would be applied to (the staged state of the turn so far).
    speaker:
        The agent whose utterance the operation interprets.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Undermine
    >>> from gcv.reference.records import Standing
    >>> view = StateView(["a"], {"h2": Standing.ABANDONED}, {}, {"a": []})
    >>> find_violation(Undermine("h2", "o9", "token expired"), view, "a").code
    'wrong-standing'
    >>> find_violation(Observe("o1", "401s"), view, "a") is None
    True
    """
    return rule_of(op).check(op, view, speaker)


def _has_table_effect(dmap: DependencyMap, op: Operation) -> bool:
    """The target carries the label the operation table gives it and the attacks it adds."""
    rule, target = rule_of(op), target_of(op)
    row = rule.row
    if target is None:
        return True
    label_ok = row.target_becomes is None or dmap.standing[target] is row.target_becomes
    attacks_ok = not row.attacks_target or all(
        attacker in dmap.ratt.get(target, ()) for attacker in rule.attackers(op)
    )
    return label_ok and attacks_ok


def _registers_as_the_table_says(before: int, dmap: DependencyMap, op: Operation) -> bool:
    """Table 3's registration column: a new record exactly when the row says so."""
    added = len(dmap.records) - before
    match rule_of(op).row.registers:
        case Registration.ALWAYS:
            return added == 1
        case Registration.NEVER:
            return added == 0
    with_claim = getattr(op, "evidence_claim", None) is not None
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
def apply_operation(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    """Apply one operation to ``dmap`` inside its open transaction, through its rule.

    Raises
    ------
    PreconditionViolation
        The operation's precondition (Table 3's, then the epistemic ones) does
        not hold; the transaction undoes whatever the turn changed.
    """
    violation = find_violation(op, dmap.view(), speaker)
    if violation is not None:
        raise violation
    rule_of(op).apply(op, dmap, speaker)


def apply_operations(
    dmap: DependencyMap, operations: tuple[Operation, ...], speaker: AgentId
) -> tuple[Operation, ...]:
    """Apply one turn's operations to ``dmap`` inside its open transaction; return them in the
    order applied.

    The order is Algorithm 1's (:func:`~gcv.reference.operations.in_application_order`:
    by kind, written order within a kind).  Once a kind's operations are applied, its rule
    settles what it leaves for the turn: the observations' hard announcements apply
    together (``order.simultaneous-observations``).

    Raises
    ------
    GcvError
        The first operation, in application order, that fails, located by the turn, its
        written position and its kind.
    """
    number = dmap.turn + 1
    ordered = in_application_order(operations)
    kind: Rule[Any] | None = None
    applied: list[tuple[int, Operation]] = []
    for index, op in ordered:
        rule = rule_of(op)
        if rule is not kind:
            _settle(dmap, kind, applied)
            kind, applied = rule, []
        try:
            apply_operation(dmap, op, speaker)
        except GcvError as error:
            raise error.locate(turn=number, operation_index=index, operation=rule.name) from None
        applied.append((index, op))
    _settle(dmap, kind, applied)
    return tuple(op for _, op in ordered)


def _settle(dmap: DependencyMap, kind: Rule[Any] | None, applied: list[tuple[int, Any]]) -> None:
    """What ``kind``'s rule does once the turn's operations of that kind are applied."""
    if kind is not None and kind.settle is not None:
        kind.settle(dmap, applied)
