"""Sections 4-5: principle checkers on random profiles, broken judges, the boundary, coarseness."""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.spec.lineage.dfquad import Real, Sign, compute_combination, compute_probabilistic_sum
from gcv.spec.lineage.errors import IneligibleExtensionError
from gcv.spec.lineage.model import (
    Occurrence,
    Profile,
    compute_extension,
    compute_root_aggregate,
    get_base,
    make_excerpt,
    make_fresh,
    make_relay,
    make_units_profile,
    rename_roots,
)
from gcv.spec.lineage.principles import (
    compute_boundary_violation,
    find_violations,
    generate_replica_extensions,
    is_factorizing,
    is_finer_than_lineage,
    is_fixed_threshold_stable,
    is_information_boundary_witness,
    is_orbit_connected,
    is_replication_proof,
    is_rri_lni_on_domain,
    is_rri_respected,
    is_threshold_uniform_immune,
    make_lineage_code_judge,
    observe_prompt,
)
from gcv.spec.lineage.quotient import (
    compute_content_quotient,
    compute_lineage_quotient,
    compute_occurrence_representation,
    judge_content_dfquad,
    judge_lineage_dfquad,
    judge_lineage_maxquad,
    judge_occurrence_dfquad,
    judge_occurrence_maxquad,
    judge_plurality,
)
from gcv.spec.lineage.response import compute_dfquad_modulus
from tests.lineage.lineage_strategies import profiles

F = Fraction
STRENGTHS = (F(1, 5), F(1, 2), F(4, 5))


def principles_violated(judge, profile: Profile) -> set[str]:  # type: ignore[no-untyped-def]
    return {
        v.principle
        for v in find_violations(
            judge, profile, fresh_strengths=STRENGTHS, modulus=compute_dfquad_modulus
        )
    }


# A deliberately broken judges' gallery: each must be caught by the checker named beside it.


def broken_mean_units(profile: Profile) -> Real:
    """Lineage quotient with the mean inside each unit: a weak replica lowers it (RRI)."""
    groups: dict[tuple[str, str, Sign], list[Real]] = {}
    for o in profile.occurrences:
        groups.setdefault((o.root, o.target, o.sign), []).append(o.strength)
    side = {Sign.SUPPORT: [], Sign.ATTACK: []}  # type: dict[Sign, list[Real]]
    for (_, _, sign), values in groups.items():
        side[sign].append(sum(values, F(0)) / len(values))
    return compute_combination(
        get_base(profile),
        compute_probabilistic_sum(side[Sign.ATTACK]),
        compute_probabilistic_sum(side[Sign.SUPPORT]),
    )


def broken_label_sensitive(profile: Profile) -> Real:
    """LQ-DF-QuAD that ignores the unit whose root label sorts first (LNI)."""
    roots = sorted({o.root for o in profile.occurrences})
    kept = Profile(
        profile.skeleton, tuple(o for o in profile.occurrences if not roots or o.root != roots[0])
    )
    return judge_lineage_dfquad(kept)


def broken_half_response(profile: Profile) -> Real:
    """LQ-DF-QuAD with every move halved: strict, replica-immune, but below the modulus (qFLR)."""
    base = get_base(profile)
    return base + (judge_lineage_dfquad(profile) - base) / 2


def broken_support_only(profile: Profile) -> Real:
    """Lineage judge that never reads attackers (FLR for fresh attackers)."""
    supports = [s for t, sign, s in compute_lineage_quotient(profile) if sign is Sign.SUPPORT]
    return compute_combination(get_base(profile), F(0), compute_probabilistic_sum(supports))


@pytest.mark.slow
@given(profiles(max_size=4))
def test_lineage_dfquad_satisfies_every_principle_but_cri(profile: Profile) -> None:
    # CRI can fail: the lineage judge responds to a matched fresh copy (a content replica)
    violated = principles_violated(judge_lineage_dfquad, profile)
    assert violated <= {"CRI"}, violated


