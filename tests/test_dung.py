"""The spec's brute-force Dung semantics against an independent implementation.

The oracle is ``formal-argumentation`` (PyPI; import name ``argumentation``),
a maintained implementation of Dung's semantics, used in the tests only.
"""

from __future__ import annotations

from itertools import combinations

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


@given(frameworks())
def test_grounded_extension_agrees(af: dung.Framework) -> None:
    assert dung.compute_grounded_extension(af) == independent.grounded_extension(_theirs(af))


@given(frameworks())
def test_complete_extensions_agree(af: dung.Framework) -> None:
    ours = _as_set(dung.compute_complete_extensions(af))
    assert ours == _as_set(independent.complete_extensions(_theirs(af)))


@given(frameworks())
def test_preferred_extensions_agree(af: dung.Framework) -> None:
    ours = _as_set(dung.compute_preferred_extensions(af))
    assert ours == _as_set(independent.preferred_extensions(_theirs(af)))


@given(frameworks())
def test_stable_extensions_agree(af: dung.Framework) -> None:
    ours = _as_set(dung.compute_stable_extensions(af))
    assert ours == _as_set(independent.stable_extensions(_theirs(af)))


@given(frameworks())
def test_admissible_sets_agree(af: dung.Framework) -> None:
    theirs = _theirs(af)
    every = [
        frozenset(s) for n in range(len(af.args) + 1) for s in combinations(sorted(af.args), n)
    ]
    expected = {s for s in every if independent.admissible(s, theirs.arguments, theirs.defeats)}
    assert _as_set(dung.compute_admissible_sets(af)) == expected


@given(frameworks())
def test_grounded_is_the_least_complete_extension(af: dung.Framework) -> None:
    """Dung 1995, Theorem 25: the grounded extension is the least complete extension."""
    grounded = dung.compute_grounded_extension(af)
    completes = dung.compute_complete_extensions(af)
    assert grounded in completes and all(grounded <= c for c in completes)


@given(frameworks())
def test_restriction_removes_arguments_and_their_attacks(af: dung.Framework) -> None:
    removed = frozenset(sorted(af.args)[::2])
    restricted = dung.compute_restriction(af, removed)
    assert restricted.args == af.args - removed
    assert all(a not in removed and b not in removed for a, b in restricted.att)
    assert restricted.att == {(a, b) for a, b in af.att if a not in removed and b not in removed}
