"""Section 3, Definition 3.1: calls, push-pull, views, R_a, Example 4.2, and ~AW_a (Def. 3.4)."""

from __future__ import annotations

import itertools

import pytest

from gcv.spec.gossip import (
    AgentSet,
    AgentSetError,
    Call,
    GossipError,
    HistoryError,
    SelfCallError,
    UnknownAgentError,
    compute_all_calls,
    compute_bounded_histories,
    compute_call,
    compute_example_4_2,
    compute_history,
    compute_push_pull,
    compute_root_state,
    compute_state,
    compute_view,
    get_secrets,
    is_secret_known,
    is_source_equivalent,
    is_view_equivalent,
)
from gcv.spec.gossip.views import compute_call_subsequence

ABC = AgentSet(("a", "b", "c"))


def h(text: str) -> tuple[Call, ...]:
    return compute_history(ABC, text)


def secrets(history: str, agent: str) -> set[str]:
    return set(get_secrets(compute_state(ABC, h(history)), agent))


# --- agents and calls -------------------------------------------------------


def test_calls_are_unordered_pairs():
    assert Call("b", "a") == Call("a", "b")
    assert str(Call("c", "a")) == "ac"
    assert compute_all_calls(ABC) == (Call("a", "b"), Call("a", "c"), Call("b", "c"))


def test_agent_set_is_ordered_and_checked():
    assert AgentSet(("c", "a", "b")).names == ("a", "b", "c")
    with pytest.raises(AgentSetError, match="distinct"):
        AgentSet(("a", "a", "b"))
    with pytest.raises(AgentSetError, match="two agents"):
        AgentSet(("a",))
    with pytest.raises(AgentSetError, match="non-empty"):
        AgentSet(("a", ""))


def test_self_call_is_refused():
    with pytest.raises(SelfCallError, match="self-call aa"):
        Call("a", "a")
    with pytest.raises(SelfCallError):
        compute_history(ABC, "ab;bb")


def test_unknown_agents_are_refused_everywhere():
    with pytest.raises(UnknownAgentError, match="'z'"):
        compute_call(ABC, "a", "z")
    with pytest.raises(UnknownAgentError):
        compute_history(ABC, "az")
    with pytest.raises(UnknownAgentError):
        compute_view(ABC, "z", ())
    with pytest.raises(UnknownAgentError):
        compute_state(ABC, (Call("a", "z"),))
    with pytest.raises(UnknownAgentError):
        is_secret_known(ABC, (), "a", "z")


def test_errors_form_one_value_error_hierarchy():
    for error in (UnknownAgentError, SelfCallError, HistoryError, AgentSetError):
        assert issubclass(error, GossipError)
    assert issubclass(GossipError, ValueError)


def test_malformed_history_is_refused():
    with pytest.raises(HistoryError):
        compute_state(ABC, [Call("a", "b")])  # type: ignore[arg-type]
    with pytest.raises(HistoryError):
        compute_state(ABC, ("ab",))  # type: ignore[arg-type]
    with pytest.raises(HistoryError):
        compute_history(ABC, "abc")


# --- push-pull ------------------------------------------------------------


def test_root_state_each_agent_knows_its_own_secret():
    root = compute_root_state(ABC)
    assert [set(get_secrets(root, x)) for x in "abc"] == [{"a"}, {"b"}, {"c"}]


def test_push_pull_gives_both_callers_the_union_and_nobody_else_anything():
    assert secrets("ab", "a") == secrets("ab", "b") == {"a", "b"}
    assert secrets("ab", "c") == {"c"}
    assert secrets("ab;bc", "a") == {"a", "b"}
    assert secrets("ab;bc", "b") == secrets("ab;bc", "c") == {"a", "b", "c"}
    # a second call between the same agents changes nothing
    assert compute_state(ABC, h("ab;ab")) == compute_state(ABC, h("ab"))


def test_push_pull_is_symmetric_in_the_callers():
    state = compute_state(ABC, h("bc"))
    assert compute_push_pull(state, Call("a", "b")) == compute_push_pull(state, Call("b", "a"))


