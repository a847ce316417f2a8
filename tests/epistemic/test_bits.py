"""The bit-parallel oracle (``gcv.oracles.epistemic_bits``) against the brute force
(``gcv.spec.epistemic`` and ``gcv.spec.transition``) on every model the brute force affords.

Random models are drawn as the brute force's own values, random formulas by the epistemic
tests' strategy and translated to them (only the syntax is shared with the engine); each
property computes the same definition both ways and compares the results as the brute
force's values.  The fast tier runs the quick Hypothesis budget on models of at most 8
worlds and two-turn conversations; the slow tests run more examples on models of up to 32
worlds and eight-turn conversations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcv.oracles import epistemic_bits as bits
from gcv.spec import epistemic as se
from gcv.spec import transition
from tests.epistemic.support import formulas, to_spec_formula

AGENTS = ("a", "b", "c")
ATOMS = ("p", "q", "r", "s", "t")


def spec_formulas(
    atoms: Sequence[str], agents: Sequence[str] = AGENTS, max_leaves: int = 6
) -> st.SearchStrategy[se.Formula]:
    """Random formulas of the brute force's language, every connective and modality (the
    epistemic tests' strategy, translated: only the syntax is shared)."""
    return formulas(atoms, agents, max_leaves).map(to_spec_formula)


@st.composite
def spec_models(draw: st.DrawFn, max_atoms: int = 3, max_worlds: int = 8) -> se.EpistemicModel:
    """Random plausibility models (Definition A.1): some valuations of 1 to ``max_atoms``
    atoms, per agent a random cell and rank for each world (w <=_i v iff same cell and rank
    of w at most v's), random awareness sets."""
    atoms = ATOMS[: draw(st.integers(1, max_atoms))]
    valuations = [
        frozenset(a for j, a in enumerate(atoms) if v >> j & 1) for v in range(1 << len(atoms))
    ]
    worlds = draw(
        st.lists(st.sampled_from(valuations), min_size=1, max_size=max_worlds, unique=True)
    )
    leq = {}
    for agent in AGENTS:
        cell = {w: draw(st.integers(0, 2)) for w in worlds}
        rank = {w: draw(st.integers(0, 2)) for w in worlds}
        leq[agent] = frozenset(
            (w, v) for w in worlds for v in worlds if cell[w] == cell[v] and rank[w] <= rank[v]
        )
    awareness = {a: frozenset(draw(st.sets(st.sampled_from(atoms)))) for a in AGENTS}
    return se.EpistemicModel(frozenset(AGENTS), frozenset(atoms), frozenset(worlds), leq, awareness)


def assert_same(spec: se.EpistemicModel, mine: bits.BitModel) -> None:
    """The brute force's model and the oracle's are one model."""
    theirs = bits.to_spec_model(mine)
    assert (spec.atoms, spec.worlds) == (theirs.atoms, theirs.worlds), (spec, mine)
    assert dict(spec.leq) == dict(theirs.leq), (spec, mine)
    assert dict(spec.awareness) == dict(theirs.awareness), (spec, mine)


def truth_agrees(data: st.DataObject, max_worlds: int, max_atoms: int = 3) -> None:
    model = data.draw(spec_models(max_atoms, max_worlds))
    formula = data.draw(spec_formulas(sorted(model.atoms)))
    mine = bits.from_spec_model(model)
    assert_same(model, mine)
    found = frozenset(w for w in model.worlds if bits.is_true(mine, w, formula))
    assert found == se.compute_truth_set(model, formula), (model, formula)
    assert bits.is_valid(mine, formula) == se.is_valid(model, formula)


def updates_agree(data: st.DataObject, max_worlds: int, steps: int, max_atoms: int = 3) -> None:
    """Each step applies every update of A.1 and A.3 to the same model both ways, then
    continues from one of the results."""
    model = data.draw(spec_models(max_atoms, max_worlds))
    mine = bits.from_spec_model(model)
    for _ in range(data.draw(st.integers(1, steps))):
        group = data.draw(st.none() | st.sets(st.sampled_from(AGENTS), min_size=1))
        formula = data.draw(spec_formulas(sorted(model.atoms), max_leaves=3))
        atom = data.draw(st.sampled_from(ATOMS))
        results = [
            (
                se.process_lexicographic_upgrade(model, formula, group),
                bits.process_lexicographic_upgrade(mine, formula, group),
            ),
            (
                se.process_conservative_upgrade(model, formula, group),
                bits.process_conservative_upgrade(mine, formula, group),
            ),
            (
                se.process_awareness_expansion(model, atom, group),
                bits.process_awareness_expansion(mine, atom, group),
            ),
        ]
        if se.compute_truth_set(model, formula):  # else outside the definition
            for announced_to in (None, group):
                results.append(
                    (
                        se.process_announcement(model, formula, announced_to),
                        bits.process_announcement(mine, formula, announced_to),
                    )
                )
        for spec, oracle in results:
            assert_same(spec, oracle)
        model, mine = results[data.draw(st.integers(0, len(results) - 1))]


