"""``core/turns`` and ``core/wellformed``: per-turn composition, the fixed order, atomicity,
and operations the schema admits but that are not well formed."""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.common import base
from gcv.conformance.cases.registry import case
from gcv.conformance.protocol import RECORD_QUERIES
from gcv.conformance.statements import (
    COMPOSITION,
    DEF21,
    DEF23,
    LEMMA21,
    LEMMA22,
    OBSERVE,
    ORDER,
    RESOLVE,
    SUPPORT,
    UNDERMINE,
)
from gcv.reference.operations import Hypothesize, Observe, Question, Resolve, Revise, Undermine

__all__ = ["WRITTEN_OUT_OF_ORDER"]

WRITTEN_OUT_OF_ORDER = (
    Question("q1", "why?"),
    Undermine("h1", "o1"),
    Hypothesize("h1", "bug", depends_on=("o1",)),
    Observe("o1", "401s"),
)
"""One turn written against the fixed order: each record-citing operation rests on the one
written after it, so the turn applies only in the fixed order (o1, h1 on o1, the attack, then
the question)."""


@case(
    "core/turns/fixed-order-not-written-order",
    "Operations apply in the fixed order (Expand-Awareness, Observe, Hypothesize, Support, "
    "Undermine, Revise, Resolve, Question), not as written, each on the state so far.",
    [ORDER, COMPOSITION],
    tags=["order"],
)
def _fixed_order(b: CaseBuilder) -> None:
    b.apply("a", *WRITTEN_OUT_OF_ORDER)
    b.query("standing", "h1", equals="weakened")
    b.query("attackers", "h1", equals=["o1"])
    b.state()


@case(
    "core/turns/observe-cannot-rest-on-same-turn-hypothesis",
    "Observe applies before Hypothesize, so an observation cannot depend on a hypothesis "
    "of the same turn: unknown-record (normative consequence of the order).",
    [ORDER],
    tags=["order"],
)
def _observe_before_hypothesize(b: CaseBuilder) -> None:
    b.apply(
        "a",
        Hypothesize("h1", "bug"),
        Observe("o1", "x", depends_on=("h1",)),
        rejected="unknown-record",
        field="depends_on",
    )
    b.state()


@case(
    "core/turns/same-kind-keeps-written-order",
    "Operations of one kind keep their written order: a hypothesis may rest on one written "
    "before it in the same turn, not on one written after it.",
    [ORDER, COMPOSITION],
    tags=["order"],
)
def _same_kind(b: CaseBuilder) -> None:
    b.apply(
        "a",
        Hypothesize("h2", "later", depends_on=("h1",)),
        Hypothesize("h1", "earlier"),
        rejected="unknown-record",
    )
    b.apply("a", Hypothesize("h1", "earlier"), Hypothesize("h2", "later", depends_on=("h1",)))
    b.query("dependencies", "h2", equals=["h1"])


@case(
    "core/turns/first-failure-in-application-order",
    "When several operations fail, the first failing one in application order is reported: "
    "Observe's duplicate before Hypothesize's unknown dependency.",
    [ORDER],
    tags=["order"],
)
def _first_failure(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    b.apply(
        "b",
        Hypothesize("h9", "why?", depends_on=("zz",)),
        Observe("o1", "again"),
        rejected="duplicate-record",
    )


@case(
    "core/turns/rejected-turn-changes-nothing",
    "A turn whose last operation (in application order) fails applies none of the others, "
    "and takes no turn number: the next accepted turn is numbered as if it never came.",
    [COMPOSITION, DEF21],
    tags=["atomicity"],
)
def _atomic(b: CaseBuilder) -> None:
    base(b)
    b.state(note="the map after turn 2")
    b.apply(
        "c",
        Observe("o7", "new"),
        Undermine("h1", "e7", "counter-evidence", ("o7",)),
        Revise("o1", ("o7",)),
        Resolve("h2"),
        rejected="wrong-standing",
    )
    b.query("standing", "h1", equals="active")
    b.query("standing", "o1", equals="active")
    b.query("standing", "o7", error="unknown-record")
    b.state(note="unchanged: still the map after turn 2")
    b.apply("c", Observe("o7", "new"))
    b.state(note="o7 was registered at turn 3")


@case(
    "core/turns/state-composition",
    "Each operation sees the state the turn has produced so far (A.3): the evidence an "
    "Undermine registers can attack in a Revise of the same turn.",
    [COMPOSITION, LEMMA22],
)
def _composition(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Hypothesize("h1", "Redis"), Hypothesize("h2", "DB"))
    b.apply("b", Undermine("h1", "e1", "wrong code", ("o1",)), Revise("h2", ("e1",)))
    b.query("standing", "h1", equals="weakened")
    b.query("standing", "h2", equals="abandoned")
    b.query("attackers", "h2", equals=["e1"])


@case(
    "core/turns/empty-turn",
    "A turn with no operations is accepted and counts as a turn.",
    [COMPOSITION],
)
def _empty(b: CaseBuilder) -> None:
    b.apply("a")
    b.apply("b", Observe("o1", "401s"))
    b.state(note="o1 was registered at turn 2")


@case(
    "core/turns/queries-do-not-mutate",
    "Queries never change the map (Section 2): the state dump is the same before and after "
    "every query about every record.",
    [DEF21, LEMMA21, DEF23],
)
def _queries_pure(b: CaseBuilder) -> None:
    base(b)
    b.state()
    b.survey(*RECORD_QUERIES)
    b.state()


def _malformed(name: str, description: str, statement: str, op: dict[str, object]) -> None:
    @case(
        f"core/wellformed/{name}",
        f"{description}: the schema admits it, but it is not well formed, so the turn is "
        "rejected with malformed-operation and changes nothing.",
        [statement],
    )
    def _rejected(b: CaseBuilder) -> None:
        base(b)
        fresh = {"op": "observe", "id": "fresh", "claim": "valid"}
        b.apply("a", fresh, op, rejected="malformed-operation")
        b.query("standing", "fresh", error="unknown-record")
        b.state()


_malformed(
    "consensual-resolve-with-premises",
    "A consensual Resolve listing premises",
    RESOLVE,
    {"op": "resolve", "target": "h1", "premises": ["o1"]},
)
_malformed(
    "consensual-resolve-with-dissenters",
    "A consensual Resolve listing dissenters",
    RESOLVE,
    {"op": "resolve", "target": "h1", "authoritative": False, "dissenters": ["b"]},
)
_malformed(
    "evidence-dependencies-without-claim",
    "A Support citing existing evidence but giving it dependencies",
    SUPPORT,
    {"op": "support", "target": "h1", "evidence": "o2", "evidence_depends_on": ["o1"]},
)
_malformed(
    "blank-claim",
    "An Observe whose claim is only white space",
    OBSERVE,
    {"op": "observe", "id": "o9", "claim": "   "},
)
_malformed(
    "blank-evidence-claim",
    "An Undermine whose evidence claim is only white space",
    UNDERMINE,
    {"op": "undermine", "target": "h1", "evidence": "e9", "evidence_claim": " "},
)
