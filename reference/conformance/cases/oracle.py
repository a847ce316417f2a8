"""The spec's M_t beside the reference's: the vector generator's epistemic cross-check.

While a case is built, a :class:`SpecModel` keeps M_t as ``spec.epistemic``
computes it, independently of ``reference/epistemic/``:

- M_0 from the declaration, by the trace format's definition (w ~_i v iff w and v
  agree on the atoms i observes; w <=_i v iff, besides, i's rank of w is at most
  its rank of v), or, undeclared, every valuation of Prop_t in one cell;
- each accepted turn's operations, in the normative order, by the spec's update
  of their DEL realisation (``spec.epistemic.DEL_REALISATIONS``, read as
  ``spec/normative.md`` "M_t" reads Section 2's table): one simultaneous
  announcement for the turn's observations, awareness expansion, the upgrades
  and downgrades, [!~gamma] and [!gamma];
- the queue of abductive problems by Definition A.2
  (``spec.epistemic.is_abductive_problem``, ``is_abductive_solution``).

After every accepted turn the reference's M_t and problem queue must be the
spec's; every epistemic answer is recomputed on the spec's model; and a turn the
reference rejects with an epistemic code must be one the spec also refuses, at
the same operation.  Disagreement stops the generation.

The spec is brute force: a modality costs it O(|W|^2) per world, a conservative
upgrade O(|W|^2) per pair of worlds.  A computation on a model beyond
:data:`BOUND` (64 worlds for a modal formula or Definition A.2's check, 16 for a
conservative upgrade) is not made: the answer, or the turn, is then taken from
the reference, and after such a turn the spec's model is the reference's,
translated, so the steps after it are checked from there.  Propositional
formulas, announcements, lexicographic upgrades, expansions and the ``worlds``,
``ordered`` and ``unexplained`` answers cost at most O(|W|^2) and are always
computed.  :data:`TALLY` counts what was recomputed and what was not (``gcv
vectors`` prints it); :func:`bound` raises the bound for a deeper run, which
changes no vector, only the time and the count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import icontract

from reference.conformance.compare import canonical_worlds
from reference.conformance.predicates import (
    has_the_atoms_of,
    is_one_outcome,
    is_reflexive_on_valuations,
)
from reference.epistemic import formula as rf
from reference.epistemic.model import PlausibilityModel
from reference.epistemic.table import Update, realisation
from reference.errors import MalformedFormula
from reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    in_application_order,
)
from reference.records import GOOD_STANDING
from reference.trace import operation_from_json, operation_to_json
from spec import epistemic as se

__all__ = [
    "BOUND",
    "EPISTEMIC_FIELDS",
    "TALLY",
    "Bound",
    "SpecModel",
    "Unchecked",
    "bound",
    "declared_model",
    "is_epistemic_operation",
    "spec_formula",
    "spec_model",
    "spec_operation",
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


EPISTEMIC_FIELDS = frozenset({"formula", "introduces", "specific", "downgrade", "announce"})
"""Operation fields that belong to the epistemic layer (feature ``epistemic``)."""

# The codes a turn can be refused with for an epistemic reason the spec can judge.
_EPISTEMIC_CODES = frozenset({"no-surviving-world", "unknown-atom", "duplicate-atom"})


class Unchecked(Exception):
    """A computation the spec would take too long for; the reference's answer stands."""


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
    """The operation as :mod:`spec.transition` reads it: its trace-format object, with the
    formula as the spec's value."""
    data = operation_to_json(op)
    formula: rf.Formula | None = getattr(op, "formula", None)
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


def _agents_of(f: se.Formula) -> frozenset[str]:
    match f:
        case se.Top() | se.Bottom() | se.Atom():
            return frozenset()
        case se.And(parts) | se.Or(parts):
            return frozenset().union(*(_agents_of(p) for p in parts))
        case se.Implies(left, right) | se.Iff(left, right):
            return _agents_of(left) | _agents_of(right)
        case se.Not(body):
            return _agents_of(body)
        case se.CondBelieves(agent, body, condition):
            return frozenset({agent}) | _agents_of(body) | _agents_of(condition)
        case se.Everybody(group, body) | se.Common(group, body):
            return frozenset(group) | _agents_of(body)
        case (
            se.Knows(agent, body)
            | se.Believes(agent, body)
            | se.Aware(agent, body)
            | se.Explicit(agent, body)
        ):
            return frozenset({agent}) | _agents_of(body)
    raise AssertionError(f"not a formula: {f!r}")


