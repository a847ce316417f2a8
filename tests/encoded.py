"""A concrete step checked against the Z3 encoding's transition relation
(proofs/gcv/proofs/encode.py).

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
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import product

import z3

from gcv.proofs.encode import LABELS, REC, EncodedState, Params, Rules, rows, transition
from gcv.proofs.solver import Outcome, prove
from gcv.reference.depmap import DependencyMap
from gcv.reference.operations import (
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.reference.records import Standing
from gcv.spec import transition as spec_transition

ROWS = rows()
"""The engine's rows of Table 3, by operation."""

_x = z3.Const("x", REC)


def named(op: Operation) -> set[str]:
    """The record identifiers ``op`` names."""
    match op:
        case Observe() | Hypothesize():
            return {op.id, *op.depends_on}
        case Question():
            return {op.id}
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

    def __hash__(self) -> int:
        return hash((frozenset(self.standing.items()), self.dep, self.att))

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
        d = state.dmap
        return cls({r: Standing(s) for r, s in d.standing.items()}, d.dep, d.att)


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

    def state(self, s: EncodedState, m: Concrete) -> list[z3.BoolRef]:
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

    def arguments(self, p: Params, op: Operation) -> _Substitutions:
        """Each parameter of ``p`` paired with the value the operation gives it: a record's
        constant, a Boolean, a set of records (unused parameters: the first record, empty
        sets)."""
        c, first = self.const, self.const[self.names[0]]
        records = {"new": first, "target": first, "evidence": first}
        registers = False
        sets: dict[str, Sequence[str]] = {}
        match op:
            case Observe() | Hypothesize():
                records["new"], sets["cited"] = c[op.id], op.depends_on
            case Question():
                records["new"] = c[op.id]
            case Support() | Undermine():
                records["target"], records["evidence"] = c[op.target], c[op.evidence]
                registers, sets["cited"] = op.evidence_claim is not None, op.evidence_depends_on
            case Revise():
                records["target"], sets["attackers"] = c[op.target], op.attackers
            case Resolve():
                records["target"] = c[op.target]
                sets["subsumes"], sets["premises"] = op.subsumes, op.premises
        pairs: _Substitutions = [(getattr(p, name), value) for name, value in records.items()]
        pairs.append((p.registers_evidence, z3.BoolVal(registers)))
        for name in ("cited", "attackers", "subsumes", "premises"):
            pairs.append((getattr(p, name), self.members(sets.get(name, ()))))
        return pairs

    def params(self, p: Params, op: Operation) -> list[z3.BoolRef]:
        """Constraints fixing the parameters to the operation's arguments."""
        return [
            z3.ForAll([_x], parameter[_x] == value[_x])
            if z3.is_array(parameter)
            else parameter == value
            for parameter, value in self.arguments(p, op)
        ]


_Substitutions = list[tuple[z3.ExprRef, z3.ExprRef]]


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A refused turn: the error code and field, and the refused operation's position in
    the application order."""

    code: str
    field: str | None
    position: int = 0

    @property
    def modelled(self) -> bool:
        """Whether the encoding models the clause that refused (not agents, awareness, or
        M_t: an announcement true at no world)."""
        unmodelled = ("unknown-agent", "already-aware", "no-surviving-world")
        return self.code not in unmodelled and self.field != "dissenters"


def check(
    before: Concrete,
    ops: Sequence[Operation],
    after: Concrete | Refusal,
    rules: Rules = ROWS,
) -> bool:
    """``ops`` in application order from ``before`` reached ``after`` (the next map, or the
    refusal); assert the encoding agrees.  False when the refusal is not modelled."""
    if isinstance(after, Refusal) and not after.modelled:
        return False
    names = set(before.standing).union(*(named(op) for op in ops))
    u = Universe(names)
    s = EncodedState.fresh("s")
    context = [*u.axioms(), *u.state(s, before)]
    applied = ops if isinstance(after, Concrete) else ops[: after.position + 1]
    preconditions = []
    for position, op in enumerate(applied):
        p = Params.fresh(f"p{position}")
        t = transition(op.name, s, p, rules)
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


def _grounded(e: z3.ExprRef, consts: Sequence[z3.ExprRef]) -> z3.ExprRef:
    """``e`` with each quantifier over records replaced by its instances at ``consts``: on
    a universe that is exactly those records the two are equivalent, and the solver decides
    the quantifier-free form (with quantifiers it answered unknown)."""
    if z3.is_quantifier(e) and not e.is_lambda():
        body = _grounded(e.body(), consts)
        instances = [
            z3.substitute_vars(body, *reversed(chosen))
            for chosen in product(consts, repeat=e.num_vars())
        ]
        return z3.And(instances) if e.is_forall() else z3.Or(instances)
    if z3.is_app(e) and e.num_args() > 0:
        return e.decl()(*(_grounded(child, consts) for child in e.children()))
    return e


class _Choices:
    """Parameters over a finite universe as plain constants: an element as a choice among
    the universe's constants, a set as one Boolean per record (which keeps the solver's
    enumeration decidable, where sets as arrays left it unknown)."""

    def __init__(self, u: Universe, p: Params) -> None:
        self.u = u
        self.constraints = [
            z3.Or([const == c for c in u.const.values()]) for const in (p.new, p.target, p.evidence)
        ]
        self.flags: dict[str, dict[str, z3.BoolRef]] = {}
        for name in ("cited", "attackers", "subsumes", "premises"):
            array = getattr(p, name)
            flags = {n: z3.Bool(f"{name}.{n}") for n in u.names}
            self.flags[name] = flags
            chosen = z3.Or([z3.And(_x == u.const[n], flags[n]) for n in u.names])
            self.constraints.append(z3.ForAll([_x], array[_x] == chosen))

    def element(self, model: z3.ModelRef, const: z3.ExprRef) -> str:
        """The record ``const`` is in ``model``."""
        return next(n for n in self.u.names if z3.is_true(model.eval(const == self.u.const[n])))

    def members(self, model: z3.ModelRef, name: str) -> tuple[str, ...]:
        """The records of the set parameter ``name`` in ``model``."""
        flags = self.flags[name]
        return tuple(n for n in self.u.names if z3.is_true(model.eval(flags[n])))

    def other(self, model: z3.ModelRef, const: z3.ExprRef) -> z3.BoolRef:
        """``const`` is another record than in ``model``."""
        return const != self.u.const[self.element(model, const)]

    def other_set(self, model: z3.ModelRef, name: str) -> z3.BoolRef:
        """The set parameter ``name`` differs from ``model``'s."""
        chosen = set(self.members(model, name))
        return z3.Or([flag != (n in chosen) for n, flag in self.flags[name].items()])


