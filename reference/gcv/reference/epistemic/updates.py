"""Updates of M_t (Appendix A.1 "Updates", Definition A.3): each returns a new model.

* :func:`announce`: the hard announcement [!psi], public (the worlds where psi
  fails are eliminated) or to a group G (G's cells split on psi: G learn whether
  psi, and the others know that they did).  O(|W|).
* :func:`lexicographic_upgrade`: [up-up psi], every psi-world strictly more
  plausible than every ~psi-world, the order kept within each side.
  O(|W| log |W|): a stable sort on (side, rank).
* :func:`conservative_upgrade`: [up psi], the most plausible psi-worlds of each
  cell become its most plausible worlds, every other comparison kept.
* :func:`downgrade`: the Undermine family, lexicographic or conservative
  upgrades of ~gamma.
* :func:`expand`: awareness expansion; a new atom joins Prop_t and every world
  splits into two copies that differ on it (Definition A.3).

Every upgrade applies to the named agents (default: all, a public upgrade);
the others' orders are unchanged.  Psi is evaluated once, in the model before
the update (the update's precondition and trigger are read in the old model).

Mirrors ``gcv.spec.epistemic.process_announcement`` and its siblings.

References
----------
van Benthem, Johan. 2007. "Dynamic Logic for Belief Revision." *Journal of
Applied Non-Classical Logics* 17 (2): 129-55. https://doi.org/10.3166/jancl.17.129-155.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

import icontract

from gcv.reference.epistemic.formula import Formula, Not
from gcv.reference.epistemic.model import MAX_WORLDS, PlausibilityModel
from gcv.reference.epistemic.semantics import members, truth_set
from gcv.reference.errors import ModelTooLarge, NoSurvivingWorld, UnknownAgent
from gcv.reference.identifiers import AgentId

__all__ = [
    "Downgrade",
    "announce",
    "conservative_upgrade",
    "downgrade",
    "expand",
    "lexicographic_upgrade",
    "restrict",
]


# What the updates' contracts state, on the stored representation (Appendix A.1).  The
# ones comparing every pair of worlds in a cell are quadratic: under icontract.SLOW only.


def is_bitset_over(model: PlausibilityModel, mask: int) -> bool:
    """Check that ``mask`` is a set of worlds of W (a bitset below 2^|W|)."""
    return 0 <= mask < 1 << model.size


def is_submodel_on(before: PlausibilityModel, after: PlausibilityModel, keep: int) -> bool:
    """Check that ``after`` is ``before`` restricted to the worlds of ``keep``, in order."""
    flags = members(keep, before.size)
    chosen = [w for w, f in enumerate(flags) if f == "1"]
    return after.worlds == tuple(before.worlds[w] for w in chosen) and all(
        after.cells(a) == tuple(before.cells(a)[w] for w in chosen) for a in before.agents
    )


def keeps_the_worlds(before: PlausibilityModel, after: PlausibilityModel) -> bool:
    """Check that an upgrade changed no world and no cell (only plausibility)."""
    return after.worlds == before.worlds and all(
        after.cells(a) == before.cells(a) for a in before.agents
    )


def _pairs_in_cells(model: PlausibilityModel, agent: AgentId) -> list[tuple[int, int]]:
    cells = model.cells(agent)
    return [(w, v) for w in range(model.size) for v in range(model.size) if cells[w] == cells[v]]


def _is_promotion(
    before: PlausibilityModel, after: PlausibilityModel, agent: AgentId, promoted: str
) -> bool:
    """Within each cell: promoted worlds strictly before the others, each side's order kept."""
    old, new = before.ranks(agent), after.ranks(agent)
    for w, v in _pairs_in_cells(before, agent):
        if promoted[w] == "1" and promoted[v] == "0" and not new[w] < new[v]:
            return False
        if promoted[w] == promoted[v] and (old[w] <= old[v]) != (new[w] <= new[v]):
            return False
    return True


