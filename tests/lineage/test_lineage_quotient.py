"""Sections 5-6 and B.1: representations, judges, the generic lifting and its compatibility."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gcv.spec.lineage.dfquad import (
    QBAF,
    Sign,
    compute_dfquad_strengths,
    compute_extended_qbaf,
    compute_maxquad_strengths,
    compute_topological_order,
    get_signed_sources,
    get_signed_targets,
)
from gcv.spec.lineage.errors import CycleError, IncompatibleClassError, MalformedQBAFError
from gcv.spec.lineage.model import Profile
from gcv.spec.lineage.quotient import (
    check_compatibility,
    compute_content_quotient,
    compute_lifted_strengths,
    compute_lineage_partition,
    compute_lineage_quotient,
    compute_occurrence_qbaf,
    compute_occurrence_representation,
    compute_quotient,
    compute_root_label_partition,
    compute_singleton_partition,
    compute_verdict,
    is_lineage_stratified,
    judge_content_dfquad,
    judge_lineage_dfquad,
    judge_lineage_maxquad,
    judge_occurrence_dfquad,
    judge_occurrence_maxquad,
    judge_qbaf_content_dfquad,
    judge_qbaf_dfquad,
    judge_qbaf_lineage_dfquad,
    judge_qbaf_lineage_maxquad,
    judge_qbaf_maxquad,
    make_b1_example,
)
from tests.lineage.lineage_strategies import dags, profiles

F = Fraction


@given(profiles(max_size=5))
def test_profile_judges_equal_their_qbaf_liftings(profile: Profile) -> None:
    """The lineage (content) lifting of the per-occurrence QBAF is the profile-level judge."""
    qbaf = compute_occurrence_qbaf(profile)
    assert judge_qbaf_dfquad(qbaf) == judge_occurrence_dfquad(profile)
    assert judge_qbaf_maxquad(qbaf) == judge_occurrence_maxquad(profile)
    assert judge_qbaf_lineage_dfquad(qbaf) == judge_lineage_dfquad(profile)
    assert judge_qbaf_lineage_maxquad(qbaf) == judge_lineage_maxquad(profile)
    assert judge_qbaf_content_dfquad(qbaf) == judge_content_dfquad(profile)


@given(dags(max_nodes=6))
def test_singleton_lifting_is_the_semantics(qbaf: QBAF) -> None:
    partition = compute_singleton_partition(qbaf)
    assert compute_lifted_strengths(qbaf, partition) == compute_dfquad_strengths(qbaf)
    # distinct roots everywhere: the lineage partition is the singleton one
    assert compute_lineage_partition(qbaf) == partition


def _replicate(qbaf: QBAF, node: str, base: Fraction, name: str = "copy") -> QBAF:
    """A replica of ``node``: same root and content, same targets and sources, no greater base."""
    extended = compute_extended_qbaf(
        qbaf,
        name,
        base,
        get_signed_targets(qbaf, node),
        root=qbaf.roots[node],
        content=qbaf.contents[node],
    )
    supports = {(s, name) for sign, s in get_signed_sources(qbaf, node) if sign is Sign.SUPPORT}
    attacks = {(s, name) for sign, s in get_signed_sources(qbaf, node) if sign is Sign.ATTACK}
    return QBAF(
        extended.topic,
        extended.base,
        extended.supports | supports,
        extended.attacks | attacks,
        extended.roots,
        extended.contents,
    )


@given(dags(max_nodes=6), st.data())
def test_structural_rri_and_lni_of_the_lineage_lifting(qbaf: QBAF, data: st.DataObject) -> None:
    """Section 6: the lifting is invariant under replicas and consistent renaming of roots."""
    assume(len(qbaf.base) > 1)
    node = data.draw(st.sampled_from(sorted(set(qbaf.base) - {qbaf.topic})))
    base = data.draw(st.sampled_from([b for b in (F(0), qbaf.base[node] / 2, qbaf.base[node])]))
    replicated = _replicate(qbaf, node, base)
    before = judge_qbaf_lineage_dfquad(qbaf)
    assert judge_qbaf_lineage_dfquad(replicated) == before
    assert judge_qbaf_lineage_maxquad(replicated) == judge_qbaf_lineage_maxquad(qbaf)
    renamed = QBAF(
        qbaf.topic,
        qbaf.base,
        qbaf.supports,
        qbaf.attacks,
        {n: f"renamed-{r[::-1]}" for n, r in qbaf.roots.items()},
        qbaf.contents,
    )
    assert judge_qbaf_lineage_dfquad(renamed) == before


def test_per_occurrence_dfquad_counts_a_replica() -> None:
    qbaf = QBAF(
        "t",
        {"t": F(1, 2), "a": F(1, 5)},
        attacks=frozenset({("a", "t")}),
        roots={"a": "r"},
        contents={"a": "c"},
    )
    replicated = _replicate(qbaf, "a", F(1, 5))
    assert judge_qbaf_dfquad(replicated) < judge_qbaf_dfquad(qbaf)
    assert judge_qbaf_lineage_dfquad(replicated) == judge_qbaf_lineage_dfquad(qbaf)


def test_representations_of_a_relay_and_a_matched_fresh_report() -> None:
    from gcv.spec.lineage.model import make_fresh, make_relay, make_units_profile

    profile = make_units_profile(F(1, 2), [(Sign.SUPPORT, F(1, 5)), (Sign.ATTACK, F(1, 5))])
    relay = make_relay(profile.occurrences[1], "carol")
    fresh = make_fresh(relay, "new")
    with_relay = Profile(profile.skeleton, (*profile.occurrences, relay))
    with_fresh = Profile(profile.skeleton, (*profile.occurrences, fresh))
    assert compute_lineage_quotient(with_relay) == compute_lineage_quotient(profile)
    assert compute_lineage_quotient(with_fresh) != compute_lineage_quotient(profile)
    assert compute_content_quotient(with_fresh) == compute_content_quotient(profile)
    assert compute_occurrence_representation(with_relay) == compute_occurrence_representation(
        with_fresh
    )
    assert compute_verdict(F(1, 2)) and not compute_verdict(F(21, 50))


def test_compatibility_rejects_malformed_classes() -> None:
    # a "replica" of an intermediate claim that lacks the claim's supporter
    qbaf = QBAF(
        "t",
        {"t": F(1, 2), "a": F(1, 2), "e": F(1, 2), "a2": F(1, 2)},
        supports=frozenset({("a", "t"), ("e", "a"), ("a2", "t")}),
        roots={"a": "r", "a2": "r", "e": "q"},
    )
    partition = compute_lineage_partition(qbaf)
    assert partition["a2"] == partition["a"]
    with pytest.raises(IncompatibleClassError, match="different signed sources") as caught:
        compute_lifted_strengths(qbaf, partition)
    assert set(caught.value.members) == {"a", "a2"}
    with pytest.raises(IncompatibleClassError, match="topic"):
        check_compatibility(qbaf, {**compute_singleton_partition(qbaf), "t": "a", "a": "a"})
    with pytest.raises(MalformedQBAFError, match="cover exactly"):
        check_compatibility(qbaf, {"t": "t"})


def test_same_root_different_role_are_different_units() -> None:
    qbaf = QBAF(
        "t",
        {"t": F(1, 2), "x": F(1, 5), "y": F(1, 5)},
        supports=frozenset({("x", "t")}),
        attacks=frozenset({("y", "t")}),
        roots={"x": "r", "y": "r"},
    )
    partition = compute_lineage_partition(qbaf)
    assert partition["x"] != partition["y"]
    assert judge_qbaf_lineage_dfquad(qbaf) == F(1, 2)
    # merging them by root label alone joins a support and an attack
    with pytest.raises(IncompatibleClassError):
        compute_lifted_strengths(qbaf, compute_root_label_partition(qbaf))


def test_b1_quotienting_can_create_a_cycle() -> None:
    qbaf = make_b1_example()
    compute_topological_order(qbaf)  # the raw QBAF is acyclic
    naive = compute_root_label_partition(qbaf)
    with pytest.raises(CycleError) as caught:
        compute_topological_order(compute_quotient(qbaf, naive))
    assert set(caught.value.cycle) == {naive["r1"], naive["q1"]}
    with pytest.raises(IncompatibleClassError):
        compute_lifted_strengths(qbaf, naive)
    # the lineage partition keeps root-role units apart: stratified, acyclic, evaluable
    lineage = compute_lineage_partition(qbaf)
    assert is_lineage_stratified(qbaf, lineage)
    assert not is_lineage_stratified(qbaf, naive)
    assert compute_lifted_strengths(qbaf, lineage) == compute_dfquad_strengths(qbaf)


def test_b1_stratification_is_not_necessary() -> None:
    # a class spanning two layers whose quotient is still acyclic
    qbaf = QBAF(
        "t",
        {"t": F(1, 2), "a": F(1, 2), "x": F(1, 5), "y": F(1, 5)},
        supports=frozenset({("a", "t"), ("x", "a"), ("y", "t")}),
        roots={"x": "r", "y": "r"},
    )
    partition = {"t": "t", "a": "a", "x": "x", "y": "x"}
    assert not is_lineage_stratified(qbaf, partition)
    compute_topological_order(compute_quotient(qbaf, partition))


def test_max_quad_quotient_semantics() -> None:
    qbaf = QBAF(
        "t",
        {"t": F(1, 2), "a": F(4, 5), "b": F(1, 5)},
        supports=frozenset({("a", "t"), ("b", "t")}),
        roots={"a": "r", "b": "s"},
    )
    assert compute_maxquad_strengths(qbaf)["t"] == judge_qbaf_lineage_maxquad(qbaf)
