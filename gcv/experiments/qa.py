"""A QA model answers each question from each arm's evidence (Section 4.2, MemAB-FC).

Optional: needs an OpenAI-compatible endpoint (the Interpreter's client,
:mod:`gcv.interpret.client`).  One request per question and arm; the model
is told that the facts are numbered and that a later fact replaces an earlier one
with the same subject and relation (the stream's rule), and answers as JSON
``{"answer": "..."}``.  An answer is correct when it names the gold entity
(case and surrounding punctuation ignored).  The endpoint's reported prompt tokens
are kept beside the BPE count of :mod:`gcv.experiments.arms`.

References
----------
Grounded Continuation, Sections 4.1 and 4.2 (MemAB-FC single-hop and multi-hop
accuracy under the three arms); spec/gcv/spec/normative.md, "Generated fact streams".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import icontract

from gcv.experiments.arms import Arm, Prompts
from gcv.interpret.client import ChatClient

__all__ = [
    "ANSWER_SCHEMA",
    "INSTRUCTIONS",
    "Answer",
    "answer_questions",
    "format_accuracy",
    "is_correct",
    "messages",
]

INSTRUCTIONS = (
    "You answer questions from a list of numbered facts. A later fact replaces an earlier "
    "fact with the same subject and relation: use the current value. Answer with the entity "
    'only, as JSON: {"answer": "<entity>"}.'
)
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class Answer:
    """One question under one arm: what the model answered, and whether it is right."""

    arm: Arm
    hops: int
    gold: str
    answer: str
    correct: bool
    prompt_tokens: int | None


@icontract.ensure(
    lambda question, result: result[-1]["content"].endswith(question),
    "the question comes last, after the facts",
)
def messages(evidence: str, question: str) -> list[dict[str, str]]:
    """The chat messages for one question: the instructions, then the facts and the question."""
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": f"Facts:\n{evidence}\n\nQuestion: {question}"},
    ]


def _read_answer(content: str) -> str:
    try:
        document = json.loads(content)
    except ValueError:
        return content.strip()
    answer = document.get("answer") if isinstance(document, dict) else None
    return answer.strip() if isinstance(answer, str) else content.strip()


def _normal(text: str) -> str:
    return text.strip().strip(".,;:!?\"'").strip().casefold()


@icontract.ensure(
    lambda answer, gold, result: result or answer != gold, "the gold answer itself is correct"
)
def is_correct(answer: str, gold: str) -> bool:
    """Whether ``answer`` names ``gold``, ignoring case and surrounding punctuation."""
    return _normal(answer) == _normal(gold)


@icontract.ensure(
    lambda prompts, arms, result: len(result) == len(prompts.stream.questions) * len(arms),
    "one answer per question and arm",
)
def answer_questions(
    prompts: Prompts,
    client: ChatClient,
    arms: Sequence[Arm] = tuple(Arm),
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Answer, ...]:
    """Ask ``client``'s model every question of ``prompts`` under each of ``arms``, in order.

    ``progress`` is called with the number of requests answered and the total.

    Raises
    ------
    EndpointError
        The endpoint failed on every allowed attempt.
    """
    answers: list[Answer] = []
    total = len(prompts.stream.questions) * len(arms)
    for index, question in enumerate(prompts.stream.questions):
        for arm in arms:
            completion = client.complete(
                messages(prompts.text(index, arm), question.text), ANSWER_SCHEMA
            )
            answer = _read_answer(completion.content)
            answers.append(
                Answer(
                    arm=arm,
                    hops=question.hops,
                    gold=question.answer,
                    answer=answer,
                    correct=is_correct(answer, question.answer),
                    prompt_tokens=completion.prompt_tokens,
                )
            )
            if progress is not None:
                progress(len(answers), total)
    return tuple(answers)


def _mean_tokens(answers: Sequence[Answer]) -> str:
    known = [a.prompt_tokens for a in answers if a.prompt_tokens is not None]
    return f"{sum(known) / len(known):.0f}" if known else "n/a"


@icontract.ensure(
    lambda answers, result: len(result) == 1 + len({a.arm for a in answers}), "one row per arm"
)
def format_accuracy(answers: Sequence[Answer]) -> list[str]:
    """Accuracy per arm, single-hop and multi-hop, with the endpoint's prompt tokens."""
    lines = [f"{'arm':<20}{'single-hop':<14}{'multi-hop':<14}prompt tokens (endpoint)"]
    for arm in Arm:
        mine = [a for a in answers if a.arm is arm]
        if not mine:
            continue
        cells = []
        for single in (True, False):
            kind = [a for a in mine if (a.hops == 1) == single]
            right = sum(a.correct for a in kind)
            cells.append(f"{right}/{len(kind)}" + (f" ({right / len(kind):.2f})" if kind else ""))
        lines.append(f"{arm.value:<20}{cells[0]:<14}{cells[1]:<14}{_mean_tokens(mine)}")
    return lines
