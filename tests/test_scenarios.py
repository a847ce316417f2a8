"""Phases 2 and 3 (Appendix B.2, B.3), replayed and checked against the paper and the spec."""

from __future__ import annotations

from graphlib import TopologicalSorter
from importlib import resources

import pytest

from gcv.reference.render import render_grounding
from gcv.reference.verifier import Verifier
from gcv.replay import replay
from gcv.scenarios import builtin_scenarios
from gcv.spec import core, retraction
from gcv.trace import Trace, load_trace
from gcv.translate import spec_map


def _scenario(name: str) -> Trace:
    source = resources.files("gcv.spec").joinpath("scenarios", f"{name}.json")
    return load_trace(source.read_bytes())


def _after(trace: Trace, turn: int) -> Verifier:
    """The verifier after the trace's first ``turn`` turns."""
    v = Verifier(list(trace.agents), list(trace.atoms), trace.model)
    for t in trace.turns[:turn]:
        v.apply_turn(t.turn)
    return v


def test_both_phases_ship() -> None:
    assert {"phase2-debugging", "phase3-deliberation"} <= set(builtin_scenarios())


@pytest.mark.parametrize("name", builtin_scenarios())
def test_every_expectation_of_the_scenario_holds(name: str) -> None:
    result = replay(_scenario(name))
    failing = [c for c in result.checks if not c.ok]
    assert result.ok, failing


@pytest.mark.slow
@pytest.mark.parametrize("name", builtin_scenarios())
def test_reference_agrees_with_spec_after_every_turn(name: str) -> None:
    trace = _scenario(name)
    v = Verifier(list(trace.agents), list(trace.atoms), trace.model)
    for t in trace.turns:
        v.apply_turn(t.turn)
        d = spec_map(v.state)
        assert core.is_conflict_free_map(d), f"Lemma 2.2 fails after T{t.number}"
        for record in v.state.records:
            walk = v.verify(record)
            assert walk.grounded == core.is_grounded(d, record), (t.number, record)
            if walk.grounded:
                assert set(walk.closure) == core.compute_dependency_closure(d, record)
            assert set(v.affected(record)) == core.compute_affected(d, record)
            assert set(v.affected_star(record)) == core.compute_affected_star(d, record)
            if record not in core.get_active_set(d):
                removed = retraction.compute_one_step_removal(d, record)
                assert retraction.is_survivor_set_admissible(d, removed), (t.number, record)
                assert retraction.is_closure_retraction_sound(d, record), (t.number, record)


@pytest.mark.slow
@pytest.mark.parametrize("name", builtin_scenarios())
def test_the_scenarios_satisfy_a1_a2_and_a3(name: str) -> None:
    # Section 2: (A1) at most 12 agents, (A2) an acyclic attack graph, (A3) an explicit
    # finite world set, "satisfied by our scenarios".
    trace = _scenario(name)
    v = _after(trace, len(trace.turns))
    assert len(trace.agents) <= 12, "(A1)"
    # (A2): graphlib raises CycleError, naming the cycle, on a cyclic attack graph.
    TopologicalSorter({t: set(a) for t, a in v.state.ratt.items()}).prepare()
    assert 0 < len(v.worlds()) <= 2 ** len(v.state.atoms), "(A3)"


def test_phase2_h2_lifecycle() -> None:
    """B.2: h2 active at T6, weakened at T7 (Undermine), abandoned at T9 (Revise)."""
    trace = _scenario("phase2-debugging")
    labels = {turn: _after(trace, turn).standing("h2").value for turn in (6, 7, 8, 9, 13)}
    assert labels == {6: "active", 7: "weakened", 8: "weakened", 9: "abandoned", 13: "abandoned"}


def test_phase2_h4_resolved_with_h1_and_h3_linked_to_it() -> None:
    v = _after(_scenario("phase2-debugging"), 13)
    assert v.standing("h4").value == "resolved"
    assert "h4" in v.dependencies("h1") and "h4" in v.dependencies("h3")
    assert "h4" not in _after(_scenario("phase2-debugging"), 12).dependencies("h1")


def test_phase2_three_hop_retraction_of_o5() -> None:
    """Section 3: Affected*(o5) = {h3, h4, h1} via the reverse path o5 -> h3 -> h4 -> h1."""
    v = _after(_scenario("phase2-debugging"), 13)
    assert set(v.affected_star("o5")) == {"h3", "h4", "h1"}
    assert "h3" in v.affected("o5") and "h4" in v.affected("h3") and "h1" in v.affected("h4")


def test_phase2_the_four_retraction_queries_of_section_4_4() -> None:
    """Section 4.4: over the four queries (o8, o9, o6, o5) the one-step query returns the whole
    affected set for one of them, Affected* for all four.  The paper's "16 dependency
    decisions" are read as the 4 x 4 (query, hypothesis) pairs (gcv/claims.py,
    core.sec-4.4.decisions): each is among those checked against the recorded Dep paths; the
    count is the reading's, not computed."""
    v = _after(_scenario("phase2-debugging"), 13)
    d = spec_map(v.state)
    queries = ("o8", "o9", "o6", "o5")
    exact_one_step = [q for q in queries if set(v.affected(q)) == set(v.affected_star(q))]
    assert len(exact_one_step) == 1
    for q in queries:
        with_path = {a for a in d.args if core.has_dependency_path(d, a, q)}
        assert set(v.affected_star(q)) == with_path, q


