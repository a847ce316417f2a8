"""The spec's D_t beside the reference's: the vector generator's cross-check.

While a case is built, a :class:`SpecModel` follows every turn through
:func:`gcv.spec.transition.process_turn`, independently of ``reference/``'s engine:

- M_0 from the declaration, by the trace format's definition (w ~_i v iff w and v
  agree on the atoms i observes; w <=_i v iff, besides, i's rank of w is at most
  its rank of v), or, undeclared, every valuation of Prop_t in one cell;
- each turn by the spec transition: Table 3's preconditions and effects in the
  fixed order, and each operation's DEL realisation as the spec states it
  (``gcv.spec.transition.realisation``, over ``gcv.spec.epistemic.DEL_REALISATIONS``),
  with one simultaneous announcement for the turn's observations;
- the queue of abductive problems by Definition A.2
  (``gcv.spec.epistemic.is_abductive_solution``).

After every accepted turn the reference's records, standing, Dep, Att, Cm,
dissent, Prop_t, A_i, M_t and problem queue must be the spec's; every epistemic
answer is recomputed on the spec's model; and a turn the reference rejects must
be one the spec also refuses, with the same code at the same operation.
Disagreement stops the generation.

The spec is brute force: a modality costs it O(|W|^2) per world, a conservative
upgrade O(|W|^2) per pair of worlds.  A computation on a model beyond
:data:`BOUND` (64 worlds for a modal formula or Definition A.2's check, 16 for a
conservative upgrade) is made on a second representation instead,
:mod:`gcv.spec.epistemic_bits` (sets of valuations as bitsets, each agent's order
as layered cells): the answer, or the turn's M_t and problem queue (the turn's
argumentation is still the spec transition's), so no expected value is taken from
the reference.  Propositional formulas, announcements, lexicographic upgrades,
expansions and the ``worlds``, ``ordered`` and ``unexplained`` answers cost at
most O(|W|^2) and are always computed by the brute force.  :data:`TALLY` counts
what was recomputed, and how much of it bit-parallel (``gcv vectors`` prints it);
:func:`bound` moves the bound, which changes no vector, only the time and the
count.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import icontract

from gcv.conformance.compare import canonical_worlds, is_one_outcome
from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic import formula as rf
from gcv.reference.epistemic.formula import Formula, atoms_of
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.errors import GcvError, MalformedFormula
from gcv.reference.operations import (
    EPISTEMIC_FIELDS,
    Operation,
    own_formula,
)
from gcv.spec import core, transition
from gcv.spec import epistemic as se
from gcv.spec import epistemic_bits as bits
from gcv.trace import operation_from_json, operation_to_json

__all__ = [
    "BOUND",
    "TALLY",
    "Bound",
    "SpecModel",
    "bound",
    "declared_model",
    "is_epistemic_operation",
    "spec_formula",
    "spec_map",
    "spec_model",
    "spec_operation",
]


def spec_map(state: DependencyMap) -> core.DependencyMap:
    """The engine's live map as the spec's value D_t = (Args, Att, st, Dep)."""
    return core.DependencyMap(
        args=frozenset(state.records),
        att=frozenset((a, t) for a, ts in state.att.items() for t in ts),
        standing={r: s.value for r, s in state.standing.items()},
        dep=frozenset((r, s) for r, ss in state.dep.items() for s in ss),
    )


def has_the_atoms_of(result: se.Formula, formula: Formula) -> bool:
    """Check that a translated formula mentions the atoms the original mentions."""
    return se.compute_atoms(result) == atoms_of(formula)


def is_reflexive_on_valuations(model: se.EpistemicModel) -> bool:
    """Check the linear part of Definition A.1: W is non-empty, every world is a valuation of
    Prop, every <=_i is reflexive on W (transitivity and local connectedness cost |W|^4 in the
    spec's form; the spec's own tests check them)."""
    return (
        bool(model.worlds)
        and all(w <= model.atoms for w in model.worlds)
        and all((w, w) in model.leq[i] for i in model.agents for w in model.worlds)
    )


@dataclass
class Bound:
    """The largest models the spec is asked to compute on."""

    worlds: int = 64
    """For a modal formula and Definition A.2's check (about 0.1 s each at 64 worlds)."""
    conservative: int = 16
    """For a conservative upgrade, whose cost grows with |W|^4."""


