"""Typed predicates that the epistemic layer's contracts forward to.

Each states, on the stored representation, the definition an update or query
implements (Appendix A.1, Definitions A.2 and A.3).  The ones that compare every pair
of worlds in a cell are quadratic and used only under ``icontract.SLOW``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gcv.reference.epistemic.formula import Formula
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import members, truth_set
from gcv.reference.records import AgentId

if TYPE_CHECKING:  # abduction builds on the updates, whose contracts use this module
    from gcv.reference.epistemic.abduction import Problem

__all__ = [
    "is_bitset_over",
    "is_conservative_upgrade",
    "is_lexicographic_upgrade",
    "is_submodel_on",
    "keeps_the_queue",
    "keeps_the_worlds",
]


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


def keeps_the_queue(before: Sequence[Problem], after: Sequence[Problem]) -> bool:
    """Definition A.2's queue: no problem is dropped or changed, a solution never withdrawn;
    new problems come after the old."""
    if len(after) < len(before):
        return False
    return all(
        (a.agent, a.formula, a.source) == (b.agent, b.formula, b.source)
        and a.closed_by[: len(b.closed_by)] == b.closed_by
        for b, a in zip(before, after, strict=False)
    )