def abduction_agrees(data: st.DataObject, max_worlds: int, max_atoms: int = 3) -> None:
    """Definition A.2 on a problem posed in one model and checked in a descendant of it, under
    either reading of its explanatory model."""
    posed = data.draw(spec_models(max_atoms, max_worlds))
    current = posed
    for atom in data.draw(st.lists(st.sampled_from(ATOMS), max_size=2)):
        current = se.process_awareness_expansion(current, atom)
    learned = data.draw(spec_formulas(sorted(current.atoms), max_leaves=3))
    if se.compute_truth_set(current, learned):
        current = se.process_announcement(current, learned)
    agent = data.draw(st.sampled_from(AGENTS))
    chi = data.draw(spec_formulas(sorted(posed.atoms), max_leaves=2))
    gamma = data.draw(spec_formulas(sorted(current.atoms), max_leaves=3))
    literal = data.draw(st.booleans(), label="literal")
    mine_current, mine_posed = bits.from_spec_model(current), bits.from_spec_model(posed)
    assert_same(
        se.compute_problem_model(current, posed, chi),
        bits.compute_problem_model(mine_current, mine_posed, chi),
    )
    assert se.is_abductive_solution(
        current, posed, agent, chi, gamma, literal
    ) == bits.is_abductive_solution(mine_current, mine_posed, agent, chi, gamma, literal)


# -- turns: the oracle's M_t and queue beside spec.transition's --------------------------------

BASE_ATOMS = ("p", "q")


@st.composite
def operations(draw: st.DrawFn, records: Sequence[str], fresh: str) -> dict[str, Any]:
    """One operation of any kind: a new record or atom gets the name ``fresh``, a target is
    one of ``records`` (``fresh`` if none, to be refused), so that most turns are accepted."""
    kind = draw(st.sampled_from([name for name, *_ in transition.ORDER]))
    formula = spec_formulas(BASE_ATOMS, AGENTS[:2], max_leaves=3)
    op: dict[str, Any] = {"op": kind}
    if kind == "expand-awareness":
        op["atom"] = f"x{fresh}"
        if draw(st.booleans()):
            op["agents"] = sorted(draw(st.sets(st.sampled_from(AGENTS[:2]), min_size=1)))
        return op
    if kind in ("observe", "hypothesize", "question"):
        op |= {"id": fresh, "claim": fresh}
        if kind == "hypothesize" and draw(st.booleans()):
            op["introduces"] = [f"h{fresh}"]
            # h & (h -> phi): an explanation of phi, as B.2's hypotheses are
            cause = se.Atom(f"h{fresh}")
            op["formula"] = se.And((cause, se.Implies(cause, draw(formula))))
        elif draw(st.integers(0, 4)):
            op["formula"] = draw(formula)
        return op
    op["target"] = draw(st.sampled_from(records or [fresh]))
    if kind in ("support", "undermine"):
        op |= {"evidence": f"e{fresh}", "evidence_claim": "e"}
    if kind == "support" and draw(st.booleans()):
        op["specific"] = True
    if kind == "undermine" and draw(st.booleans()):
        op["downgrade"] = "conservative"
    if kind == "revise" and draw(st.booleans()):
        op["announce"] = True
    if kind == "resolve" and draw(st.booleans()):
        op["authoritative"] = True  # a decision carries no formula (T3.resolve.decision-fields)
    elif draw(st.booleans()):
        op["formula"] = draw(formula)
    return op


def _bit_problems(state: transition.State) -> list[bits.BitProblem]:
    return [
        bits.BitProblem(p.agent, p.chi, p.source, bits.from_spec_model(p.posed), p.closed_by)
        for p in state.problems
    ]


def turn_agrees(state: transition.State, turn: transition.Turn) -> transition.State:
    """Check one turn both ways; return D_t+1 (``state`` when the turn is refused)."""
    try:
        spec: transition.Outcome | transition.Rejected = transition.process_turn(state, turn)
    except transition.Rejected as refused:
        spec = refused
    try:
        after = transition.process_turn(state, turn, epistemic=False).state
    except transition.Rejected:
        return state  # refused by the argumentation, which the oracle does not compute
    current = bits.from_spec_model(transition.model_of(state))
    try:
        model, queue = bits.process_turn_model(state, after, turn, current, _bit_problems(state))
    except transition.Rejected as mine:
        assert isinstance(spec, transition.Rejected), (turn, mine)
        assert (mine.code, mine.index) == (spec.code, spec.index), (turn, mine, spec)
        return state
    assert isinstance(spec, transition.Outcome), (turn, spec)
    assert_same(transition.model_of(spec.state), model)
    assert [(p.agent, p.chi, p.source, p.closed_by) for p in spec.state.problems] == [
        (p.agent, p.chi, p.source, p.closed_by) for p in queue
    ], turn
    for theirs, ours in zip(spec.state.problems, queue, strict=True):
        assert_same(theirs.posed, ours.posed)
    return spec.state