def is_lexicographic_upgrade(
    before: PlausibilityModel,
    after: PlausibilityModel,
    formula: Formula,
    agents: Sequence[AgentId] | None,
) -> bool:
    """A.1: every psi-world strictly more plausible than every ~psi-world, the order within
    each side kept, for the agents upgraded; the others' orders unchanged."""
    before = before.explicit()
    group = before.agents if agents is None else tuple(agents)
    flags = members(truth_set(before, formula), before.size)
    return keeps_the_worlds(before, after) and all(
        _is_promotion(before, after, a, flags) if a in group else after.ranks(a) == before.ranks(a)
        for a in before.agents
    )


def is_conservative_upgrade(
    before: PlausibilityModel,
    after: PlausibilityModel,
    formula: Formula,
    agents: Sequence[AgentId] | None,
) -> bool:
    """A.1: the most plausible psi-worlds of each cell strictly first, every other comparison
    kept, for the agents upgraded; the others' orders unchanged."""
    before = before.explicit()
    group = before.agents if agents is None else tuple(agents)
    inside = members(truth_set(before, formula), before.size)
    if not keeps_the_worlds(before, after):
        return False
    for agent in before.agents:
        if agent not in group:
            if after.ranks(agent) != before.ranks(agent):
                return False
            continue
        cells, ranks = before.cells(agent), before.ranks(agent)
        low: dict[int, int] = {}
        for w in range(before.size):
            if inside[w] == "1":
                low[cells[w]] = min(low.get(cells[w], ranks[w]), ranks[w])
        best = "".join(
            "1" if inside[w] == "1" and ranks[w] == low[cells[w]] else "0"
            for w in range(before.size)
        )
        if not _is_promotion(before, after, agent, best):
            return False
    return True


def _group(model: PlausibilityModel, agents: Sequence[AgentId] | None) -> tuple[AgentId, ...]:
    """The group an update is for (all of Ags when None), each agent checked against Ags."""
    if agents is None:
        return model.agents
    for agent in agents:
        if agent not in model.agents:
            raise UnknownAgent(f"agent {agent!r} is not in Ags", field="agents")
    return tuple(agents)


@icontract.require(
    lambda model, keep: keep != 0 and is_bitset_over(model, keep), "a non-empty set of worlds"
)
@icontract.ensure(
    lambda model, keep, result: is_submodel_on(model, result, keep),
    "the submodel on exactly the kept worlds, cells and ranks as they were",
    enabled=icontract.SLOW,
)
def restrict(model: PlausibilityModel, keep: int) -> PlausibilityModel:
    """The submodel on the worlds in the bitset ``keep`` (non-empty): one pass over W."""
    model = model.explicit()
    flags = members(keep, model.size)
    chosen = [w for w, f in enumerate(flags) if f == "1"]
    return model.with_parts(
        worlds=tuple(model.worlds[w] for w in chosen),
        cells={a: tuple(model.cells(a)[w] for w in chosen) for a in model.agents},
        ranks={a: tuple(model.ranks(a)[w] for w in chosen) for a in model.agents},
    )


def _split_cells(labels: Sequence[int], flags: str) -> tuple[int, ...]:
    renamed: dict[tuple[int, str], int] = {}
    return tuple(
        renamed.setdefault((label, f), len(renamed)) for label, f in zip(labels, flags, strict=True)
    )


def _is_refinement(before: PlausibilityModel, after: PlausibilityModel) -> bool:
    return after.size <= before.size and set(after.worlds) <= set(before.explicit().worlds)


