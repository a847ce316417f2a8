"""``gcv interpret-eval`` end to end: the command, the real client, a loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.cli import main
from tests.interpret import phase2
from tests.interpret.loopback import ScriptedEndpoint, reply


def _percent(value: object) -> str:
    return f"{100 * float(value):.1f}"  # type: ignore[arg-type]


def test_the_native_arm_scores_100_on_phase2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["interpret-eval", "--native", "phase2-debugging"]) == 0
    out = capsys.readouterr().out
    assert "key shifts (T4, T7, T9, T13)" in out
    assert "classified    100.0 / 100.0   100.0 / 100.0" in out
    assert "accepted replies: 13 of 13" in out


def test_the_papers_command_against_a_local_server(capsys: pytest.CaptureFixture[str]) -> None:
    replies = [reply(text) for text in phase2.gold_replies()]
    with ScriptedEndpoint(replies) as endpoint:
        argv = ["interpret-eval", "--endpoint", endpoint.url, "--model", "qwen2.5-7b"]
        code = main([*argv, "--condition", "definitions", "phase2-debugging"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert len(endpoint.requests) == 13, "one request per utterance"
    assert "model qwen2.5-7b" in out and "condition definitions" in out
    assert "applied       100.0 / 100.0   100.0 / 100.0" in out
    utterances = [t.turn.text for t in phase2.phase2().turns]
    for sent, text in zip(endpoint.requests, utterances, strict=True):
        assert text in sent.body["messages"][1]["content"]


def test_perturbed_replies_print_the_hand_counted_cells(
    capsys: pytest.CaptureFixture[str],
) -> None:
    replies = [reply(text) for text in phase2.perturbed_replies()]
    with ScriptedEndpoint(replies) as endpoint:
        argv = ["interpret-eval", "--endpoint", endpoint.url, "--model", "m", "-q"]
        assert main(argv) == 0
    out = capsys.readouterr().out
    classified = f"{_percent(phase2.F1_CLASSIFIED)} / {_percent(phase2.EM_CLASSIFIED)}"
    key = f"{_percent(phase2.F1_KEY)} / {_percent(phase2.EM_KEY)}"
    applied = f"{_percent(phase2.F1_APPLIED)} / {_percent(phase2.EM_APPLIED)}"
    assert f"classified    {classified:<16}{key}" in out
    assert f"applied       {applied:<16}{key}" in out
    assert "accepted replies: 11 of 13; refused: malformed-reply 1, unknown-record 1" in out


def test_state_augmented_sends_the_rendered_state_at_checkpoints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    replies = [reply(text) for text in phase2.gold_replies()]
    with ScriptedEndpoint(replies) as endpoint:
        argv = ["interpret-eval", "--endpoint", endpoint.url, "--model", "m", "-q"]
        argv += ["--condition", "state-augmented", "--checkpoint-every", "5"]
        assert main(argv) == 0
    carried = [
        n
        for n, sent in enumerate(endpoint.requests, start=1)
        if "dependency map before" in sent.body["messages"][1]["content"]
    ]
    assert carried == [1, 6, 11]


def test_the_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["interpret-eval", "--native", "phase3-deliberation", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scores"]["classified"]["overall"]["f1"] == 1.0
    assert len(report["turns"]) == 19 and report["turns"][0]["accepted"] is True


def test_settings_from_a_file_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replies = [reply(text) for text in phase2.gold_replies()]
    with ScriptedEndpoint(replies) as endpoint:
        config = tmp_path / "interpreter.toml"
        config.write_text('[interpreter]\nmodel = "from-file"\nretries = 0\ntimeout = 5\n')
        monkeypatch.setenv("GCV_ENDPOINT", endpoint.url)
        monkeypatch.setenv("GCV_API_KEY", "sk-env")
        assert main(["interpret-eval", "--config", str(config), "-q"]) == 0
    sent = endpoint.requests[0]
    assert sent.body["model"] == "from-file"
    assert sent.headers["Authorization"] == "Bearer sk-env"
    assert "sk-env" not in capsys.readouterr().out


def test_an_unreachable_endpoint_is_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedEndpoint([]) as endpoint:
        url = endpoint.url  # closed once the block ends: nobody listens there
    argv = ["interpret-eval", "--endpoint", url, "--model", "m", "--retries", "0"]
    assert main([*argv, "--backoff", "0", "--timeout", "2"]) == 2
    assert "[endpoint-error]" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--model", "m"], "[malformed-input]"),
        (["--endpoint", "file:///etc/passwd", "--model", "m"], "[malformed-input]"),
        (["--native", "--checkpoint-every", "0"], "[malformed-input]"),
        (["--native", "no-such-trace"], "no such file"),
    ],
)
def test_bad_input_is_exit_2(
    argv: list[str],
    code: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("GCV_ENDPOINT", "OPENAI_BASE_URL", "GCV_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["interpret-eval", *argv]) == 2
    assert code in capsys.readouterr().err
