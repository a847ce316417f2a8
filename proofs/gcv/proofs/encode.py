"""The engine's transition relation in Z3, built from its operation table.

Records are an uninterpreted sort, so every statement proved here holds for maps
of every size.  A state is four arrays, as in Definition 2.1: ``ex`` (Args_t),
``st`` (the standing labels), ``att`` (Att_t) and ``dep`` (Dep_t, with
``dep[a, b]`` meaning b is in Dep(a)).  Each operation is a direct transition:
its precondition is a conjunction of named clauses and its effect is a new state
written with Store and Lambda, so no frame axioms are needed.

What ties this to the Python engine: the operations and their order are the engine's
rules (:data:`gcv.reference.operations.ORDER`), read when a transition is built, and
the registration, label, attack and target clauses are read from each rule's row of
Table 3, the row its checks and its effect read; the operation-specific structure
(which parameters are registered, cited or attacked) follows the rows of
``spec/gcv/spec/transition.py`` (Table 3's clauses), and ``tests/test_proofs_tied.py``
checks on sampled concrete steps that the encoding, the engine and the spec
transition accept the same operations and reach the same states.  That check
samples; it does not prove the encoding equal to either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import z3

from gcv.reference import operations
from gcv.reference.records import GOOD_STANDING, Standing
from gcv.reference.rules import Registration, Row

__all__ = [
    "LABEL",
    "LABELS",
    "OPERATIONS",
    "REC",
    "EncodedState",
    "Params",
    "Rules",
    "Transition",
    "conflict_free",
    "good",
    "initial",
    "no_return_to_good_standing",
    "rows",
    "transition",
    "weakened_attacked",
    "well_formed",
]

REC = z3.DeclareSort("Rec")
LABEL, _LABEL_CONSTANTS = z3.EnumSort("Label", [s.value for s in Standing])
LABELS: Mapping[Standing, z3.ExprRef] = dict(zip(Standing, _LABEL_CONSTANTS, strict=True))

_x, _y = z3.Consts("x y", REC)


def good(label: z3.ExprRef) -> z3.BoolRef:
    """``label`` is one of S_t's labels (active or resolved)."""
    return z3.Or([label == LABELS[s] for s in sorted(GOOD_STANDING, key=lambda s: s.value)])


@dataclass(frozen=True)
class EncodedState:
    """D_t's argumentation part in Z3: Args_t, st_t, Att_t, Dep_t as arrays over records
    (the spec's ``transition.State`` and the engine's ``DependencyMap`` hold the whole of
    D_t)."""

    ex: z3.ArrayRef
    st: z3.ArrayRef
    att: z3.ArrayRef
    dep: z3.ArrayRef

    @staticmethod
    def fresh(prefix: str) -> EncodedState:
        """A state of fresh, unconstrained arrays."""
        return EncodedState(
            z3.Array(f"{prefix}.ex", REC, z3.BoolSort()),
            z3.Array(f"{prefix}.st", REC, LABEL),
            z3.Array(f"{prefix}.att", REC, REC, z3.BoolSort()),
            z3.Array(f"{prefix}.dep", REC, REC, z3.BoolSort()),
        )


def initial(s: EncodedState) -> z3.BoolRef:
    """D_0: no records, no attacks, no Dep links."""
    return z3.And(
        z3.ForAll([_x], z3.Not(s.ex[_x])),
        z3.ForAll([_x, _y], z3.And(z3.Not(s.att[_x, _y]), z3.Not(s.dep[_x, _y]))),
    )


def well_formed(s: EncodedState) -> z3.BoolRef:
    """Att_t and Dep_t relate registered records only (Definition 2.1)."""
    return z3.ForAll(
        [_x, _y],
        z3.Implies(z3.Or(s.att[_x, _y], s.dep[_x, _y]), z3.And(s.ex[_x], s.ex[_y])),
    )


def conflict_free(s: EncodedState) -> z3.BoolRef:
    """Lemma 2.2: no argument of S_t is the target of an attack."""
    return z3.ForAll([_x, _y], z3.Implies(z3.And(s.att[_x, _y], s.ex[_y]), z3.Not(good(s.st[_y]))))


def weakened_attacked(s: EncodedState) -> z3.BoolRef:
    """Every registered weakened record has a recorded attacker: a weakened label is set
    only by Undermine, which adds the attack (proof of Lemma 2.2)."""
    return z3.ForAll(
        [_x],
        z3.Implies(
            z3.And(s.ex[_x], s.st[_x] == LABELS[Standing.WEAKENED]),
            z3.Exists([_y], s.att[_y, _x]),
        ),
    )


def no_return_to_good_standing(before: EncodedState, after: EncodedState) -> z3.BoolRef:
    """No registered weakened or abandoned record is in S_t afterwards."""
    return z3.ForAll(
        [_x],
        z3.Implies(z3.And(before.ex[_x], z3.Not(good(before.st[_x]))), z3.Not(good(after.st[_x]))),
    )


