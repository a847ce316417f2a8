"""Section 6.1 and Appendix B: strict response, the response modulus, propagation, B.4-B.6."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations_with_replacement, product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.spec.lineage.dfquad import (
    QBAF,
    Sign,
    compute_combination,
    compute_dfquad_strengths,
    compute_max_aggregate,
    compute_probabilistic_sum,
)
from gcv.spec.lineage.model import (
    Occurrence,
    Profile,
    compute_extension,
    is_eligible,
    make_units_profile,
)
from gcv.spec.lineage.quotient import (
    judge_lineage_dfquad,
    judge_lineage_maxquad,
    judge_qbaf_lineage_dfquad,
)
from gcv.spec.lineage.response import (
    B5_FIGURES,
    compute_b5_figures,
    compute_direct_gain,
    compute_merge_loss,
    compute_path_parities,
    compute_predicted_sign,
    compute_qbaf_modulus,
    compute_response_modulus,
    compute_split_aggregate,
    is_interior,
    is_split_inflating,
    is_strict_direct_response,
    make_b4_example,
    make_b5_configuration,
    make_fresh_leaf,
)
from tests.lineage.lineage_strategies import dags, profiles

F = Fraction
GRID = (F(0), F(1, 5), F(1, 2), F(4, 5), F(1))


def _fresh(sign: Sign, strength: Fraction) -> Occurrence:
    return Occurrence("new", "new", "new", "fresh-root", "topic", sign, strength)


@pytest.mark.slow
def test_modulus_exhaustively_on_a_grid_with_its_tightness() -> None:
    """Every base, pair of aggregates from stars of up to two leaves a side, strength and sign."""
    sides = [
        compute_probabilistic_sum(list(c))
        for n in range(3)
        for c in combinations_with_replacement(GRID, n)
    ]
    checked = tight = 0
    for base, attack, support, strength, sign in product(GRID, sides, sides, GRID, Sign):
        gain = compute_direct_gain(base, attack, support, sign, strength)
        same = support if sign is Sign.SUPPORT else attack
        modulus = compute_response_modulus(base, same, strength)
        assert gain >= modulus, (base, attack, support, strength, sign)
        checked += 1
        tight += gain == modulus
        # the bound is attained whenever the move stays on the side of the smaller slope
        before = support - attack
        after = before + int(sign) * strength * (1 - same)
        if (base <= F(1, 2) and max(before, after) <= 0) or (
            base >= F(1, 2) and min(before, after) >= 0
        ):
            assert gain == modulus
    assert checked > 10_000 and tight > 0


@pytest.mark.slow
@given(
    profiles(max_size=4, interior_base=True),
    st.sampled_from(GRID[1:-1]),
    st.sampled_from(list(Sign)),
)
def test_direct_gain_is_the_lineage_judges_move(
    profile: Profile, strength: Fraction, sign: Sign
) -> None:
    fresh = _fresh(sign, strength)
    if not is_eligible(profile, fresh):
        return
    units = {(o.root, o.sign): o for o in profile.occurrences}
    supports = [
        max(x.strength for x in profile.occurrences if (x.root, x.sign) == k)
        for k in units
        if k[1] is Sign.SUPPORT
    ]
    attacks = [
        max(x.strength for x in profile.occurrences if (x.root, x.sign) == k)
        for k in units
        if k[1] is Sign.ATTACK
    ]
    base = profile.skeleton.base["topic"]
    expected = compute_direct_gain(
        base,
        compute_probabilistic_sum(attacks),
        compute_probabilistic_sum(supports),
        sign,
        strength,
    )
    after = judge_lineage_dfquad(compute_extension(profile, fresh))
    assert int(sign) * (after - judge_lineage_dfquad(profile)) == expected


@pytest.mark.slow
@given(
    profiles(max_size=4, interior_base=True),
    st.sampled_from(GRID[1:-1]),
    st.sampled_from(list(Sign)),
)
def test_prop_4_strict_response_iff_the_aggregate_rises(
    profile: Profile, strength: Fraction, sign: Sign
) -> None:
    fresh = _fresh(sign, strength)
    if not is_eligible(profile, fresh):
        return
    for judge, aggregate in (
        (judge_lineage_dfquad, compute_probabilistic_sum),
        (judge_lineage_maxquad, compute_max_aggregate),
    ):
        moved = int(sign) * (judge(compute_extension(profile, fresh)) - judge(profile)) > 0
        assert moved == is_strict_direct_response(profile, fresh, aggregate)
    assert is_strict_direct_response(profile, fresh, compute_probabilistic_sum)


def test_b5_configuration_figures() -> None:
    figures = compute_b5_figures()
    for key, value in B5_FIGURES.items():
        assert figures[key] == value, key
    assert figures["gain"] == figures["modulus"] == F(128, 100_000)
    profile, fresh = make_b5_configuration()
    assert is_eligible(profile, fresh)


@pytest.mark.slow
@given(
    dags(max_nodes=6, interior_base=True), st.sampled_from(GRID[1:-1]), st.sampled_from(list(Sign))
)
def test_qbaf_modulus_for_fresh_direct_roots(qbaf: QBAF, strength: Fraction, sign: Sign) -> None:
    fresh = make_fresh_leaf(qbaf, qbaf.topic, sign, strength)
    gain = int(sign) * (judge_qbaf_lineage_dfquad(fresh) - judge_qbaf_lineage_dfquad(qbaf))
    assert gain >= compute_qbaf_modulus(qbaf, sign, strength) > 0


@given(dags(max_nodes=6, interior_base=True), st.sampled_from(GRID[1:-1]), st.data())
def test_theorem_6_parity_determined_sign(
    qbaf: QBAF, strength: Fraction, data: st.DataObject
) -> None:
    assert is_interior(qbaf)
    node = data.draw(st.sampled_from(sorted(qbaf.base)))
    sign = data.draw(st.sampled_from(list(Sign)))
    predicted = compute_predicted_sign(qbaf, node, sign)
    change = (
        compute_dfquad_strengths(make_fresh_leaf(qbaf, node, sign, strength))[qbaf.topic]
        - compute_dfquad_strengths(qbaf)[qbaf.topic]
    )
    if not compute_path_parities(qbaf, node):
        assert change == 0  # no path to the topic
    elif predicted is not None:
        assert predicted * change > 0, (node, predicted, change)


def test_theorem_6_each_attack_flips_the_sign() -> None:
    half = F(1, 2)
    chain = QBAF(
        "t",
        {"t": half, "a": half, "b": half},
        supports=frozenset({("b", "a")}),
        attacks=frozenset({("a", "t")}),
    )
    assert compute_path_parities(chain, "b") == {1}
    assert compute_predicted_sign(chain, "b", Sign.SUPPORT) == -1
    assert compute_predicted_sign(chain, "b", Sign.ATTACK) == 1
    assert compute_predicted_sign(chain, "t", Sign.SUPPORT) == 1


def test_b4_opposite_parities_cancel() -> None:
    qbaf, node = make_b4_example()
    assert compute_path_parities(qbaf, node) == {0, 1}
    assert compute_predicted_sign(qbaf, node, Sign.SUPPORT) is None
    before = compute_dfquad_strengths(qbaf)
    after = compute_dfquad_strengths(make_fresh_leaf(qbaf, node, Sign.SUPPORT, F(1, 5)))
    assert after["a"] > before["a"] and after["b"] > before["b"]
    assert after["t"] == before["t"]


@given(st.fractions(min_value=0, max_value=1, max_denominator=50), st.integers(1, 8))
def test_b6_false_split_inflates_and_false_merge_suppresses(t: Fraction, m: int) -> None:
    split = compute_split_aggregate(t, m)
    assert split == 1 - (1 - t) ** m
    assert is_split_inflating(t, m) == (m >= 2 and 0 < t < 1)
    assert compute_merge_loss(t, m) >= 0
    # through the lineage judge: m distinct roots versus one root rendered m times
    split_profile = make_units_profile(F(1, 2), [(Sign.SUPPORT, t)] * m)
    merged_profile = make_units_profile(F(1, 2), [(Sign.SUPPORT, t)])
    assert judge_lineage_dfquad(split_profile) == compute_combination(F(1, 2), F(0), split)
    assert judge_lineage_dfquad(split_profile) >= judge_lineage_dfquad(merged_profile)
