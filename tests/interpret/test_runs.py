"""Repeated runs (``gcv interpret-eval --runs N``): each cell's mean and spread, tokens per run."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from gcv.cli import main
from gcv.interpret.runs import spread
from tests.interpret import phase2
from tests.interpret.loopback import ScriptedEndpoint, reply

# loopback.chat_answer reports 120 prompt and 30 completion tokens per request.
PROMPT_PER_REQUEST, COMPLETION_PER_REQUEST = 120, 30


def _two_runs(a: Fraction, b: Fraction) -> str:
    # Two values: the mean is their midpoint, the sample deviation |a - b| / sqrt(2).
    return f"{100 * float(a + b) / 2:.1f}+-{100 * float(abs(a - b)) / math.sqrt(2):.1f}"


def _two_runs_against(texts: list[str], *extra: str) -> list[dict[str, object]]:
    """Run ``gcv interpret-eval --runs 2`` on Phase 2 against replies ``texts``; the requests."""
    with ScriptedEndpoint([reply(t) for t in texts]) as endpoint:
        argv = ["interpret-eval", "--endpoint", endpoint.url, "--model", "m", "--runs", "2"]
        assert main([*argv, *extra]) == 0
    assert len(endpoint.requests) == 26, "each run asks every utterance again"
    return [sent.body for sent in endpoint.requests]


def test_a_gold_run_and_the_perturbed_run_give_the_hand_counted_spread(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _two_runs_against(phase2.gold_replies() + phase2.perturbed_replies())
    captured = capsys.readouterr()
    out = captured.out
    one = Fraction(1)
    classified = f"{_two_runs(one, phase2.F1_CLASSIFIED)} / {_two_runs(one, phase2.EM_CLASSIFIED)}"
    key = f"{_two_runs(one, phase2.F1_KEY)} / {_two_runs(one, phase2.EM_KEY)}"
    assert f"classified    {classified:<26}{key}" in out, out
    tokens = f"tokens: {13 * PROMPT_PER_REQUEST} prompt + {13 * COMPLETION_PER_REQUEST} completion"
    assert out.count(tokens) == 2, "one usage line per run"
    assert "run 1: classified 100.0 / 100.0" in out and "accepted 11 of 13" in out
    assert captured.err == "", "progress is drawn only on a terminal"


def test_the_json_report_holds_every_run_and_every_cell(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _two_runs_against(phase2.perturbed_replies() * 2, "--json")
    report = json.loads(capsys.readouterr().out)
    cell = report["cells"]["applied"]["overall"]["f1"]
    assert cell["mean"] == pytest.approx(float(phase2.F1_APPLIED)) and cell["sd"] == 0.0
    assert [e["tokens"]["prompt"] for e in report["evaluations"]] == [13 * PROMPT_PER_REQUEST] * 2


def test_table_4_phase_3_under_definitions_with_the_native_arm(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["interpret-eval", "--native", "--condition", "definitions", "--runs", "2"]
    assert main([*argv, "phase3-deliberation"]) == 0
    captured = capsys.readouterr()
    assert "phase3-deliberation: 19 turns" in captured.out
    assert "classified    100.0+-0.0 / 100.0+-0.0" in captured.out
    assert "tokens: not reported" in captured.out
    assert captured.err == "", "the native arm is instant: no progress lines"


def test_runs_below_one_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["interpret-eval", "--native", "--runs", "0"]) == 2
    assert "[malformed-input] field 'runs'" in capsys.readouterr().err


def test_spread_of_known_values() -> None:
    s = spread([0.5, 0.7, 0.9])
    assert (s.mean, s.low, s.high) == pytest.approx((0.7, 0.5, 0.9))
    assert s.sd == pytest.approx(0.2)  # sqrt(((-.2)^2 + 0 + .2^2) / 2)
    assert spread([0.4]).sd == 0.0


def test_each_run_samples_with_the_next_seed(capsys: pytest.CaptureFixture[str]) -> None:
    requests = _two_runs_against(phase2.gold_replies() * 2, "--seed", "7", "-q")
    assert [body["seed"] for body in requests] == [7] * 13 + [8] * 13
