"""Section 3 and Appendices A.1-A.2: occurrences, units, extensions, matched interventions."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given

from gcv.spec.lineage.dfquad import Sign
from gcv.spec.lineage.errors import IneligibleExtensionError, MalformedProfileError, StrengthError
from gcv.spec.lineage.model import (
    Occurrence,
    Profile,
    compute_extension,
    compute_reduction,
    compute_reduction_steps,
    compute_root_aggregate,
    compute_units,
    is_absorbing,
    is_eligible,
    is_fresh,
    is_matched_pair,
    is_root_replica,
    is_singleton_faithful,
    make_alias,
    make_direct_profile,
    make_excerpt,
    make_fresh,
    make_matched_intervention,
    make_paraphrase,
    make_relay,
    make_units_profile,
    rename_roots,
)
from gcv.spec.lineage.principles import is_permitted_step
from gcv.spec.lineage.quotient import compute_lineage_quotient
from tests.lineage.lineage_strategies import TENTHS, profiles

F = Fraction
REPORT = Occurrence(
    "ann", "The trial found an effect.", "effect", "r1", "topic", Sign.SUPPORT, F(3, 5)
)


@pytest.mark.parametrize(
    ("field", "value", "error", "fragment"),
    [
        ("strength", F(6, 5), StrengthError, "strength of the occurrence by 'ann'"),
        ("strength", -1, StrengthError, "must lie in"),
        ("root", "", MalformedProfileError, "root"),
        ("identity", 7, MalformedProfileError, "identity"),
        ("sign", 1, MalformedProfileError, "sign"),
    ],
)
def test_bad_occurrence_raises_named_error(
    field: str, value: object, error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        replace(REPORT, **{field: value})


def test_occurrence_aimed_at_unknown_claim_is_rejected() -> None:
    with pytest.raises(MalformedProfileError, match="unknown claim 'elsewhere'"):
        make_direct_profile(F(1, 2), [replace(REPORT, target="elsewhere")])


def test_a1_maximum_is_forced_by_singleton_and_absorption() -> None:
    grid = TENTHS
    assert is_singleton_faithful(compute_root_aggregate, grid)
    assert is_absorbing(compute_root_aggregate, grid)

    def mean(values: list[Fraction]) -> Fraction:
        return sum(values, F(0)) / len(values)

    def total(values: list[Fraction]) -> Fraction:
        return min(F(1), sum(values, F(0)))

    assert is_singleton_faithful(mean, grid) and not is_absorbing(mean, grid)
    assert is_singleton_faithful(total, grid) and not is_absorbing(total, grid)
    assert not is_singleton_faithful(lambda v: v[0] / 2, grid)


def test_units_take_the_maximum_over_renderings() -> None:
    weak = make_paraphrase(replace(REPORT, strength=F(1, 5)), "ben", "An effect was seen.")
    profile = make_direct_profile(F(1, 2), [REPORT, weak])
    (unit,) = compute_units(profile)
    assert (unit.root, unit.strength) == ("r1", F(3, 5))


def test_replication_actions_are_root_replicas_and_fresh_twins_are_fresh() -> None:
    profile = make_direct_profile(F(1, 2), [REPORT])
    for replica in (
        make_relay(REPORT, "ben"),
        make_paraphrase(REPORT, "cy", "Effect found."),
        make_alias(REPORT, "ann2"),
        make_excerpt(REPORT, "effect-size", "d = 0.4", F(1, 2)),
    ):
        assert is_root_replica(profile, replica) and not is_fresh(profile, replica)
        twin = make_fresh(replica, "r9")
        assert is_fresh(profile, twin) and not is_root_replica(profile, twin)
        assert is_matched_pair(profile, replica, twin)
    stronger = replace(make_relay(REPORT, "ben"), strength=F(4, 5))
    assert not is_root_replica(profile, stronger)  # it would raise the unit's strength
    other_role = replace(make_relay(REPORT, "ben"), sign=Sign.ATTACK)
    assert not is_root_replica(profile, other_role)  # a new root-role unit
    with pytest.raises(IneligibleExtensionError, match="stronger"):
        make_excerpt(REPORT, "x", "x", F(4, 5))


def test_matched_intervention_differs_only_in_root() -> None:
    profile = make_direct_profile(F(1, 2), [REPORT])
    pair = make_matched_intervention(profile, 0, "ben", "r2")
    assert replace(pair.fresh, root=pair.replica.root) == pair.replica
    assert pair.fresh.root == "r2" and is_eligible(profile, pair.fresh)
    with pytest.raises(IneligibleExtensionError, match="already represented"):
        make_matched_intervention(profile, 0, "ben", "r1")
    with pytest.raises(IneligibleExtensionError, match="position 3"):
        make_matched_intervention(profile, 3, "ben", "r2")


def test_eligibility_uses_freshness_role_strength_and_saturation() -> None:
    profile = make_units_profile(F(1, 2), [(Sign.SUPPORT, F(1, 2))])
    fresh = Occurrence("z", "z", "z", "new", "topic", Sign.SUPPORT, F(1, 5))
    assert is_eligible(profile, fresh)
    assert not is_eligible(profile, replace(fresh, root="r0"))  # not fresh
    assert not is_eligible(profile, replace(fresh, strength=0))  # no strength
    saturated = make_units_profile(F(1, 2), [(Sign.SUPPORT, F(1))])
    assert not is_eligible(saturated, fresh)  # the supporter side is saturated
    assert not is_eligible(make_units_profile(F(1), []), fresh)  # the base is saturated


def test_renaming_must_be_injective() -> None:
    profile = make_units_profile(F(1, 2), [(Sign.SUPPORT, F(1, 5)), (Sign.ATTACK, F(1, 5))])
    renamed = rename_roots(profile, {"r0": "x", "r1": "y"})
    assert sorted(o.root for o in renamed.occurrences) == ["x", "y"]
    with pytest.raises(IneligibleExtensionError, match="merges distinct roots"):
        rename_roots(profile, {"r0": "r1"})


@given(profiles(max_size=5))
def test_a2_reduction_keeps_the_quotient_and_walks_permitted_steps(profile: Profile) -> None:
    reduced = compute_reduction(profile)
    assert compute_lineage_quotient(reduced) == compute_lineage_quotient(profile)
    assert len(reduced.occurrences) == len(compute_units(profile))
    steps = compute_reduction_steps(profile)
    assert steps[0] == profile and steps[-1].occurrences == reduced.occurrences
    for before, after in pairwise(steps):
        assert is_permitted_step(before, after)


@given(profiles(max_size=4))
def test_extension_by_a_replica_keeps_units(profile: Profile) -> None:
    for occurrence in profile.occurrences:
        extended = compute_extension(profile, make_relay(occurrence, "relay"))
        assert compute_units(extended) == compute_units(profile)


def test_other_bad_inputs_raise_typed_errors() -> None:
    from gcv.spec.lineage.dfquad import QBAF
    from gcv.spec.lineage.errors import LineageError
    from gcv.spec.lineage.game import JudgmentGame, compute_utility
    from gcv.spec.lineage.quotient import judge_lineage_dfquad
    from gcv.spec.lineage.response import (
        compute_direct_gain,
        compute_response_modulus,
        compute_split_aggregate,
    )

    with pytest.raises(MalformedProfileError, match="skeleton must be a QBAF"):
        Profile("topic", ())  # type: ignore[arg-type]
    with pytest.raises(LineageError, match="mapping"):
        QBAF("t", [("t", F(1, 2))])  # type: ignore[arg-type]
    with pytest.raises(StrengthError, match="same-side aggregate"):
        compute_response_modulus(F(1, 2), F(3, 2), F(1, 5))
    with pytest.raises(StrengthError, match="strength"):
        compute_direct_gain(F(1, 2), F(0), F(0), Sign.SUPPORT, F(-1, 5))
    with pytest.raises(StrengthError):
        compute_split_aggregate(F(2), 3)
    game = JudgmentGame(make_direct_profile(F(1, 2), []), {"ann": True})
    with pytest.raises(MalformedProfileError, match="'zed' has no verdict preference"):
        compute_utility(game, judge_lineage_dfquad, (), "zed")
