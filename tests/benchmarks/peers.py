"""The same dependency graph in networkx and in the truth-maintenance peers on PyPI.

Each adapter builds the structure from a Dep graph (record -> the records it rests
on, in the order the engine recorded them) and retracts a premise, returning what it
reports as affected, so the benchmark can check it against Affected* before timing.

``networkx``
    ``DiGraph`` with the edge alpha -> delta for delta in Dep(alpha) (A.2's direction);
    Affected*(beta) is ``nx.ancestors(G, beta)``, plus beta when it lies on a cycle
    (``ancestors`` never reports the source).  Faithful on every graph; a query, like
    the engine's.
``ltms`` (JTMS, Forbus and de Kleer)
    one node per record; a record with no Dep is an enabled assumption, any other has
    the single justification Dep(alpha) => alpha.  Retracting beta labels OUT
    exactly the nodes whose current support flows through it.  Not faithful on a
    Dep cycle: support must be well founded, so a record on a cycle is never IN and a
    retraction cannot report it.  Retraction mutates the labels; the benchmark
    re-enables beta between timed retractions.
``veritas-tms``
    one belief per record, a record with no Dep asserted ``ground``, any other
    justified by the AND-set Dep(alpha); ``retract_belief`` cascades.  Not faithful on
    a Dep cycle: a justification may cite only beliefs already asserted and active,
    so the link that closes a cycle is pruned and the record rejected.  Retraction is
    destructive; each timed retraction gets a freshly built store.

Neither peer represents standing labels (weakened, abandoned): every record is built
in, which is what reachability (Corollary 2.4) is about.  A Dep link added after its
record (Support, subsumption) is given to the peers as part of the final graph, which
is the only way either can hold it (justifications are fixed when recorded).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

__all__ = [
    "Graph",
    "cycle_records",
    "jtms_build",
    "jtms_retract",
    "networkx_affected",
    "networkx_build",
    "topological_order",
    "veritas_build",
    "veritas_retract",
]

Graph = Mapping[str, Sequence[str]]
"""Dep: every record (as a key, in registration order) -> the records it rests on."""


def networkx_build(dep: Graph) -> nx.DiGraph:
    """A DiGraph with alpha -> delta for each delta in Dep(alpha)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(dep)
    graph.add_edges_from((record, s) for record, supports in dep.items() for s in supports)
    return graph


def networkx_affected(graph: nx.DiGraph, beta: str) -> set[str]:
    """Affected*(beta) from networkx: its ancestors, and beta itself on a cycle."""
    found: set[str] = nx.ancestors(graph, beta)
    if any(s == beta or s in found for s in graph.succ[beta]):
        # Something beta rests on reaches beta again: a cycle through beta.
        found.add(beta)
    return found


def cycle_records(dep: Graph) -> set[str]:
    """The records that lie on a Dep cycle (strongly connected components of size > 1)."""
    graph = networkx_build(dep)
    return {r for scc in nx.strongly_connected_components(graph) if len(scc) > 1 for r in scc}


def topological_order(dep: Graph) -> list[str] | None:
    """Records ordered so each comes after what it rests on, or ``None`` on a cycle."""
    graph = networkx_build(dep)
    try:
        return list(reversed(list(nx.topological_sort(graph))))
    except nx.NetworkXUnfeasible:
        return None


def jtms_build(dep: Graph) -> tuple[Any, dict[str, Any]]:
    """A JTMS with a node per record: assumptions for premises, Dep(alpha) => alpha."""
    from ltms.jtms import JTMS

    jtms = JTMS("gcv")
    nodes = {record: jtms.create_node(record, assumption=not dep[record]) for record in dep}
    for record, supports in dep.items():
        if supports:
            jtms.justify_node(f"dep:{record}", nodes[record], [nodes[s] for s in supports])
    for record, supports in dep.items():
        if not supports:
            jtms.enable_assumption(nodes[record])
    return jtms, nodes


def jtms_retract(jtms: object, nodes: Mapping[str, object], beta: str) -> None:
    """Retract the assumption beta: phase 1 labels its support-dependents OUT."""
    jtms.retract_assumption(nodes[beta])  # type: ignore[attr-defined]


def jtms_out(nodes: Mapping[str, object]) -> set[str]:
    """The records the JTMS labels OUT."""
    return {record for record, node in nodes.items() if node.is_out}  # type: ignore[attr-defined]


def jtms_restore(jtms: object, nodes: Mapping[str, object], beta: str) -> None:
    """Re-enable beta (its dependents come back IN)."""
    jtms.enable_assumption(nodes[beta])  # type: ignore[attr-defined]


def veritas_build(dep: Graph, order: Sequence[str]) -> object:
    """A veritas BeliefStore with a belief per record, asserted in ``order``."""
    from veritas import BeliefStore

    store = BeliefStore(contradiction_fn=lambda a, b: False)
    for record in order:
        supports = list(dep[record])
        store.assert_belief(
            f"claim of {record}",
            justifications=[supports] if supports else None,
            ground=not supports,
            _belief_id=record,
        )
    return store


def veritas_retract(store: object, beta: str) -> set[str]:
    """Retract beta; the records the cascade retracted, beta excluded."""
    retracted = store.retract_belief(beta)  # type: ignore[attr-defined]
    return {b.id for b in retracted} - {beta}
