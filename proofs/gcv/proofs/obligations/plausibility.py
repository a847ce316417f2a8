"""Definition A.1 is preserved by every update of Appendix A.1 and Definition A.3, unbounded.

What is encoded.  A plausibility model as Definition A.1 states it, for two agents: a world
set W (a predicate ``inside`` over an uninterpreted sort of worlds, so W has any finite or
infinite size) and, per agent i, a relation <=_i over it.  A.1 is the conjunction of: W
non-empty; each <=_i reflexive and transitive on W; each <=_i locally connected.  The
paper defines ~_i := <=_i | >=_i and asks any two worlds of one cell to be comparable; read
as Baltag and Smets do (cells are the classes of the equivalence <=_i generates), this says
that comparability, <=_i | >=_i, is transitive, and so an equivalence whose classes are the
cells, each totally preordered.  On a finite W a total preorder is a well-preorder, so
nothing is lost by not stating well-foundedness (it is not first-order).  The valuation V
has no condition in A.1: psi enters only through its truth set [[psi]], a free predicate
(any set of worlds, so every formula's truth set is covered), read before the update.
Awareness A_i has no condition either, and an expansion only adds to it.

The updates, with agent ``a`` in the group and ``b`` outside it where the update is to a
group (each <=_i is changed, if at all, only from <=_i, [[psi]] and W):

* [!psi] public: W becomes W & [[psi]], every <=_i restricted to it; side condition:
  [[psi]] meets W (the spec's and the engine's "psi holds somewhere").
* [!psi] to G: for i in G, <=_i loses the pairs that disagree on psi (G's cells split).
* [up-up psi] (lexicographic): w <=_i' v iff w ~_i v and (psi(w) and not psi(v), or
  psi(w) = psi(v) and w <=_i v).
* [up psi] (conservative): the lexicographic upgrade of best_i(psi), the psi-worlds of each
  cell at least as plausible as every psi-world of their cell.
* the two downgrades: the same upgrades of ~gamma.
* awareness expansion by a new atom: W becomes W x {0, 1} (each world splits into two
  copies that differ on it), (w, c) <=_i' (v, d) iff w <=_i v.

The definitions are written once, over a :class:`Logic`: Z3 terms with quantifiers for the
proof, Python truth values over listed worlds for the tie test
(``tests/test_proofs_plausibility.py`` runs them on every model of up to three worlds,
two agents and two atoms, against ``gcv.reference.epistemic.updates``).

Checks: for each update and each clause of A.1 (each agent's own), A.1 of the model before
(and the side condition) implies the clause after.  Twins: the announcement of a formula
true nowhere; the lexicographic upgrade of a relation that is not locally connected; an
upgrade that compares worlds across cells.  Each decoded counterexample is replayed
through ``gcv.spec.epistemic``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import z3

from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.spec import epistemic

__all__ = [
    "AGENTS",
    "GROUP",
    "OBLIGATION",
    "UPDATES",
    "WORLD",
    "Decoded",
    "Frame",
    "Logic",
    "Symbolic",
    "UpdateOf",
    "clauses",
    "decode",
    "lexicographic",
    "python_logic",
]

W = TypeVar("W")
B = TypeVar("B")

AGENTS = ("a", "b")
GROUP = frozenset({"a"})
"""Where an update is to a group: ``a`` in it, ``b`` not."""


@dataclass(frozen=True)
class Logic(Generic[W, B]):
    """Connectives, and the quantifiers over the worlds one can name (a superset of W)."""

    every: Callable[[Callable[[W], B]], B]
    some: Callable[[Callable[[W], B]], B]
    all_of: Callable[[Sequence[B]], B]
    any_of: Callable[[Sequence[B]], B]
    negation: Callable[[B], B]
    same: Callable[[B, B], B]

    def implies(self, premise: B, conclusion: B) -> B:
        return self.any_of([self.negation(premise), conclusion])


Relation = Callable[[W, W], B]


@dataclass(frozen=True)
class Frame(Generic[W, B]):
    """A plausibility model without its valuation: W and each agent's <=_i."""

    logic: Logic[W, B]
    inside: Callable[[W], B]
    leq: Mapping[str, Callable[[W, W], B]]


