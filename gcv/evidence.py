"""Evidence for a question: the active records linked to the entities it names.

"The maintained state also supplies QA models with currently active evidence"
(Section 1, Figure 1): on a fact stream, "Verifier (native) follows subject-object
links from the entities the question names" and "sends only the active records
linked to the question" (Sections 4.1 and 4.5).  A :class:`FactMemory` keeps a
stream of (subject, relation, object) facts as records of the dependency map, one
turn per fact; a fact that replaces the current value of its subject and relation
is an Observe with a Revise of the record it supersedes (Section C.3), so the old
record leaves S_t and never reaches the evidence.

References
----------
Grounded Continuation: A Linear-Time Runtime Verifier for LLM Conversations,
Sections 1, 4.1, 4.5 and C.3; spec/gcv/spec/normative.md, "Evidence for a question".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import icontract

from gcv.errors import UnknownEntity
from gcv.reference.errors import MalformedInput
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.operations import Observe, Operation, Revise
from gcv.reference.records import GOOD_STANDING, Standing
from gcv.reference.verifier import Turn, Verifier

__all__ = ["Fact", "FactMemory", "is_linked_from"]

STREAM_AGENT: AgentId = "stream"


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact of a stream: ``relation`` of ``subject`` is ``object``."""

    subject: str
    relation: str
    object: str

    def __post_init__(self) -> None:
        for field in ("subject", "relation", "object"):
            value = getattr(self, field)
            if not isinstance(value, str) or not value.strip() or value != value.strip():
                raise MalformedInput(
                    f"a fact's {field} must be non-empty text without surrounding blanks, "
                    f"not {value!r}",
                    field=field,
                )

    def sentence(self) -> str:
        """The fact as the stream states it (the record's claim)."""
        return f"The {self.relation} of {self.subject} is {self.object}."


def is_linked_from(
    facts: Mapping[RecordId, Fact], entities: Sequence[str], records: Sequence[RecordId]
) -> bool:
    """Check that every record's subject is a named entity or the object of another record."""
    reached = set(entities) | {facts[r].object for r in records}
    return all(facts[r].subject in reached for r in records)


def _is_in_good_standing(
    standing: Mapping[RecordId, Standing], records: Sequence[RecordId]
) -> bool:
    return all(standing[r] in GOOD_STANDING for r in records)


class FactMemory:
    """A fact stream kept as a dependency map, with the facts' subjects indexed.

    Examples
    --------
    >>> memory = FactMemory()
    >>> memory.observe("1", Fact("Arden", "mentor", "Brisk"))
    >>> memory.observe("2", Fact("Brisk", "employer", "Calder"))
    >>> memory.observe("3", Fact("Arden", "mentor", "Dunmore"))
    '1'
    >>> print(memory.render(memory.evidence(["Arden"], hops=2)))
    3. The mentor of Arden is Dunmore.
    """

    def __init__(self) -> None:
        self.verifier = Verifier([STREAM_AGENT])
        self.facts: dict[RecordId, Fact] = {}
        # Every record whose subject is the key, in stream order, superseded ones too:
        # standing is read from the map at query time, never copied here.
        self._by_subject: dict[str, list[RecordId]] = {}
        # (subject, relation) -> the record stating its current value.
        self._current: dict[tuple[str, str], RecordId] = {}

    @icontract.ensure(
        lambda self, record, fact: self._current[(fact.subject, fact.relation)] == record,
        "the new fact is the current value of its subject and relation",
    )
    def observe(self, record: RecordId, fact: Fact) -> RecordId | None:
        """Register ``fact`` as ``record``, superseding the current value it replaces.

        Returns the superseded record, if any.  The turn is the map's: a rejected
        fact (a reused identifier, say) raises its typed error and leaves the map
        and the indexes as they were.
        """
        key = (fact.subject, fact.relation)
        superseded = self._current.get(key)
        operations: tuple[Operation, ...] = (Observe(record, fact.sentence()),)
        if superseded is not None:
            # C.3: a replacement is a new Observe that supersedes, via Revise.
            operations += (Revise(superseded, attackers=(record,)),)
        self.verifier.apply_turn(Turn(STREAM_AGENT, operations))
        self.facts[record] = fact
        self._by_subject.setdefault(fact.subject, []).append(record)
        self._current[key] = record
        return superseded

    @icontract.ensure(
        lambda self, result: _is_in_good_standing(self.verifier.state.standing, result),
        "only records in good standing: superseded facts are excluded (Section 1, Figure 1)",
    )
    @icontract.ensure(
        lambda self, entities, result: is_linked_from(self.facts, entities, result),
        "the records are linked to the named entities by subject-object links (Section 4.1)",
    )
    def evidence(self, entities: Sequence[str], hops: int) -> tuple[RecordId, ...]:
        """The active records within ``hops`` subject-object links of ``entities``.

        The first hop takes every active fact whose subject is a named entity; each
        further hop takes the active facts whose subject is the object of a fact
        already taken.  Records come hop by hop, in stream order within a subject.

        Raises
        ------
        MalformedInput
            No entity is named, or ``hops`` is below 1.
        UnknownEntity
            A named entity is the subject of no fact of the stream.
        """
        if not entities:
            raise MalformedInput("a question names at least one entity", field="entities")
        if hops < 1:
            raise MalformedInput(f"hops must be at least 1, not {hops}", field="hops")
        for entity in entities:
            if entity not in self._by_subject:
                raise UnknownEntity(f"no fact has the subject {entity!r}", field="entities")
        standing = self.verifier.state.standing
        taken: dict[RecordId, None] = {}
        seen = set(entities)
        frontier = list(dict.fromkeys(entities))
        for _ in range(hops):
            reached: list[str] = []
            for subject in frontier:
                for record in self._by_subject.get(subject, ()):
                    if standing[record] in GOOD_STANDING and record not in taken:
                        taken[record] = None
                        target = self.facts[record].object
                        if target not in seen:
                            seen.add(target)
                            reached.append(target)
            frontier = reached
        return tuple(taken)

    @icontract.ensure(
        lambda records, result: len(result.splitlines()) == len(records),
        "one line per record",
    )
    def render(self, records: Sequence[RecordId]) -> str:
        """The compact evidence text a QA model reads: one numbered claim per line."""
        state = self.verifier.state
        return "\n".join(f"{r}. {state.records[r].claim}" for r in records)