@pytest.mark.slow
@given(profiles(max_size=4))
def test_principles_hold_for_the_other_judges_where_they_should(profile: Profile) -> None:
    assert "RRI" not in principles_violated(judge_occurrence_maxquad, profile)
    assert "LNI" not in principles_violated(judge_occurrence_dfquad, profile)
    assert not {"CRI", "LNI"} & principles_violated(judge_content_dfquad, profile)
    assert not {"RRI", "LNI"} & principles_violated(judge_lineage_maxquad, profile)


BALANCED = make_units_profile(F(1, 2), [(Sign.SUPPORT, F(1, 5)), (Sign.ATTACK, F(1, 5))])
TIGHT = make_units_profile(
    F(4, 5),
    [
        (Sign.SUPPORT, F(1, 5)),
        (Sign.SUPPORT, F(4, 5)),
        (Sign.SUPPORT, F(4, 5)),
        (Sign.ATTACK, F(1, 5)),
    ],
)


@pytest.mark.parametrize(
    ("judge", "must_flag", "must_pass"),
    [
        (judge_lineage_dfquad, set(), {"RRI", "LNI", "FLR", "qFLR"}),
        (judge_occurrence_dfquad, {"RRI", "CRI"}, {"LNI", "FLR"}),
        (judge_plurality, {"RRI"}, {"LNI"}),
        (judge_occurrence_maxquad, {"FLR", "qFLR"}, {"RRI", "LNI"}),
        (judge_content_dfquad, {"RRI", "FLR"}, {"LNI", "CRI"}),
        (judge_lineage_maxquad, {"FLR"}, {"RRI", "LNI"}),
        (broken_mean_units, {"RRI"}, {"LNI"}),
        (broken_label_sensitive, {"LNI"}, {"RRI"}),
        (broken_half_response, {"qFLR"}, {"RRI", "LNI", "FLR"}),
        (broken_support_only, {"FLR"}, {"RRI", "LNI"}),
    ],
)
def test_checkers_flag_exactly_the_expected_principles(judge, must_flag, must_pass):  # type: ignore[no-untyped-def]
    violated = principles_violated(judge, BALANCED) | principles_violated(judge, TIGHT)
    assert must_flag <= violated, (judge.__name__, violated)
    assert not must_pass & violated, (judge.__name__, violated)


def test_checkers_refuse_cases_outside_their_principle() -> None:
    fresh = make_fresh(make_relay(BALANCED.occurrences[0], "z"), "new")
    with pytest.raises(IneligibleExtensionError, match="not a root replica"):
        is_rri_respected(judge_lineage_dfquad, BALANCED, fresh)
    from gcv.spec.lineage.principles import is_flr_respected

    with pytest.raises(IneligibleExtensionError, match="not an eligible"):
        is_flr_respected(judge_lineage_dfquad, BALANCED, make_relay(BALANCED.occurrences[0], "z"))


@pytest.mark.slow
@given(
    profiles(max_size=4),
    st.sampled_from(
        [judge_lineage_dfquad, judge_occurrence_dfquad, judge_content_dfquad, judge_plurality]
    ),
)
def test_prop_4_1_rri_is_threshold_uniform_immunity(profile: Profile, judge) -> None:  # type: ignore[no-untyped-def]
    for replica in generate_replica_extensions(profile):
        after = compute_extension(profile, replica)
        immune = is_threshold_uniform_immune(judge, profile, after)
        assert immune == is_rri_respected(judge, profile, replica)
        if immune:
            assert all(
                is_fixed_threshold_stable(judge, profile, after, F(k, 20)) for k in range(21)
            )
        assert is_replication_proof(judge, profile, [replica]) == immune


def test_fixed_threshold_stability_is_weaker_than_rri() -> None:
    # a relay moves occurrence DF-QuAD from .5 to .42 but not across threshold .3
    relay = make_relay(BALANCED.occurrences[1], "carol")
    after = compute_extension(BALANCED, relay)
    assert is_fixed_threshold_stable(judge_occurrence_dfquad, BALANCED, after, F(3, 10))
    assert not is_threshold_uniform_immune(judge_occurrence_dfquad, BALANCED, after)