def python_logic(worlds: Sequence[W]) -> Logic[W, bool]:
    """Python truth values over the listed worlds."""
    return Logic(
        lambda body: all(body(w) for w in worlds),
        lambda body: any(body(w) for w in worlds),
        all,
        any,
        lambda x: not x,
        lambda x, y: x == y,
    )


def _z3_logic(sort: z3.SortRef) -> Logic[z3.ExprRef, z3.BoolRef]:
    """Z3 terms, quantifying over the uninterpreted sort of worlds."""
    fresh = itertools.count()

    def every(body: Callable[[z3.ExprRef], z3.BoolRef]) -> z3.BoolRef:
        x = z3.Const(f"w{next(fresh)}", sort)
        return z3.ForAll([x], body(x))

    def some(body: Callable[[z3.ExprRef], z3.BoolRef]) -> z3.BoolRef:
        x = z3.Const(f"w{next(fresh)}", sort)
        return z3.Exists([x], body(x))

    return Logic(
        every,
        some,
        lambda xs: z3.And(*xs),
        lambda xs: z3.Or(*xs),
        z3.Not,
        lambda x, y: x == y,
    )


def comparable(frame: Frame[W, B], agent: str) -> Relation[W, B]:
    """w and v are <=_i-comparable: w ~_i v under local connectedness."""
    leq, logic = frame.leq[agent], frame.logic
    return lambda w, v: logic.any_of([leq(w, v), leq(v, w)])


def _every_in(frame: Frame[W, B], arity: int, body: Callable[..., B]) -> B:
    """For all ``arity`` worlds of W, ``body``."""
    logic = frame.logic

    def bind(bound: tuple[W, ...]) -> B:
        if len(bound) == arity:
            return logic.implies(logic.all_of([frame.inside(w) for w in bound]), body(*bound))
        return logic.every(lambda w: bind((*bound, w)))

    return bind(())


def _agent_clauses(frame: Frame[W, B], agent: str) -> dict[str, B]:
    logic, leq, near = frame.logic, frame.leq[agent], comparable(frame, agent)

    def chained(relation: Relation[W, B]) -> Callable[[W, W, W], B]:
        return lambda w, v, u: logic.implies(
            logic.all_of([relation(w, v), relation(v, u)]), relation(w, u)
        )

    return {
        f"<=_{agent} is reflexive": _every_in(frame, 1, lambda w: leq(w, w)),
        f"<=_{agent} is transitive": _every_in(frame, 3, chained(leq)),
        f"<=_{agent} is locally connected": _every_in(frame, 3, chained(near)),
    }


def clauses(frame: Frame[W, B]) -> dict[str, B]:
    """Definition A.1, clause by clause, each agent's own."""
    out = {"W is non-empty": frame.logic.some(frame.inside)}
    for agent in AGENTS:
        out |= _agent_clauses(frame, agent)
    return out


def _chosen(group: frozenset[str] | None) -> frozenset[str]:
    return frozenset(AGENTS) if group is None else group


def announce(
    frame: Frame[W, B], psi: Callable[[W], B], group: frozenset[str] | None
) -> Frame[W, B]:
    """[!psi]: public, W & [[psi]]; to G, G's cells split on psi."""
    logic = frame.logic
    if group is None:
        return Frame(logic, lambda w: logic.all_of([frame.inside(w), psi(w)]), frame.leq)

    def split(leq: Relation[W, B]) -> Relation[W, B]:
        return lambda w, v: logic.all_of([leq(w, v), logic.same(psi(w), psi(v))])

    leq = {i: split(r) if i in group else r for i, r in frame.leq.items()}
    return Frame(logic, frame.inside, leq)


