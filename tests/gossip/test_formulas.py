"""Definitions 3.3 and 3.5: fragments, tau, and the depth bound (never a RecursionError)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gcv.spec.gossip import (
    MAX_FORMULA_DEPTH,
    AgentSet,
    And,
    FormulaTooDeepError,
    FragmentError,
    Know,
    Not,
    ProbAtLeast,
    Secret,
    Top,
    UnknownAgentError,
    compute_expertise,
    compute_guard,
    compute_model,
    compute_source_guard,
    compute_translation,
    is_factual,
    is_in_knowledge_fragment,
    is_in_wn_language,
    is_known_in_source,
    is_satisfied,
    is_satisfied_in_source,
    is_satisfied_kripke,
    is_source_compatible,
)
from gcv.spec.gossip.calls import Call
from gcv.spec.gossip.formulas import (
    AwAnd,
    AwFamiliar,
    AwKnow,
    AwNot,
    AwOr,
    check_formula,
    compute_aw_text,
    compute_depth,
    compute_text,
)
from gcv.spec.gossip.lottery import compute_uniform_lotteries

ABC = AgentSet(("a", "b", "c"))


def nest(depth: int, make=lambda phi: Not(phi)):
    phi = Top()
    for _ in range(depth - 1):
        phi = make(phi)
    return phi


# --- fragments -----------------------------------------------------------


def test_knowledge_fragment_allows_nesting_but_no_probability_atoms():
    assert is_in_knowledge_fragment(Know("a", Know("b", Secret("c", "a"))))
    assert not is_in_knowledge_fragment(And(Top(), ProbAtLeast("a", Top(), Fraction(1, 2))))
    assert not is_in_knowledge_fragment(Know("a", ProbAtLeast("b", Top(), Fraction(1))))


def test_factual_formulas():
    assert is_factual(Not(And(Secret("a", "b"), Top())))
    assert not is_factual(Not(Know("a", Top())))


def test_source_fragment_is_modal_depth_one():
    assert is_source_compatible(And(Secret("a", "b"), Not(Know("a", Secret("b", "c")))))
    assert is_source_compatible(Know("b", Not(And(Secret("a", "b"), Top()))))
    # K_a(K_b(S_cd)) is the paper's example of what L_wn, hence L_K,src, excludes
    assert not is_source_compatible(Know("a", Know("b", Secret("c", "a"))))
    assert not is_source_compatible(Know("a", Not(Know("b", Top()))))
    assert not is_source_compatible(ProbAtLeast("a", Top(), Fraction(1, 2)))


# --- Definition 3.5: tau -----------------------------------------------------


def test_translation_clauses():
    assert compute_translation(ABC, Secret("a", "b")) == AwFamiliar("a", "b")
    assert compute_translation(ABC, Top()) == AwOr(
        AwFamiliar("a", "a"), AwNot(AwFamiliar("a", "a"))
    )
    phi = And(Not(Secret("b", "c")), Know("c", Secret("a", "b")))
    assert compute_translation(ABC, phi) == AwAnd(
        AwNot(AwFamiliar("b", "c")), AwKnow("c", AwFamiliar("a", "b"))
    )
    assert compute_aw_text(compute_translation(ABC, phi)) == "(~F_b p_c & K_c(F_a p_b))"


def test_translation_image_lies_in_wn_language():
    phi = And(Know("a", Top()), Not(Know("b", And(Secret("a", "c"), Top()))))
    assert is_in_wn_language(compute_translation(ABC, phi))
    assert not is_in_wn_language(AwKnow("a", AwKnow("b", AwFamiliar("a", "b"))))


def test_translation_refuses_formulas_outside_the_source_fragment():
    with pytest.raises(FragmentError, match="L_K,src"):
        compute_translation(ABC, Know("a", Know("b", Secret("c", "a"))))
    with pytest.raises(FragmentError):
        compute_translation(ABC, ProbAtLeast("a", Top(), Fraction(1, 2)))


# --- well-formedness -------------------------------------------------------


def test_unknown_agents_in_formulas_are_refused():
    with pytest.raises(UnknownAgentError, match="'z'"):
        check_formula(ABC, Secret("a", "z"))
    with pytest.raises(UnknownAgentError):
        check_formula(ABC, Know("z", Top()))
    with pytest.raises(UnknownAgentError):
        is_satisfied_in_source(ABC, (), Not(Secret("q", "a")))


def test_non_formulas_and_bad_bounds_are_refused():
    with pytest.raises(FragmentError, match="not a formula"):
        check_formula(ABC, Not("S_ab"))  # type: ignore[arg-type]
    with pytest.raises(FragmentError, match="bound"):
        check_formula(ABC, ProbAtLeast("a", Top(), Fraction(3, 2)))


def test_expertise_is_balanced_and_has_all_atoms():
    agents = AgentSet(tuple("abcdefgh"))
    e0 = compute_expertise(agents)
    atoms = {compute_text(Secret(x, y)) for x in agents.names for y in agents.names}
    assert all(f"S_{x}{y}" in compute_text(e0) for x in agents.names for y in agents.names)
    assert len(atoms) == 64
    assert compute_depth(e0) <= 8  # 64 conjuncts in a balanced tree, not 64 levels deep


# --- depth bound: deep input raises the typed error, never RecursionError ---------


def test_depth_at_the_bound_is_accepted_and_one_more_refused():
    assert compute_depth(nest(MAX_FORMULA_DEPTH)) == MAX_FORMULA_DEPTH
    check_formula(ABC, nest(MAX_FORMULA_DEPTH))
    with pytest.raises(FormulaTooDeepError, match=str(MAX_FORMULA_DEPTH)):
        check_formula(ABC, nest(MAX_FORMULA_DEPTH + 1))


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [lambda phi: Not(phi), lambda phi: Know("a", phi), lambda phi: And(Top(), phi)],
    ids=["not", "know", "and"],
)
def test_very_deep_formulas_raise_the_typed_error_in_every_evaluator(make):
    deep = nest(20_000, make)
    H = [()]
    model = compute_model(ABC, H, compute_uniform_lotteries(ABC, H))
    evaluations = [
        lambda: check_formula(ABC, deep),
        lambda: is_satisfied(model, (), deep),
        lambda: is_satisfied_kripke(model, (), deep),
        lambda: compute_translation(ABC, deep),
        lambda: is_satisfied_in_source(ABC, (), deep),
        lambda: is_known_in_source(ABC, "a", (), deep),
        lambda: is_in_knowledge_fragment(deep),
        lambda: is_source_compatible(deep),
        lambda: compute_guard(model, lambda call: deep, Call("a", "b"), ()),
        lambda: compute_source_guard(ABC, lambda call: deep, Call("a", "b"), ()),
    ]
    for evaluate in evaluations:
        with pytest.raises(FormulaTooDeepError):
            evaluate()
    # rendering does not raise at all: it names the problem instead
    assert "deeper than" in compute_text(deep)
    assert "deeper than" in repr(deep)
