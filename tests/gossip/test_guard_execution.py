"""Definition 5.1 (the Guard), Section 2.2 (diagnostics), Section 2.1 (versioned execution)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from gcv.spec.gossip import (
    AgentSet,
    AgentSetError,
    Call,
    FragmentError,
    HistoryError,
    Know,
    Not,
    Permit,
    ProbAtLeast,
    Secret,
    StaleVersionError,
    Top,
    UnknownAgentError,
    compute_available_calls,
    compute_bounded_histories,
    compute_guard,
    compute_history,
    compute_model,
    compute_not_yet_known_precondition,
    compute_permit,
    compute_section_2_example,
    compute_source_guard,
    compute_store,
    is_satisfied,
    is_satisfied_in_source,
    process_commit,
)
from gcv.spec.gossip.lottery import compute_uniform_lotteries

ABC = AgentSet(("a", "b", "c"))
AB, AC, BC = Call("a", "b"), Call("a", "c"), Call("b", "c")


def h(text: str):
    return compute_history(ABC, text)


def uniform(histories):
    return compute_model(ABC, histories, compute_uniform_lotteries(ABC, histories))


# --- Section 2.4 guard example -----------------------------------------------


def test_section_2_example_permit_then_deny_with_the_failed_precondition_label():
    first, second, history = compute_section_2_example()
    assert first.verdict == "permit" and first.diagnostic is None
    assert second.verdict == "deny"
    assert second.diagnostic is not None
    assert second.diagnostic.label == "call-permission"
    assert second.diagnostic.condition == "precondition"
    assert "~S_ab" in second.diagnostic.message
    assert second.diagnostic.facts == (("S_ab", True),)
    assert second.diagnostic.caller_secrets == (("a", ("a", "b")), ("b", ("a", "b")))
    assert history == (AB,)  # the denied call left the history unchanged


def test_section_2_example_step_by_step_through_the_store():
    store = compute_store("s", ABC, compute_not_yet_known_precondition)
    decision, permit = compute_permit(store, AB)
    assert decision.permitted and permit is not None
    process_commit(store, permit)
    decision, permit = compute_permit(store, Call("b", "a"))
    assert not decision.permitted and permit is None
    assert store.history == (AB,) and store.version == 1


# --- Definition 5.1 over a finite model ---------------------------------------


def test_structural_availability_is_membership_of_the_successor_in_h():
    model = uniform([(), h("ab"), h("ab;bc")])
    assert compute_available_calls(model, ()) == (AB,)
    assert compute_available_calls(model, h("ab")) == (BC,)
    assert compute_available_calls(model, h("ab;bc")) == ()
    decision = compute_guard(model, lambda call: Top(), AC, ())
    assert decision.verdict == "deny"
    assert decision.diagnostic.label == "protocol-compliance"
    assert decision.diagnostic.condition == "structural-availability"
    assert "ac" in decision.diagnostic.message


def test_guard_permits_exactly_when_available_and_precondition_holds():
    histories = list(compute_bounded_histories(ABC, 2))[:10]
    model = uniform(histories)
    preconditions = [
        compute_not_yet_known_precondition,
        lambda call: Know(call.first, Not(Secret(call.second, call.first))),
        lambda call: Not(Know("c", Know(call.first, Secret(call.first, call.second)))),
    ]
    verdicts = set()
    for pre in preconditions:
        for c in histories:
            for call in (AB, AC, BC):
                expected = (*c, call) in histories and is_satisfied(model, c, pre(call))
                decision = compute_guard(model, pre, call, c)
                assert decision.permitted == expected, (c, call)
                assert (decision.diagnostic is None) == decision.permitted
                verdicts.add(decision.verdict)
    assert verdicts == {"permit", "deny"}


def test_guard_denies_a_false_precondition_even_when_available():
    model = uniform([(), h("ab"), h("ab;ab")])
    decision = compute_guard(model, compute_not_yet_known_precondition, AB, h("ab"))
    assert AB in compute_available_calls(model, h("ab"))
    assert decision.verdict == "deny"
    assert decision.diagnostic.label == "call-permission"


def test_guard_refuses_preconditions_outside_l_k_and_histories_outside_h():
    model = uniform([(), h("ab")])
    with pytest.raises(FragmentError, match="outside L_K"):
        compute_guard(model, lambda call: ProbAtLeast("a", Top(), Fraction(1, 2)), AB, ())
    with pytest.raises(HistoryError):
        compute_guard(model, compute_not_yet_known_precondition, AB, h("bc"))


# --- Theorem 5.4's Guard over H_src -------------------------------------------


def test_source_guard_is_defined_on_l_k_src_and_always_available():
    for c in compute_bounded_histories(ABC, 2):
        for call in (AB, AC, BC):
            pre = Not(Know(call.first, Secret(call.second, "c")))
            decision = compute_source_guard(ABC, lambda k, pre=pre: pre, call, c)
            assert decision.permitted == is_satisfied_in_source(ABC, c, pre)
    with pytest.raises(FragmentError, match="L_K,src"):
        compute_source_guard(ABC, lambda call: Know("a", Know("b", Top())), AB, ())


def test_source_guard_diagnostic_reports_knowledge_facts():
    pre = Not(Know("a", Secret("c", "b")))
    decision = compute_source_guard(ABC, lambda call: pre, AC, h("bc;ac"))
    assert decision.verdict == "deny"
    assert dict(decision.diagnostic.facts) == {"K_a(S_cb)": True, "S_cb": True}


# --- Section 2.1: versions, revalidation, intent records ---------------------------


def _count(calls: list[str]):
    return lambda intent: calls.append(intent)


def test_stale_permit_that_still_holds_is_revalidated_and_committed():
    store = compute_store("s", ABC, compute_not_yet_known_precondition)
    _, permit_ab = compute_permit(store, AB)
    _, permit_bc = compute_permit(store, BC)
    first = process_commit(store, permit_ab)
    second = process_commit(store, permit_bc)
    assert not first.revalidated and second.revalidated
    assert (first.committed_version, second.committed_version) == (1, 2)
    assert store.history == (AB, BC)


def test_stale_permit_that_fails_revalidation_is_refused_and_changes_nothing():
    # pre(bc) = b does not know a's secret; pre of other calls: the Section 2 one
    def pre(call):
        if call == BC:
            return Not(Secret("b", "a"))
        return compute_not_yet_known_precondition(call)

    store = compute_store("s", ABC, pre)
    _, permit_bc = compute_permit(store, BC)
    _, permit_ab = compute_permit(store, AB)
    process_commit(store, permit_ab)  # now b knows a's secret
    records = list(store.journal.records)
    with pytest.raises(StaleVersionError, match="version 0") as caught:
        process_commit(store, permit_bc)
    assert caught.value.diagnostic.label == "call-permission"
    assert store.history == (AB,) and store.version == 1
    assert store.journal.records == records


def test_store_refuses_unknown_agents_and_too_small_agent_sets():
    store = compute_store("s", ABC, compute_not_yet_known_precondition)
    with pytest.raises(UnknownAgentError):
        compute_permit(store, Call("a", "z"))
    with pytest.raises(AgentSetError):
        compute_store("s", AgentSet(("a", "b")), compute_not_yet_known_precondition)
    assert store.history == () and store.version == 0


def test_foreign_and_future_permits_are_refused():
    store = compute_store("s", ABC, compute_not_yet_known_precondition)
    with pytest.raises(StaleVersionError, match="another store"):
        process_commit(store, Permit("t@v0:a-b", "t", AB, 0))
    with pytest.raises(StaleVersionError, match="version 3"):
        process_commit(store, Permit("s@v3:a-b", "s", AB, 3))
    assert store.history == () and store.version == 0


def test_repeated_commit_is_idempotent_and_does_not_repeat_the_effect():
    store = compute_store("s", ABC, compute_not_yet_known_precondition)
    _, permit = compute_permit(store, AB)
    effects: list[str] = []
    first = process_commit(store, permit, _count(effects))
    again = process_commit(store, permit, _count(effects))
    assert again.replayed and not first.replayed
    assert again.committed_version == first.committed_version == 1
    assert store.history == (AB,) and store.version == 1
    assert effects == [permit.intent_id]


def test_failed_effect_is_retried_once_and_then_never_again():
    store = compute_store("s", ABC, compute_not_yet_known_precondition)
    _, permit = compute_permit(store, AB)
    attempts: list[str] = []

    def flaky(intent):
        attempts.append(intent)
        if len(attempts) == 1:
            raise RuntimeError("network down")

    with pytest.raises(RuntimeError):
        process_commit(store, permit, flaky)
    assert store.history == (AB,)  # the ELC commit precedes the external effect
    process_commit(store, permit, flaky)
    process_commit(store, permit, flaky)
    assert len(attempts) == 2
    assert store.history == (AB,)


def test_journal_is_durable_and_recovery_does_not_repeat_effects(tmp_path):
    path = tmp_path / "intents.jsonl"
    store = compute_store("s", ABC, compute_not_yet_known_precondition, path)
    effects: list[str] = []
    _, permit_ab = compute_permit(store, AB)
    process_commit(store, permit_ab, _count(effects))
    _, permit_bc = compute_permit(store, BC)
    process_commit(store, permit_bc)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["commit", "effect-done", "commit"]

    reopened = compute_store("s", ABC, compute_not_yet_known_precondition, path)
    assert reopened.history == (AB, BC) and reopened.version == 2
    receipt = process_commit(reopened, permit_ab, _count(effects))
    assert receipt.replayed and effects == [permit_ab.intent_id]
    # bc's effect never ran: a retry after recovery runs it, once
    process_commit(reopened, permit_bc, _count(effects))
    process_commit(reopened, permit_bc, _count(effects))
    assert effects == [permit_ab.intent_id, permit_bc.intent_id]
    assert not compute_permit(reopened, AB)[0].permitted


def test_corrupt_journal_is_reported(tmp_path):
    path = tmp_path / "intents.jsonl"
    path.write_text('{"kind": "commit"\n')
    with pytest.raises(HistoryError, match="line 1"):
        compute_store("s", ABC, compute_not_yet_known_precondition, path)
