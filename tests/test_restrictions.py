"""Proposition 2.5: the check of (A2) the scenarios' test relies on, and the O(1) cost of a
standing update.  That the scenarios satisfy (A1)-(A3) is checked in ``test_scenarios.py``."""

from __future__ import annotations

from graphlib import CycleError, TopologicalSorter

import pytest

from gcv.reference.depmap import StandingChanged
from gcv.reference.operations import Observe, Revise
from gcv.reference.verifier import Turn, Verifier


def test_an_acyclic_check_that_can_fail() -> None:
    # The (A2) check of test_scenarios.py would see a cycle: two records attacking each other.
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
