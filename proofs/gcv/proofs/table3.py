"""Table 3 stated a second time, from ``spec/gcv/spec/normative.md`` and
``spec/gcv/spec/transition.py``.

:mod:`gcv.proofs.encode` builds each operation's transition from the engine's table (the
rows of :data:`gcv.reference.operations.ORDER`). This module states the same transitions
without reading that table: each precondition clause is named by the ``spec/gcv/spec/transition.py``
clause it states (with the field, for the clauses several fields share), the labels a
target may carry are the spec's ``*_TARGETS`` sets, and each next state is written
pointwise, one Lambda per component, rather than by Store and composition. The ``table-3``
obligation proves the two equal for every state and every parameter (unbounded), so a
change to a row of the engine's table that changes its transition is a failed proof; and
the non-vacuity twins of the other obligations, built from this statement, do not depend on
the table's current rows.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import z3

from gcv.proofs.encode import LABELS, REC, EncodedState, Params, Transition, good
from gcv.reference.records import Standing
from gcv.spec import transition as spec
from gcv.spec.clauses import (
    CITED_REGISTERED,
    EVIDENCE_EXISTING,
    EVIDENCE_NOT_TARGET,
    ID_NEW,
    NO_SELF_CITATION,
    PREMISES_GOOD,
    RESOLVE_TARGET,
    RESOLVE_UNATTACKED,
    REVISE_ATTACKERS,
    REVISE_TARGET,
    SUPPORT_TARGET,
    UNDERMINE_TARGET,
)

__all__ = ["stated"]

_x, _y = z3.Consts("x y", REC)

Pairs = Callable[[z3.ExprRef, z3.ExprRef], z3.BoolRef]


def _labelled(s: EncodedState, record: z3.ExprRef, labels: Collection[str]) -> z3.BoolRef:
    """``record`` carries one of the spec's labels ``labels``."""
    return z3.Or([s.st[record] == LABELS[Standing(label)] for label in sorted(labels)])


def _every(members: z3.ArrayRef, holds: Callable[[z3.ExprRef], z3.BoolRef]) -> z3.BoolRef:
    return z3.ForAll([_x], z3.Implies(members[_x], holds(_x)))


def _next(
    s: EncodedState,
    *,
    joins: Callable[[z3.ExprRef], z3.BoolRef] = lambda x: z3.BoolVal(False),
    label: Callable[[z3.ExprRef, z3.ExprRef], z3.ExprRef] | None = None,
    attacks: Pairs = lambda x, y: z3.BoolVal(False),
    links: Pairs = lambda x, y: z3.BoolVal(False),
) -> EncodedState:
    """The state after: records ``joins`` join Args_t (T3.register.new-active: labelled
    active), ``label(x, old)`` gives every other label, ``attacks`` and ``links`` are
    added to Att_t and Dep_t."""
    relabel = label or (lambda x, old: old)
    return EncodedState(
        z3.Lambda([_x], z3.Or(s.ex[_x], joins(_x))),
        z3.Lambda([_x], z3.If(joins(_x), LABELS[Standing.ACTIVE], relabel(_x, s.st[_x]))),
        z3.Lambda([_x, _y], z3.Or(s.att[_x, _y], attacks(_x, _y))),
        z3.Lambda([_x, _y], z3.Or(s.dep[_x, _y], links(_x, _y))),
    )


def _becomes(
    target: z3.ExprRef, standing: Standing
) -> Callable[[z3.ExprRef, z3.ExprRef], z3.ExprRef]:
    return lambda x, old: z3.If(x == target, LABELS[standing], old)


def _new_record(
    s: EncodedState, new: z3.ExprRef, cited: z3.ArrayRef, field: str
) -> dict[str, z3.BoolRef]:
    """The clauses of a record an operation registers, resting on ``cited``."""
    return {
        f"{ID_NEW}: {field}": z3.Not(s.ex[new]),
        f"{CITED_REGISTERED}: {field}'s dependencies": _every(cited, lambda x: s.ex[x]),
        f"{NO_SELF_CITATION}: {field}'s dependencies": z3.Not(cited[new]),
    }


def _registering(s: EncodedState, p: Params, op: str) -> Transition:
    # T3.register.*: Observe and Hypothesize.
    after = _next(s, joins=lambda x: x == p.new, links=lambda x, y: z3.And(x == p.new, p.cited[y]))
    return Transition(op, _new_record(s, p.new, p.cited, "id"), after)


def _question(s: EncodedState, p: Params) -> Transition:
    # T3.question.registers-record: no record; T3.question.issue-ids-apart: its issue's id
    # is checked against none.
    return Transition("question", {}, s)


