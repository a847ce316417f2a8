"""``core/preconditions``: every precondition of Table 3, broken once, from the same map.

Each row breaks one precondition of one operation, in a turn whose first
written operation is harmless: the turn must be rejected with the row's error
code, and the map (including the harmless operation's record) must be exactly
as before.  The rows are those of ``tests/test_operations.py``'s REJECTIONS
(a test checks that none is missing), plus a few that table leaves out.

``attacked-target`` has no row: Lemma 2.2 keeps every record of S_t
unattacked, so no reachable map lets Resolve break that clause.
"""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.common import base
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import (
    COMPOSITION,
    DEF21,
    EXPAND,
    HYPOTHESIZE,
    OBSERVE,
    RESOLVE,
    REVISE,
    SUPPORT,
    UNDERMINE,
)
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Resolve,
    Revise,
    Support,
    Undermine,
)

__all__ = ["PRECONDITIONS"]

_STATEMENT = {
    "observe": OBSERVE,
    "hypothesize": HYPOTHESIZE,
    "support": SUPPORT,
    "undermine": UNDERMINE,
    "revise": REVISE,
    "resolve": RESOLVE,
    "expand-awareness": EXPAND,
}

# (name, operation, code, field, what the row breaks); the speaker is always a.
PRECONDITIONS: list[tuple[str, Operation, str, str, str]] = [
    ("observe-id-duplicate", Observe("o1", "again"), "duplicate-record", "id", "the id is new"),
    (
        "observe-depends-on-unknown",
        Observe("o9", "x", depends_on=("zz",)),
        "unknown-record",
        "depends_on",
        "dependencies are registered",
    ),
    (
        "observe-depends-on-itself",
        Observe("o9", "x", depends_on=("o9",)),
        "self-reference",
        "depends_on",
        "a record does not cite itself",
    ),
    ("hypothesize-id-duplicate", Hypothesize("h1", "again"), "duplicate-record", "id", "new id"),
    (
        "hypothesize-depends-on-unknown",
        Hypothesize("h9", "x", depends_on=("o1", "zz")),
        "unknown-record",
        "depends_on",
        "dependencies are registered",
    ),
    (
        "hypothesize-depends-on-itself",
        Hypothesize("h9", "x", depends_on=("h9",)),
        "self-reference",
        "depends_on",
        "a record does not cite itself",
    ),
    (
        "support-target-unknown",
        Support("zz", "e9", "c"),
        "unknown-record",
        "target",
        "the target is registered",
    ),
    (
        "support-target-abandoned",
        Support("h3", "e9", "c"),
        "wrong-standing",
        "target",
        "the target is not abandoned",
    ),
    (
        "support-evidence-is-target",
        Support("h1", "h1"),
        "self-reference",
        "evidence",
        "the evidence is not the target",
    ),
    (
        "support-evidence-unknown",
        Support("h1", "zz"),
        "unknown-record",
        "evidence",
        "cited evidence is registered",
    ),
    (
        "support-evidence-abandoned",
        Support("h1", "h3"),
        "wrong-standing",
        "evidence",
        "cited evidence is in S_t",
    ),
    (
        "support-evidence-weakened",
        Support("h1", "h2"),
        "wrong-standing",
        "evidence",
        "cited evidence is in S_t",
    ),
    (
        "support-new-evidence-duplicate",
        Support("h1", "o2", "c"),
        "duplicate-record",
        "evidence",
        "new evidence has a new id",
    ),
    (
        "support-evidence-depends-on-unknown",
        Support("h1", "e9", "c", ("zz",)),
        "unknown-record",
        "evidence_depends_on",
        "the evidence's dependencies are registered",
    ),
    (
        "support-evidence-depends-on-itself",
        Support("h1", "e9", "c", ("e9",)),
        "self-reference",
        "evidence_depends_on",
        "the evidence does not cite itself",
    ),
    (
        "undermine-target-unknown",
        Undermine("zz", "o1"),
        "unknown-record",
        "target",
        "the target is registered",
    ),
    (
        "undermine-target-abandoned",
        Undermine("h3", "o1"),
        "wrong-standing",
        "target",
        "the target is active or weakened",
    ),
    (
        "undermine-target-resolved",
        Undermine("h4", "o1"),
        "wrong-standing",
        "target",
        "the target is active or weakened",
    ),
    (
        "undermine-evidence-abandoned",
        Undermine("h1", "h3"),
        "wrong-standing",
        "evidence",
        "cited evidence is in S_t",
    ),
    (
        "undermine-evidence-is-target",
        Undermine("h1", "h1"),
        "self-reference",
        "evidence",
        "the evidence is not the target",
    ),
    (
        "undermine-new-evidence-duplicate",
        Undermine("h1", "o2", "c"),
        "duplicate-record",
        "evidence",
        "new evidence has a new id",
    ),
    (
        "undermine-evidence-unknown",
        Undermine("h1", "zz"),
        "unknown-record",
        "evidence",
        "cited evidence is registered",
    ),
    (
        "undermine-evidence-depends-on-unknown",
        Undermine("h1", "e9", "c", ("zz",)),
        "unknown-record",
        "evidence_depends_on",
        "the evidence's dependencies are registered",
    ),
    ("revise-target-unknown", Revise("zz"), "unknown-record", "target", "the target is registered"),
    (
        "revise-attacker-unknown",
        Revise("h1", ("zz",)),
        "unknown-record",
        "attackers",
        "attackers are registered",
    ),
    (
        "revise-attacker-is-target",
        Revise("h1", ("h1",)),
        "self-reference",
        "attackers",
        "the target does not attack itself",
    ),
    (
        "revise-attacker-abandoned",
        Revise("h1", ("h3",)),
        "wrong-standing",
        "attackers",
        "attackers are in S_t",
    ),
    (
        "resolve-target-unknown",
        Resolve("zz"),
        "unknown-record",
        "target",
        "the target is registered",
    ),
    (
        "resolve-target-weakened",
        Resolve("h2"),
        "wrong-standing",
        "target",
        "the target is in S_t",
    ),
    (
        "resolve-target-abandoned",
        Resolve("h3"),
        "wrong-standing",
        "target",
        "the target is in S_t",
    ),
    (
        "resolve-subsumes-unknown",
        Resolve("h1", subsumes=("zz",)),
        "unknown-record",
        "subsumes",
        "subsumed records are registered",
    ),
    (
        "resolve-subsumes-itself",
        Resolve("h1", subsumes=("h1",)),
        "self-reference",
        "subsumes",
        "the target does not subsume itself",
    ),
    (
        "resolve-premise-weakened",
        Resolve("h1", authoritative=True, premises=("h2",)),
        "wrong-standing",
        "premises",
        "premises are in S_t",
    ),
    (
        "resolve-premise-unknown",
        Resolve("h1", authoritative=True, premises=("zz",)),
        "unknown-record",
        "premises",
        "premises are registered",
    ),
    (
        "resolve-premise-itself",
        Resolve("h1", authoritative=True, premises=("h1",)),
        "self-reference",
        "premises",
        "the decision does not rest on itself",
    ),
    (
        "resolve-dissenter-unknown",
        Resolve("h1", authoritative=True, dissenters=("zz",)),
        "unknown-agent",
        "dissenters",
        "dissenters are in Ags",
    ),
    (
        "resolve-dissenter-speaker",
        Resolve("h1", authoritative=True, dissenters=("a",)),
        "self-reference",
        "dissenters",
        "the speaker does not dissent from their own decision",
    ),
    (
        "expand-awareness-already-aware",
        ExpandAwareness("p"),
        "already-aware",
        "atom",
        "some agent is not yet aware of the atom",
    ),
    (
        "expand-awareness-named-already-aware",
        ExpandAwareness("p", ("a", "b")),
        "already-aware",
        "atom",
        "some named agent is not yet aware of the atom",
    ),
    (
        "expand-awareness-agent-unknown",
        ExpandAwareness("q", ("zz",)),
        "unknown-agent",
        "agents",
        "named agents are in Ags",
    ),
]


