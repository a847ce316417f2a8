"""The engine's values as the spec's: the translation the join layer makes to compare them.

The engine (:mod:`gcv.reference`) and the spec (:mod:`gcv.spec`) import nothing of each
other, so whatever compares them (the vector generator's oracle, the refinement and
model-based tests, the Z3 tie) reads the engine's state through these functions: the map
D_t (Definition 2.1), a formula and a plausibility model (Definition A.1), an operation
as :mod:`gcv.spec.transition` reads it, and M_0 as the trace format declares it.  Each
is structural, and its contract states what it keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import icontract

from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic import formula as rf
from gcv.reference.epistemic.formula import Formula, atoms_of
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.operations import Operation, own_formula
from gcv.spec import core
from gcv.spec import epistemic as se
from gcv.trace import operation_to_json

__all__ = [
    "declared_model",
    "has_the_atoms_of",
    "is_reflexive_on_valuations",
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
    """M_0 as the trace format defines its ``model`` (spec/gcv/spec/trace-format.md), by the
    definition.

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
