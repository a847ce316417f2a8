"""Proposition 2.5's hypotheses and its per-operation cost of a standing update.

(A1) at most 12 agents, (A2) an acyclic attack graph, (A3) an explicit finite world set:
Section 2 says the scenarios satisfy all three, and this checks it on every built-in trace.
"""

from __future__ import annotations

from graphlib import CycleError, TopologicalSorter

import pytest

from reference.depmap import StandingChanged
from reference.operations import Observe, Revise
from reference.replay import replay
from reference.scenarios import builtin_scenarios, load_scenario
from reference.verifier import Turn, Verifier


@pytest.mark.parametrize("name", builtin_scenarios())
def test_the_scenarios_satisfy_a1_a2_and_a3(name: str) -> None:
    trace = load_scenario(name)
    v = Verifier(list(trace.agents), list(trace.atoms), trace.model)
    for turn in trace.turns:
        v.apply_turn(turn.turn)
    assert len(trace.agents) <= 12, "(A1) at most 12 agents"
    # (A2): graphlib raises CycleError, naming the cycle, on a cyclic attack graph.
    TopologicalSorter({t: set(a) for t, a in v.state.ratt.items()}).prepare()
    worlds = v.worlds()
    assert 0 < len(worlds) <= 2 ** len(v.state.atoms), "(A3) an explicit finite W"
    assert replay(trace).ok


def test_an_acyclic_check_that_can_fail() -> None:
    # The (A2) check above would see a cycle: two records attacking each other.
    with pytest.raises(CycleError):
        TopologicalSorter({"x": {"y"}, "y": {"x"}}).prepare()


@pytest.mark.parametrize("size", [10, 1000])
def test_a_standing_update_writes_one_label_whatever_the_map_size(size: int) -> None:
    # Proposition 2.5: "O(1) per standing update": a Revise changes its target's label and
    # no other, on a map of 10 records as on one of 1000.
    v = Verifier(["a"])
    v.apply_turn(Turn("a", tuple(Observe(f"o{i}", f"fact {i}") for i in range(size))))
    report = v.apply_turn(Turn("a", (Revise("o0"),)))
    relabelled = [c for c in report.changes if isinstance(c, StandingChanged)]
    assert [c.record for c in relabelled] == ["o0"]