def _declare(name: str, op: Operation, code: str, field: str, clause: str) -> None:
    @case(
        f"core/preconditions/{name}",
        f"{op.name} breaking '{clause}' is rejected with {code}; the turn, "
        "including its other operation, changes nothing.",
        [_STATEMENT[op.name], COMPOSITION],
    )
    def _rejected(b: CaseBuilder) -> None:
        base(b)
        harmless = Observe("fresh", "a valid operation written first")
        b.apply("a", harmless, op, rejected=code, field=field)
        b.query("standing", "fresh", error="unknown-record")
        b.state(note="exactly the map after the second turn")


for _row in PRECONDITIONS:
    _declare(*_row)


@case(
    "core/preconditions/speaker-unknown",
    "A turn whose speaker is not in Ags is rejected with unknown-agent and changes nothing.",
    [DEF21, COMPOSITION],
)
def _speaker_unknown(b: CaseBuilder) -> None:
    base(b)
    b.apply("zz", Observe("o9", "x"), rejected="unknown-agent", field="speaker")
    b.query("standing", "o9", error="unknown-record")
    b.state()


@case(
    "core/preconditions/first-field-wins",
    "An operation breaking two preconditions is rejected for the first field in the "
    "table's signature order (normative: precondition order): Support's target, then evidence.",
    [SUPPORT],
)
def _first_field(b: CaseBuilder) -> None:
    base(b)
    b.apply("a", Support("zz", "h3"), rejected="unknown-record", field="target")
    b.apply("a", Resolve("h2", subsumes=("zz",)), rejected="wrong-standing", field="target")


@case(
    "core/preconditions/first-cited-record-wins",
    "Within a list field the cited records are checked in the order written, each fully, "
    "so the first failing record decides the code (normative: precondition order).",
    [REVISE],
)
def _first_record(b: CaseBuilder) -> None:
    base(b)
    b.apply("a", Revise("h1", ("h3", "zz")), rejected="wrong-standing", field="attackers")
    b.apply("a", Revise("h1", ("zz", "h3")), rejected="unknown-record", field="attackers")