@dataclass(frozen=True)
class Params:
    """An operation's parameters, as fresh constants: one of each shape any operation uses."""

    new: z3.ExprRef  # the record an Observe, Hypothesize or Question registers
    target: z3.ExprRef  # Support, Undermine, Revise, Resolve
    evidence: z3.ExprRef  # Support, Undermine
    registers_evidence: z3.BoolRef  # the evidence carries a claim: it is registered
    cited: z3.ArrayRef  # depends_on / evidence_depends_on
    attackers: z3.ArrayRef  # Revise
    subsumes: z3.ArrayRef  # Resolve
    premises: z3.ArrayRef  # Resolve

    @staticmethod
    def fresh(prefix: str) -> Params:
        """Fresh parameters."""
        sets = [
            z3.Array(f"{prefix}.{n}", REC, z3.BoolSort())
            for n in ("cited", "attackers", "subsumes", "premises")
        ]
        return Params(
            z3.Const(f"{prefix}.new", REC),
            z3.Const(f"{prefix}.target", REC),
            z3.Const(f"{prefix}.evidence", REC),
            z3.Bool(f"{prefix}.registers_evidence"),
            *sets,
        )


@dataclass(frozen=True)
class Transition:
    """One operation: its precondition as named clauses, and the state it leads to."""

    operation: str
    clauses: dict[str, z3.BoolRef]
    after: EncodedState
    dropped: frozenset[str] = field(default_factory=frozenset)

    @property
    def precondition(self) -> z3.BoolRef:
        """The conjunction of the clauses that have not been dropped."""
        kept = [c for name, c in self.clauses.items() if name not in self.dropped]
        return z3.And(kept) if kept else z3.BoolVal(True)

    def without(self, clause: str) -> Transition:
        """The same transition with one precondition clause removed."""
        assert clause in self.clauses, f"{self.operation} has no clause {clause!r}"
        return Transition(self.operation, self.clauses, self.after, self.dropped | {clause})


# -- clause builders ----------------------------------------------------------------


def _all_registered(s: EncodedState, members: z3.ArrayRef) -> z3.BoolRef:
    return z3.ForAll([_x], z3.Implies(members[_x], s.ex[_x]))


def _all_good(s: EncodedState, members: z3.ArrayRef) -> z3.BoolRef:
    return z3.ForAll([_x], z3.Implies(members[_x], good(s.st[_x])))


def _excludes(members: z3.ArrayRef, record: z3.ExprRef) -> z3.BoolRef:
    return z3.Not(members[record])


OPERATIONS: tuple[str, ...] = tuple(rule.name for rule in operations.ORDER)
"""The operations' names, in the engine's order."""

Rules = Mapping[str, Row]
"""Each operation's row of Table 3, by name."""


def rows() -> Rules:
    """The rows of the engine's rules, as :data:`~gcv.reference.operations.ORDER` holds
    them now."""
    return {rule.name: rule.row for rule in operations.ORDER}


def _target_clauses(rules: Rules, s: EncodedState, op: str, t: z3.ExprRef) -> dict[str, z3.BoolRef]:
    rule = rules[op]
    labels = sorted(rule.target_standing, key=lambda label: label.value)
    clauses = {
        "target registered": s.ex[t],
        "target standing": z3.Or([s.st[t] == LABELS[label] for label in labels]),
    }
    if rule.target_unattacked:
        clauses["target unattacked"] = z3.ForAll([_x], z3.Not(s.att[_x, t]))
    return clauses


# -- effect builders ----------------------------------------------------------------


def _register(s: EncodedState, record: z3.ExprRef, supports: z3.ArrayRef) -> EncodedState:
    """A new active record resting on ``supports`` (apply._register)."""
    dep = z3.Lambda([_x, _y], z3.Or(s.dep[_x, _y], z3.And(_x == record, supports[_y])))
    return EncodedState(
        z3.Store(s.ex, record, True), z3.Store(s.st, record, LABELS[Standing.ACTIVE]), s.att, dep
    )


def _when(condition: z3.BoolRef, then: EncodedState, otherwise: EncodedState) -> EncodedState:
    return EncodedState(
        z3.If(condition, then.ex, otherwise.ex),
        z3.If(condition, then.st, otherwise.st),
        z3.If(condition, then.att, otherwise.att),
        z3.If(condition, then.dep, otherwise.dep),
    )


def _with_dep(
    s: EncodedState, extra: Callable[[z3.ExprRef, z3.ExprRef], z3.BoolRef]
) -> EncodedState:
    return EncodedState(s.ex, s.st, s.att, z3.Lambda([_x, _y], z3.Or(s.dep[_x, _y], extra(_x, _y))))