# --- Definition 3.1 -----------------------------------------------------


def test_view_records_own_calls_with_resulting_state():
    view = compute_view(ABC, "b", h("ab;bc"))
    assert view == (
        (Call("a", "b"), frozenset({"a", "b"})),
        (Call("b", "c"), frozenset({"a", "b", "c"})),
    )


def test_calls_not_involving_the_agent_are_invisible():
    # A view that leaked other agents' calls would make these differ.
    assert compute_view(ABC, "a", h("bc")) == ()
    assert compute_view(ABC, "a", h("bc;bc;bc")) == ()
    assert is_view_equivalent(ABC, "a", (), h("bc"))
    assert is_view_equivalent(ABC, "a", h("ab"), h("ab;bc"))


def test_view_distinguishes_what_the_agent_learned():
    # Before ab, b has heard from c in the second history, so a learns c's secret too.
    assert not is_view_equivalent(ABC, "a", h("ab"), h("bc;ab"))


def test_example_4_2_same_a_calls_different_views():
    plain, informed = compute_example_4_2()
    assert compute_call_subsequence(ABC, "a", h("ac")) == compute_call_subsequence(
        ABC, "a", h("bc;ac")
    )
    assert plain == ((Call("a", "c"), frozenset({"a", "c"})),)
    assert informed == ((Call("a", "c"), frozenset({"a", "b", "c"})),)
    assert plain != informed
    assert not is_view_equivalent(ABC, "a", h("ac"), h("bc;ac"))
    # For c the two histories differ too (c took part in bc), for b as well.
    assert not is_view_equivalent(ABC, "c", h("ac"), h("bc;ac"))


def test_view_equivalence_is_an_equivalence_relation():
    domain = compute_bounded_histories(ABC, 3)
    for agent in "abc":
        for c in domain:
            assert is_view_equivalent(ABC, agent, c, c)
        classes: dict[object, list[tuple[Call, ...]]] = {}
        for c in domain:
            classes.setdefault(compute_view(ABC, agent, c), []).append(c)
        for members in classes.values():
            for c, d in itertools.combinations(members, 2):
                assert is_view_equivalent(ABC, agent, c, d)
                assert is_view_equivalent(ABC, agent, d, c)


def test_atoms_are_local_for_their_first_index():
    """Section 3: if c R_a c', then S_ab has the same value at c and c'."""
    domain = compute_bounded_histories(ABC, 3)
    for agent in "abc":
        for c, d in itertools.product(domain, repeat=2):
            if is_view_equivalent(ABC, agent, c, d):
                for owner in "abc":
                    assert is_secret_known(ABC, c, agent, owner) == is_secret_known(
                        ABC, d, agent, owner
                    )


# --- Definition 3.4: ~AW_a coincides with view equality ---------------------


def test_source_relation_equals_view_equality_three_agents():
    domain = compute_bounded_histories(ABC, 3)
    for agent in "abc":
        for c, d in itertools.product(domain, repeat=2):
            assert is_source_equivalent(ABC, agent, c, d) == is_view_equivalent(ABC, agent, c, d), (
                agent,
                c,
                d,
            )


def test_source_relation_equals_view_equality_four_agents():
    agents = AgentSet(("a", "b", "c", "d"))
    domain = compute_bounded_histories(agents, 2)
    for agent in agents.names:
        for c, d in itertools.product(domain, repeat=2):
            assert is_source_equivalent(agents, agent, c, d) == is_view_equivalent(
                agents, agent, c, d
            ), (agent, c, d)


def test_source_relation_hand_cases():
    assert is_source_equivalent(ABC, "a", h("ab;bc;bc"), h("ab"))
    assert not is_source_equivalent(ABC, "a", h("bc;ab"), h("ab"))
    assert not is_source_equivalent(ABC, "a", h("ac"), h("bc;ac"))
    assert not is_source_equivalent(ABC, "a", h("ab"), h("ac"))
    assert not is_source_equivalent(ABC, "a", h("ab"), h("ab;ab"))
