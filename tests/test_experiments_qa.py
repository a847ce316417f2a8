"""The optional QA arm of the experiments: a model answers from each arm's evidence.

Offline: the Interpreter's client against the scripted loopback endpoint.
"""

from __future__ import annotations

import json

import pytest

from gcv.cli import main
from gcv.experiments.arms import Arm, build_prompts
from gcv.experiments.qa import answer_questions, is_correct
from gcv.experiments.streams import generate_stream
from gcv.interpret.client import ChatClient, ClientConfig
from tests.interpret.loopback import ScriptedEndpoint, reply


def test_each_arm_is_asked_every_question_and_scored_against_the_gold() -> None:
    stream = generate_stream(3, 150, 3)
    prompts = build_prompts(stream)
    script = []
    for question in stream.questions:
        script += [
            reply(json.dumps({"answer": "Nobody"})),  # full context: wrong
            reply(f"{question.answer}."),  # retrieval: right, as plain text
            reply(json.dumps({"answer": question.answer.upper()})),  # verifier: right
        ]
    with ScriptedEndpoint(script) as endpoint:
        client = ChatClient(ClientConfig(endpoint.url, "m", retries=0))
        answers = answer_questions(prompts, client)
    assert len(endpoint.requests) == 6 * 3
    assert [a.correct for a in answers] == [False, True, True] * 6
    assert all(a.prompt_tokens == 120 for a in answers)  # the endpoint's reported usage
    superseded = {prompts.memory.render([r]) for r in stream.superseded}
    for n, sent in enumerate(endpoint.requests):
        text = sent.body["messages"][1]["content"]
        assert text.endswith(f"Question: {stream.questions[n // 3].text}")
        if n % 3 == 2:  # the verifier's prompt holds no superseded fact
            assert not any(line in superseded for line in text.splitlines())


def test_the_command_prints_accuracy_per_arm(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedEndpoint([reply('{"answer": "Nobody"}')] * 12) as endpoint:
        argv = ["experiments", "--endpoint", endpoint.url, "--model", "m"]
        assert main([*argv, "--qa-tokens", "1500", "--qa-questions", "2"]) == 0
    captured = capsys.readouterr()
    rows = captured.out.splitlines()
    assert rows[0].startswith("arm") and len(rows) == 1 + len(Arm)
    assert rows[3].startswith(f"{Arm.VERIFIER.value:<20}0/2 (0.00)    0/2 (0.00)    120")
    assert captured.err.splitlines()[-1] == "answered 12 of 12"


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--qa-questions", "0"], "qa_questions"), (["--qa-tokens", "10"], "qa_tokens")],
)
def test_bad_qa_settings_are_exit_2(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    argv = ["experiments", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", *extra]
    assert main(argv) == 2
    assert f"field '{message}'" in capsys.readouterr().err


def test_an_answer_is_the_gold_entity_up_to_case_and_punctuation() -> None:
    assert is_correct(" brisk. ", "Brisk")
    assert not is_correct("Brisk Calder", "Brisk")