def turns_agree(data: st.DataObject, count: int) -> None:
    """A conversation of up to ``count`` turns, each checked both ways, while M_t has at most
    8 worlds (a turn may split them further; the brute force's cost grows with |W|^4)."""
    state = transition.State.start(AGENTS[:2], BASE_ATOMS)
    for turn in range(count):
        if len(transition.model_of(state).worlds) > 8:
            return
        speaker = data.draw(st.sampled_from(AGENTS[:2]))
        records = sorted(state.records)
        ops = [
            data.draw(operations(records, f"{turn}{k}"))
            for k in range(data.draw(st.integers(1, 3)))
        ]
        state = turn_agrees(state, transition.Turn(speaker, tuple(ops)))


# -- the fast tier -----------------------------------------------------------------------------


@given(st.data())
def test_truth_sets_are_the_brute_forces(data: st.DataObject) -> None:
    truth_agrees(data, max_worlds=8)


@given(st.data())
def test_updates_are_the_brute_forces(data: st.DataObject) -> None:
    updates_agree(data, max_worlds=8, steps=3)


@given(st.data())
def test_abduction_is_the_brute_forces(data: st.DataObject) -> None:
    abduction_agrees(data, max_worlds=4, max_atoms=2)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_turns_are_the_spec_transitions(data: st.DataObject) -> None:
    turns_agree(data, count=2)


def test_the_default_model_is_the_spec_transitions() -> None:
    state = transition.State.start(AGENTS, ("p", "q", "r"))
    assert_same(
        transition.model_of(state),
        bits.compute_default_model(AGENTS, ("p", "q", "r"), state.awareness),
    )


def test_the_atom_masks_are_the_valuation() -> None:
    assert bits.compute_atom_mask(0, 3) == 0b10101010
    assert bits.compute_atom_mask(2, 3) == 0b11110000


# -- the slow tier: more examples, larger models ---------------------------------------------

LARGER: dict[str, Callable[[st.DataObject], None]] = {
    "truth": partial(truth_agrees, max_worlds=32, max_atoms=5),
    "updates": partial(updates_agree, max_worlds=16, steps=6, max_atoms=4),
    "abduction": partial(abduction_agrees, max_worlds=16, max_atoms=4),
    "turns": partial(turns_agree, count=8),
}


@pytest.mark.slow
@pytest.mark.parametrize("check", LARGER.values(), ids=LARGER.keys())
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_oracle_is_the_brute_force_on_larger_models(
    check: Callable[[st.DataObject], None], data: st.DataObject
) -> None:
    check(data)


def test_a_problem_closed_by_a_hypothesis_and_reopened_is_the_spec_transitions() -> None:
    p, h = se.Atom("p"), se.Atom("h")
    state = transition.State.start(AGENTS[:2], BASE_ATOMS)
    observed = {"op": "observe", "id": "o1", "claim": "p", "formula": p}
    cause = {"op": "hypothesize", "id": "h1", "claim": "h", "introduces": ["h"]}
    cause["formula"] = se.And((h, se.Implies(h, p)))
    state = turn_agrees(state, transition.Turn("a", (observed, cause)))
    assert [q.closed_by for q in state.problems] == [("h1",), ("h1",)]
    undermined = {"op": "revise", "target": "h1"}
    asked = {"op": "question", "id": "q1", "claim": "p?", "formula": se.Atom("q")}
    state = turn_agrees(state, transition.Turn("b", (undermined, asked)))
    assert state.dmap.standing["h1"] == "abandoned"
    assert [q.source for q in state.problems] == ["o1", "o1", "q1", "q1"]


def test_simultaneous_observations_pose_problems_as_the_spec_transition() -> None:
    p, q = se.Atom("p"), se.Atom("q")
    state = transition.State.start(AGENTS[:2], BASE_ATOMS)
    turn = transition.Turn(
        "a",
        (
            {"op": "observe", "id": "o1", "claim": "p", "formula": p},
            {"op": "observe", "id": "o2", "claim": "p and q", "formula": se.And((p, q))},
        ),
    )
    state = turn_agrees(state, turn)
    # o1 is believed once o2 is announced with it (del.observe.poses-problems); o2 is not
    assert [problem.source for problem in state.problems] == ["o2", "o2"]