def _promote(
    frame: Frame[W, B], agent: str, promoted: Callable[[W], B], *, within_cells: bool = True
) -> Relation[W, B]:
    """Within each cell of ``agent``: promoted worlds strictly first, each side's order kept;
    a twin compares promoted worlds with every other world, across cells
    (``within_cells``)."""
    logic, leq, near = frame.logic, frame.leq[agent], comparable(frame, agent)

    def after(w: W, v: W) -> B:
        up, down = promoted(w), promoted(v)
        first = logic.all_of([up, logic.negation(down)])
        kept = logic.all_of([logic.same(up, down), leq(w, v)])
        if not within_cells:
            return logic.any_of([first, kept])
        return logic.all_of([near(w, v), logic.any_of([first, kept])])

    return after


def lexicographic(
    frame: Frame[W, B],
    psi: Callable[[W], B],
    group: frozenset[str] | None,
    *,
    within_cells: bool = True,
) -> Frame[W, B]:
    """[up-up psi] for the agents of ``group`` (all when None)."""
    chosen = _chosen(group)
    leq = {
        i: _promote(frame, i, psi, within_cells=within_cells) if i in chosen else r
        for i, r in frame.leq.items()
    }
    return Frame(frame.logic, frame.inside, leq)


def best(frame: Frame[W, B], agent: str, psi: Callable[[W], B]) -> Callable[[W], B]:
    """best_i(psi): the psi-worlds at least as plausible as every psi-world of their cell."""
    logic, leq, near = frame.logic, frame.leq[agent], comparable(frame, agent)

    def at(w: W) -> B:
        def unbeaten_by(u: W) -> B:
            rival = logic.all_of([frame.inside(u), near(w, u), psi(u)])
            return logic.implies(rival, leq(w, u))

        return logic.all_of([psi(w), logic.every(unbeaten_by)])

    return at


def conservative(
    frame: Frame[W, B], psi: Callable[[W], B], group: frozenset[str] | None
) -> Frame[W, B]:
    """[up psi]: the lexicographic upgrade of best_i(psi), for the agents of ``group``."""
    chosen = _chosen(group)
    leq = {
        i: _promote(frame, i, best(frame, i, psi)) if i in chosen else r
        for i, r in frame.leq.items()
    }
    return Frame(frame.logic, frame.inside, leq)


def _negated(frame: Frame[W, B], psi: Callable[[W], B]) -> Callable[[W], B]:
    return lambda w: frame.logic.negation(psi(w))


def lexicographic_downgrade(
    frame: Frame[W, B], psi: Callable[[W], B], group: frozenset[str] | None
) -> Frame[W, B]:
    """Undermine, lexicographic: [up-up ~gamma]."""
    return lexicographic(frame, _negated(frame, psi), group)


def conservative_downgrade(
    frame: Frame[W, B], psi: Callable[[W], B], group: frozenset[str] | None
) -> Frame[W, B]:
    """Undermine, conservative: [up ~gamma]."""
    return conservative(frame, _negated(frame, psi), group)


def expand(frame: Frame[W, B]) -> Frame[tuple[W, bool], B]:
    """Awareness expansion by a new atom: each world w splits into (w, 0) and (w, 1), both
    as plausible as w was, for every agent."""
    base = frame.logic

    logic: Logic[tuple[W, bool], B] = Logic(
        lambda body: base.every(lambda w: base.all_of([body((w, False)), body((w, True))])),
        lambda body: base.some(lambda w: base.any_of([body((w, False)), body((w, True))])),
        base.all_of,
        base.any_of,
        base.negation,
        base.same,
    )

    def split(leq: Relation[W, B]) -> Relation[tuple[W, bool], B]:
        return lambda w, v: leq(w[0], v[0])

    return Frame(logic, lambda w: frame.inside(w[0]), {i: split(r) for i, r in frame.leq.items()})


