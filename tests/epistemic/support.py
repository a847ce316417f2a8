"""Shared pieces of the epistemic tests: random formulas and models, and the translation of
the reference's values into the spec's (``spec.epistemic``), so the two can be compared."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import settings
from hypothesis import strategies as st

from reference.epistemic import formula as rf
from reference.epistemic.model import PlausibilityModel
from spec import epistemic as se

AGENTS = ("a", "b", "c", "d")
ATOMS = ("p", "q", "r", "s", "t", "u")


def scaled(fraction: float) -> settings:
    """The active Hypothesis profile's example count, times ``fraction`` (for the costlier
    properties: the ``deep`` profile still runs them many times more than ``fast``)."""
    return settings(max_examples=max(10, int(settings.default.max_examples * fraction)))


# -- reference -> spec ------------------------------------------------------------------


def to_spec_formula(f: rf.Formula) -> se.Formula:
    """The same formula as the spec's value (a structural translation)."""
    match f:
        case rf.Const(value):
            return se.Top() if value else se.Bottom()
        case rf.Atom(name):
            return se.Atom(name)
        case rf.Not(body):
            return se.Not(to_spec_formula(body))
        case rf.And(parts):
            return se.And(tuple(to_spec_formula(p) for p in parts))
        case rf.Or(parts):
            return se.Or(tuple(to_spec_formula(p) for p in parts))
        case rf.Implies(left, right):
            return se.Implies(to_spec_formula(left), to_spec_formula(right))
        case rf.Iff(left, right):
            return se.Iff(to_spec_formula(left), to_spec_formula(right))
        case rf.Knows(agent, body):
            return se.Knows(agent, to_spec_formula(body))
        case rf.Believes(agent, body):
            return se.Believes(agent, to_spec_formula(body))
        case rf.CondBelieves(agent, body, condition):
            return se.CondBelieves(agent, to_spec_formula(body), to_spec_formula(condition))
        case rf.Everybody(group, body):
            return se.Everybody(group, to_spec_formula(body))
        case rf.Common(group, body):
            return se.Common(group, to_spec_formula(body))
        case rf.Aware(agent, body):
            return se.Aware(agent, to_spec_formula(body))
        case rf.Explicit(agent, body):
            return se.Explicit(agent, to_spec_formula(body))
    raise AssertionError(f"unknown formula {f!r}")


def to_spec_model(m: PlausibilityModel) -> se.EpistemicModel:
    """The same model as the spec's value: worlds as valuations, <=_i as a set of pairs."""
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


def reference_truth(m: PlausibilityModel, f: rf.Formula) -> frozenset[frozenset[str]]:
    """[[f]] computed by the reference, as a set of valuations."""
    from reference.epistemic.semantics import members, truth_set

    flags = members(truth_set(m, f), m.size)
    names = m.valuations()
    return frozenset(names[w] for w, flag in enumerate(flags) if flag == "1")


# -- strategies ---------------------------------------------------------------------------


def formulas(
    atoms: Sequence[str], agents: Sequence[str], max_leaves: int = 8
) -> st.SearchStrategy[rf.Formula]:
    """Random formulas over ``atoms`` and ``agents``, every connective and modality."""
    agent = st.sampled_from(list(agents))
    group = st.lists(agent, min_size=1, max_size=len(agents), unique=True).map(tuple)
    base = st.one_of(
        st.sampled_from(list(atoms)).map(rf.Atom),
        st.sampled_from([rf.TOP, rf.BOTTOM]),
    )

    def extend(inner: st.SearchStrategy[rf.Formula]) -> st.SearchStrategy[rf.Formula]:
        parts = st.lists(inner, min_size=2, max_size=3).map(tuple)
        return st.one_of(
            inner.map(rf.Not),
            parts.map(rf.And),
            parts.map(rf.Or),
            st.builds(rf.Implies, inner, inner),
            st.builds(rf.Iff, inner, inner),
            st.builds(rf.Knows, agent, inner),
            st.builds(rf.Believes, agent, inner),
            st.builds(rf.CondBelieves, agent, inner, inner),
            st.builds(rf.Everybody, group, inner),
            st.builds(rf.Common, group, inner),
            st.builds(rf.Aware, agent, inner),
            st.builds(rf.Explicit, agent, inner),
        )

    return st.recursive(base, extend, max_leaves=max_leaves)


@st.composite
def models(
    draw: st.DrawFn, min_agents: int = 3, max_atoms: int = 6, max_worlds: int = 12
) -> PlausibilityModel:
    """Random explicit models: 3-4 agents, 1-6 atoms, up to ``max_worlds`` distinct worlds,
    random cells, ranks and awareness sets."""
    agents = AGENTS[: draw(st.integers(min_agents, len(AGENTS)))]
    atoms = ATOMS[: draw(st.integers(1, max_atoms))]
    count = 1 << len(atoms)
    worlds = tuple(
        draw(
            st.lists(
                st.integers(0, count - 1), min_size=1, max_size=min(count, max_worlds), unique=True
            )
        )
    )
    n = len(worlds)
    cells = {a: tuple(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))) for a in agents}
    ranks = {a: tuple(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))) for a in agents}
    awareness = {
        a: frozenset(draw(st.lists(st.sampled_from(atoms), unique=True, max_size=len(atoms))))
        for a in agents
    }
    return PlausibilityModel(agents, atoms, awareness, worlds, cells, ranks)
