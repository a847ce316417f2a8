"""Per-operation updates (Algorithm 1, Appendix A.3): check, then change D_t.

Each operation is checked by :func:`~reference.preconditions.find_violation`
against the state as the turn has left it so far, then applied through the
dependency map's journaled primitives.  The label and attack effects come from
the operation table :data:`~reference.rules.RULES`; what is specific to an
operation (which Dep links it records, who commits) is spelled out below.
"""

from __future__ import annotations

import icontract

from reference.depmap import DependencyMap
from reference.operations import (
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
from reference.preconditions import find_violation
from reference.records import AgentId, Kind, Record, RecordId
from reference.rules import RULES

__all__ = ["apply_operation"]


def _register(
    dmap: DependencyMap,
    record: RecordId,
    claim: str,
    kind: Kind,
    speaker: AgentId,
    depends_on: tuple[RecordId, ...],
) -> None:
    dmap.add_record(Record(record, claim, speaker, dmap.turn + 1, kind))
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


def _target(op: Operation) -> RecordId | None:
    match op:
        case Support() | Undermine() | Revise() | Resolve():
            return op.target
    return None


def _has_table_effect(dmap: DependencyMap, op: Operation) -> bool:
    """The target carries the label the operation table gives it and the attacks it adds."""
    rule, target = RULES[op.operation], _target(op)
    if target is None:
        return True
    label_ok = rule.target_becomes is None or dmap.standing[target] is rule.target_becomes
    attacks_ok = not rule.attacks_target or all(
        attacker in dmap.ratt.get(target, ()) for attacker in _attackers(op)
    )
    return label_ok and attacks_ok


@icontract.ensure(
    lambda dmap, op: _has_table_effect(dmap, op),
    "Table 3: Undermine leaves its target weakened, Revise abandoned, Resolve resolved, "
    "each attacked by the operation's evidence or attackers",
)
def apply_operation(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    """Apply one operation to ``dmap`` inside its open transaction.

    Raises
    ------
    PreconditionViolation
        The operation's precondition does not hold; ``dmap`` is untouched by it.
    """
    violation = find_violation(op, dmap.view(), speaker)
    if violation is not None:
        raise violation
    match op:
        case Observe():
            _register(dmap, op.id, op.claim, op.kind, speaker, op.depends_on)
            dmap.commit(speaker, op.id)
        case Hypothesize():
            _register(dmap, op.id, op.claim, op.kind, speaker, op.depends_on)
        case Question():
            _register(dmap, op.id, op.claim, Kind.QUESTION, speaker, op.depends_on)
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
        case ExpandAwareness():
            for agent in op.agents or dmap.agents:
                dmap.make_aware(agent, op.atom)
    # The attack and label effects are the operation table's (Lemma 2.2's proof).
    rule, target = RULES[op.operation], _target(op)
    if target is not None:
        if rule.attacks_target:
            for attacker in _attackers(op):
                dmap.add_attack(attacker, target)
        if rule.target_becomes is not None:
            dmap.set_standing(target, rule.target_becomes)
