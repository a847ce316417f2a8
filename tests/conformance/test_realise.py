"""A dependency map reached by some conversation is rebuilt exactly by the conversation
``trace_from_map`` writes; a map none reaches is refused, saying why."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.conformance.cases import Unrealisable, trace_from_map
from gcv.reference.errors import GcvError
from gcv.reference.verifier import Verifier
from gcv.replay import replay
from gcv.spec import core
from gcv.trace import load_trace
from gcv.translate import spec_map
from tests.strategies import AGENTS, turns_over


@pytest.mark.slow
@given(st.data())
def test_every_reachable_map_is_rebuilt_exactly(data: st.DataObject) -> None:
    v = Verifier(list(AGENTS), ["p"])
    for _ in range(data.draw(st.integers(1, 12), label="turns")):
        with contextlib.suppress(GcvError):  # a rejected turn leaves the map as it was
            v.apply_turn(data.draw(turns_over(tuple(v.state.records))))
    target = spec_map(v.state)
    rebuilt = replay(load_trace(json.dumps(trace_from_map(target))))
    assert all(t.error is None for t in rebuilt.turns), [str(t.error) for t in rebuilt.turns]
    assert spec_map(rebuilt.verifier.state) == target


def _map(
    standing: dict[str, str], dep: set[tuple[str, str]], att: set[tuple[str, str]]
) -> core.DependencyMap:
    return core.DependencyMap(frozenset(standing), frozenset(att), standing, frozenset(dep))


@pytest.mark.parametrize(
    ("d", "why"),
    [
        (_map({"r0": "active"}, {("r0", "r0")}, set()), "depends on itself"),
        (_map({"r0": "active", "r1": "active"}, set(), {("r1", "r0")}), "Lemma 2.2"),
        (_map({"r0": "weakened"}, set(), set()), "no attacker"),
        (_map({"r0": "abandoned"}, set(), {("r0", "r0")}), "attacks itself"),
        (
            _map({"r0": "abandoned", "r1": "weakened"}, set(), {("r0", "r1"), ("r1", "r0")}),
            "in a cycle",
        ),
    ],
)
def test_a_map_no_conversation_reaches_is_refused(d: core.DependencyMap, why: str) -> None:
    with pytest.raises(Unrealisable, match=why):
        trace_from_map(d)


@pytest.mark.slow
def test_every_refuted_bounded_twin_is_a_vector_in_the_suite() -> None:
    from gcv.conformance.vectors import load_suite
    from tests.conformance.proof_vectors import counterexample_cases

    built = counterexample_cases()
    assert len(built) == 4, [c.id for c in built]
    suite = {c.id: c for c in load_suite()}
    for case in built:
        assert case.id in suite, f"run python -m tests.conformance.proof_vectors: {case.id}"
        assert suite[case.id].origin == case.origin