def _is_modal(f: se.Formula) -> bool:
    match f:
        case se.Top() | se.Bottom() | se.Atom():
            return False
        case se.Not(body):
            return _is_modal(body)
        case se.And(parts) | se.Or(parts):
            return any(_is_modal(p) for p in parts)
        case se.Implies(left, right) | se.Iff(left, right):
            return _is_modal(left) or _is_modal(right)
    return True


def _affordable(model: se.EpistemicModel, *formulas: se.Formula) -> None:
    if len(model.worlds) > BOUND.worlds and any(_is_modal(f) for f in formulas):
        raise Unchecked(f"a modal formula on {len(model.worlds)} worlds")


def _valid(model: se.EpistemicModel, f: se.Formula) -> bool:
    _affordable(model, f)
    return se.is_valid(model, f)


def _believes(model: se.EpistemicModel, agent: str, f: se.Formula) -> bool:
    _affordable(model, se.Believes(agent, f))
    return se.is_valid(model, se.Believes(agent, f))


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


# -- the problem queue (Definition A.2) ----------------------------------------------------


@dataclass(frozen=True)
class SpecProblem:
    """(B_agent, chi), posed by ``source`` in ``posed``, with the hypotheses that solved it."""

    agent: str
    chi: se.Formula
    source: str
    posed: se.EpistemicModel
    closed_by: tuple[str, ...] = ()

    def is_open(self, standing: Mapping[str, str]) -> bool:
        """No hypothesis that solved it is in S_t."""
        return not any(standing.get(h) in _GOOD for h in self.closed_by)


_GOOD = frozenset(s.value for s in GOOD_STANDING)


class _Refused(Exception):
    """The spec refuses the operation at ``index`` (as written) with ``code``."""

    def __init__(self, code: str, index: int) -> None:
        super().__init__(code, index)
        self.code = code
        self.index = index


# -- the spec's M_t ---------------------------------------------------------------------------