def test_information_boundary() -> None:
    relay = make_relay(BALANCED.occurrences[1], "carol")
    fresh = make_fresh(relay, "root-second-analysis")
    for interface in (observe_prompt, compute_content_quotient, compute_occurrence_representation):
        assert is_information_boundary_witness(interface, BALANCED, relay, fresh)
    assert not is_information_boundary_witness(compute_lineage_quotient, BALANCED, relay, fresh)

    def count_lines(observation: Hashable) -> Real:
        assert isinstance(observation, tuple)
        attacks = sum(1 for line in observation if "attacks" in line)
        return F(1, 2 + attacks)

    def constant(observation: Hashable) -> Real:
        return F(1, 2)

    assert compute_boundary_violation(count_lines, observe_prompt, BALANCED, relay, fresh) == "RRI"
    assert compute_boundary_violation(constant, observe_prompt, BALANCED, relay, fresh) == "FLR"
    with pytest.raises(IneligibleExtensionError, match="separates"):
        compute_boundary_violation(constant, compute_lineage_quotient, BALANCED, relay, fresh)


def _domain() -> list[Profile]:
    """Two seeds, their replicas, excerpt splits, matched fresh twins and renamings."""
    seeds = [BALANCED, make_units_profile(F(1, 2), [(Sign.SUPPORT, F(4, 5))])]
    domain: list[Profile] = []
    for seed in seeds:
        domain.append(seed)
        for o in seed.occurrences:
            domain.append(compute_extension(seed, make_relay(o, "relay")))
            domain.append(
                compute_extension(seed, make_excerpt(o, o.content + "/part", "part", o.strength))
            )
            domain.append(compute_extension(seed, make_fresh(make_relay(o, "relay"), "new")))
        domain.append(rename_roots(seed, {o.root: o.root + "-renamed" for o in seed.occurrences}))
    return domain


def test_section_5_factorization_on_an_orbit_connected_domain() -> None:
    domain = _domain()
    assert is_orbit_connected(domain)
    for judge in (
        judge_lineage_dfquad,
        judge_occurrence_dfquad,
        judge_content_dfquad,
        judge_occurrence_maxquad,
        judge_plurality,
        broken_label_sensitive,
    ):
        assert is_rri_lni_on_domain(judge, domain) == is_factorizing(
            judge, compute_lineage_quotient, domain
        ), judge.__name__
    assert is_rri_lni_on_domain(judge_lineage_dfquad, domain)
    assert not is_rri_lni_on_domain(judge_content_dfquad, domain)  # the excerpt split


def test_section_5_coarseness() -> None:
    domain = _domain()
    code = make_lineage_code_judge(domain)
    assert is_rri_lni_on_domain(code, domain)
    assert is_finer_than_lineage(compute_lineage_quotient, domain)
    assert is_finer_than_lineage(lambda p: p.occurrences, domain)
    assert not is_finer_than_lineage(compute_content_quotient, domain)
    assert not is_finer_than_lineage(compute_occurrence_representation, domain)


def test_orbit_connectedness_can_fail() -> None:
    # equal lineage quotients, but the step joining them lies outside the domain
    relay = make_relay(BALANCED.occurrences[0], "r")
    big = compute_extension(BALANCED, relay, make_relay(relay, "s"))
    assert compute_lineage_quotient(big) == compute_lineage_quotient(BALANCED)
    assert not is_orbit_connected([BALANCED, big])


def test_root_aggregate_is_max() -> None:
    assert compute_root_aggregate([F(1, 5), F(4, 5), F(1, 2)]) == F(4, 5)


def test_occurrence_built_by_hand_is_fresh_and_matched() -> None:
    twin = Occurrence(
        "dave",
        BALANCED.occurrences[1].surface,
        BALANCED.occurrences[1].content,
        "other",
        "topic",
        Sign.ATTACK,
        F(1, 5),
    )
    assert judge_lineage_dfquad(compute_extension(BALANCED, twin)) == F(21, 50)