@icontract.ensure(
    lambda model, result: _is_refinement(model, result),
    "a hard announcement eliminates worlds and adds none",
)
def announce(
    model: PlausibilityModel, formula: Formula, agents: Sequence[AgentId] | None = None
) -> PlausibilityModel:
    """[!psi]: public (``agents`` None), or to the group ``agents``.

    Raises
    ------
    UnknownAgent
        A member of ``agents`` is not in Ags (every group update refuses one so).
    NoSurvivingWorld
        Psi holds at no world of W: no truthful announcement of it is possible.

    Notes
    -----
    One evaluation of psi and one pass over W: O(|psi| |W|) (O(|W|) for a
    fixed psi, Proposition 2.5).

    Examples
    --------
    >>> from gcv.reference.epistemic.formula import parse
    >>> from gcv.reference.epistemic.model import PlausibilityModel
    >>> m = PlausibilityModel.implicit(["a"], ["m_a", "m_b", "m_c"])
    >>> announce(m, parse("m_a | m_b | m_c")).size
    7
    """
    group = _group(model, agents)
    inside = truth_set(model, formula)
    if not inside:
        raise NoSurvivingWorld(
            f"the announcement {formula} holds at no world of W_t", field="formula"
        )
    if agents is None:
        return restrict(model, inside)
    model = model.explicit()
    flags = members(inside, model.size)
    cells = {a: model.cells(a) for a in model.agents}
    for agent in group:
        cells[agent] = _split_cells(model.cells(agent), flags)
    return model.with_parts(cells=cells)


def _reorder(ranks: Sequence[int], promoted: str) -> tuple[int, ...]:
    """Promoted worlds first, each side in its old order; ranks renumbered densely."""
    order = sorted(range(len(ranks)), key=lambda w: (promoted[w] != "1", ranks[w]))
    out = [0] * len(ranks)
    current, previous = -1, None
    for w in order:
        key = (promoted[w] != "1", ranks[w])
        if key != previous:
            current, previous = current + 1, key
        out[w] = current
    return tuple(out)


def _upgraded(
    model: PlausibilityModel, agents: Sequence[AgentId], promoted: Mapping[AgentId, str]
) -> PlausibilityModel:
    ranks = {a: model.ranks(a) for a in model.agents}
    for agent in agents:
        ranks[agent] = _reorder(model.ranks(agent), promoted[agent])
    return model.with_parts(ranks=ranks)


@icontract.ensure(
    lambda model, formula, agents, result: is_lexicographic_upgrade(model, result, formula, agents),
    "every psi-world strictly more plausible than every ~psi-world, each side's order kept",
    enabled=icontract.SLOW,
)
def lexicographic_upgrade(
    model: PlausibilityModel, formula: Formula, agents: Sequence[AgentId] | None = None
) -> PlausibilityModel:
    """[up-up psi]: every psi-world strictly more plausible than every ~psi-world.

    No world is eliminated; within each side the old order is kept (a stable
    sort on (side, rank)).  O(|W| log |W|) per agent.

    Examples
    --------
    >>> from gcv.reference.epistemic.formula import parse
    >>> from gcv.reference.epistemic.model import PlausibilityModel
    >>> m = lexicographic_upgrade(PlausibilityModel.implicit(["a"], ["h"]), parse("h"))
    >>> [(sorted(v), r) for v, r in zip(m.valuations(), m.ranks("a"))]
    [([], 1), (['h'], 0)]
    """
    model = model.explicit()
    flags = members(truth_set(model, formula), model.size)
    group = _group(model, agents)
    return _upgraded(model, group, dict.fromkeys(group, flags))


def _best(labels: Sequence[int], ranks: Sequence[int], flags: str) -> str:
    """The most plausible flagged worlds of each cell."""
    low: dict[int, int] = {}
    for w, f in enumerate(flags):
        if f == "1" and ranks[w] < low.get(labels[w], ranks[w] + 1):
            low[labels[w]] = ranks[w]
    return "".join(
        "1" if f == "1" and ranks[w] == low[labels[w]] else "0" for w, f in enumerate(flags)
    )


@icontract.ensure(
    lambda model, formula, agents, result: is_conservative_upgrade(model, result, formula, agents),
    "the most plausible psi-worlds promoted to the minimum, all other comparisons kept",
    enabled=icontract.SLOW,
)
def conservative_upgrade(
    model: PlausibilityModel, formula: Formula, agents: Sequence[AgentId] | None = None
) -> PlausibilityModel:
    """[up psi]: the most plausible psi-worlds of each cell become its most plausible.

    Every other comparison is kept: it is the lexicographic upgrade of
    best_i(psi), the cell-wise most plausible psi-worlds.  O(|W| log |W|).

    Examples
    --------
    >>> from gcv.reference.epistemic.formula import parse
    >>> from gcv.reference.epistemic.model import build_model
    >>> m = build_model(["a"], ["p", "q"], ranks={"a": [([], 0), (["p"], 1), (["p", "q"], 2)]})
    >>> conservative_upgrade(m, parse("p")).ranks("a")
    (1, 0, 1, 2)
    """
    model = model.explicit()
    flags = members(truth_set(model, formula), model.size)
    group = _group(model, agents)
    promoted = {a: _best(model.cells(a), model.ranks(a), flags) for a in group}
    return _upgraded(model, group, promoted)