def _decoded(kind: str, c: _Choices, p: Params, m: z3.ModelRef) -> tuple[Operation, z3.BoolRef]:
    """The operation a model of the parameters names, and the clause excluding it."""
    match kind:
        case "observe":
            op: Operation = Observe(c.element(m, p.new), "c", depends_on=c.members(m, "cited"))
        case "hypothesize":
            op = Hypothesize(c.element(m, p.new), "c", depends_on=c.members(m, "cited"))
        case "question":
            op = Question(c.element(m, p.new), "c")
        case "revise":
            return Revise(c.element(m, p.target), c.members(m, "attackers")), z3.Or(
                c.other(m, p.target), c.other_set(m, "attackers")
            )
        case "resolve":
            # Premises belong to a decision (clause T3.resolve.decision-fields).
            premises = c.members(m, "premises")
            op = Resolve(c.element(m, p.target), c.members(m, "subsumes"), bool(premises), premises)
            excluded = [c.other(m, p.target), c.other_set(m, "subsumes")]
            return op, z3.Or(*excluded, c.other_set(m, "premises"))
        case "support" | "undermine":
            registers = z3.is_true(m.eval(p.registers_evidence))
            shape = Support if kind == "support" else Undermine
            op = shape(
                c.element(m, p.target),
                c.element(m, p.evidence),
                "e" if registers else None,
                c.members(m, "cited") if registers else (),
            )
            fresh = [p.registers_evidence != registers, c.other(m, p.target)]
            fresh.append(c.other(m, p.evidence))
            return op, z3.Or(*fresh, z3.And(p.registers_evidence, c.other_set(m, "cited")))
        case _:
            raise AssertionError(f"{kind} has no parameters in the encoding")
    return op, z3.Or(c.other(m, p.new), c.other_set(m, "cited"))


def allowed(
    before: Concrete, kind: str, names: Sequence[str], rules: Rules = ROWS
) -> Iterator[Operation]:
    """Every operation of ``kind`` over the records ``names`` whose encoded precondition holds
    in ``before``: the solver's models, each excluded in turn until none is left."""
    u = Universe(set(names))
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    choices = _Choices(u, p)
    solver = z3.Solver()
    solver.set(timeout=20_000, random_seed=0)
    consts = list(u.const.values())
    solver.add(u.axioms()[0], *u.state(s, before))
    for constraint in (*choices.constraints, transition(kind, s, p, rules).precondition):
        solver.add(_grounded(constraint, consts))
    while (answer := solver.check()) == z3.sat:
        op, excluded = _decoded(kind, choices, p, solver.model())
        yield op
        solver.add(excluded)
    assert answer == z3.unsat, f"the enumeration of {kind} is {answer}"