class SpecModel:
    """M_t and its problem queue as ``spec.epistemic`` computes them, turn by turn.

    Parameters
    ----------
    agents:
        Ags, in the order ``start`` gave them (problems are queued agent by agent).
    model:
        M_0 (:func:`declared_model`).
    """

    def __init__(self, agents: Sequence[str], model: se.EpistemicModel) -> None:
        self.agents = tuple(agents)
        self.model = model
        self.problems: tuple[SpecProblem, ...] = ()
        self.formulas: dict[str, se.Formula] = {}

    # -- turns --------------------------------------------------------------------

    def accepted(
        self,
        operations: Sequence[Mapping[str, Any]],
        before: Mapping[str, str],
        after: Mapping[str, str],
        reference: Any,
    ) -> None:
        """Follow an accepted turn; compare with the reference's M_t and queue afterwards.

        ``before`` and ``after`` are st_t before and after the turn; ``reference`` is the
        reference's epistemic state after it.  A turn too costly for the spec leaves the
        spec's M_t the reference's.  Raises ``AssertionError`` naming the difference when
        the two disagree.
        """
        saved = (self.model, self.problems, dict(self.formulas))
        try:
            self._turn(operations, before, after)
        except Unchecked:
            self.model, self.problems, self.formulas = saved
            self._take(operations, reference)
            TALLY["turns taken from the reference"] += 1
            return
        except _Refused as refused:
            raise AssertionError(
                f"the reference accepted the turn; the spec refuses operation {refused.index} "
                f"with {refused.code}"
            ) from None
        self._compare(reference)
        TALLY["turns recomputed"] += 1

    def rejected(
        self, operations: Sequence[Mapping[str, Any]], code: str, index: int | None, before: Any
    ) -> None:
        """Check a turn the reference rejected with ``code`` at operation ``index``.

        An epistemic code must be the spec's first refusal, at the same operation.  The
        spec's state does not change.
        """
        if code not in _EPISTEMIC_CODES:
            return
        saved = (self.model, self.problems, dict(self.formulas))
        try:
            self._turn(operations, before, before)
        except Unchecked:
            TALLY["refusals not recomputed"] += 1
            return
        except _Refused as refused:
            if (refused.code, refused.index) != (code, index):
                raise AssertionError(
                    f"the reference refuses operation {index} with {code}; the spec refuses "
                    f"operation {refused.index} with {refused.code}"
                ) from None
            TALLY["refusals recomputed"] += 1
            return
        finally:
            self.model, self.problems, self.formulas = saved
        raise AssertionError(
            f"the reference refuses operation {index} with {code}; the spec applies the turn"
        )

    def _take(self, operations: Sequence[Mapping[str, Any]], reference: Any) -> None:
        self.model = spec_model(reference.model)
        self.problems = tuple(
            SpecProblem(
                p.agent, spec_formula(p.formula), p.source, spec_model(p.model), p.closed_by
            )
            for p in reference.problems
        )
        for op in _typed(operations):
            if isinstance(op, (Observe, Hypothesize, Question)) and op.formula is not None:
                self.formulas[op.id] = spec_formula(op.formula)

    def _compare(self, reference: Any) -> None:
        theirs = spec_model(reference.model)
        if not _same_model(self.model, theirs):
            raise AssertionError(_model_difference(self.model, theirs))
        mine = [(p.agent, p.chi, p.source, p.closed_by) for p in self.problems]
        other = [
            (p.agent, spec_formula(p.formula), p.source, p.closed_by) for p in reference.problems
        ]
        if mine != other:
            raise AssertionError(f"the problem queues differ: spec {mine}, reference {other}")
        for p, q in zip(self.problems, reference.problems, strict=True):
            if not _same_model(p.posed, spec_model(q.model)):
                where = _model_difference(p.posed, spec_model(q.model))
                raise AssertionError(
                    f"problem ({p.agent}, {p.source}) was posed in another M: {where}"
                )

    def _turn(
        self,
        operations: Sequence[Mapping[str, Any]],
        before: Mapping[str, str],
        after: Mapping[str, str],
    ) -> None:
        standing = dict(before)
        observed: list[tuple[int, Observe, se.Formula]] = []
        for index, op in in_application_order(_typed(operations)):
            if observed and not isinstance(op, Observe):
                self._announce(observed)
                observed = []
            self._check(index, op)
            match op:
                case ExpandAwareness():
                    self.model = se.process_awareness_expansion(
                        self.model, op.atom, op.agents or None
                    )
                case Observe():
                    standing[op.id] = "active"
                    if op.formula is not None:
                        psi = spec_formula(op.formula)
                        self.formulas[op.id] = psi
                        observed.append((index, op, psi))
                case Hypothesize():
                    standing[op.id] = "active"
                    self._hypothesize(op, standing)
                case Question():
                    if op.formula is not None:
                        self.formulas[op.id] = spec_formula(op.formula)
                        self._queue(op.id, self.formulas[op.id], after)
                case _:
                    self._on_target(index, op)
        if observed:
            self._announce(observed)

    def _check(self, index: int, op: Operation) -> None:
        """The epistemic preconditions, in the normative order (spec/normative.md)."""
        introduced: tuple[str, ...] = ()
        if isinstance(op, Hypothesize):
            if any(atom in self.model.atoms for atom in op.introduces):
                raise _Refused("duplicate-atom", index)
            introduced = op.introduces
        own = getattr(op, "formula", None)
        if own is None:
            return
        f = spec_formula(own)
        if not _agents_of(f) <= self.model.agents:
            raise _Refused("unknown-agent", index)
        if not se.compute_atoms(f) <= self.model.atoms | set(introduced):
            raise _Refused("unknown-atom", index)

    def _announce(self, observed: Sequence[tuple[int, Observe, se.Formula]]) -> None:
        """One turn's observations: [!(psi_1 & ... & psi_n)], each psi_k read in M_t; psi_k poses
        (B_i, psi_k) for every i who does not believe it in M_t announced with the others."""
        model = self.model
        for k in range(len(observed)):
            so_far = se.And(tuple(psi for _, _, psi in observed[: k + 1]))
            _affordable(model, so_far)
            if not se.compute_truth_set(model, so_far):
                raise _Refused("no-surviving-world", observed[k][0])
        problems = list(self.problems)
        for k, (_, op, psi) in enumerate(observed):
            others = [other for j, (_, _, other) in enumerate(observed) if j != k]
            posed = se.process_announcement(model, se.And(tuple(others))) if others else model
            problems += [
                SpecProblem(agent, psi, op.id, posed)
                for agent in self.agents
                if not _believes(posed, agent, psi)
            ]
        everything = se.And(tuple(psi for _, _, psi in observed))
        self.model = se.process_announcement(model, everything)
        self.problems = tuple(problems)

    def _hypothesize(self, op: Hypothesize, standing: Mapping[str, str]) -> None:
        for atom in op.introduces:
            self.model = se.process_awareness_expansion(self.model, atom)
        if op.formula is None:
            return
        gamma = spec_formula(op.formula)
        self.formulas[op.id] = gamma
        closed = []
        for p in self.problems:
            if p.is_open(standing) and self._solves(p, gamma):
                p = replace(p, closed_by=(*p.closed_by, op.id))
            closed.append(p)
        self.problems = tuple(closed)
        self.model = se.process_lexicographic_upgrade(self.model, gamma)

    def _solves(self, p: SpecProblem, gamma: se.Formula) -> bool:
        grown = len(p.posed.worlds) << len(se.compute_atoms(gamma) - p.posed.atoms)
        if max(grown, len(self.model.worlds)) > BOUND.worlds:
            raise Unchecked(
                f"Definition A.2's check on {max(grown, len(self.model.worlds))} worlds"
            )
        return se.is_abductive_solution(self.model, p.posed, p.agent, p.chi, gamma)

    def _queue(self, source: str, chi: se.Formula, standing: Mapping[str, str]) -> None:
        """Question: (B_i, chi) for every i who does not believe chi and has no open problem
        with the same chi."""
        added = []
        for agent in self.agents:
            if _believes(self.model, agent, chi):
                continue
            if any(
                p.agent == agent and p.chi == chi and p.is_open(standing) for p in self.problems
            ):
                continue
            added.append(SpecProblem(agent, chi, source, self.model))
        self.problems = (*self.problems, *added)

    def _on_target(self, index: int, op: Operation) -> None:
        """Support, Undermine, Revise, Resolve: their row of the table, on their own formula or
        the target's."""
        own = getattr(op, "formula", None)
        target = getattr(op, "target", "")
        gamma = spec_formula(own) if own is not None else self.formulas.get(target)
        if gamma is None:
            return
        reading = realisation(op)
        if reading.update is None:
            return
        acted_on = se.Not(gamma) if reading.negated else gamma
        match reading.update:
            case Update.HARD_ANNOUNCEMENT:
                _affordable(self.model, acted_on)
                if not se.compute_truth_set(self.model, acted_on):
                    raise _Refused("no-surviving-world", index)
                self.model = se.process_announcement(self.model, acted_on)
            case Update.LEXICOGRAPHIC_UPGRADE:
                _affordable(self.model, acted_on)
                self.model = se.process_lexicographic_upgrade(self.model, acted_on)
            case Update.CONSERVATIVE_UPGRADE:
                if len(self.model.worlds) > BOUND.conservative:
                    raise Unchecked(f"a conservative upgrade on {len(self.model.worlds)} worlds")
                _affordable(self.model, acted_on)
                self.model = se.process_conservative_upgrade(self.model, acted_on)
            case _:
                raise AssertionError(f"{op} has no update {reading.update}")

    # -- queries ----------------------------------------------------------------------

    @icontract.ensure(lambda result: is_one_outcome(result), "an expectation states one outcome")
    def answer(self, request: Mapping[str, Any], standing: Mapping[str, str]) -> dict[str, Any]:
        """The expectation the spec gives an epistemic query: ``{"result": ...}`` or
        ``{"error": CODE}``.  Raises :class:`Unchecked` when it is too costly."""
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
            if not _agents_of(f) <= model.agents:
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
                mine = {p.source for p in self.problems if p.agent == agent and p.is_open(standing)}
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
        _affordable(model, body)
        if world is None:
            return {"result": se.is_valid(model, body)}
        return {"result": se.is_true(model, world, body)}


def _typed(operations: Sequence[Mapping[str, Any]]) -> tuple[Operation, ...]:
    return tuple(operation_from_json(op) for op in operations)


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
