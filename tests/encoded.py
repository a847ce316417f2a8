"""A concrete step checked against the Z3 encoding's transition relation (proofs/encode.py).

The encoded relation is instantiated on a finite universe (the registered records and the
identifiers the turn names) with the state fixed to a concrete map and the parameters to
the operations' arguments; the system that took the step must agree with it: the encoded
preconditions hold exactly when it accepts, and the encoded next state is then its next
state.  A turn of several operations is the encoded transitions composed in application
order, each reading the state the previous one left (A.3, "State composition").

Agents and awareness are outside the encoded state, so refusals on their account
(``unknown-agent``, ``already-aware``, a speaker dissenting from their own decision) are not
compared.  ``tests/test_proofs_tied.py`` and ``tests/refinement.py`` both check through here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

import z3

from proofs.encode import LABELS, REC, Params, Rules, State, transition
from proofs.solver import Outcome, prove
from reference.depmap import DependencyMap
from reference.operations import (
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from reference.records import Standing
from reference.rules import RULES
from spec import transition as spec_transition

_x = z3.Const("x", REC)


def named(op: Operation) -> set[str]:
    """The record identifiers ``op`` names."""
    match op:
        case Observe() | Hypothesize() | Question():
            return {op.id, *op.depends_on}
        case Support() | Undermine():
            return {op.target, op.evidence, *op.evidence_depends_on}
        case Revise():
            return {op.target, *op.attackers}
        case Resolve():
            return {op.target, *op.subsumes, *op.premises}
    return set()


@dataclasses.dataclass(frozen=True)
class Concrete:
    """The parts of D_t the encoding models: Args_t with st_t, Dep and Att as pairs."""

    standing: dict[str, Standing]
    dep: frozenset[tuple[str, str]]
    att: frozenset[tuple[str, str]]

    @classmethod
    def of_engine(cls, dmap: DependencyMap) -> Concrete:
        """The engine's map."""
        return cls(
            dict(dmap.standing),
            frozenset((a, b) for a, bs in dmap.dep.items() for b in bs),
            frozenset((a, b) for a, bs in dmap.att.items() for b in bs),
        )

    @classmethod
    def of_spec(cls, state: spec_transition.State) -> Concrete:
        """The spec transition's map."""
        standing = {r: Standing(rec.standing) for r, rec in state.records.items()}
        return cls(standing, frozenset(state.dep), frozenset(state.att))


class Universe:
    """A finite interpretation of the record sort."""

    def __init__(self, names: set[str]) -> None:
        self.names = sorted(names) or ["nobody"]
        self.const = {n: z3.Const(f"u.{n}", REC) for n in self.names}

    def axioms(self) -> list[z3.BoolRef]:
        """The constants are distinct and are every record."""
        consts = list(self.const.values())
        return [
            z3.Distinct(consts) if len(consts) > 1 else z3.BoolVal(True),
            z3.ForAll([_x], z3.Or([_x == c for c in consts])),
        ]

    def members(self, names: Iterable[str]) -> z3.ArrayRef:
        """The set of the records ``names``."""
        chosen = [self.const[n] for n in names]
        return z3.Lambda([_x], z3.Or([_x == c for c in chosen]) if chosen else z3.BoolVal(False))

    def state(self, s: State, m: Concrete) -> list[z3.BoolRef]:
        """Constraints fixing ``s`` to the concrete map."""
        c = self.const
        out = []
        for a in self.names:
            out.append(s.ex[c[a]] == (a in m.standing))
            if a in m.standing:
                out.append(s.st[c[a]] == LABELS[m.standing[a]])
            for b in self.names:
                out.append(s.dep[c[a], c[b]] == ((a, b) in m.dep))
                out.append(s.att[c[a], c[b]] == ((a, b) in m.att))
        return out

    def params(self, p: Params, op: Operation) -> list[z3.BoolRef]:
        """Constraints fixing the parameters to the operation's arguments."""
        c, first = self.const, self.const[self.names[0]]
        new = target = evidence = first
        registers = False
        cited: Sequence[str] = ()
        attackers: Sequence[str] = ()
        subsumes: Sequence[str] = ()
        premises: Sequence[str] = ()
        match op:
            case Observe() | Hypothesize() | Question():
                new, cited = c[op.id], op.depends_on
            case Support() | Undermine():
                target, evidence = c[op.target], c[op.evidence]
                registers, cited = op.evidence_claim is not None, op.evidence_depends_on
            case Revise():
                target, attackers = c[op.target], op.attackers
            case Resolve():
                target, subsumes, premises = c[op.target], op.subsumes, op.premises
        eq = lambda a, b: z3.ForAll([_x], a[_x] == b[_x])  # noqa: E731
        return [
            p.new == new,
            p.target == target,
            p.evidence == evidence,
            p.registers_evidence == registers,
            eq(p.cited, self.members(cited)),
            eq(p.attackers, self.members(attackers)),
            eq(p.subsumes, self.members(subsumes)),
            eq(p.premises, self.members(premises)),
        ]


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A refused turn: the error code and field, and the refused operation's position in
    the application order."""

    code: str
    field: str | None
    position: int = 0

    @property
    def modelled(self) -> bool:
        """Whether the encoding models the clause that refused (not agents or awareness)."""
        return self.code not in ("unknown-agent", "already-aware") and self.field != "dissenters"


def check(
    before: Concrete,
    ops: Sequence[Operation],
    after: Concrete | Refusal,
    rules: Rules = RULES,
) -> bool:
    """``ops`` in application order from ``before`` reached ``after`` (the next map, or the
    refusal); assert the encoding agrees.  False when the refusal is not modelled."""
    if isinstance(after, Refusal) and not after.modelled:
        return False
    names = set(before.standing).union(*(named(op) for op in ops))
    u = Universe(names)
    s = State.fresh("s")
    context = [*u.axioms(), *u.state(s, before)]
    applied = ops if isinstance(after, Concrete) else ops[: after.position + 1]
    preconditions = []
    for position, op in enumerate(applied):
        p = Params.fresh(f"p{position}")
        t = transition(op.operation, s, p, rules)
        context += u.params(p, op)
        preconditions.append(t.precondition)
        s = t.after
    if isinstance(after, Refusal):
        *allowed, refused = preconditions
        held = prove(context, z3.And(allowed), timeout_ms=20_000).outcome
        assert held is Outcome.PROVED, f"{ops}: the encoding refuses before {after.code}"
        outcome = prove(context, z3.Not(refused), timeout_ms=20_000).outcome
        assert outcome is Outcome.PROVED, f"{ops} is refused ({after.code}); the encoding allows it"
        return True
    outcome = prove(context, z3.And(preconditions), timeout_ms=20_000).outcome
    assert outcome is Outcome.PROVED, (
        f"{ops} is accepted; the encoding's precondition does not hold"
    )
    same = z3.And(u.state(s, after))
    assert prove(context, same, timeout_ms=20_000).outcome is Outcome.PROVED, (
        f"after {ops} the encoded state differs from the system's"
    )
    return True
