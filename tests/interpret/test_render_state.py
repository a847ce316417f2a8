"""The renderer's whole-state summary, which the State-augmented condition reads."""

from __future__ import annotations

from importlib import resources

from gcv.reference.operations import ExpandAwareness, Observe
from gcv.reference.render import render_checkpoint, render_state
from gcv.reference.verifier import Turn, Verifier
from gcv.replay import replay
from gcv.trace import load_trace


def _final(name: str) -> tuple[Verifier, dict[str, str]]:
    trace = load_trace(
        resources.files("gcv.spec").joinpath("scenarios", f"{name}.json").read_bytes()
    )
    return replay(trace).verifier, dict(trace.agents)


def _line(lines: list[str], record: str) -> str:
    [line] = [x for x in lines if x.startswith(f"  {record} (")]
    return line


def test_phase2_every_record_once_with_its_standing_and_its_links() -> None:
    verifier, agents = _final("phase2-debugging")
    lines = render_state(verifier.state, agents)
    assert sorted(x.split()[0] for x in lines if x.startswith("  ")) == sorted(
        verifier.state.records
    )
    # B.2: h2 was undermined by o9 (T7), abandoned (T9) and attacked by h4 (T12).
    assert _line(lines, "h2").startswith("  h2 (hypothesis, abandoned; c at T6)")
    assert _line(lines, "h2").endswith("attacked by o9, h4")
    # h4 is the resolved decision; h1 and h3 rest on it after T13's subsumption.
    assert _line(lines, "h4").startswith("  h4 (decision, resolved; c at T12)")
    assert "rests on" in _line(lines, "h1") and "h4" in _line(lines, "h1").split("rests on")[1]
    assert "every agent is aware of mis_monitor" in lines[-1]


def test_phase3_the_decision_shows_its_dissent() -> None:
    verifier, agents = _final("phase3-deliberation")
    lines = render_state(verifier.state, agents)
    p3 = _line(lines, "P3")
    assert p3.startswith("  P3 (decision, resolved;") and p3.endswith("dissent: b")
    assert "a1, a2, a3" in p3


def test_a_claim_cannot_break_the_layout() -> None:
    v = Verifier(["a"])
    v.apply_turn(Turn("a", (Observe("o1", 'two\nlines and a "quote"'),)))
    [record] = [x for x in render_state(v.state) if x.startswith("  ")]
    assert record.endswith(r'"two\nlines and a \"quote\""')


def test_awareness_is_listed_per_agent_when_it_differs() -> None:
    v = Verifier(["a", "b"], ["p"])
    v.apply_turn(Turn("a", (ExpandAwareness("q", ("a",)),)))
    lines = render_state(v.state, {"a": "Alice"})
    assert lines[-2:] == ["Alice is aware of p, q", "b is aware of p"]


def test_a_checkpoint_without_earlier_turns_is_the_state_alone() -> None:
    v = Verifier(["a"])
    assert render_checkpoint([], v.state) == render_state(v.state)
