"""Preconditions of the eight operations (Table 3), as one pure function.

:func:`find_violation` reads a :class:`~gcv.reference.depmap.StateView` and returns
the first violated precondition as a typed error, or ``None``.  It never
raises and never mutates, so it can be searched by CrossHair and replayed
against the Z3 encoding.

Fields are checked in declaration order, and within a field in the order
self-reference, existence, standing; so when an operation breaks several
preconditions the error code is still determined (the clauses ``order.fields``
and ``order.cited-record-checks`` of spec/transition.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

import icontract

from gcv.reference.depmap import StateView
from gcv.reference.errors import (
    AlreadyAware,
    AttackedTarget,
    DuplicateRecord,
    PreconditionViolation,
    SelfReference,
    UnknownAgent,
    UnknownRecord,
    WrongStanding,
)
from gcv.reference.identifiers import AgentId, RecordId
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
)
from gcv.reference.records import GOOD_STANDING
from gcv.reference.rules import RULES

__all__ = ["find_violation"]


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


def _new_record(view: StateView, field: str, record: RecordId) -> PreconditionViolation | None:
    if record in view.standing:
        return DuplicateRecord(
            f"record {record!r} is already registered", field=field, record=record
        )
    return None


def _cited(
    view: StateView,
    field: str,
    records: Iterable[RecordId],
    *,
    not_self: RecordId | None,
    in_good_standing: bool,
) -> PreconditionViolation | None:
    """Check records cited by ``field``: known, not the operation's own record, standing."""
    for record in records:
        if record == not_self:
            return SelfReference(
                f"record {record!r} cannot cite itself in {field}", field=field, record=record
            )
        if record not in view.standing:
            return UnknownRecord(f"record {record!r} is not registered", field=field, record=record)
        if in_good_standing and view.standing[record] not in GOOD_STANDING:
            return WrongStanding(
                f"record {record!r} is {view.standing[record].value}; "
                f"{field} must be active or resolved",
                field=field,
                record=record,
            )
    return None


def _target(
    view: StateView, op: Support | Undermine | Revise | Resolve
) -> PreconditionViolation | None:
    rule = RULES[op.operation]
    target = op.target
    if target not in view.standing:
        return UnknownRecord(f"record {target!r} is not registered", field="target", record=target)
    label = view.standing[target]
    if label not in rule.target_standing:
        allowed = ", ".join(sorted(s.value for s in rule.target_standing))
        return WrongStanding(
            f"{op.operation.value} needs its target {allowed}; {target!r} is {label.value}",
            field="target",
            record=target,
        )
    if rule.target_unattacked and view.attackers.get(target):
        attackers = ", ".join(sorted(view.attackers[target]))
        return AttackedTarget(
            f"{op.operation.value} needs a target with no recorded attack; "
            f"{target!r} is attacked by {attackers}",
            field="target",
            record=target,
        )
    return None


def _agents(
    view: StateView, field: str, agents: Iterable[AgentId], *, not_self: AgentId | None = None
) -> PreconditionViolation | None:
    for agent in agents:
        if agent not in view.agents:
            return UnknownAgent(f"agent {agent!r} is not in Ags", field=field)
        if agent == not_self:
            return SelfReference(
                f"the speaker {agent!r} cannot dissent from their own decision", field=field
            )
    return None


def _first(*checks: PreconditionViolation | None) -> PreconditionViolation | None:
    return next((c for c in checks if c is not None), None)


def _evidence(view: StateView, op: Support | Undermine) -> PreconditionViolation | None:
    good = RULES[op.operation].grounds_in_good_standing
    if op.evidence == op.target:
        return SelfReference(
            f"record {op.target!r} cannot be its own evidence", field="evidence", record=op.target
        )
    if op.evidence_claim is None:
        return _cited(view, "evidence", (op.evidence,), not_self=None, in_good_standing=good)
    return _new_record(view, "evidence", op.evidence) or _cited(
        view,
        "evidence_depends_on",
        op.evidence_depends_on,
        not_self=op.evidence,
        in_good_standing=False,
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
    """Return the first precondition of Table 3 that ``op`` violates in ``view``, or ``None``.

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
    >>> from gcv.reference.records import Standing
    >>> view = StateView(["a"], {"h2": Standing.ABANDONED}, {}, {"a": []})
    >>> find_violation(Undermine("h2", "o9", "token expired"), view, "a").code
    'wrong-standing'
    >>> find_violation(Observe("o1", "401s"), view, "a") is None
    True
    """
    match op:
        case Question():
            # B.3 T1: no record; the issue's id may not be a record's (its problems' source).
            return _new_record(view, "id", op.id)
        case Observe() | Hypothesize():
            return _first(
                _new_record(view, "id", op.id),
                _cited(view, "depends_on", op.depends_on, not_self=op.id, in_good_standing=False),
            )
        case Support() | Undermine():
            return _first(_target(view, op), _evidence(view, op))
        case Revise():
            good = RULES[op.operation].grounds_in_good_standing
            return _first(
                _target(view, op),
                _cited(view, "attackers", op.attackers, not_self=op.target, in_good_standing=good),
            )
        case Resolve():
            good = RULES[op.operation].grounds_in_good_standing
            return _first(
                _target(view, op),
                _cited(view, "subsumes", op.subsumes, not_self=op.target, in_good_standing=False),
                _cited(view, "premises", op.premises, not_self=op.target, in_good_standing=good),
                _agents(view, "dissenters", op.dissenters, not_self=speaker),
            )
        case ExpandAwareness():
            named = op.agents or tuple(view.agents)
            unknown = _agents(view, "agents", op.agents)
            if unknown is not None:
                return unknown
            if all(op.atom in view.awareness[agent] for agent in named):
                return AlreadyAware(
                    f"every named agent is already aware of {op.atom!r}", field="atom"
                )
            return None
    raise AssertionError(f"unknown operation {op!r}")