BOUND = Bound()
"""The bound in force (:func:`bound` changes it for a run)."""

TALLY: Counter[str] = Counter()
"""How many turns, refusals and answers the spec recomputed, and how many it did not."""


@icontract.require(
    lambda worlds, conservative: worlds >= 1 and (conservative is None or conservative >= 1),
    "a bound is at least one world",
)
@contextmanager
def bound(worlds: int, conservative: int | None = None) -> Iterator[None]:
    """Raise (or lower) :data:`BOUND` within the block."""
    saved = (BOUND.worlds, BOUND.conservative)
    BOUND.worlds = worlds
    BOUND.conservative = worlds if conservative is None else conservative
    try:
        yield
    finally:
        BOUND.worlds, BOUND.conservative = saved


"""Operation fields that belong to the epistemic layer (feature ``epistemic``)."""


@icontract.ensure(
    lambda op, result: result == any(name in op for name in EPISTEMIC_FIELDS),
    "an operation uses the epistemic layer iff it has one of its fields",
)
def is_epistemic_operation(op: Mapping[str, Any]) -> bool:
    """Whether an operation's JSON carries a field of the epistemic layer."""
    return bool(EPISTEMIC_FIELDS & op.keys())


# -- translation: the reference's values as the spec's ---------------------------------


@icontract.ensure(lambda f, result: has_the_atoms_of(result, f), "the translation keeps the atoms")
def spec_formula(f: rf.Formula) -> se.Formula:
    """The same formula as the spec's value (a structural translation)."""
    match f:
        case rf.Const(value):
            return se.Top() if value else se.Bottom()
        case rf.Atom(name):
            return se.Atom(name)
        case rf.Not(body):
            return se.Not(spec_formula(body))
        case rf.And(parts):
            return se.And(tuple(spec_formula(p) for p in parts))
        case rf.Or(parts):
            return se.Or(tuple(spec_formula(p) for p in parts))
        case rf.Implies(left, right):
            return se.Implies(spec_formula(left), spec_formula(right))
        case rf.Iff(left, right):
            return se.Iff(spec_formula(left), spec_formula(right))
        case rf.Knows(agent, body):
            return se.Knows(agent, spec_formula(body))
        case rf.Believes(agent, body):
            return se.Believes(agent, spec_formula(body))
        case rf.CondBelieves(agent, body, condition):
            return se.CondBelieves(agent, spec_formula(body), spec_formula(condition))
        case rf.Everybody(group, body):
            return se.Everybody(group, spec_formula(body))
        case rf.Common(group, body):
            return se.Common(group, spec_formula(body))
        case rf.Aware(agent, body):
            return se.Aware(agent, spec_formula(body))
        case rf.Explicit(agent, body):
            return se.Explicit(agent, spec_formula(body))
    raise AssertionError(f"not a formula: {f!r}")


def spec_operation(op: Operation) -> dict[str, Any]:
    """The operation as :mod:`gcv.spec.transition` reads it: its trace-format object, with the
    formula as the spec's value."""
    data = operation_to_json(op)
    formula: rf.Formula | None = own_formula(op)
    if formula is not None:
        data["formula"] = spec_formula(formula)
    return data


