"""The two queries (Lemma 2.1, Definition 2.3) against the spec oracle and networkx."""

from __future__ import annotations

import dataclasses
from itertools import pairwise

import icontract
import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcv.reference import closure
from gcv.reference.closure import (
    Grounding,
    Walk,
    _accepts_a_closed_set,
    _accepts_within_good_standing,
    _rejects_with_a_witness,
    dependency_walk,
    reverse_closure,
)
from gcv.reference.records import GOOD_STANDING
from gcv.reference.verifier import is_dependency_path
from gcv.spec import core
from tests.strategies import RandomMap, random_maps


def _graph(m: RandomMap) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(m.args)
    graph.add_edges_from(m.dep_pairs)
    return graph


# Small maps reach every corner case; maps of up to 48 records make longer walks.
SMALL_AND_LARGER = st.one_of(random_maps(), random_maps(max_records=48))


@pytest.mark.slow
@given(SMALL_AND_LARGER)
def test_walk_accepts_exactly_when_the_closure_is_in_good_standing(m: RandomMap) -> None:
    d = m.to_spec()
    for start in m.args:
        walk = m.walk(start)
        assert walk.grounded == core.is_grounded(d, start), (start, walk)


@pytest.mark.slow
@given(SMALL_AND_LARGER)
def test_accepted_walk_returns_exactly_dep_star(m: RandomMap) -> None:
    d, graph = m.to_spec(), _graph(m)
    for start in m.args:
        walk = m.walk(start)
        if walk.grounded:
            closure = set(walk.closure)
            assert closure == core.compute_dependency_closure(d, start), (start, walk)
            assert closure == nx.descendants(graph, start) | {start}, (start, walk)
            assert len(closure) == len(walk.closure), "each record is returned once"


@pytest.mark.slow
@given(SMALL_AND_LARGER)
def test_rejected_walk_gives_a_shortest_path_to_a_record_outside_s_t(m: RandomMap) -> None:
    graph = _graph(m)
    for start in m.args:
        walk = m.walk(start)
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


@pytest.mark.slow
@given(SMALL_AND_LARGER)
def test_affected_star_is_the_union_of_the_x_k(m: RandomMap) -> None:
    d = m.to_spec()
    for beta in m.args:
        found = m.affected_star(beta)
        assert set(found) == core.compute_affected_star(d, beta), beta
        assert len(set(found)) == len(found), "each record is output once"
        assert set(m.affected(beta)) == core.compute_affected(d, beta)


@pytest.mark.slow
@given(SMALL_AND_LARGER)
def test_affected_star_is_reverse_reachability_by_a_nonempty_path(m: RandomMap) -> None:
    """Corollary 2.4, checked against networkx; beta itself belongs exactly on a cycle."""
    d, graph = m.to_spec(), _graph(m)
    for beta in m.args:
        found = set(m.affected_star(beta))
        on_cycle = any(nx.has_path(graph, s, beta) for s in graph.successors(beta))
        assert found == nx.ancestors(graph, beta) | ({beta} if on_cycle else set()), beta
        assert found == {a for a in m.args if core.has_dependency_path(d, a, beta)}, beta


@pytest.mark.slow
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


@pytest.mark.parametrize("n", [2, 16, 17, 100])
def test_a_walk_along_a_chain_keeps_its_path_and_closure(n: int) -> None:
    """A chain r0 -> r1 -> ... -> r(n-1) visits every record: the rejection's path is the
    whole chain, read back through every parent mark, and no record is lost."""
    chain = [[i + 1] for i in range(n - 1)] + [[]]
    reverse = [[]] + [[i - 1] for i in range(1, n)]
    assert dependency_walk(chain, [1] * n, 0).closure == tuple(range(n))
    rejected = dependency_walk(chain, [1] * (n - 1) + [0], 0)
    assert rejected.path == tuple(range(n)) and rejected.witness == n - 1
    assert reverse_closure(reverse, n - 1) == tuple(range(n - 2, -1, -1))
    assert reverse_closure(reverse, 0) == ()
    cycle = [[(i + 1) % n] for i in range(n)]
    assert sorted(reverse_closure([[(i - 1) % n] for i in range(n)], 0)) == list(range(n))
    assert set(dependency_walk(cycle, [1] * n, 0).closure) == set(range(n))


