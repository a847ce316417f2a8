"""The Z3 encoding agrees with the engine, and with the spec transition, on concrete steps.

Hypothesis drives the engine (and, separately, ``gcv.spec.transition``) through operation
sequences; at every step the encoded transition relation is instantiated on the concrete
state (a finite universe: the registered records and the identifiers the operation names)
and must agree with the system that took the step: the encoded precondition holds exactly
when it accepts the operation, and then the encoded next state is exactly its next state.
Agents and awareness are outside the encoded state, so rejections on their account
(``unknown-agent``, ``already-aware``, a speaker dissenting from their own decision) are
not compared.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcv.proofs.encode import Rules, rows
from gcv.reference.errors import GcvError
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Revise,
    Undermine,
)
from gcv.reference.records import Standing
from gcv.reference.verifier import Turn, Verifier
from gcv.spec import transition as spec_transition
from gcv.translate import spec_operation
from tests.encoded import Concrete, Refusal, check
from tests.strategies import AGENTS, operations_over

ROWS = rows()
"""The engine's rows of Table 3, by operation."""


def _check(
    before: Concrete,
    op: Operation,
    after: Concrete | tuple[str, str | None],
    rules: Rules = ROWS,
) -> None:
    """``after`` is the next map the system reached, or the (code, field) it refused with."""
    check(before, (op,), Refusal(*after) if isinstance(after, tuple) else after, rules)


def _check_step(v: Verifier, op: Operation, rules: Rules = ROWS) -> None:
    before, digest = Concrete.of_engine(v.state), v.state.digest()
    try:
        v.apply_turn(Turn("a", (op,)))
    except GcvError as error:
        assert v.state.digest() == digest
        _check(before, op, (error.code, error.field), rules)
        return
    _check(before, op, Concrete.of_engine(v.state), rules)


def _check_spec_step(state: spec_transition.State, op: Operation) -> spec_transition.State:
    before = Concrete.of_spec(state)
    turn = spec_transition.Turn("a", (spec_operation(op),))
    try:
        state = spec_transition.process_turn(state, turn).state
    except spec_transition.Rejected as refused:
        _check(before, op, (refused.code, refused.field))
        return state
    _check(before, op, Concrete.of_spec(state))
    return state


@pytest.mark.slow
@settings(max_examples=25)
@given(st.data())
def test_encoding_and_engine_agree_step_by_step(data: st.DataObject) -> None:
    v = Verifier(list(AGENTS), ["p"])
    for _ in range(data.draw(st.integers(1, 12), label="steps")):
        op = data.draw(operations_over(tuple(v.state.records)), label="op")
        _check_step(v, op)


@pytest.mark.slow
@settings(max_examples=25)
@given(st.data())
def test_encoding_and_spec_transition_agree_step_by_step(data: st.DataObject) -> None:
    """The encoding is tied to the spec transition directly, not only through the engine."""
    state = spec_transition.State.start(AGENTS, ["p"])
    for _ in range(data.draw(st.integers(1, 12), label="steps")):
        op = data.draw(operations_over(tuple(state.records)), label="op")
        state = _check_spec_step(state, op)


def test_expand_awareness_leaves_the_encoded_state_unchanged() -> None:
    v = Verifier(list(AGENTS), ["p"])
    v.apply_turn(Turn("a", (Observe("o1", "x"),)))
    _check_step(v, ExpandAwareness("q"))
    assert v.standing("o1") is Standing.ACTIVE


def test_a_broken_encoding_is_caught() -> None:
    """The check has teeth: with Undermine's row changed, the first Undermine disagrees."""
    broken = dict(ROWS)
    broken["undermine"] = dataclasses.replace(ROWS["undermine"], target_becomes=Standing.ACTIVE)
    v = Verifier(list(AGENTS), ["p"])
    _check_step(v, Hypothesize("h1", "x"), broken)
    with pytest.raises(AssertionError, match="encoded state differs"):
        _check_step(v, Undermine("h1", "e1", "counter-evidence"), broken)


def test_a_broken_encoding_disagrees_with_the_spec_transition() -> None:
    """The spec tie has teeth too: an encoding whose Revise accepts only active targets
    disagrees with the spec's Revise of an abandoned record (B.2 T12)."""
    broken = dict(ROWS)
    broken["revise"] = dataclasses.replace(
        ROWS["revise"], target_standing=frozenset({Standing.ACTIVE})
    )
    state = spec_transition.State.start(AGENTS, ["p"])
    state = _check_spec_step(state, Hypothesize("h1", "x"))
    state = _check_spec_step(state, Revise("h1"))
    before = Concrete.of_spec(state)
    again = spec_transition.process_turn(
        state, spec_transition.Turn("a", (spec_operation(Revise("h1")),))
    )
    with pytest.raises(AssertionError, match="precondition does not hold"):
        _check(before, Revise("h1"), Concrete.of_spec(again.state), broken)