class Downgrade(enum.Enum):
    """The Undermine family: how the plausibility of gamma is lowered."""

    LEXICOGRAPHIC = "lexicographic"
    """[up-up ~gamma]: every ~gamma-world above every gamma-world (B.2, T7)."""
    CONSERVATIVE = "conservative"
    """[up ~gamma]: only the most plausible ~gamma-worlds move to the top."""


@icontract.ensure(
    lambda model, formula, agents, result: keeps_the_worlds(model.explicit(), result),
    "a downgrade eliminates no world and changes no cell",
)
def downgrade(
    model: PlausibilityModel,
    formula: Formula,
    how: Downgrade = Downgrade.LEXICOGRAPHIC,
    agents: Sequence[AgentId] | None = None,
) -> PlausibilityModel:
    """Lower the plausibility of gamma: the upgrade of ~gamma chosen by ``how``."""
    negated = Not(formula)
    if how is Downgrade.CONSERVATIVE:
        return conservative_upgrade(model, negated, agents)
    return lexicographic_upgrade(model, negated, agents)


def _doubles(before: PlausibilityModel, after: PlausibilityModel, atom: str) -> bool:
    return atom not in before.atoms or after.size == before.size


@icontract.ensure(
    lambda model, atom, result: _doubles(model, result, atom) and atom in result.atoms,
    "a new atom joins Prop_t; a known one leaves W as it is",
)
def expand(
    model: PlausibilityModel, atom: str, agents: Sequence[AgentId] | None = None
) -> PlausibilityModel:
    """Awareness expansion (Definition A.3): ``atom`` joins Prop_t and A_i for ``agents``.

    A new atom splits every world w into w and w + atom; both copies keep w's
    cell and rank for every agent (becoming aware of p is not learning whether p,
    and neither copy is more plausible).  An atom already in Prop_t changes only
    the awareness sets.  An implicit model stays implicit.  O(|W|).

    Raises
    ------
    ModelTooLarge
        Splitting would exceed :data:`~gcv.reference.epistemic.model.MAX_WORLDS`.

    Examples
    --------
    >>> from gcv.reference.epistemic.model import PlausibilityModel
    >>> m = expand(PlausibilityModel.implicit(["a", "b"], ["p"], {"a": ["p"], "b": ["p"]}), "q")
    >>> m.size, sorted(m.awareness["a"])
    (4, ['p', 'q'])
    """
    group = _group(model, agents)
    awareness = {
        a: model.awareness[a] | {atom} if a in group else model.awareness[a] for a in model.agents
    }
    if atom in model.atoms:
        return model.with_parts(awareness=awareness)
    atoms = (*model.atoms, atom)
    if not model.is_explicit:
        return model.with_parts(atoms=atoms, awareness=awareness)
    if 2 * model.size > MAX_WORLDS:
        raise ModelTooLarge(
            f"adding {atom!r} would split W into {2 * model.size} worlds; "
            f"the reference keeps at most {MAX_WORLDS}",
            field="atom",
        )
    bit = 1 << len(model.atoms)
    worlds = tuple(v for w in model.worlds for v in (w, w | bit))
    return model.with_parts(
        atoms=atoms,
        awareness=awareness,
        worlds=worlds,
        cells={a: tuple(c for c in model.cells(a) for _ in (0, 1)) for a in model.agents},
        ranks={a: tuple(r for r in model.ranks(a) for _ in (0, 1)) for a in model.agents},
    )
