"""The two queries (Lemma 2.1, Definition 2.3) against the spec oracle and networkx."""

from __future__ import annotations

from itertools import pairwise

import icontract
import networkx as nx
import pytest
from hypothesis import given

from reference.closure import dependency_walk, one_step_affected, reverse_closure
from reference.predicates import is_dependency_path
from reference.records import GOOD_STANDING, Standing
from spec import core
from tests.strategies import RandomMap, random_maps


def _graph(m: RandomMap) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(m.args)
    graph.add_edges_from(m.dep_pairs)
    return graph


@given(random_maps())
def test_walk_accepts_exactly_when_the_closure_is_in_good_standing(m: RandomMap) -> None:
    d = m.to_spec()
    for start in m.args:
        walk = dependency_walk(m.dep, m.standing, start)
        assert walk.grounded == core.is_grounded(d, start), (start, walk)


@given(random_maps())
def test_accepted_walk_returns_exactly_dep_star(m: RandomMap) -> None:
    d, graph = m.to_spec(), _graph(m)
    for start in m.args:
        walk = dependency_walk(m.dep, m.standing, start)
        if walk.grounded:
            closure = set(walk.closure)
            assert closure == core.compute_dependency_closure(d, start), (start, walk)
            assert closure == nx.descendants(graph, start) | {start}, (start, walk)
            assert len(closure) == len(walk.closure), "each record is returned once"


@given(random_maps())
def test_rejected_walk_gives_a_shortest_path_to_a_record_outside_s_t(m: RandomMap) -> None:
    graph = _graph(m)
    for start in m.args:
        walk = dependency_walk(m.dep, m.standing, start)
        if walk.grounded:
            continue
        assert walk.witness is not None and m.standing[walk.witness] not in GOOD_STANDING
        assert walk.path[0] == start and walk.path[-1] == walk.witness
        assert is_dependency_path(m.dep, walk.path)
        bad = [r for r in m.args if m.standing[r] not in GOOD_STANDING]
        shortest = min(
            nx.shortest_path_length(graph, start, b) for b in bad if nx.has_path(graph, start, b)
        )
        assert len(walk.path) - 1 == shortest, (start, walk)


@given(random_maps())
def test_affected_star_is_the_union_of_the_x_k(m: RandomMap) -> None:
    d = m.to_spec()
    for beta in m.args:
        found = reverse_closure(m.rdep, beta)
        assert set(found) == core.compute_affected_star(d, beta), beta
        assert len(set(found)) == len(found), "each record is output once"
        assert set(one_step_affected(m.rdep, beta)) == core.compute_affected(d, beta)


@given(random_maps())
def test_affected_star_is_reverse_reachability_by_a_nonempty_path(m: RandomMap) -> None:
    """Corollary 2.4, checked against networkx; beta itself belongs exactly on a cycle."""
    d, graph = m.to_spec(), _graph(m)
    for beta in m.args:
        found = set(reverse_closure(m.rdep, beta))
        on_cycle = any(nx.has_path(graph, s, beta) for s in graph.successors(beta))
        assert found == nx.ancestors(graph, beta) | ({beta} if on_cycle else set()), beta
        assert found == {a for a in m.args if core.has_dependency_path(d, a, beta)}, beta


@given(random_maps())
def test_x_k_stabilises_within_args_rounds(m: RandomMap) -> None:
    """Definition 2.3: the increasing sequence X_k stabilises within |Args_t| rounds."""
    d = m.to_spec()
    for beta in m.args:
        sequence = core.compute_affected_iteration(d, beta)
        # sequence ends with its first repeat: X_0 .. X_s, X_s, so s = len - 2 rounds
        assert len(sequence) - 2 <= len(m.args)
        assert all(a <= b for a, b in pairwise(sequence))


def test_the_stabilisation_bound_is_reached_by_a_chain() -> None:
    """A chain r0 <- r1 <- ... <- r(n-1) needs n - 2 growing rounds: the bound's shape is tight."""
    n = 7
    args = frozenset(f"r{i}" for i in range(n))
    dep = frozenset((f"r{i + 1}", f"r{i}") for i in range(n - 1))
    d = core.DependencyMap(args, frozenset(), dict.fromkeys(args, core.ACTIVE), dep)
    sequence = core.compute_affected_iteration(d, "r0")
    assert [len(x) for x in sequence] == [1, 2, 3, 4, 5, 6, 6]


def test_walk_contract_rejects_a_start_outside_args() -> None:
    with pytest.raises(icontract.ViolationError, match="alpha_c is in Args_t"):
        dependency_walk({}, {"a": Standing.ACTIVE}, "b")


def test_costly_contracts_are_switched_on_in_the_tests() -> None:
    assert icontract.SLOW, "tests/conftest.py sets ICONTRACT_SLOW before icontract is imported"