def test_phase3_t1_registers_what_b3_states() -> None:
    # B.3 T1: "Args_1 = {timeline} ... Cm(a) = {timeline}, Cm(b) = Cm(c) = {}"; the
    # Question opens I1 and registers no record (T3.question.registers-record).
    trace = _scenario("phase3-deliberation")
    v = _after(trace, 1)
    assert set(v.state.records) == {"timeline"}
    assert [v.commitments(agent) for agent in "abc"] == [("timeline",), (), ()]
    assert set(trace.atoms) == {"timeline", "P1", "P2"}, "B.3: Prop_0 = {timeline, P1, P2}"


# The turns whose operations B.1 and B.3 state, transcribed from the text: (scenario turn,
# the paper's turn, speaker, the operations, the sentence).  B.1: "Turn 1a: Alice: I don't
# know. Turn 1b: Bob: ... Turn 1c: Carol: ..."; "The Interpreter must label Turn 0 and Turns
# 1a-c as Observe and Turns 2a-c as Resolve".  B.3's text stops at T1.
STATED_LABELS = {
    "phase1-muddy-children": (
        (1, "Turn 0", "f", ("observe",), "Operation: Observe (public announcement psi_0)"),
        (2, "Turn 1a", "a", ("observe",), "Operations: Three Observe"),
        (3, "Turn 1b", "b", ("observe",), "Operations: Three Observe"),
        (4, "Turn 1c", "c", ("observe",), "Operations: Three Observe"),
        (5, "Turn 2a", "a", ("resolve",), "Operations: Three Resolve"),
        (6, "Turn 2b", "b", ("resolve",), "Operations: Three Resolve"),
        (7, "Turn 2c", "c", ("resolve",), "Operations: Three Resolve"),
    ),
    "phase3-deliberation": (
        (
            1,
            "T1",
            "a",
            ("observe", "question"),
            "Operations: Question (opens root issue), Observe (constraints stated)",
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(STATED_LABELS))
def test_the_scenario_labels_each_turn_as_the_paper_does(name: str) -> None:
    trace = _scenario(name)
    stated = STATED_LABELS[name]
    if name == "phase1-muddy-children":
        assert len(trace.turns) == len(stated), "B.1 has seven turns"
    for number, label, speaker, operations, sentence in stated:
        turn = trace.turns[number - 1].turn
        kinds = sorted(op.name for op in turn.operations)
        assert (turn.speaker, kinds) == (speaker, list(operations)), (label, sentence)


def test_phase3_positions_enter_prop_by_their_hypothesize() -> None:
    # B.3: "Each Hypothesize adds its position to Prop".
    trace = _scenario("phase3-deliberation")
    ops = [op for t in trace.turns for op in t.turn.operations]
    expanded = {op.atom for op in ops if op.name == "expand-awareness"}
    positions = [op for op in ops if op.name == "hypothesize"]
    assert positions and not expanded & {op.id for op in positions}
    for op in positions:
        assert op.id in trace.atoms or op.introduces == (op.id,), op.id


@pytest.mark.parametrize(
    ("child", "as_worlds"), [("a", "m_b | m_c"), ("b", "m_a | m_c"), ("c", "m_a | m_b")]
)
def test_phase1_each_answer_is_what_its_child_did_not_know_in_m1(
    child: str, as_worlds: str
) -> None:
    # B.1's round-1 answers are simultaneous; Bob's and Carol's are announced as the worlds
    # at which their "I don't know" held in M1 (the trace's notes).
    v = _after(_scenario("phase1-muddy-children"), 1)
    dont_know = f"~K[{child}] m_{child} & ~K[{child}] ~m_{child}"
    for world in v.worlds():
        assert v.holds(dont_know, at=world) == v.holds(as_worlds, at=world), sorted(world)


def test_phase3_model_has_the_eleven_atoms_the_paper_counts() -> None:
    # Appendix A: k = 11 for Phase 3, "5 positions, 4 assumptions and 2 libraries".
    trace = _scenario("phase3-deliberation")
    v = _after(trace, len(trace.turns))
    positions = {f"P{n}" for n in range(1, 6)}
    assumptions = {"a1", "a2", "a3", "timeline"}
    libraries = {"yjs", "automerge"}
    assert set(v.state.atoms) == positions | assumptions | libraries
    assert len(v.state.atoms) == 11


def test_phase3_affected_star_of_a3_is_exactly_the_decision() -> None:
    # Section 3: Affected*(a3) "must flag exactly the Yjs decision while leaving the
    # access-control resolution intact".
    trace = _scenario("phase3-deliberation")
    v = _after(trace, len(trace.turns))
    decision = next(r for r in v.state.records if v.dissenters(r))  # the one with dissent
    assert decision == "P3" and v.dissenters(decision) == ("b",)
    assert set(v.affected_star("a3")) == {decision}
    access_control = "P5"
    assert v.standing(access_control).value == "resolved" and v.verify(access_control).grounded
    assert not v.verify(decision).grounded and v.verify(decision).witness == "a3"


def test_phase3_the_decision_was_grounded_before_a3_flipped() -> None:
    trace = _scenario("phase3-deliberation")
    before = _after(trace, 17)
    assert before.verify("P3").grounded


def test_phase3_renderer_flags_the_decision_in_the_papers_words() -> None:
    # Section 3: "decision alpha no longer grounded; affected by retraction of a3; depends
    # on a1, a2".
    trace = _scenario("phase3-deliberation")
    v = _after(trace, len(trace.turns))
    sentence = render_grounding(v.verify("P3"), v.state)
    assert sentence == (
        "decision P3 no longer grounded; affected by retraction of a3; depends on a1, a2"
    )
