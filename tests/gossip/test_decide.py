"""Theorem 5.4: deciding K_a(theta) over the infinite H_src, checked against brute force."""

from __future__ import annotations

import random
from collections import deque

import pytest

from gcv.spec.gossip import (
    AgentSet,
    AgentSetError,
    FragmentError,
    Know,
    Not,
    Secret,
    Top,
    compute_agreement,
    compute_bounded_histories,
    compute_compatible_states,
    compute_counterexample,
    compute_expertise,
    compute_history,
    compute_push_pull,
    compute_root_state,
    compute_state,
    compute_view,
    get_secrets,
    is_known_brute_force,
    is_known_in_source,
    is_satisfied_in_source,
)
from gcv.spec.gossip.decide import compute_brute_force_states
from gcv.spec.gossip.formulas import compute_implies, compute_or, compute_random_formula
from gcv.spec.gossip.source import compute_source_calls

ABC = AgentSet(("a", "b", "c"))
ABCD = AgentSet(("a", "b", "c", "d"))


def h(text: str, agents: AgentSet = ABC):
    return compute_history(agents, text)


# --- hand-derived cases (three agents) -------------------------------------


def test_at_the_root_a_considers_bc_possible():
    assert not is_known_in_source(ABC, "a", (), Secret("b", "c"))
    assert not is_known_in_source(ABC, "a", (), Not(Secret("b", "c")))
    assert is_known_in_source(ABC, "a", (), Not(Secret("b", "a")))  # only a can tell b p_a
    assert is_known_in_source(ABC, "a", (), Secret("a", "a"))
    assert len(compute_compatible_states(ABC, "a", ())) == 2  # root, and after bc


def test_after_ac_a_knows_bc_had_not_happened_yet_but_may_happen_later():
    c = h("ac")
    assert is_known_in_source(ABC, "a", c, Secret("c", "a"))
    assert not is_known_in_source(ABC, "a", c, Secret("b", "c"))
    assert not is_known_in_source(ABC, "a", c, Not(Secret("b", "c")))
    # b knows a's secret only if bc happened after ac, when c also knows b's
    assert is_known_in_source(ABC, "a", c, compute_implies(Secret("b", "a"), Secret("c", "b")))


def test_example_4_2_knowledge_after_bc_ac():
    c = h("bc;ac")
    assert is_known_in_source(ABC, "a", c, Secret("c", "b"))
    assert is_known_in_source(ABC, "a", c, Secret("b", "c"))  # bc happened before ac
    assert not is_known_in_source(ABC, "a", c, Secret("b", "a"))
    assert not is_known_in_source(ABC, "a", h("ac"), Secret("b", "c"))


def test_counterexamples_are_real_witnesses():
    for text in ("", "ac", "bc;ac", "ab;ac", "ab;bc;ab"):
        c = h(text)
        for agent in "abc":
            for theta in (Secret("b", "c"), Not(Secret("c", "a")), compute_expertise(ABC)):
                witness = compute_counterexample(ABC, agent, c, theta)
                if witness is None:
                    continue
                assert compute_view(ABC, agent, witness) == compute_view(ABC, agent, c)
                assert not is_satisfied_in_source(ABC, witness, theta)


def test_every_compatible_state_has_a_checked_shortest_witness():
    for c in compute_bounded_histories(ABC, 3):
        for agent in "abc":
            for state, witness in compute_compatible_states(ABC, agent, c).items():
                assert compute_state(ABC, witness) == state
                assert compute_view(ABC, agent, witness) == compute_view(ABC, agent, c)


def test_source_fragment_evaluation_combines_booleans_and_knowledge():
    c = h("bc;ac")
    phi = Not(Know("a", Secret("b", "a")))
    assert is_satisfied_in_source(ABC, c, phi)
    assert is_satisfied_in_source(ABC, c, compute_or(Know("a", Top()), Secret("b", "a")))
    with pytest.raises(FragmentError, match="L_K,src"):
        is_satisfied_in_source(ABC, c, Know("a", Know("b", Top())))


def test_decision_needs_factual_theta_and_a_source_instance():
    with pytest.raises(FragmentError, match="factual"):
        is_known_in_source(ABC, "a", (), Know("b", Top()))
    with pytest.raises(AgentSetError, match="at least 3"):
        is_known_in_source(AgentSet(("a", "b")), "a", (), Top())


# --- agreement with brute force ---------------------------------------------


def _formulas(agents: AgentSet, count: int, seed: int):
    rng = random.Random(seed)
    fixed = [Top(), compute_expertise(agents)]
    fixed += [Secret(x, y) for x in agents.names for y in agents.names if x != y]
    fixed += [Not(Secret(x, y)) for x in agents.names for y in agents.names if x != y]
    return fixed + [compute_random_formula(agents, rng, 4, modal=False) for _ in range(count)]


@pytest.mark.slow
def test_agreement_three_agents():
    formulas = _formulas(ABC, 12, seed=3)
    assert len(formulas) == 2 + 6 + 6 + 12
    report = compute_agreement(ABC, 4, 6, formulas)
    assert report.agrees, report.disagreements[:5]
    assert report.queries == (1 + 3 + 9 + 27 + 81) * 3
    assert report.formulas_checked == report.queries * len(formulas)
    assert report.longest_witness <= 6
    assert 0 < report.known_true < report.formulas_checked  # both verdicts occur


def test_agreement_four_agents():
    report = compute_agreement(ABCD, 1, 4, _formulas(ABCD, 6, seed=4))
    assert report.agrees, report.disagreements[:5]
    assert report.domain_size == 1 + 6 + 36 + 216 + 1296


def test_brute_force_with_too_small_a_bound_misses_states():
    """The comparison has teeth: at n = |c| brute force cannot see the later bc."""
    report = compute_agreement(ABC, 3, 3, _formulas(ABC, 0, seed=0))
    assert not report.agrees


@pytest.mark.slow
def test_single_queries_agree_with_the_plain_brute_force():
    for c in compute_bounded_histories(ABC, 2):
        for agent in "abc":
            for theta in (Secret("b", "c"), Not(Secret("b", "a")), compute_expertise(ABC)):
                assert is_known_in_source(ABC, agent, c, theta) == is_known_brute_force(
                    ABC, agent, c, theta, 5
                )
            assert set(compute_compatible_states(ABC, agent, c)) == compute_brute_force_states(
                ABC, agent, c, 5
            )


def _subsequence_search(agents, agent, history):
    """A wrong decision procedure: it matches a's calls but ignores a's observed secrets."""
    calls = [k for k in history if agent in (k.first, k.second)]
    silent = [k for k in compute_source_calls(agents) if agent not in (k.first, k.second)]
    seen = {(0, compute_root_state(agents))}
    queue = deque(seen)
    while queue:
        layer, state = queue.popleft()
        nexts = [(layer, compute_push_pull(state, k)) for k in silent]
        if layer < len(calls):
            nexts.append((layer + 1, compute_push_pull(state, calls[layer])))
        for node in nexts:
            if node not in seen:
                seen.add(node)
                queue.append(node)
    return {state for layer, state in seen if layer == len(calls)}


def test_a_search_that_ignores_observed_states_disagrees_with_brute_force():
    c = h("ac")
    wrong = _subsequence_search(ABC, "a", c)
    assert wrong != compute_brute_force_states(ABC, "a", c, 4)
    assert set(compute_compatible_states(ABC, "a", c)) == compute_brute_force_states(ABC, "a", c, 4)
    # the wrong search would deny a's knowledge that bc had not happened before ac
    assert any("b" in get_secrets(s, "a") for s in wrong)
