"""``core/choices``: turns that tell a choice of the reference from its alternative where no
other case does (spec/gcv/spec/normative.md, the clauses ``turn.speaker-checked-first``,
``turn.well-formed-first`` and ``T3.question.issue-ids-apart``)."""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import DEF21, OBSERVE, QUESTION
from gcv.conformance.vectors import ANSWER_PROFILE_SUITE_VERSION
from gcv.reference.operations import Observe, Question

__all__: list[str] = []


@case(
    "core/choices/unknown-speaker-before-preconditions",
    "A turn by an agent outside Ags whose operation also breaks a precondition is refused "
    "for its speaker (normative: turn.speaker-checked-first).",
    [DEF21, OBSERVE],
)
def _speaker_before_preconditions(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    b.apply("zz", Observe("o1", "again"), rejected="unknown-agent", field="speaker")
    b.state(note="unchanged: the map after turn 1")


@case(
    "core/choices/malformed-operation-before-speaker",
    "A turn by an agent outside Ags with an operation that is not well formed is refused "
    "for the operation (normative: turn.well-formed-first).",
    [DEF21, OBSERVE],
)
def _form_before_speaker(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    blank = {"op": "observe", "id": "o2", "claim": "   "}
    b.apply("zz", blank, rejected="malformed-operation", field="claim")
    b.state(note="unchanged: the map after turn 1")


@case(
    "core/choices/issue-ids-apart",
    "A Question may take a record's id, two Questions one id, and a later record a "
    "Question's: an issue is not an argument, and its id is checked against none "
    "(normative: T3.question.issue-ids-apart; B.3 T1 keeps the issue I_1 out of Args_1).",
    [DEF21, QUESTION],
    added_in=ANSWER_PROFILE_SUITE_VERSION,
)
def _issue_ids_apart(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    b.apply("b", Question("o1", "why the 401s?"))
    b.apply("c", Question("q1", "what do we do next?"))
    b.apply("a", Question("q1", "what do we do next, now?"))
    b.apply("b", Observe("q1", "an observation named as the issue was"))
    b.state()