class Evaluator:
    """The encoded transition relation on a fixed finite universe, evaluated, not solved.

    For each sequence of operation kinds the composed relation (each transition reading
    the state the previous one left, A.3) is built once from :func:`gcv.proofs.encode.transition`,
    its quantifiers instantiated at the universe's constants (:func:`_grounded`); a step is
    then decided by substituting the concrete state and parameters for the formula's free
    arrays and constants and evaluating the result in a model whose universe is exactly
    those constants.  The formula is the encoding's own: no clause is restated here.
    """

    def __init__(self, names: Sequence[str], rules: Rules = ROWS) -> None:
        self.u, self.rules = Universe(set(names)), rules
        self._consts = list(self.u.const.values())
        solver = z3.Solver()
        solver.add(*self.u.axioms())
        assert solver.check() == z3.sat, "the universe has no model"
        self._model = solver.model()
        self._y = z3.Const("y", REC)
        self._compiled: dict[tuple[str, ...], _Composed] = {}
        # Keyed by the Z3 term's id (terms are hash-consed: one id per name), not its text,
        # whose printing took a fifth of the refinement check's time.
        self._given: dict[tuple[int, Concrete | Operation], _Substitutions] = {}

    def _compose(self, kinds: tuple[str, ...]) -> _Composed:
        if kinds not in self._compiled:
            s = before = EncodedState.fresh("s")
            params, preconditions = [], []
            for position, kind in enumerate(kinds):
                p = Params.fresh(f"p{position}")
                t = transition(kind, s, p, self.rules)
                params.append(p)
                preconditions.append(_grounded(t.precondition, self._consts))
                s = t.after
            expected = EncodedState.fresh("expected")
            same = z3.And(
                [z3.And(s.ex[c] == expected.ex[c], s.st[c] == expected.st[c]) for c in self._consts]
                + [
                    z3.And(s.att[a, b] == expected.att[a, b], s.dep[a, b] == expected.dep[a, b])
                    for a in self._consts
                    for b in self._consts
                ]
            )
            self._compiled[kinds] = _Composed(before, expected, params, preconditions, same)
        return self._compiled[kinds]

    def _state(self, s: EncodedState, m: Concrete) -> _Substitutions:
        """Substitutions giving ``s`` the concrete map's values (made once per map)."""
        return self._kept((s.ex.get_id(), m), lambda: self._state_values(s, m))

    def _params(self, p: Params, op: Operation) -> _Substitutions:
        """Substitutions giving ``p`` the operation's arguments (made once per operation)."""
        return self._kept((p.new.get_id(), op), lambda: self.u.arguments(p, op))

    def _kept(
        self, key: tuple[int, Concrete | Operation], make: Callable[[], _Substitutions]
    ) -> _Substitutions:
        if key not in self._given:
            self._given[key] = make()
        return self._given[key]

    def _state_values(self, s: EncodedState, m: Concrete) -> _Substitutions:
        x, y, c = _x, self._y, self.u.const
        ex = self.u.members(m.standing)
        st: z3.ExprRef = LABELS[Standing.ACTIVE]
        for name, label in sorted(m.standing.items()):
            st = z3.If(x == c[name], LABELS[label], st)

        def relation(pairs: frozenset[tuple[str, str]]) -> z3.ArrayRef:
            held = [z3.And(x == c[a], y == c[b]) for a, b in sorted(pairs)]
            return z3.Lambda([x, y], z3.Or(held) if held else z3.BoolVal(False))

        return [
            (s.ex, ex),
            (s.st, z3.Lambda([x], st)),
            (s.att, relation(m.att)),
            (s.dep, relation(m.dep)),
        ]

    def _holds(self, formula: z3.ExprRef, substitutions: _Substitutions) -> bool:
        value = self._model.eval(_substitute(formula, substitutions), model_completion=True)
        assert z3.is_true(value) or z3.is_false(value), f"not evaluated: {value}"
        return z3.is_true(value)

    def refused_at(self, before: Concrete, ops: Sequence[Operation]) -> int | None:
        """The position (in application order) of the first operation whose encoded
        precondition fails on the state the turn has left so far; None if all hold."""
        composed = self._compose(tuple(op.name for op in ops))
        given = list(self._state(composed.before, before))
        for position, (p, op) in enumerate(zip(composed.params, ops, strict=True)):
            given += self._params(p, op)
            if not self._holds(composed.preconditions[position], given):
                return position
        return None

    def reaches(self, before: Concrete, ops: Sequence[Operation], after: Concrete) -> bool:
        """The encoded next state of ``ops`` from ``before`` is ``after``."""
        composed = self._compose(tuple(op.name for op in ops))
        given = [*self._state(composed.before, before)]
        given += self._state_values(composed.expected, after)  # a new map each step: not kept
        for p, op in zip(composed.params, ops, strict=True):
            given += self._params(p, op)
        return self._holds(composed.same, given)


def _substitute(formula: z3.ExprRef, substitutions: _Substitutions) -> z3.ExprRef:
    """``z3.substitute`` without its per-pair sort checks (three quarters of its time here):
    every pair is a state array or parameter and a value built for it, of its sort."""
    count = len(substitutions)
    sources, values = (z3.Ast * count)(), (z3.Ast * count)()
    for i, (source, value) in enumerate(substitutions):
        sources[i], values[i] = source.as_ast(), value.as_ast()
    ctx = formula.ctx
    done = z3.Z3_substitute(ctx.ref(), formula.as_ast(), count, sources, values)
    return z3.z3._to_expr_ref(done, ctx)


@dataclasses.dataclass(frozen=True)
class _Composed:
    """A composed encoded relation: its free state, expected next state and parameters,
    each operation's grounded precondition, and the next-state equality."""

    before: EncodedState
    expected: EncodedState
    params: list[Params]
    preconditions: list[z3.ExprRef]
    same: z3.ExprRef
