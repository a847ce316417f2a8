"""The gcv command line: exit codes and what it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.cli import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, main


def test_replay_defaults_to_phase2_and_every_expectation_holds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("phase2-debugging")
    assert "T7 Alice" in out and "standing: h2 active -> weakened" in out
    assert out.rstrip().endswith("13 turns, 37 expectations: all hold")


def test_replay_phase3_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "phase3-deliberation", "--quiet"]) == EXIT_OK
    assert "19 turns" in capsys.readouterr().out


def test_replay_fails_when_an_expectation_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = {
        "format": "gcv-trace/1",
        "agents": {"a": "Alice"},
        "turns": [
            {"turn": 1, "speaker": "a", "operations": [{"op": "observe", "id": "o1", "claim": "x"}]}
        ],
        "expect": [{"query": "standing", "record": "o1", "equals": "abandoned"}],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace))
    assert main(["replay", str(path)]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "[FAIL] standing(o1) = abandoned; got active" in out and "1 FAILED" in out


@pytest.mark.parametrize("content", ["{", '{"format": "gcv-trace/1"}'])
def test_bad_trace_is_exit_2_with_the_error_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["replay", str(path)]) == EXIT_BAD_INPUT
    assert "[malformed-trace]" in capsys.readouterr().err


def test_missing_trace_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "no-such-scenario"]) == EXIT_BAD_INPUT
    assert "phase2-debugging" in capsys.readouterr().err, "the message lists the built-in scenarios"


def test_verify_grounded_and_ungrounded(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "h4"]) == EXIT_OK
    assert "decision h4 is grounded" in capsys.readouterr().out
    assert main(["verify", "h2"]) == EXIT_FAILED
    assert "hypothesis h2 is abandoned" in capsys.readouterr().out
    assert main(["verify", "P3", "--trace", "phase3-deliberation", "--json"]) == EXIT_FAILED
    answer = json.loads(capsys.readouterr().out)
    assert answer["grounded"] is False and answer["witness"] == "a3" and answer["path"][0] == "P3"


def test_affected_star_and_one_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["affected", "o5", "--json"]) == EXIT_OK
    assert set(json.loads(capsys.readouterr().out)["affected"]) == {"h1", "h3", "h4"}
    assert main(["affected", "o5", "--one-step", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["affected"] == ["h3"]
    assert main(["affected", "zz"]) == EXIT_BAD_INPUT
    assert "[unknown-record]" in capsys.readouterr().err


@pytest.mark.slow
def test_the_installed_console_script_runs() -> None:
    gcv = Path(sys.executable).with_name("gcv")
    result = subprocess.run(
        [str(gcv), "replay", "--quiet"], capture_output=True, text=True, check=False
    )
    assert result.returncode == EXIT_OK, result.stderr
    assert "all hold" in result.stdout


def test_a_trace_with_no_expectation_says_so_and_strict_fails_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "bare.json"
    turn = {"turn": 1, "speaker": "a", "operations": [{"op": "observe", "id": "o1", "claim": "x"}]}
    trace.write_text(json.dumps({"format": "gcv-trace/1", "agents": {"a": "A"}, "turns": [turn]}))
    assert main(["replay", str(trace)]) == EXIT_OK
    assert "0 expectations: nothing checked: the trace states no expectation" in (
        capsys.readouterr().out
    )
    assert main(["replay", "--strict", str(trace)]) == EXIT_FAILED
    assert main(["replay", "--strict", "phase2-debugging", "-q"]) == EXIT_OK
    assert main(["replay", "--strict", str(trace), "phase2-debugging", "-q"]) == EXIT_FAILED


def test_scenarios_lists_each_built_in_trace_with_its_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["scenarios"]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    listed = [line.split()[0] for line in lines]
    assert {"phase2-debugging", "phase3-deliberation"} <= set(listed) and listed == sorted(listed)
    assert lines[1].startswith("phase2-debugging       Phase 2: three engineers debug"), lines


def test_conform_without_the_separator_says_where_the_command_goes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "./my-verifier"]) == EXIT_BAD_INPUT
    assert "the implementation's command goes after --" in capsys.readouterr().err