def test_walk_contract_rejects_a_start_outside_args() -> None:
    with pytest.raises(icontract.ViolationError, match="alpha_c is in Args_t"):
        dependency_walk([[]], [1], 1)


def test_costly_contracts_are_switched_on_in_the_tests() -> None:
    assert icontract.SLOW, "tests/conftest.py sets ICONTRACT_SLOW before icontract is imported"


# -- the Verify walk's answers, named and checked ------------------------------------------


def test_a_walk_is_named_record_by_record() -> None:
    """The Verifier names the walk's numbers back: every field, in order."""
    name = ("h", "o", "x")
    assert Walk(True, closure=(0, 2, 1)).named("h", name) == Grounding("h", True, ("h", "x", "o"))
    rejected = Walk(False, witness=1, path=(0, 2, 1)).named("h", name)
    assert rejected == Grounding("h", False, witness="o", path=("h", "x", "o"))
    assert Walk(False).named("h", name).witness is None


@pytest.mark.parametrize(
    ("walk", "made"),
    [
        (Walk(True, closure=(0, 2)), Grounding("h", True, ("h", "x"))),
        (Walk(False, witness=2, path=(0, 2)), Grounding("h", False, (), "x", ("h", "x"))),
    ],
)
def test_a_named_answer_is_the_dataclass_answer(walk: Walk, made: Grounding) -> None:
    """The named answer, made without the dataclass's __init__, is the same frozen value."""
    named = walk.named("h", ("h", "o", "x"))
    assert type(named) is Grounding
    assert (named, hash(named), repr(named)) == (made, hash(made), repr(made))
    assert dataclasses.astuple(named) == dataclasses.astuple(made)
    with pytest.raises(dataclasses.FrozenInstanceError):
        named.grounded = not named.grounded  # type: ignore[misc]


def test_the_walk_contracts_refuse_wrong_answers() -> None:
    """Each clause of Lemma 2.1's postconditions, failing alone, makes its check fail."""
    h, o, x = 0, 1, 2
    supports = [[o], [], []]
    good = [1, 0, 1]
    # Accepted, but the closure leaves S_t.
    assert not _accepts_within_good_standing(Walk(True, (h, o)), good)
    # Accepted, starting at h, but not closed under Dep.
    assert not _accepts_a_closed_set(Walk(True, (h,)), supports, h)
    # Rejected: one clause wrong at a time.
    right = Walk(False, witness=o, path=(h, o))
    assert _rejects_with_a_witness(right, supports, good, h)
    wrong = [
        Walk(False, witness=None, path=(h, o)),  # no witness
        Walk(False, witness=o, path=(x, o)),  # path starts elsewhere
        Walk(False, witness=o, path=(h, x)),  # path ends elsewhere
        Walk(False, witness=x, path=(h, x)),  # witness in S_t
        Walk(False, witness=o, path=(h, x, o)),  # not a Dep path
    ]
    for answer in wrong:
        assert not _rejects_with_a_witness(answer, supports, good, h), answer


@settings(max_examples=20)  # contracts on: each example walks every record four times
@given(SMALL_AND_LARGER)
def test_the_answer_does_not_depend_on_when_the_walk_moves_to_flags(m: RandomMap) -> None:
    """The walks mark in a set, then in flat marks from 1 in _FLAT_FROM_ONE_IN records: with
    the set throughout (1 in 1, but for a last step), from half the map, the default, and
    flat marks from the first record, every query answers alike, and as the spec says."""
    d = m.to_spec()
    default = closure._FLAT_FROM_ONE_IN
    answers = []
    for one_in in (1, 2, default, 10**9):
        closure._FLAT_FROM_ONE_IN = one_in
        try:
            answers.append(
                [(m.walk(r), m.affected_star(r)) for r in m.args]  # every record, both queries
            )
        finally:
            closure._FLAT_FROM_ONE_IN = default
    assert all(a == answers[0] for a in answers), answers
    for r, (walk, affected) in zip(m.args, answers[0], strict=True):
        assert walk.grounded == core.is_grounded(d, r), (r, walk)
        assert set(affected) == core.compute_affected_star(d, r), (r, affected)