@icontract.ensure(
    lambda m, result: len(result.worlds) == m.size and is_reflexive_on_valuations(result),
    "the same number of worlds, each a valuation, every <=_i reflexive (Definition A.1)",
)
def spec_model(m: PlausibilityModel) -> se.EpistemicModel:
    """The reference's model as the spec's value: worlds as valuations, <=_i as pairs."""
    names = m.valuations()
    leq = {}
    for agent in m.agents:
        cells, ranks = m.cells(agent), m.ranks(agent)
        leq[agent] = frozenset(
            (names[w], names[v])
            for w in range(len(names))
            for v in range(len(names))
            if cells[w] == cells[v] and ranks[w] <= ranks[v]
        )
    return se.EpistemicModel(
        frozenset(m.agents),
        frozenset(m.atoms),
        frozenset(names),
        leq,
        {a: frozenset(m.awareness[a]) for a in m.agents},
    )


@icontract.ensure(
    lambda result: is_reflexive_on_valuations(result),
    "W is non-empty, each world a valuation, every <=_i reflexive (Definition A.1)",
)
def declared_model(
    agents: Sequence[str],
    atoms: Sequence[str],
    declared: Mapping[str, Any] | None,
    awareness: Mapping[str, Iterable[str]] | None = None,
) -> se.EpistemicModel:
    """M_0 as the trace format defines its ``model`` (docs/trace-format.md), by the definition.

    ``awareness`` (undeclared models only) overrides the default "every atom".
    """
    declared = declared or {}
    worlds: frozenset[se.World] = frozenset({frozenset()})
    for atom in atoms:
        worlds = worlds | frozenset(w | {atom} for w in worlds)
    if "worlds" in declared:
        worlds = frozenset(frozenset(w) for w in declared["worlds"])
    leq = {}
    for agent in agents:
        seen = frozenset(declared.get("observes", {}).get(agent, ()))
        rank = {frozenset(e["world"]): e["rank"] for e in declared.get("ranks", {}).get(agent, ())}
        leq[agent] = frozenset(
            (w, v)
            for w in worlds
            for v in worlds
            if w & seen == v & seen and rank.get(w, 0) <= rank.get(v, 0)
        )
    listed = declared.get("awareness", awareness or {})
    aware = {a: frozenset(listed.get(a, atoms)) for a in agents}
    return se.EpistemicModel(frozenset(agents), frozenset(atoms), worlds, leq, aware)


# -- helpers on the spec's values -----------------------------------------------------


def _same_model(a: se.EpistemicModel, b: se.EpistemicModel) -> bool:
    return (
        a.agents == b.agents
        and a.atoms == b.atoms
        and a.worlds == b.worlds
        and dict(a.leq) == dict(b.leq)
        and dict(a.awareness) == dict(b.awareness)
    )


@icontract.ensure(
    lambda model, layers, result: (
        not result or all(se.compute_truth_set(model, layer) for layer in layers)
    ),
    "an ordering that holds has layers that hold somewhere",
)
def is_in_order(model: se.EpistemicModel, agent: str, layers: Sequence[se.Formula]) -> bool:
    """The ``ordered`` query: every layer holds somewhere, and within each of the agent's cells
    every world of a layer is strictly more plausible (w <=_i v, not v <=_i w) than every world
    of a later layer."""
    sets = [se.compute_truth_set(model, layer) for layer in layers]
    if not all(sets):
        return False
    sim = se.get_indistinguishable(model, agent)
    leq = model.leq[agent]
    return all(
        (w, v) in leq and (v, w) not in leq
        for k, better in enumerate(sets)
        for worse in sets[k + 1 :]
        for w in better
        for v in worse
        if (w, v) in sim
    )


# -- the spec's D_t ---------------------------------------------------------------------------

# Codes that only the reference's resource bound decides (spec/normative.md, "Conformance").
_NOT_COMPARED = frozenset({"model-too-large"})


