"""The spec's brute-force Dung semantics against an independent implementation.

The oracle is ``formal-argumentation`` (PyPI; import name ``argumentation``),
a maintained implementation of Dung's semantics, used in the tests only.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from argumentation.core import dung as independent
from hypothesis import given
from hypothesis import strategies as st

from gcv.spec import dung


@st.composite
def frameworks(draw: st.DrawFn, max_arguments: int = 7) -> dung.Framework:
    n = draw(st.integers(0, max_arguments))
    args = [f"a{i}" for i in range(n)]
    pairs = st.tuples(st.sampled_from(args), st.sampled_from(args)) if args else st.nothing()
    att = draw(st.frozensets(pairs, max_size=3 * n))
    return dung.Framework(frozenset(args), att)


def _theirs(af: dung.Framework) -> independent.ArgumentationFramework:
    return independent.ArgumentationFramework(arguments=af.args, defeats=af.att)


def _as_set(extensions: list[frozenset[str]]) -> set[frozenset[str]]:
    return set(extensions)


@pytest.mark.slow
@given(frameworks())
def test_grounded_extension_agrees(af: dung.Framework) -> None:
    assert dung.compute_grounded_extension(af) == independent.grounded_extension(_theirs(af))


@pytest.mark.slow
@given(frameworks())
def test_complete_extensions_agree(af: dung.Framework) -> None:
    ours = _as_set(dung.compute_complete_extensions(af))
    assert ours == _as_set(independent.complete_extensions(_theirs(af)))


@pytest.mark.slow
@given(frameworks())
def test_preferred_extensions_agree(af: dung.Framework) -> None:
    ours = _as_set(dung.compute_preferred_extensions(af))
    assert ours == _as_set(independent.preferred_extensions(_theirs(af)))


@pytest.mark.slow
@given(frameworks())
def test_stable_extensions_agree(af: dung.Framework) -> None:
    ours = _as_set(dung.compute_stable_extensions(af))
    assert ours == _as_set(independent.stable_extensions(_theirs(af)))


@pytest.mark.slow
@given(frameworks())
def test_admissible_sets_agree(af: dung.Framework) -> None:
    theirs = _theirs(af)
    every = [
        frozenset(s) for n in range(len(af.args) + 1) for s in combinations(sorted(af.args), n)
    ]
    expected = {s for s in every if independent.admissible(s, theirs.arguments, theirs.defeats)}
    assert _as_set(dung.compute_admissible_sets(af)) == expected


@pytest.mark.slow
@given(frameworks())
def test_grounded_is_the_least_complete_extension(af: dung.Framework) -> None:
    """Dung 1995, Theorem 25: the grounded extension is the least complete extension."""
    grounded = dung.compute_grounded_extension(af)
    completes = dung.compute_complete_extensions(af)
    assert grounded in completes and all(grounded <= c for c in completes)


@pytest.mark.slow
@given(frameworks())
def test_restriction_removes_arguments_and_their_attacks(af: dung.Framework) -> None:
    removed = frozenset(sorted(af.args)[::2])
    restricted = dung.compute_restriction(af, removed)
    assert restricted.args == af.args - removed
    assert all(a not in removed and b not in removed for a, b in restricted.att)
    assert restricted.att == {(a, b) for a, b in af.att if a not in removed and b not in removed}


# -- acyclic frameworks: the collapse and the linear-time grounded extension (Proposition 2.5) --


def _every_framework(n: int) -> list[dung.Framework]:
    """Every framework over a0..a(n-1): each set of attacks, self-attacks included."""
    args = [f"a{i}" for i in range(n)]
    pairs = [(a, b) for a in args for b in args]
    return [
        dung.Framework(frozenset(args), frozenset(p for k, p in enumerate(pairs) if bits >> k & 1))
        for bits in range(2 ** len(pairs))
    ]


def _forward_frameworks(n: int) -> list[dung.Framework]:
    """Every acyclic framework over n arguments up to renaming: each attacks only later ones
    (any acyclic framework is such a one once its arguments are numbered topologically, and
    the semantics do not depend on the names)."""
    args = [f"a{i}" for i in range(n)]
    pairs = [(args[i], args[j]) for i in range(n) for j in range(i + 1, n)]
    return [
        dung.Framework(frozenset(args), frozenset(p for k, p in enumerate(pairs) if bits >> k & 1))
        for bits in range(2 ** len(pairs))
    ]


def _collapses(af: dung.Framework) -> bool:
    linear = dung.compute_acyclic_grounded_extension(af)
    return (
        linear == dung.compute_grounded_extension(af)
        and dung.compute_complete_extensions(af) == [linear]
        and dung.compute_preferred_extensions(af) == [linear]
        and dung.compute_stable_extensions(af) == [linear]
    )


def test_on_every_acyclic_framework_of_up_to_three_arguments_the_semantics_collapse() -> None:
    # Every framework of 0-3 arguments (2^9 = 512 attack relations at 3), the cyclic ones
    # recognised as such; 4 arguments is the slow tier's.
    for n in range(4):
        for af in _every_framework(n):
            if dung.is_acyclic(af):
                assert _collapses(af), sorted(af.att)


def test_acyclicity_is_decided_as_the_definition_says() -> None:
    # (A2): acyclic iff no argument reaches itself along attacks.
    for af in _every_framework(3):
        reach = {(a, b) for a, b in af.att}
        for _ in af.args:
            reach |= {(a, d) for a, b in reach for c, d in af.att if b == c}
        assert dung.is_acyclic(af) == (not any(a == b for a, b in reach)), sorted(af.att)


def test_on_every_acyclic_framework_of_five_arguments_the_semantics_collapse() -> None:
    # Up to renaming: the 2^10 frameworks attacking only forward.
    for af in _forward_frameworks(5):
        assert _collapses(af), sorted(af.att)


@pytest.mark.slow
@pytest.mark.parametrize("n", [4, 6])
def test_slow_every_acyclic_framework_collapses(n: int) -> None:
    frameworks = _every_framework(n) if n == 4 else _forward_frameworks(n)
    for af in frameworks:
        if dung.is_acyclic(af):
            assert _collapses(af), sorted(af.att)


def test_a_cycle_breaks_the_collapse() -> None:
    # The twin: with the mutual attack a <-> b, two preferred extensions and an empty grounded.
    af = dung.Framework(frozenset({"a", "b"}), frozenset({("a", "b"), ("b", "a")}))
    assert not dung.is_acyclic(af)
    assert dung.compute_grounded_extension(af) == frozenset()
    assert len(dung.compute_preferred_extensions(af)) == 2
