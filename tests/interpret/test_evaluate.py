"""The evaluation harness: the native arm reproduces the gold; perturbed labels score as counted."""

from __future__ import annotations

from importlib import resources

import pytest

from gcv.errors import EndpointError
from gcv.interpret.evaluate import StateSource, evaluate, is_key_shift
from gcv.interpret.native import NativeInterpreter
from gcv.interpret.protocol import Reply, Request
from gcv.reference.verifier import Verifier
from gcv.trace import Trace, load_trace
from tests.interpret import phase2


def _scenario(name: str) -> Trace:
    path = resources.files("gcv.spec").joinpath("scenarios", f"{name}.json")
    return load_trace(path.read_bytes())


class Scripted:
    """Answers turn n with ``replies[n]``; records every request; may fail on some turns."""

    def __init__(self, replies: list[str], failing: frozenset[int] = frozenset()) -> None:
        self.replies = replies
        self.failing = failing
        self.requests: list[Request] = []

    def describe(self) -> dict[str, str]:
        return {"interpreter": "scripted"}

    def interpret(self, request: Request) -> Reply:
        self.requests.append(request)
        if request.position in self.failing:
            raise EndpointError("scripted failure")
        return Reply(self.replies[request.position])


@pytest.mark.parametrize("name", ["phase2-debugging", "phase3-deliberation"])
@pytest.mark.parametrize("state", list(StateSource))
def test_the_native_interpreter_reproduces_the_gold_labels(name: str, state: StateSource) -> None:
    trace = _scenario(name)
    result = evaluate(trace, NativeInterpreter(trace), state=state)
    assert all(t.accepted and t.classified == t.gold for t in result.turns)
    for row in ("classified", "applied"):
        for shifts in (False, True):
            s = result.scores(row, key_shifts_only=shifts)
            assert (s.f1, s.exact_match) == (1.0, 1.0), (row, shifts)


def test_phase2_key_shifts_are_the_standing_and_awareness_changes_of_b2() -> None:
    # B.2: mis_monitor enters every A_i at T4; h2 is weakened at T7 and abandoned at T9;
    # h4 is resolved at T13.  T12's Revise leaves h2 abandoned, so it changes no label.
    trace = _scenario("phase2-debugging")
    assert evaluate(trace, NativeInterpreter(trace)).key_shifts == (4, 7, 9, 13)


def test_a_key_shift_is_read_off_the_engines_journal() -> None:
    trace = _scenario("phase2-debugging")
    verifier = Verifier(list(trace.agents), list(trace.atoms))
    shifts = [t.number for t in trace.turns if is_key_shift(verifier.apply_turn(t.turn))]
    assert shifts == [4, 7, 9, 13]


def test_perturbed_labels_score_as_counted_by_hand() -> None:
    result = evaluate(phase2.phase2(), Scripted(phase2.perturbed_replies()))
    classified = result.scores("classified")
    assert (classified.true_positives, classified.false_positives) == (18, 2)
    assert classified.false_negatives == 4
    assert classified.f1 == pytest.approx(float(phase2.F1_CLASSIFIED))
    assert classified.exact_match == pytest.approx(float(phase2.EM_CLASSIFIED))
    key = result.scores("classified", key_shifts_only=True)
    assert key.f1 == pytest.approx(float(phase2.F1_KEY))
    assert key.exact_match == pytest.approx(float(phase2.EM_KEY))
    applied = result.scores("applied")
    assert applied.f1 == pytest.approx(float(phase2.F1_APPLIED))
    assert applied.exact_match == pytest.approx(float(phase2.EM_APPLIED))
    assert result.scores("applied", key_shifts_only=True) == key
    refused = {t.number: [p.code for p in t.problems] for t in result.turns if t.problems}
    assert refused == {11: ["unknown-record"], 13: ["malformed-reply"]}


def _states(interpreter: Scripted) -> list[str | None]:
    return [r.state for r in interpreter.requests]


def test_the_state_goes_with_the_checkpoint_turns_and_covers_the_turns_between() -> None:
    spy = Scripted(phase2.gold_replies())
    result = evaluate(phase2.phase2(), spy, checkpoint_every=3)
    states = _states(spy)
    assert [t.number for t in result.turns if t.checkpoint] == [1, 4, 7, 10, 13]
    assert [n for n, s in enumerate(states, start=1) if s is not None] == [1, 4, 7, 10, 13]
    t4 = states[3]
    assert t4 is not None and "records: none yet" in str(states[0])
    # T1-T3's changes, then the whole map (o1-o8 registered, nothing more).
    assert [line.split(":")[0].strip() for line in t4.splitlines()[1:4]] == [
        "T1 by Carol (on-call SRE)",
        "T2 by Alice (backend engineer)",
        "T3 by Bob (infrastructure engineer)",
    ]
    assert '  o8 (observation, active; b at T3): "' in t4 and "h1" not in t4


def test_the_history_is_every_earlier_utterance() -> None:
    spy = Scripted(phase2.gold_replies())
    trace = phase2.phase2()
    evaluate(trace, spy)
    texts = [t.turn.text for t in trace.turns]
    assert [len(r.history) for r in spy.requests] == list(range(13))
    assert [text for _, text in spy.requests[-1].history] == texts[:-1]


def test_with_its_own_state_the_interpreter_reads_what_it_applied() -> None:
    replies = phase2.gold_replies()
    replies[4] = '{"operations": []}'  # T5 registers neither o8p nor h1
    own, gold = Scripted(replies), Scripted(replies)
    evaluate(phase2.phase2(), own, state=StateSource.OWN)
    evaluate(phase2.phase2(), gold, state=StateSource.GOLD)
    assert "  h1 (" in str(gold.requests[5].state)
    assert "  h1 (" not in str(own.requests[5].state)
    # T6 supports h1, which its own state lacks: refused, and T6's records are missing too.
    assert "  h2 (" not in str(own.requests[6].state)
    # Turns still count one per utterance: T6's refusal is an empty turn of the map.
    assert "T6 by Carol (on-call SRE): no change" in str(own.requests[6].state)


def test_an_endpoint_failure_stops_the_evaluation_unless_told_to_keep_going() -> None:
    trace = phase2.phase2()
    with pytest.raises(EndpointError):
        evaluate(trace, Scripted(phase2.gold_replies(), frozenset({2})))
    result = evaluate(trace, Scripted(phase2.gold_replies(), frozenset({2})), keep_going=True)
    t3 = result.turns[2]
    assert t3.reply is None and not t3.accepted and t3.problems[0].code == "endpoint-error"
    s = result.scores("classified")
    # T3's single gold label (observe) is missed; every other turn is exact.
    assert (s.false_negatives, s.false_positives, s.exact) == (1, 0, 12)