class SpecModel:
    """D_t as :mod:`gcv.spec.transition` computes it, turn by turn, beside the reference's.

    Every turn of a case goes to :func:`gcv.spec.transition.process_turn` too: it must accept
    what the reference accepts (leaving the same records, standing, Dep, Att, Cm, dissent,
    Prop_t and A_i, and the same M_t and problem queue) and refuse what the reference refuses,
    with the same code at the same operation.  A turn whose epistemic part would exceed
    :data:`BOUND` is followed without its formulas, and M_t and the queue are then computed by
    :mod:`gcv.spec.epistemic_bits`.

    Parameters
    ----------
    agents, atoms:
        Ags (in the order ``start`` gave them: problems are queued agent by agent) and Prop_0.
    model:
        M_0 when the case declares one (:func:`declared_model`).
    """

    def __init__(
        self, agents: Sequence[str], atoms: Sequence[str], model: se.EpistemicModel | None
    ) -> None:
        self.state = transition.State.start(agents, atoms, model)

    @property
    def model(self) -> se.EpistemicModel:
        """M_t (built as the default model the first time it is asked for)."""
        return transition.model_of(self.state)

    def accepted(
        self, speaker: str, operations: Sequence[Mapping[str, Any]], reference: Any
    ) -> frozenset[str]:
        """Follow a turn the reference accepted; ``reference`` is its D_t+1 (a DependencyMap).
        Returns the clauses the turn exercised (:meth:`_exercised`).

        Raises ``AssertionError`` naming the difference when the two disagree.
        """
        turn = _spec_turn(speaker, operations)
        exercised = self._exercised(turn, refused=False)
        try:
            try:
                with _budget():
                    self.state = transition.process_turn(self.state, turn).state
            except transition.TooCostly:
                self.state = self._bit_parallel(turn)
                TALLY["turns recomputed bit-parallel"] += 1
            TALLY["turns recomputed"] += 1
        except transition.Rejected as refused:
            raise AssertionError(
                f"the reference accepted the turn; the spec refuses operation {refused.index} "
                f"with {refused.code} ({refused.clause})"
            ) from None
        self._compare(reference)
        return exercised

    def rejected(
        self, speaker: str, operations: Sequence[Mapping[str, Any]], code: str, index: int | None
    ) -> frozenset[str]:
        """Check a turn the reference rejected with ``code`` at operation ``index``: the spec
        must refuse it with the same code at the same operation.  D_t does not change.
        Returns the clauses the refusal exercised (:meth:`_exercised`)."""
        if code in _NOT_COMPARED:
            return frozenset()
        try:
            turn = _spec_turn(speaker, operations)
        except transition.Rejected as unreadable:
            _same_refusal(unreadable, code, index)
            return unreadable.clauses
        exercised = self._exercised(turn, refused=True)
        try:
            with _budget():
                transition.process_turn(self.state, turn)
        except transition.TooCostly:
            try:
                self._bit_parallel(turn)
            except transition.Rejected as refused:
                _same_refusal(refused, code, index)
                TALLY["refusals recomputed bit-parallel"] += 1
                TALLY["refusals recomputed"] += 1
                return exercised
            raise AssertionError(
                f"the reference refuses operation {index} with {code}; the spec applies the "
                "turn (M_t by gcv.spec.epistemic_bits)"
            ) from None
        except transition.Rejected as refused:
            _same_refusal(refused, code, index)
            TALLY["refusals recomputed"] += 1
            return exercised
        raise AssertionError(
            f"the reference refuses operation {index} with {code}; the spec applies the turn"
        )

    def dry_run(self, request: Mapping[str, Any]) -> tuple[str, frozenset[str]]:
        """An ``apply`` request's argumentation run from the current D_t, which it leaves
        as it was (so any size of M_t): the clause that refuses it (``""`` when accepted)
        and the clauses it exercises."""
        try:
            turn = _spec_turn(request["speaker"], request["operations"])
            outcome = transition.process_turn(self.state, turn, epistemic=False)
        except transition.Rejected as refused:
            return refused.clause, refused.clauses | {refused.clause}
        return "", outcome.clauses

    def _exercised(self, turn: transition.Turn, *, refused: bool) -> frozenset[str]:
        """The clauses ``turn`` exercises, from its argumentation run, so that a step's
        profile does not depend on the budget.  A turn the reference ``refused`` that the
        argumentation accepts was refused by M_t (``no-surviving-world``, the one refusal
        only the model can tell), which is added."""
        try:
            outcome = transition.process_turn(self.state, turn, epistemic=False)
        except transition.Rejected as argumentation:
            return argumentation.clauses
        if not refused:
            return outcome.clauses
        return outcome.clauses | transition.refusal_clauses(turn, transition.NO_EMPTY_W)

    def _bit_parallel(self, turn: transition.Turn) -> transition.State:
        """D_t+1 for a turn beyond :data:`BOUND`: its argumentation by the spec transition,
        M_t+1 and the problem queue by :func:`gcv.spec.epistemic_bits.process_turn_model`.

        Raises :class:`gcv.spec.transition.Rejected`: the argumentation's refusal, else
        ``no-surviving-world`` at the first announcement true nowhere.  A turn refused by its
        argumentation is not run on M_t, so a hard announcement true nowhere that the spec
        would meet before the refused operation is not looked for."""
        after = transition.process_turn(self.state, turn, epistemic=False).state
        model, problems = bits.process_turn_model(
            self.state,
            after,
            turn,
            bits.from_spec_model(self.model),
            [
                bits.BitProblem(
                    p.agent, p.chi, p.source, bits.from_spec_model(p.posed), p.closed_by
                )
                for p in self.state.problems
            ],
        )
        after.model = bits.to_spec_model(model)
        after.problems = tuple(
            transition.Problem(p.agent, p.chi, p.source, bits.to_spec_model(p.posed), p.closed_by)
            for p in problems
        )
        return after

    def _compare(self, reference: Any) -> None:
        mine, theirs = self.state.snapshot(), reference.snapshot()
        for part, value in mine.items():
            other = theirs[part]
            if part == "records":  # formulas compare as values
                other = [{k: v for k, v in r.items() if k != "formula"} for r in other]
            if value != other:
                raise AssertionError(f"D_t differs in {part}: spec {value}, reference {other}")
        if self.state.model is None:
            return  # M_t is still the default model on both sides
        ours = spec_model(reference.epistemic.model)
        if not _same_model(self.state.model, ours):
            raise AssertionError(_model_difference(self.state.model, ours))
        mine_q = [(p.agent, p.chi, p.source, p.closed_by) for p in self.state.problems]
        other_q = [
            (p.agent, spec_formula(p.formula), p.source, p.closed_by)
            for p in reference.epistemic.problems
        ]
        if mine_q != other_q:
            raise AssertionError(f"the problem queues differ: spec {mine_q}, reference {other_q}")
        for p, q in zip(self.state.problems, reference.epistemic.problems, strict=True):
            if not _same_model(p.posed, spec_model(q.model)):
                where = _model_difference(p.posed, spec_model(q.model))
                raise AssertionError(
                    f"problem ({p.agent}, {p.source}) was posed in another M: {where}"
                )

    # -- queries ----------------------------------------------------------------------

    @icontract.ensure(lambda result: is_one_outcome(result), "an expectation states one outcome")
    def answer(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The expectation the spec gives an epistemic query: ``{"result": ...}`` or
        ``{"error": CODE}``.  Raises :class:`gcv.spec.transition.TooCostly` when it is too
        costly."""
        model = self.model
        agent: str = request.get("agent", "")
        if "agent" in request and agent not in model.agents:
            return {"error": "unknown-agent"}
        texts = [request[k] for k in ("formula", "given") if k in request]
        texts += list(request.get("layers", ()))
        formulas = []
        for text in texts:
            try:
                f = spec_formula(rf.parse(text))
            except MalformedFormula:
                return {"error": "malformed-formula"}
            if not transition.agents_of(f) <= model.agents:
                return {"error": "unknown-agent"}
            if not se.compute_atoms(f) <= model.atoms:
                return {"error": "unknown-atom"}
            formulas.append(f)
        world = None
        if "at" in request:
            world = frozenset(request["at"])
            if not world <= model.atoms:
                return {"error": "unknown-atom"}
            if world not in model.worlds:
                return {"error": "unknown-world"}
        query = request["query"]
        match query:
            case "worlds":
                return {"result": canonical_worlds(model.worlds)}
            case "unexplained":
                records = self.state.records
                mine = {
                    p.source for p in self.state.problems if p.agent == agent and p.is_open(records)
                }
                return {"result": sorted(mine)}
            case "ordered":
                return {"result": is_in_order(model, agent, formulas)}
        body = formulas[0]
        if query == "knows":
            body = se.Knows(agent, body)
        elif query == "believes":
            body = (
                se.CondBelieves(agent, body, formulas[1])
                if len(formulas) > 1
                else se.Believes(agent, body)
            )
        try:
            with _budget():
                transition.afford(model, body)
        except transition.TooCostly:
            TALLY["answers recomputed bit-parallel"] += 1
            large = bits.from_spec_model(model)
            if world is None:
                return {"result": bits.is_valid(large, body)}
            return {"result": bits.is_true(large, world, body)}
        if world is None:
            return {"result": se.is_valid(model, body)}
        return {"result": se.is_true(model, world, body)}


def _same_refusal(refused: transition.Rejected, code: str, index: int | None) -> None:
    if (refused.code, refused.index) != (code, index):
        raise AssertionError(
            f"the reference refuses operation {index} with {code}; the spec refuses "
            f"operation {refused.index} with {refused.code} ({refused.clause})"
        )


def _budget() -> contextlib.AbstractContextManager[None]:
    return transition.budget(BOUND.worlds, BOUND.conservative)


def _spec_turn(speaker: str, operations: Sequence[Mapping[str, Any]]) -> transition.Turn:
    """A turn of the protocol (operations in the trace format) as the spec reads it.

    Raises
    ------
    gcv.spec.transition.Rejected
        ``malformed-operation`` at the first operation whose formula text does not parse
        or that no operation of its kind can be built from (the spec reads parsed formulas
        and well-typed fields; the schema and the constructors decide the rest).
    """
    read = []
    for index, op in enumerate(operations):
        try:
            read.append(spec_operation(operation_from_json(op)))
        except GcvError:
            # The form rule the operation breaks, if the schema admits it, is a clause too.
            broken = transition.form_violation(op)
            refused = transition.Rejected("malformed-operation", transition.WELL_FORMED_FIRST)
            refused.index, refused.operation = index, op.get("op")
            form = () if broken is None else (broken[0],)
            refused.clauses = frozenset({transition.WELL_FORMED_FIRST, *form})
            raise refused from None
    return transition.Turn(speaker, tuple(read))


def _worlds_text(worlds: Iterable[Iterable[str]]) -> str:
    return str(canonical_worlds([list(w) for w in worlds]))


def _model_difference(mine: se.EpistemicModel, theirs: se.EpistemicModel) -> str:
    """What differs between the spec's model and the reference's, for the error message."""
    if mine.atoms != theirs.atoms:
        return f"Prop_t differs: spec {sorted(mine.atoms)}, reference {sorted(theirs.atoms)}"
    if mine.worlds != theirs.worlds:
        spec_worlds, ref_worlds = _worlds_text(mine.worlds), _worlds_text(theirs.worlds)
        return f"W_t differs: spec {spec_worlds}, reference {ref_worlds}"
    for agent in sorted(mine.agents):
        if mine.leq[agent] != theirs.leq[agent]:
            only = sorted((sorted(w), sorted(v)) for w, v in mine.leq[agent] - theirs.leq[agent])
            other = sorted((sorted(w), sorted(v)) for w, v in theirs.leq[agent] - mine.leq[agent])
            return (
                f"<=_{agent} differs: only the spec has {only[:3]}, only the reference {other[:3]}"
            )
        if mine.awareness[agent] != theirs.awareness[agent]:
            spec_aware, ref_aware = sorted(mine.awareness[agent]), sorted(theirs.awareness[agent])
            return f"A_{agent} differs: spec {spec_aware}, reference {ref_aware}"
    return "M_t differs"
