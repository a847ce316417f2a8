"""Seeded fact-consolidation streams in the shape of MemAB-FC (Sections 4.1 and C.3).

A stream states numbered facts "The <relation> of <subject> is <object>." about
generated entities; 35-40% of its facts are later replaced by a fact with the same
subject and relation and a new object.  Questions ask for the current value at the
end of a chain of one relation (single-hop) or two (multi-hop), starting from one
named entity; each chain's first fact was replaced at least once, so every question
tests consolidation.  The gold answer and the gold chain come from the generator's
own bookkeeping (the last value it assigned to each subject and relation), not from
the verifier.

References
----------
Grounded Continuation, Section 4.1 ("MemAB-FC ... streams numbered facts of which
35-40% are later replaced and asks for current values at four stream lengths") and
Section 4.5; spec/gcv/spec/normative.md, "Generated fact streams".
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import icontract

from gcv.evidence import Fact, FactMemory
from gcv.reference.errors import MalformedInput
from gcv.reference.identifiers import RecordId

__all__ = ["Question", "Stream", "generate_stream", "remember"]

RELATIONS = (
    "mentor",
    "employer",
    "partner",
    "rival",
    "supplier",
    "founder",
    "neighbour",
    "successor",
    "advisor",
    "landlord",
)
# Each entity has two or three relations, so that a two-hop question's linked
# records stay a handful whatever the stream's length (Section 4.5's flat cost).
RELATIONS_PER_ENTITY = (2, 3)
MULTI_HOP = 2
_ONSETS = ("b", "br", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "qu", "r", "s", "t", "v")
_VOWELS = ("a", "e", "i", "o", "u", "ae", "ou")
_CODAS = ("", "n", "r", "l", "m", "st", "th", "x", "ck", "nd")


@dataclass(frozen=True, slots=True)
class Question:
    """A question naming one entity and a chain of relations, with its gold answer.

    ``chain`` is the gold chain: the current record of each hop, in order.
    """

    text: str
    entity: str
    relations: tuple[str, ...]
    answer: str
    chain: tuple[RecordId, ...]

    @property
    def hops(self) -> int:
        """The number of subject-object links between the entity and the answer."""
        return len(self.relations)


@dataclass(frozen=True, slots=True)
class Stream:
    """A generated stream: its facts in order (record ids "1", "2", ...) and questions.

    ``superseded`` is the generator's ground truth: the facts a later fact replaced.
    """

    seed: int
    facts: tuple[tuple[RecordId, Fact], ...]
    superseded: frozenset[RecordId]
    questions: tuple[Question, ...]


def _names(rng: random.Random, count: int) -> list[str]:
    names: dict[str, None] = {}
    while len(names) < count:
        syllables = rng.choice((2, 2, 2, 3))
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
        )
        names.setdefault(word.capitalize(), None)
    return list(names)


def _question_text(entity: str, relations: Sequence[str]) -> str:
    phrase = entity
    for relation in relations:
        phrase = f"the {relation} of {phrase}"
    return f"What is {phrase}?"


def _is_well_formed(stream: Stream) -> bool:
    ids = [r for r, _ in stream.facts]
    return ids == [str(n) for n in range(1, len(ids) + 1)] and stream.superseded <= set(ids)


@icontract.require(lambda facts: facts >= 100, "a stream of at least 100 facts")
@icontract.require(
    lambda replaced_share: replaced_share is None or 0.0 < replaced_share < 0.5,
    "a share of replaced facts in (0, 0.5)",
)
@icontract.ensure(
    lambda result: _is_well_formed(result), "facts numbered from 1; superseded facts are facts"
)
@icontract.ensure(
    lambda result: all(q.chain[0] not in result.superseded for q in result.questions),
    "gold chains follow the current facts",
)
def generate_stream(
    seed: int, facts: int, questions: int, replaced_share: float | None = None
) -> Stream:
    """A seeded stream of about ``facts`` facts with ``questions`` questions of each kind.

    ``replaced_share`` is the share of the stream's facts that a later fact
    replaces; by default it is drawn from [0.35, 0.40] (Section 4.1).

    Raises
    ------
    MalformedInput
        ``questions`` is below 1, or the stream has too few replaced facts for them.
    """
    if questions < 1:
        raise MalformedInput("at least one question of each kind", field="questions")
    rng = random.Random(seed)
    share = rng.uniform(0.35, 0.40) if replaced_share is None else replaced_share
    base_facts = round(facts * (1 - share))
    entities: list[str] = []
    relations_of: dict[str, tuple[str, ...]] = {}
    pool = _names(rng, base_facts)  # more names than entities: objects need not be new
    while sum(len(r) for r in relations_of.values()) < base_facts:
        entity = pool[len(entities)]
        entities.append(entity)
        relations_of[entity] = tuple(rng.sample(RELATIONS, rng.choice(RELATIONS_PER_ENTITY)))

    def other(*not_these: str) -> str:
        while (choice := rng.choice(entities)) in not_these:
            pass
        return choice

    # Events as (time, subject, relation, object); a replacement comes after the
    # value it replaces, at a time drawn between that value's time and the end.
    last_time: dict[tuple[str, str], float] = {}
    value: dict[tuple[str, str], str] = {}
    events: list[tuple[float, str, str, str]] = []
    for entity in entities:
        for relation in relations_of[entity]:
            key = (entity, relation)
            last_time[key], value[key] = rng.random(), other(entity)
            events.append((last_time[key], entity, relation, value[key]))
    keys = list(last_time)
    replacements = round(len(events) * share / (1 - share))
    for _ in range(replacements):
        key = rng.choice(keys)
        last_time[key] = rng.uniform(last_time[key], 1.0)
        value[key] = other(key[0], value[key])
        events.append((last_time[key], *key, value[key]))
    events.sort()

    stream_facts: list[tuple[RecordId, Fact]] = []
    current: dict[tuple[str, str], RecordId] = {}
    superseded: set[RecordId] = set()
    for number, (_, subject, relation, obj) in enumerate(events, start=1):
        record = str(number)
        if (subject, relation) in current:
            superseded.add(current[(subject, relation)])
        current[(subject, relation)] = record
        stream_facts.append((record, Fact(subject, relation, obj)))
    facts_by_id = dict(stream_facts)

    replaced_keys = sorted({(facts_by_id[r].subject, facts_by_id[r].relation) for r in superseded})
    if len(replaced_keys) < questions:
        raise MalformedInput(
            f"{len(replaced_keys)} replaced facts cannot carry {questions} questions",
            field="questions",
        )

    def ask(entity: str, relations: tuple[str, ...]) -> Question:
        chain: list[RecordId] = []
        subject = entity
        for relation in relations:
            chain.append(current[(subject, relation)])
            subject = facts_by_id[chain[-1]].object
        return Question(_question_text(entity, relations), entity, relations, subject, tuple(chain))

    asked: list[Question] = []
    for hops in (1, MULTI_HOP):
        for entity, relation in rng.sample(replaced_keys, questions):
            chain: tuple[str, ...] = (relation,)
            while len(chain) < hops:
                reached = ask(entity, chain).answer
                chain += (rng.choice(relations_of[reached]),)
            asked.append(ask(entity, chain))
    return Stream(seed, tuple(stream_facts), frozenset(superseded), tuple(asked))


@icontract.ensure(
    lambda stream, result: list(result.facts) == [r for r, _ in stream.facts],
    "every fact of the stream is a record, in order",
)
def remember(stream: Stream) -> FactMemory:
    """Feed the stream to the verifier, one turn per fact (Section C.3)."""
    memory = FactMemory()
    for record, fact in stream.facts:
        memory.observe(record, fact)
    return memory
