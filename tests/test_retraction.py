"""Proposition 2.3 and Corollary 2.4 on random maps that satisfy Lemma 2.2, and their failure
when that hypothesis is dropped."""

from __future__ import annotations

import pytest
from hypothesis import given

from gcv.reference.records import GOOD_STANDING, Standing
from gcv.spec import core, retraction
from tests.strategies import RandomMap, random_maps


def _conflict_free(m: RandomMap) -> core.DependencyMap:
    """Impose Lemma 2.2: every attacked record in good standing is relabelled weakened."""
    attacked = {t for _, t in m.att_pairs}
    standing = {
        a: Standing.WEAKENED if a in attacked and s in GOOD_STANDING else s
        for a, s in m.standing.items()
    }
    return RandomMap(m.args, standing, m.dep_pairs, m.att_pairs).to_spec()


@pytest.mark.slow
@given(random_maps(max_records=7))
def test_selective_retraction_is_sound(m: RandomMap) -> None:
    d = _conflict_free(m)
    for beta in d.args - core.get_active_set(d):
        assert retraction.is_selective_retraction_sound(d, beta), beta
        assert retraction.is_closure_retraction_sound(d, beta), beta


def test_without_lemma_2_2_the_survivors_can_conflict() -> None:
    """Non-vacuity: with an attacked member of S_t, S_t minus R is not conflict-free."""
    d = core.DependencyMap(
        args=frozenset({"b", "x", "y"}),
        att=frozenset({("x", "y")}),
        standing={"b": core.ABANDONED, "x": core.ACTIVE, "y": core.ACTIVE},
        dep=frozenset(),
    )
    assert not core.is_conflict_free_map(d)
    removed = retraction.compute_one_step_removal(d, "b")
    assert not retraction.is_survivor_set_conflict_free(d, removed)
    assert not retraction.is_survivor_set_admissible(d, removed)


def test_one_step_removal_can_miss_indirect_dependents() -> None:
    """Why Corollary 2.4 needs Affected*: an indirect dependent survives R but not R*."""
    d = core.DependencyMap(
        args=frozenset({"b", "h", "d"}),
        att=frozenset(),
        standing={"b": core.ABANDONED, "h": core.ACTIVE, "d": core.RESOLVED},
        dep=frozenset({("h", "b"), ("d", "h")}),
    )
    assert "d" not in retraction.compute_one_step_removal(d, "b")
    assert "d" in retraction.compute_closure_removal(d, "b")