UpdateOf = Callable[[Frame[Any, Any], Callable[[Any], Any]], Frame[Any, Any]]

UPDATES: dict[str, tuple[UpdateOf, bool]] = {
    "[!psi] public": (lambda f, psi: announce(f, psi, None), True),
    "[!psi] to {a}": (lambda f, psi: announce(f, psi, GROUP), False),
    "[up-up psi] public": (lambda f, psi: lexicographic(f, psi, None), False),
    "[up-up psi] to {a}": (lambda f, psi: lexicographic(f, psi, GROUP), False),
    "[up psi] public": (lambda f, psi: conservative(f, psi, None), False),
    "[up psi] to {a}": (lambda f, psi: conservative(f, psi, GROUP), False),
    "[up-up ~gamma] public": (lambda f, psi: lexicographic_downgrade(f, psi, None), False),
    "[up ~gamma] public": (lambda f, psi: conservative_downgrade(f, psi, None), False),
    "expansion by a new atom": (lambda f, psi: expand(f), False),
}
"""Each update checked, by name: its definition, and whether it has the side condition
"psi holds somewhere in W" (only the public announcement needs it to keep W non-empty; the
engine refuses a group announcement true nowhere too, which A.1 does not need)."""


WORLD = z3.DeclareSort("World")


@dataclass(frozen=True)
class Symbolic:
    """The model before an update, over the sort of worlds: W, [[psi]] and each <=_i."""

    inside: z3.FuncDeclRef
    psi: z3.FuncDeclRef
    leq: dict[str, z3.FuncDeclRef]

    @staticmethod
    def fresh() -> Symbolic:
        truth = z3.BoolSort()
        return Symbolic(
            z3.Function("W", WORLD, truth),
            z3.Function("psi", WORLD, truth),
            {i: z3.Function(f"leq_{i}", WORLD, WORLD, truth) for i in AGENTS},
        )

    def frame(self) -> Frame[z3.ExprRef, z3.BoolRef]:
        return Frame(_z3_logic(WORLD), self.inside, dict(self.leq))

    def somewhere(self) -> z3.BoolRef:
        """The side condition: psi holds at some world of W."""
        x = z3.Const("somewhere", WORLD)
        return z3.Exists([x], z3.And(self.inside(x), self.psi(x)))


def checks(budget: Budget) -> list[Check]:
    s = Symbolic.fresh()
    before = s.frame()
    assumed = list(clauses(before).values())
    out = []
    for name, (update, conditioned) in UPDATES.items():
        hypotheses = [*assumed, s.somewhere()] if conditioned else assumed
        for clause, after in clauses(update(before, s.psi)).items():
            result = prove(hypotheses, after, timeout_ms=budget.timeout_ms)
            out.append(Check(f"{name}: {clause} after", result))
    return out


@dataclass(frozen=True)
class Decoded:
    """A counterexample's worlds of W, each named as a valuation of the spec's, so that any
    relation of the counterexample reads as the spec's ``leq``."""

    source: z3.ModelRef
    kept: tuple[z3.ExprRef, ...]
    name: dict[str, epistemic.World]

    def holds(self, term: z3.ExprRef) -> bool:
        return bool(z3.is_true(self.source.eval(term, model_completion=True)))

    def model(
        self, leq: Mapping[str, Relation[z3.ExprRef, z3.BoolRef]]
    ) -> epistemic.EpistemicModel:
        """The spec's model on these worlds, with the relations ``leq``."""
        pairs = {
            i: frozenset(
                (self.name[w.sexpr()], self.name[v.sexpr()])
                for w in self.kept
                for v in self.kept
                if self.holds(r(w, v))
            )
            for i, r in leq.items()
        }
        atoms = frozenset({"psi", *(f"x{k}" for k in range(len(self.kept)))})
        aware = {i: frozenset[str]() for i in AGENTS}
        return epistemic.EpistemicModel(
            frozenset(AGENTS), atoms, frozenset(self.name.values()), pairs, aware
        )


