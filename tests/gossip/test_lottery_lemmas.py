"""Definition 3.2, Proposition 4.1, Lemma 5.2, Definition 6.1, Lemma 6.2, Lemma 5.3.

Property tests draw admissible models over subsets of H_<=2 (three agents)
and formulas of L_K with nested knowledge; Hypothesis runs derandomized, so
every run checks the same examples.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcv.spec.gossip import (
    AgentSet,
    And,
    HistoryError,
    InadmissibleLotteryError,
    Know,
    LotteryGossipModel,
    Not,
    ProbAtLeast,
    ReweightingError,
    Secret,
    Top,
    UnknownAgentError,
    compute_bounded_histories,
    compute_expertise,
    compute_history,
    compute_model,
    compute_not_yet_known_precondition,
    compute_probability,
    compute_reweighting,
    compute_scaled_structure,
    compute_structure,
    get_class,
    is_admissible,
    is_guard_invariant,
    is_lottery_transparent,
    is_reweighting_invariant,
    is_s5_at,
    is_satisfied,
    is_satisfied_kripke,
    is_source_corresponding,
)
from gcv.spec.gossip.errors import FragmentError
from gcv.spec.gossip.formulas import AwFamiliar
from gcv.spec.gossip.lottery import compute_uniform_lotteries
from gcv.spec.gossip.source import (
    compute_length_decay_lotteries,
    compute_length_decay_weight,
    is_satisfied_aw,
)

ABC = AgentSet(("a", "b", "c"))
E, BC, AB = (), compute_history(ABC, "bc"), compute_history(ABC, "ab")
POOL = compute_bounded_histories(ABC, 2)
# Example counts follow the Hypothesis profile of tests/conftest.py (fast: 60, deep: 3000).
SETTINGS = settings(derandomize=True, deadline=None, database=None)


def small_model():
    """H = {e, bc, ab}; L_a = 1, 3, 2; the others uniform."""
    lotteries = compute_uniform_lotteries(ABC, [E, BC, AB])
    lotteries["a"] = {E: 1, BC: 3, AB: 2}
    return compute_model(ABC, [E, BC, AB], lotteries)


# --- strategies -----------------------------------------------------------

agents_st = st.sampled_from(ABC.names)
atoms_st = st.one_of(st.just(Top()), st.builds(Secret, agents_st, agents_st))
lk_formulas = st.recursive(
    atoms_st,
    lambda inner: st.one_of(
        st.builds(Not, inner), st.builds(And, inner, inner), st.builds(Know, agents_st, inner)
    ),
    max_leaves=6,
)
weights_st = st.builds(Fraction, st.integers(1, 20), st.integers(1, 20))


@st.composite
def admissible_models(draw):
    histories = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=8, unique=True))
    lotteries = {agent: {c: draw(weights_st) for c in histories} for agent in ABC.names}
    return compute_model(ABC, histories, lotteries)


# --- Definition 3.2 ------------------------------------------------------


def test_classes_follow_views():
    model = small_model()
    assert get_class(model, "a", E) == (E, BC)  # a cannot see bc
    assert get_class(model, "a", AB) == (AB,)
    assert get_class(model, "b", E) == (E,)  # b took part in bc and in ab
    assert get_class(model, "c", E) == (E, AB)


def test_probability_is_the_weight_share_of_the_class():
    model = small_model()
    assert compute_probability(model, "a", E, Secret("b", "c")) == Fraction(3, 4)
    assert compute_probability(model, "a", BC, Secret("b", "c")) == Fraction(3, 4)
    assert compute_probability(model, "a", AB, Secret("b", "c")) == 0
    assert compute_probability(model, "c", E, Secret("a", "b")) == Fraction(1, 2)


def test_knowledge_is_probability_one():
    model = small_model()
    assert not is_satisfied(model, E, Know("a", Secret("b", "c")))  # P = 3/4
    assert is_satisfied(model, E, Know("a", Not(Secret("a", "b"))))  # P = 1
    assert is_satisfied(model, E, ProbAtLeast("a", Secret("b", "c"), Fraction(3, 4)))
    assert not is_satisfied(model, E, ProbAtLeast("a", Secret("b", "c"), Fraction(4, 5)))
    # nested: c considers ab possible, where a knows S_ab, so c does not know K_a(~S_ab)
    assert not is_satisfied(model, E, Know("c", Know("a", Not(Secret("a", "b")))))
    assert is_satisfied(model, E, Know("b", Know("a", Not(Secret("a", "b")))))


def test_inadmissible_lotteries_are_refused_with_a_clear_error():
    with pytest.raises(InadmissibleLotteryError, match=r"L_a\(bc\) = 0 is not positive"):
        compute_model(ABC, [E, BC], {"a": {E: 1, BC: 0}, "b": {E: 1, BC: 1}, "c": {E: 1, BC: 1}})
    with pytest.raises(InadmissibleLotteryError, match="negative"):
        compute_model(ABC, [E], {"a": {E: -1}, "b": {E: 1}, "c": {E: 1}})
    with pytest.raises(InadmissibleLotteryError, match="exact rationals"):
        compute_model(ABC, [E], {"a": {E: 0.5}, "b": {E: 1}, "c": {E: 1}})
    with pytest.raises(InadmissibleLotteryError, match="no lottery L_c"):
        compute_model(ABC, [E], {"a": {E: 1}, "b": {E: 1}})
    with pytest.raises(InadmissibleLotteryError, match="undefined at bc"):
        compute_model(ABC, [E, BC], {"a": {E: 1}, "b": {E: 1, BC: 1}, "c": {E: 1, BC: 1}})
    with pytest.raises(HistoryError, match="nonempty"):
        compute_model(ABC, [], {"a": {}, "b": {}, "c": {}})
    with pytest.raises(HistoryError, match="not in H"):
        compute_model(ABC, [E], {"a": {E: 1, BC: 1}, "b": {E: 1}, "c": {E: 1}})
    with pytest.raises(UnknownAgentError):
        compute_model(ABC, [E], {"a": {E: 1}, "b": {E: 1}, "c": {E: 1}, "z": {E: 1}})


def test_models_cannot_be_built_around_the_admissibility_check():
    structure = compute_structure(ABC, [E, BC], {x: {E: 1, BC: 0} for x in "abc"})
    with pytest.raises(InadmissibleLotteryError):
        LotteryGossipModel(structure.agents, structure.histories, structure.lotteries)


def test_zero_weight_structure_is_not_admissible_but_zero_class_sum_is_refused_at_use():
    structure = compute_structure(ABC, [E, BC], {x: {E: 1, BC: 0} for x in "abc"})
    assert not is_admissible(structure)
    empty = compute_structure(ABC, [E], {x: {E: 0} for x in "abc"})
    with pytest.raises(InadmissibleLotteryError, match="undefined"):
        is_satisfied(empty, E, Know("a", Top()))


def test_evaluation_outside_h_is_refused():
    with pytest.raises(HistoryError, match="not in the model's domain"):
        is_satisfied(small_model(), compute_history(ABC, "ac"), Top())


def test_kripke_model_refuses_probability_atoms():
    with pytest.raises(FragmentError, match="outside L_K"):
        is_satisfied_kripke(small_model(), E, ProbAtLeast("a", Top(), Fraction(1, 2)))


def test_expertise_equals_its_knowledge_formulation():
    """Section 3: S_ab <-> K_a(S_ab), so E_0 <-> AND K_a(S_ab)."""
    histories = compute_bounded_histories(ABC, 3)
    model = compute_model(ABC, histories, compute_uniform_lotteries(ABC, histories))
    for c in histories:
        for x in "abc":
            for y in "abc":
                assert is_satisfied(model, c, Secret(x, y)) == is_satisfied(
                    model, c, Know(x, Secret(x, y))
                )
    assert is_satisfied(model, compute_history(ABC, "ab;bc;ac"), compute_expertise(ABC))
    assert not is_satisfied(model, compute_history(ABC, "ab;bc"), compute_expertise(ABC))


# --- Proposition 4.1 and Lemma 5.2 -----------------------------------------


@SETTINGS
@given(admissible_models(), lk_formulas, lk_formulas, agents_st)
def test_knowledge_is_s5(model, phi, psi, agent):
    for c in model.histories:
        assert is_s5_at(model, c, agent, phi, psi)


@pytest.mark.slow
@SETTINGS
@given(admissible_models(), st.lists(lk_formulas, min_size=1, max_size=4))
def test_lemma_5_2_lottery_transparency(model, formulas):
    for phi in formulas:
        for c in model.histories:
            assert is_satisfied(model, c, phi) == is_satisfied_kripke(model, c, phi), (c, phi)
    assert is_lottery_transparent(model, formulas)


def test_lemma_5_2_fails_with_a_zero_weight():
    """Non-vacuity: with L_a(bc) = 0, P_a(~S_bc) = 1 at e although bc falsifies ~S_bc."""
    weights = {x: {E: 1, BC: 1} for x in "abc"}
    weights["a"][BC] = 0
    structure = compute_structure(ABC, [E, BC], weights)
    phi = Know("a", Not(Secret("b", "c")))
    assert is_satisfied(structure, E, phi)
    assert not is_satisfied_kripke(structure, E, phi)
    assert not is_lottery_transparent(structure, [phi])


# --- Definition 6.1 ------------------------------------------------------


def test_three_source_reweighting_by_hand():
    model = compute_model(ABC, [E, BC, AB], compute_uniform_lotteries(ABC, [E, BC, AB]))
    new = compute_reweighting(
        model, "a", "call", "silence", lambda e, c: len(c) + 1, lambda o, e, c: 1
    )
    # products 1, 2, 2; Z_a = 5
    assert dict(new.lotteries["a"]) == {E: Fraction(1, 5), BC: Fraction(2, 5), AB: Fraction(2, 5)}
    assert dict(new.lotteries["b"]) == dict(model.lotteries["b"])
    assert compute_probability(new, "a", E, Secret("b", "c")) == Fraction(2, 3)
    assert compute_probability(model, "a", E, Secret("b", "c")) == Fraction(1, 2)


def test_reweighting_factors_and_normaliser_are_checked():
    model = small_model()
    before = {x: dict(model.lotteries[x]) for x in "abc"}
    with pytest.raises(ReweightingError, match=r"P_occ\(e \| c\) at bc is 0"):
        compute_reweighting(model, "a", "e", "o", lambda e, c: 0 if c == BC else 1, lambda *_: 1)
    with pytest.raises(ReweightingError, match="must be > 0"):
        compute_reweighting(model, "a", "e", "o", lambda e, c: 1, lambda o, e, c: -2)
    with pytest.raises(ReweightingError, match="exact rational"):
        compute_reweighting(model, "a", "e", "o", lambda e, c: 0.5, lambda o, e, c: 1)
    with pytest.raises(UnknownAgentError):
        compute_reweighting(model, "z", "e", "o", lambda e, c: 1, lambda o, e, c: 1)
    assert issubclass(ReweightingError, InadmissibleLotteryError)
    assert {x: dict(model.lotteries[x]) for x in "abc"} == before  # unchanged


# --- Lemma 6.2 -----------------------------------------------------------


@pytest.mark.slow
@SETTINGS
@given(
    admissible_models(),
    agents_st,
    st.lists(weights_st, min_size=8, max_size=8),
    st.lists(lk_formulas, min_size=1, max_size=4),
)
def test_lemma_6_2_positive_reweighting_preserves_l_k_and_guards(model, agent, ks, formulas):
    factors = dict(zip(model.histories, ks, strict=False))
    after = compute_scaled_structure(model, agent, factors)
    assert is_admissible(after)
    assert is_reweighting_invariant(model, after, formulas)
    assert is_guard_invariant(model, after, compute_not_yet_known_precondition)
    assert is_guard_invariant(model, after, lambda call: Know(call.first, formulas[0]))


@pytest.mark.slow
@SETTINGS
@given(admissible_models(), agents_st, st.lists(weights_st, min_size=8, max_size=8))
def test_definition_6_1_result_is_admissible_and_preserves_guards(model, agent, ks):
    table = dict(zip(model.histories, ks, strict=False))
    new = compute_reweighting(model, agent, "e", "o", lambda e, c: table[c], lambda o, e, c: 2)
    assert is_admissible(new)
    assert sum(new.lotteries[agent].values()) == 1  # normalised over all of H
    assert is_guard_invariant(model, new, compute_not_yet_known_precondition)


def test_lemma_6_2_fails_for_a_zero_factor():
    """Non-vacuity: k_a(bc) = 0 makes K_a(~S_bc) true at e, where it was false."""
    model = compute_model(ABC, [E, BC], compute_uniform_lotteries(ABC, [E, BC]))
    after = compute_scaled_structure(model, "a", {E: 1, BC: 0})
    phi = Know("a", Not(Secret("b", "c")))
    assert not is_satisfied(model, E, phi)
    assert is_satisfied(after, E, phi)
    assert not is_reweighting_invariant(model, after, [phi])
    # and the Guard that uses it flips from deny to permit
    assert not is_guard_invariant(
        compute_model(ABC, [E, BC, AB], compute_uniform_lotteries(ABC, [E, BC, AB])),
        compute_scaled_structure(
            compute_model(ABC, [E, BC, AB], compute_uniform_lotteries(ABC, [E, BC, AB])),
            "a",
            {E: 1, BC: 0, AB: 1},
        ),
        lambda call: phi,
    )


def test_reweighting_comparison_needs_the_same_domain():
    with pytest.raises(HistoryError):
        is_reweighting_invariant(
            small_model(), compute_model(ABC, [E], compute_uniform_lotteries(ABC, [E])), [Top()]
        )


# --- Definition 3.4 lottery and Lemma 5.3 ------------------------------------


def test_length_decay_lottery_partial_sums():
    """sum over H_<=n of (1/6)^|c| = sum_{i<=n} 2^-i = 2 - 2^-n: the total over H_src is 2."""
    for n in range(5):
        total = sum(compute_length_decay_weight(ABC, c) for c in compute_bounded_histories(ABC, n))
        assert total == 2 - Fraction(1, 2**n)


@pytest.mark.slow
@SETTINGS
@given(
    st.lists(
        st.recursive(
            st.one_of(atoms_st, st.builds(Know, agents_st, atoms_st)),
            lambda inner: st.one_of(st.builds(Not, inner), st.builds(And, inner, inner)),
            max_leaves=4,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_lemma_5_3_source_correspondence_on_a_bounded_domain(formulas):
    domain = compute_bounded_histories(ABC, 2)
    model = compute_model(ABC, domain, compute_length_decay_lotteries(ABC, domain))
    assert is_source_corresponding(model, formulas)


def test_lemma_5_3_would_catch_a_translation_with_swapped_indices():
    domain = compute_bounded_histories(ABC, 2)
    model = compute_model(ABC, domain, compute_length_decay_lotteries(ABC, domain))
    c = compute_history(ABC, "ab;bc")  # c knows a's secret, a does not know c's
    assert not is_satisfied(model, c, Secret("a", "c"))
    assert not is_satisfied_aw(ABC, domain, c, AwFamiliar("a", "c"))  # tau(S_ac)
    assert is_satisfied_aw(ABC, domain, c, AwFamiliar("c", "a"))  # a swapped tau would differ
