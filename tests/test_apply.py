"""The postconditions of one operation's application (reference/gcv/reference/apply.py) and of the
turn's announcement (reference/gcv/reference/rules/observe.py): each refuses an effect that is not
the table's."""

from __future__ import annotations

from gcv.reference.apply import _has_table_effect, _registers_as_the_table_says
from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.abduction import Problem
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.formula import Atom
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.updates import restrict
from gcv.reference.operations import Observe, Revise, Support, Undermine
from gcv.reference.records import Kind, Record, Standing
from gcv.reference.rules.observe import _only_eliminates


def test_the_effect_check_refuses_a_wrong_label_or_a_missing_attack() -> None:
    dmap = DependencyMap(["a"])
    with dmap.transaction():
        for record in ("h1", "o1", "o2"):
            dmap.add_record(Record(record, "c", "a", 1, Kind.HYPOTHESIS))
    assert not _has_table_effect(dmap, Undermine("h1", "o1")), "h1 is still active"
    with dmap.transaction():
        dmap.set_standing("h1", Standing.WEAKENED)
    assert not _has_table_effect(dmap, Undermine("h1", "o1")), "weakened, but no attack"
    with dmap.transaction():
        dmap.add_attack("o1", "h1")
    assert _has_table_effect(dmap, Undermine("h1", "o1"))
    assert not _has_table_effect(dmap, Undermine("h1", "o2")), "(o2, h1) was not added"
    assert _has_table_effect(dmap, Observe("o3", "c")), "no target: nothing to check"


def test_the_registration_check_reads_the_table_column() -> None:
    dmap = DependencyMap(["a"])
    with dmap.transaction():
        dmap.add_record(Record("o1", "c", "a", 1, Kind.OBSERVATION))
    assert _registers_as_the_table_says(0, dmap, Observe("o1", "c"))
    assert not _registers_as_the_table_says(1, dmap, Observe("o2", "c")), "nothing added"
    assert not _registers_as_the_table_says(0, dmap, Revise("o1")), "Revise registers nothing"
    assert _registers_as_the_table_says(0, dmap, Support("h1", "o1", evidence_claim="e"))
    assert not _registers_as_the_table_says(0, dmap, Support("h1", "o1")), "existing evidence"


def test_the_announcement_contract_refuses_added_worlds_and_dropped_problems() -> None:
    """The announcement's postcondition (Observe's ``announce``, the turn's settle): worlds are
    only eliminated, problems stay queued."""
    m = PlausibilityModel.implicit(["a"], ["p"]).explicit()
    state = EpistemicState(m)
    assert _only_eliminates(state, state)
    assert _only_eliminates(state, EpistemicState(restrict(m, 0b10)))
    assert not _only_eliminates(EpistemicState(restrict(m, 0b10)), state), "a world was added"
    problem = Problem("a", Atom("p"), "o1", m)
    assert not _only_eliminates(EpistemicState(m, (problem,)), EpistemicState(restrict(m, 0b10)))