def decode(source: z3.ModelRef, s: Symbolic) -> Decoded:
    """World k of W in the counterexample becomes the valuation {x_k}, plus psi where psi
    holds (distinct worlds, distinct valuations, as the spec's worlds are)."""
    decoded = Decoded(source, (), {})
    kept = tuple(e for e in source.get_universe(WORLD) or () if decoded.holds(s.inside(e)))
    name = {
        e.sexpr(): frozenset({f"x{k}"} | ({"psi"} if decoded.holds(s.psi(e)) else set()))
        for k, e in enumerate(kept)
    }
    return Decoded(source, kept, name)


PSI = epistemic.Atom("psi")


def _nowhere_twin(budget: Budget) -> Twin:
    """[!psi] without its side condition: W can become empty."""
    s = Symbolic.fresh()
    before = s.frame()
    after = clauses(announce(before, s.psi, None))["W is non-empty"]
    name = "[!psi] public of a formula true nowhere"
    result = prove(list(clauses(before).values()), after, timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    model = decode(result.model, s).model(s.leq)
    nowhere = not epistemic.compute_truth_set(model, PSI)
    emptied = epistemic.EpistemicModel(
        model.agents, model.atoms, frozenset(), dict.fromkeys(AGENTS, frozenset()), model.awareness
    )
    confirmed = epistemic.is_plausibility_model(model) and nowhere
    confirmed = confirmed and not epistemic.is_plausibility_model(emptied)
    text = f"{len(model.worlds)} worlds, psi true at none: the spec's W after [!psi] is empty"
    return Twin(name, result, text, confirmed)


def _not_connected_twin(budget: Budget) -> Twin:
    """[up-up psi] of a model whose <=_a is not locally connected: A.1 fails after."""
    s = Symbolic.fresh()
    before = s.frame()
    assumed = clauses(before)
    del assumed["<=_a is locally connected"]
    after = z3.And(*clauses(lexicographic(before, s.psi, None)).values())
    name = "[up-up psi] of a <=_a that is not locally connected"
    result = prove(list(assumed.values()), after, timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    model = decode(result.model, s).model(s.leq)
    upgraded = epistemic.process_lexicographic_upgrade(model, PSI)
    confirmed = not epistemic.is_plausibility_model(upgraded)
    text = f"{len(model.worlds)} worlds: the spec's [up-up psi] of them is no A.1 model"
    return Twin(name, result, text, confirmed)


def _across_cells_twin(budget: Budget) -> Twin:
    """An upgrade that puts psi-worlds before the ~psi-worlds of other cells too."""
    s = Symbolic.fresh()
    before = s.frame()
    broken = lexicographic(before, s.psi, None, within_cells=False)
    name = "[up-up psi] comparing worlds across cells"
    result = prove(
        list(clauses(before).values()),
        z3.And(*clauses(broken).values()),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin(name, result)
    decoded = decode(result.model, s)
    model, after = decoded.model(s.leq), decoded.model(broken.leq)
    upgraded = epistemic.process_lexicographic_upgrade(model, PSI)
    confirmed = epistemic.is_plausibility_model(model)
    confirmed = confirmed and epistemic.is_plausibility_model(upgraded)
    confirmed = confirmed and not epistemic.is_plausibility_model(after)
    text = f"{len(model.worlds)} worlds: the spec's [up-up psi] is an A.1 model, this one is not"
    return Twin(name, result, text, confirmed)


def twins(budget: Budget) -> list[Twin]:
    return [_nowhere_twin(budget), _not_connected_twin(budget), _across_cells_twin(budget)]


OBLIGATION = Obligation(
    id="definition-a.1-updates",
    statement="Definition A.1 with Appendix A.1's updates and Definition A.3's expansion: "
    "[!psi] (psi true somewhere), [up-up psi], [up psi], the downgrades and awareness "
    "expansion map an epistemic plausibility model to one",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