def _table_effect(
    rules: Rules, s: EncodedState, op: str, target: z3.ExprRef, attackers: z3.ArrayRef | None
) -> EncodedState:
    """The label and attack effects of the table's row for ``op`` on ``target``.

    ``attackers`` is what the engine attacks with (``apply._attackers``: Undermine's
    evidence, Revise's attackers, nothing for Support and Resolve), so a row that sets
    ``attacks_target`` where there is no attacker adds nothing, as in the engine."""
    rule = rules[op]
    att = s.att
    if rule.attacks_target and attackers is not None:
        att = z3.Lambda([_x, _y], z3.Or(s.att[_x, _y], z3.And(attackers[_x], _y == target)))
    st = (
        s.st if rule.target_becomes is None else z3.Store(s.st, target, LABELS[rule.target_becomes])
    )
    return EncodedState(s.ex, st, att, s.dep)


def _singleton(record: z3.ExprRef) -> z3.ArrayRef:
    return z3.Lambda([_x], _x == record)


# -- the eight operations ---------------------------------------------------------------


def _registering(rules: Rules, s: EncodedState, p: Params, op: str) -> Transition:
    assert rules[op].registers is Registration.ALWAYS
    clauses = {
        "new record fresh": z3.Not(s.ex[p.new]),
        "dependencies registered": _all_registered(s, p.cited),
        "dependencies exclude the new record": _excludes(p.cited, p.new),
    }
    return Transition(op, clauses, _register(s, p.new, p.cited))


def _question(rules: Rules, s: EncodedState, p: Params) -> Transition:
    # No record, and its issue's id is checked against none (T3.question.issue-ids-apart);
    # (Args, st, Att, Dep) are unchanged.
    assert rules["question"].registers is Registration.NEVER
    return Transition("question", {}, s)


def _evidence(rules: Rules, s: EncodedState, p: Params, op: str) -> Transition:
    assert rules[op].registers is Registration.EVIDENCE
    e, t = p.evidence, p.target
    clauses = _target_clauses(rules, s, op, t) | {
        "evidence is not the target": e != t,
        "new evidence fresh": z3.Implies(p.registers_evidence, z3.Not(s.ex[e])),
        "new evidence's dependencies registered": z3.Implies(
            p.registers_evidence, _all_registered(s, p.cited)
        ),
        "new evidence's dependencies exclude it": z3.Implies(
            p.registers_evidence, _excludes(p.cited, e)
        ),
        "reused evidence registered": z3.Implies(z3.Not(p.registers_evidence), s.ex[e]),
    }
    if rules[op].grounds_in_good_standing:
        clauses["reused evidence in S_t"] = z3.Implies(z3.Not(p.registers_evidence), good(s.st[e]))
    registered = _when(p.registers_evidence, _register(s, e, p.cited), s)
    if op == "support":  # the evidence joins Dep(target)
        registered = _with_dep(registered, lambda a, b: z3.And(a == t, b == e))
    attackers = _singleton(e) if op == "undermine" else None
    return Transition(op, clauses, _table_effect(rules, registered, op, t, attackers))


def _revise(rules: Rules, s: EncodedState, p: Params) -> Transition:
    op = "revise"
    clauses = _target_clauses(rules, s, op, p.target) | {
        "attackers registered": _all_registered(s, p.attackers),
        "attackers exclude the target": _excludes(p.attackers, p.target),
    }
    if rules[op].grounds_in_good_standing:
        clauses["attackers in S_t"] = _all_good(s, p.attackers)
    return Transition(op, clauses, _table_effect(rules, s, op, p.target, p.attackers))


def _resolve(rules: Rules, s: EncodedState, p: Params) -> Transition:
    op, t = "resolve", p.target
    clauses = _target_clauses(rules, s, op, t) | {
        "subsumed registered": _all_registered(s, p.subsumes),
        "subsumed exclude the target": _excludes(p.subsumes, t),
        "premises registered": _all_registered(s, p.premises),
        "premises exclude the target": _excludes(p.premises, t),
    }
    if rules[op].grounds_in_good_standing:
        clauses["premises in S_t"] = _all_good(s, p.premises)
    linked = _with_dep(
        s, lambda a, b: z3.Or(z3.And(p.subsumes[a], b == t), z3.And(a == t, p.premises[b]))
    )
    return Transition(op, clauses, _table_effect(rules, linked, op, t, None))


def transition(op: str, s: EncodedState, p: Params, rules: Rules | None = None) -> Transition:
    """The transition of the operation ``op`` (its name) from state ``s`` with parameters
    ``p``, under ``rules`` (the engine's rows, read when called, unless given).

    Expand-Awareness changes only M_t's vocabulary, which this encoding does not
    model: on (Args, st, Att, Dep) it is the identity.
    """
    rules = rows() if rules is None else rules
    match op:
        case "observe" | "hypothesize":
            return _registering(rules, s, p, op)
        case "question":
            return _question(rules, s, p)
        case "support" | "undermine":
            return _evidence(rules, s, p, op)
        case "revise":
            return _revise(rules, s, p)
        case "resolve":
            return _resolve(rules, s, p)
        case "expand-awareness":
            return Transition(op, {}, s)
    raise AssertionError(f"unknown operation {op}")
