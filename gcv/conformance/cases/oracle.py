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
:mod:`gcv.oracles.epistemic_bits` (sets of valuations as bitsets, each agent's order
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

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import icontract

from gcv.conformance.compare import canonical_worlds, is_one_outcome
from gcv.oracles import epistemic_bits as bits
from gcv.reference.epistemic import formula as rf
from gcv.reference.errors import GcvError, MalformedFormula
from gcv.reference.operations import (
    EPISTEMIC_FIELDS,
)
from gcv.spec import epistemic as se
from gcv.spec import transition
from gcv.spec.clauses import NO_EMPTY_W, WELL_FORMED_FIRST
from gcv.spec.ledger import Budget
from gcv.trace import operation_from_json
from gcv.translate import spec_formula, spec_model, spec_operation

__all__ = [
    "BOUND",
    "TALLY",
    "Bound",
    "SpecModel",
    "bound",
    "is_epistemic_operation",
]


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

# Codes that only the reference's resource bound decides (spec/gcv/spec/normative.md,
# "Conformance").
_NOT_COMPARED = frozenset({"model-too-large"})


class SpecModel:
    """D_t as :mod:`gcv.spec.transition` computes it, turn by turn, beside the reference's.

    Every turn of a case goes to :func:`gcv.spec.transition.process_turn` too: it must accept
    what the reference accepts (leaving the same records, standing, Dep, Att, Cm, dissent,
    Prop_t and A_i, and the same M_t and problem queue) and refuse what the reference refuses,
    with the same code at the same operation.  A turn whose epistemic part would exceed
    :data:`BOUND` is followed without its formulas, and M_t and the queue are then computed by
    :mod:`gcv.oracles.epistemic_bits`.

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
        # Each model met in one representation, with the other: the problems' models stay
        # the same objects from turn to turn, so each is translated once.
        self._translated: dict[int, tuple[object, object]] = {}

    def _as_bits(self, model: se.EpistemicModel) -> bits.BitModel:
        found = self._translated.get(id(model))
        if found is None or found[0] is not model:
            found = (model, bits.from_spec_model(model))
            self._translated[id(model)] = found
            self._translated[id(found[1])] = (found[1], model)
        return found[1]  # type: ignore[return-value]

    def _as_spec(self, model: bits.BitModel) -> se.EpistemicModel:
        found = self._translated.get(id(model))
        if found is None or found[0] is not model:
            found = (model, bits.to_spec_model(model))
            self._translated[id(model)] = found
            self._translated[id(found[1])] = (found[1], model)
        return found[1]  # type: ignore[return-value]

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
                self.state = transition.process_turn(self.state, turn, budget=_budget()).state
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
            transition.process_turn(self.state, turn, budget=_budget())
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
                "turn (M_t by gcv.oracles.epistemic_bits)"
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
        return outcome.clauses | transition.refusal_clauses(turn.operations, NO_EMPTY_W)

    def _bit_parallel(self, turn: transition.Turn) -> transition.State:
        """D_t+1 for a turn beyond :data:`BOUND`: its argumentation by the spec transition,
        M_t+1 and the problem queue by :func:`gcv.oracles.epistemic_bits.process_turn_model`.

        Raises :class:`gcv.spec.transition.Rejected`: the argumentation's refusal, else
        ``no-surviving-world`` at the first announcement true nowhere.  A turn refused by its
        argumentation is not run on M_t, so a hard announcement true nowhere that the spec
        would meet before the refused operation is not looked for."""
        after = transition.process_turn(self.state, turn, epistemic=False).state
        model, problems = bits.process_turn_model(
            self.state,
            after,
            turn,
            self._as_bits(self.model),
            [
                bits.BitProblem(p.agent, p.chi, p.source, self._as_bits(p.posed), p.closed_by)
                for p in self.state.problems
            ],
        )
        after.model = self._as_spec(model)
        after.problems = tuple(
            transition.Problem(p.agent, p.chi, p.source, self._as_spec(p.posed), p.closed_by)
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
        ``{"error": CODE}``.  Raises :class:`gcv.spec.ledger.TooCostly` when it is too
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
                d = self.state.dmap
                mine = {p.source for p in self.state.problems if p.agent == agent and p.is_open(d)}
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
            _budget().afford(model, body)
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


def _budget() -> Budget:
    return Budget(BOUND.worlds, BOUND.conservative)


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
            # The typed operation cannot tell an empty list from a field left out; the spec
            # notes the choice between the two (form.empty-list-as-absent), so it sees both.
            empty: dict[str, list[str]] = {k: [] for k, v in op.items() if v == []}
            read.append(empty | spec_operation(operation_from_json(op)))
        except GcvError:
            # The form rule the operation breaks, if the schema admits it, is a clause too.
            broken = transition.form_violation(op)
            refused = transition.Rejected("malformed-operation", WELL_FORMED_FIRST)
            refused.index, refused.operation = index, op.get("op")
            form = () if broken is None else (broken[0],)
            refused.clauses = frozenset({WELL_FORMED_FIRST, *form})
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
