"""Shared pieces of the epistemic tests: random formulas and models, and the translation of
the reference's values into the spec's (``gcv.spec.epistemic``), so the two can be compared."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import settings
from hypothesis import strategies as st

from gcv.reference.epistemic import formula as rf
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.translate import spec_formula as to_spec_formula
from gcv.translate import spec_model as to_spec_model

__all__ = [
    "AGENTS",
    "ATOMS",
    "formulas",
    "models",
    "reference_truth",
    "scaled",
    "to_spec_formula",
    "to_spec_model",
]

AGENTS = ("a", "b", "c", "d")
ATOMS = ("p", "q", "r", "s", "t", "u")


def scaled(fraction: float) -> settings:
    """The active Hypothesis profile's example count, times ``fraction`` (for the costlier
    properties: the ``deep`` profile still runs them many times more than ``fast``)."""
    return settings(max_examples=max(10, int(settings.default.max_examples * fraction)))


# -- reference -> spec (to_spec_formula and to_spec_model are the conformance oracle's) ---


def reference_truth(m: PlausibilityModel, f: rf.Formula) -> frozenset[frozenset[str]]:
    """[[f]] computed by the reference, as a set of valuations."""
    from gcv.reference.epistemic.semantics import members, truth_set

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