def _target(
    s: EncodedState, t: z3.ExprRef, clause: str, labels: Collection[str]
) -> dict[str, z3.BoolRef]:
    return {
        f"{CITED_REGISTERED}: target": s.ex[t],
        clause: _labelled(s, t, labels),
    }


def _evidence_clauses(s: EncodedState, p: Params) -> dict[str, z3.BoolRef]:
    """T3.evidence.*: new evidence is registered, existing evidence is in S_t."""
    registers, e = p.registers_evidence, p.evidence
    new = {
        name: z3.Implies(registers, c) for name, c in _new_record(s, e, p.cited, "evidence").items()
    }
    return {
        EVIDENCE_NOT_TARGET: e != p.target,
        **new,
        EVIDENCE_EXISTING: z3.Implies(z3.Not(registers), z3.And(s.ex[e], good(s.st[e]))),
    }


def _evidence_joins(p: Params) -> Callable[[z3.ExprRef], z3.BoolRef]:
    return lambda x: z3.And(p.registers_evidence, x == p.evidence)


def _evidence_links(p: Params) -> Pairs:
    return lambda x, y: z3.And(p.registers_evidence, x == p.evidence, p.cited[y])


def _support(s: EncodedState, p: Params) -> Transition:
    clauses = _target(s, p.target, SUPPORT_TARGET, spec.SUPPORT_TARGETS)
    # T3.support.evidence-joins-dep; T3.support.no-label-change: no label, no attack.
    after = _next(
        s,
        joins=_evidence_joins(p),
        links=lambda x, y: z3.Or(_evidence_links(p)(x, y), z3.And(x == p.target, y == p.evidence)),
    )
    return Transition("support", clauses | _evidence_clauses(s, p), after)


def _undermine(s: EncodedState, p: Params) -> Transition:
    clauses = _target(s, p.target, UNDERMINE_TARGET, spec.UNDERMINE_TARGETS)
    # T3.undermine.attack-weakened.
    after = _next(
        s,
        joins=_evidence_joins(p),
        label=_becomes(p.target, Standing.WEAKENED),
        attacks=lambda x, y: z3.And(x == p.evidence, y == p.target),
        links=_evidence_links(p),
    )
    return Transition("undermine", clauses | _evidence_clauses(s, p), after)


def _revise(s: EncodedState, p: Params) -> Transition:
    t, attackers = p.target, p.attackers
    clauses = _target(s, t, REVISE_TARGET, spec.REVISE_TARGETS) | {
        f"{CITED_REGISTERED}: attackers": _every(attackers, lambda x: s.ex[x]),
        f"{NO_SELF_CITATION}: attackers": z3.Not(attackers[t]),
        REVISE_ATTACKERS: _every(attackers, lambda x: good(s.st[x])),
    }
    # T3.revise.attacks-abandoned.
    after = _next(
        s,
        label=_becomes(t, Standing.ABANDONED),
        attacks=lambda x, y: z3.And(attackers[x], y == t),
    )
    return Transition("revise", clauses, after)


def _resolve(s: EncodedState, p: Params) -> Transition:
    t = p.target
    clauses = _target(s, t, RESOLVE_TARGET, spec.RESOLVE_TARGETS) | {
        RESOLVE_UNATTACKED: z3.ForAll([_x], z3.Not(s.att[_x, t])),
        f"{CITED_REGISTERED}: subsumes": _every(p.subsumes, lambda x: s.ex[x]),
        f"{NO_SELF_CITATION}: subsumes": z3.Not(p.subsumes[t]),
        f"{CITED_REGISTERED}: premises": _every(p.premises, lambda x: s.ex[x]),
        f"{NO_SELF_CITATION}: premises": z3.Not(p.premises[t]),
        PREMISES_GOOD: _every(p.premises, lambda x: good(s.st[x])),
    }
    # T3.resolve.resolved, T3.resolve.subsumes-dep, T3.resolve.premises-join-dep.
    after = _next(
        s,
        label=_becomes(t, Standing.RESOLVED),
        links=lambda x, y: z3.Or(z3.And(p.subsumes[x], y == t), z3.And(x == t, p.premises[y])),
    )
    return Transition("resolve", clauses, after)


def stated(op: str, s: EncodedState, p: Params) -> Transition:
    """Table 3's transition of ``op`` from ``s`` with ``p``, as ``spec/gcv/spec/normative.md``
    states it.  Expand-Awareness changes only M_t (del.expand-awareness): the identity here."""
    match op:
        case "observe" | "hypothesize":
            return _registering(s, p, op)
        case "question":
            return _question(s, p)
        case "support":
            return _support(s, p)
        case "undermine":
            return _undermine(s, p)
        case "revise":
            return _revise(s, p)
        case "resolve":
            return _resolve(s, p)
        case "expand-awareness":
            return Transition(op, {}, s)
    raise AssertionError(f"unknown operation {op}")
