"""``core/operations``: each operation's accept paths and effects (Table 3, Algorithm 1)."""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.common import base
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import (
    COR24,
    DEF21,
    EXPAND,
    HYPOTHESIZE,
    LEMMA21,
    LEMMA22,
    OBSERVE,
    PHASE3,
    QUESTION,
    RESOLVE,
    REVISE,
    SUBSUMPTION,
    SUPPORT,
    UNDERMINE,
)
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.reference.records import Kind

__all__: list[str] = []


@case(
    "core/operations/observe-observation",
    "Observe registers an active observation with no dependencies; the speaker commits to it.",
    [OBSERVE, DEF21],
)
def _observe_observation(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "I see 401 errors"))
    b.query("standing", "o1", equals="active")
    b.query("dependencies", "o1", equals=[])
    b.query("commitments", agent="a", equals=["o1"])
    b.query("commitments", agent="b", equals=[])
    b.grounded("o1", ["o1"])
    b.state()


@case(
    "core/operations/observe-premise-with-dependencies",
    "Observe of kind premise records its dependencies in Dep.",
    [OBSERVE, DEF21],
)
def _observe_premise(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "docs are short"), Observe("o2", "editing is bursty"))
    b.apply("b", Observe("a1", "docs stay short", kind=Kind.PREMISE, depends_on=("o1", "o2")))
    b.query("dependencies", "a1", equals=["o1", "o2"])
    b.query("affected", "o1", equals=["a1"])
    b.grounded("a1", ["a1", "o1", "o2"])
    b.state()


@case(
    "core/operations/observe-depends-on-withdrawn",
    "Observe may depend on a record out of standing (normative: any standing); "
    "the Verify walk then flags it.",
    [OBSERVE, LEMMA21],
)
def _observe_on_withdrawn(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    b.apply("b", Revise("o1"))
    b.apply("c", Observe("o2", "the 401s stopped", depends_on=("o1",)))
    b.query("standing", "o2", equals="active")
    b.ungrounded("o2", ["o1"])


@case(
    "core/operations/hypothesize-kinds",
    "Hypothesize registers active hypotheses and positions; nobody commits to them.",
    [HYPOTHESIZE, DEF21],
)
def _hypothesize(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    b.apply(
        "b",
        Hypothesize("h1", "token bug", depends_on=("o1",)),
        Hypothesize("P1", "adopt Yjs", kind=Kind.POSITION),
    )
    b.query("standing", "h1", equals="active")
    b.query("standing", "P1", equals="active")
    b.query("commitments", agent="b", equals=[])
    b.query("dependencies", "h1", equals=["o1"])
    b.grounded("h1", ["h1", "o1"])
    b.state()


@case(
    "core/operations/support-new-evidence",
    "Support with an evidence claim registers the evidence (kind evidence, its own "
    "dependencies), adds it to Dep(target), commits the speaker, changes no label.",
    [SUPPORT, DEF21],
)
def _support_new(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Hypothesize("h1", "token bug", depends_on=("o1",)))
    b.apply("c", Support("h1", "e1", "timing is consistent", ("o1",)))
    b.query("standing", "h1", equals="active")
    b.query("standing", "e1", equals="active")
    b.query("dependencies", "h1", equals=["o1", "e1"])
    b.query("dependencies", "e1", equals=["o1"])
    b.query("commitments", agent="c", equals=["e1"])
    b.query("affected_star", "o1", equals=["h1", "e1"])
    b.state()


@case(
    "core/operations/support-existing-evidence",
    "Support citing an existing record in S_t adds it to Dep(target) and commits the speaker.",
    [SUPPORT],
)
def _support_existing(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Observe("o2", "3x traffic"), Hypothesize("h1", "token"))
    b.apply("b", Support("h1", "o2"))
    b.query("dependencies", "h1", equals=["o2"])
    b.query("commitments", agent="b", equals=["o2"])
    b.query("affected", "o2", equals=["h1"])


@case(
    "core/operations/support-weakened-and-resolved-targets",
    "Support accepts a weakened or a resolved target and leaves its label alone.",
    [SUPPORT],
)
def _support_labels(b: CaseBuilder) -> None:
    base(b)
    b.apply("c", Support("h2", "o2"), Support("h4", "e2", "mechanism", ("o1",)))
    b.query("standing", "h2", equals="weakened")
    b.query("standing", "h4", equals="resolved")
    b.query("dependencies", "h2", equals=["o2"])
    b.query("dependencies", "h4", equals=["e2"])
    b.state()


@case(
    "core/operations/undermine-new-evidence",
    "Undermine with an evidence claim registers the evidence, adds the attack, labels the "
    "target weakened and commits the speaker to the evidence.",
    [UNDERMINE, LEMMA22],
)
def _undermine_new(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Observe("o2", "3x"), Hypothesize("h1", "Redis -> auth"))
    b.apply("c", Undermine("h1", "e1", "wrong error code: 401, not 503", ("o2",)))
    b.query("standing", "h1", equals="weakened")
    b.query("attackers", "h1", equals=["e1"])
    b.query("dependencies", "e1", equals=["o2"])
    b.query("commitments", agent="c", equals=["e1"])
    b.ungrounded("h1", ["h1"])
    b.state()


@case(
    "core/operations/undermine-existing-evidence",
    "Undermine citing an existing record in S_t (as o9 undermines h2 at Phase 2 T7).",
    [UNDERMINE],
)
def _undermine_existing(b: CaseBuilder) -> None:
    b.apply("a", Observe("o9", "tokens expire early"), Hypothesize("h2", "Redis -> auth"))
    b.apply("b", Undermine("h2", "o9"))
    b.query("standing", "h2", equals="weakened")
    b.query("attackers", "h2", equals=["o9"])
    b.query("commitments", agent="b", equals=["o9"])


@case(
    "core/operations/undermine-weakened-target",
    "Undermine of a weakened target keeps it weakened and adds the new attack.",
    [UNDERMINE],
)
def _undermine_weakened(b: CaseBuilder) -> None:
    base(b)
    b.apply("c", Undermine("h2", "e5", "a second counter-example"))
    b.query("standing", "h2", equals="weakened")
    b.query("attackers", "h2", equals=["e0", "e5"])


@case(
    "core/operations/revise-without-attackers",
    "Revise with no attackers (the hard announcement [!not gamma]) abandons the target and "
    "retracts the speaker's commitment to it.",
    [REVISE, DEF21],
)
def _revise_plain(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Hypothesize("h1", "token bug", depends_on=("o1",)))
    b.query("commitments", agent="a", equals=["o1"])
    b.apply("a", Revise("o1"))
    b.query("standing", "o1", equals="abandoned")
    b.query("attackers", "o1", equals=[])
    b.query("commitments", agent="a", equals=[])
    b.ungrounded("h1", ["o1"])
    b.state()


@case(
    "core/operations/revise-from-every-label",
    "Revise abandons from any label, adds an attack from each attacker, and an abandoned "
    "target stays abandoned (Phase 2 T12: h2 stays abandoned).",
    [REVISE, LEMMA22],
)
def _revise_labels(b: CaseBuilder) -> None:
    base(b)
    b.apply("c", Revise("h1", ("o2",)), Revise("h2"), Revise("h3", ("o1",)), Revise("h4"))
    for record in ("h1", "h2", "h3", "h4"):
        b.query("standing", record, equals="abandoned")
    b.query("attackers", "h1", equals=["o2"])
    b.query("attackers", "h3", equals=["o1"])
    b.query("attackers", "h4", equals=[])
    b.state()


@case(
    "core/operations/revise-keeps-other-commitments",
    "Revise retracts only the speaker's commitment: another agent's commitment to the "
    "target stays.",
    [REVISE],
)
def _revise_commitments(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    b.apply("b", Resolve("o1"))
    b.query("commitments", agent="b", equals=["o1"])
    b.apply("a", Revise("o1"))
    b.query("commitments", agent="a", equals=[])
    b.query("commitments", agent="b", equals=["o1"])


@case(
    "core/operations/resolve-consensual",
    "A consensual Resolve labels the target resolved and commits every agent to it.",
    [RESOLVE, DEF21],
)
def _resolve_consensual(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Hypothesize("h1", "token bug", depends_on=("o1",)))
    b.apply("b", Resolve("h1"))
    b.query("standing", "h1", equals="resolved")
    for agent in ("a", "b", "c"):
        b.query("commitments", agent=agent, equals=["o1", "h1"] if agent == "a" else ["h1"])
    b.grounded("h1", ["h1", "o1"])
    b.query("dissenters", "h1", equals=[])
    b.state()


@case(
    "core/operations/resolve-resolved-target",
    "Resolve accepts a target already resolved (it is in S_t and unattacked).",
    [RESOLVE],
)
def _resolve_again(b: CaseBuilder) -> None:
    base(b)
    b.apply("c", Resolve("h4"))
    b.query("standing", "h4", equals="resolved")


@case(
    "core/operations/resolve-subsumes",
    "Resolve with subsumes adds the target to each subsumed record's Dep (A.3), which may "
    "close a dependency cycle (Phase 2 T13: h3 -> h4 -> h3).",
    [RESOLVE, SUBSUMPTION, COR24],
)
def _resolve_subsumes(b: CaseBuilder) -> None:
    b.apply("a", Observe("o5", "3x traffic"), Hypothesize("h3", "retry loop", depends_on=("o5",)))
    b.apply("b", Hypothesize("h4", "token bug causes retries", depends_on=("h3",)))
    b.apply("c", Observe("o6", "pool exhausted"), Hypothesize("h1", "Redis", depends_on=("o6",)))
    b.apply("a", Resolve("h4", subsumes=("h1", "h3")))
    b.query("dependencies", "h3", equals=["o5", "h4"])
    b.query("dependencies", "h1", equals=["o6", "h4"])
    b.query("affected_star", "h3", equals=["h1", "h3", "h4"])
    b.query("affected_star", "o5", equals=["h1", "h3", "h4"])
    b.grounded("h4", ["h3", "h4", "o5"])
    b.grounded("h1", ["h1", "h3", "h4", "o5", "o6"])
    b.state()


@case(
    "core/operations/resolve-subsumes-withdrawn",
    "Resolve may subsume a record out of standing (normative: any standing).",
    [RESOLVE, SUBSUMPTION],
)
def _resolve_subsumes_withdrawn(b: CaseBuilder) -> None:
    base(b)
    b.apply("c", Resolve("h1", subsumes=("h3",)))
    b.query("dependencies", "h3", equals=["h1"])
    b.ungrounded("h3", ["h3"])


@case(
    "core/operations/resolve-authoritative",
    "An authoritative Resolve is a decision: its premises join Dep(target), dissent is "
    "recorded, and only the speaker commits (B.3).",
    [RESOLVE, PHASE3],
)
def _resolve_authoritative(b: CaseBuilder) -> None:
    b.apply(
        "a",
        Observe("a1", "docs stay short", kind=Kind.PREMISE),
        Observe("a2", "editing stays bursty", kind=Kind.PREMISE),
        Hypothesize("P3", "Yjs, server-relayed", kind=Kind.POSITION),
    )
    b.apply("a", Resolve("P3", authoritative=True, premises=("a1", "a2"), dissenters=("b",)))
    b.query("standing", "P3", equals="resolved")
    b.query("dependencies", "P3", equals=["a1", "a2"])
    b.query("dissenters", "P3", equals=["b"])
    b.query("commitments", agent="a", equals=["a1", "a2", "P3"])
    b.query("commitments", agent="b", equals=[])
    b.query("affected_star", "a2", equals=["P3"])
    b.state()


@case(
    "core/operations/expand-awareness-all-agents",
    "Expand-Awareness with no agents named adds the atom to Prop_t and to every A_i.",
    [EXPAND, DEF21],
)
def _expand_all(b: CaseBuilder) -> None:
    b.query("aware", agent="a", atom="mis_monitor", equals=False)
    b.apply("c", ExpandAwareness("mis_monitor"))
    for agent in ("a", "b", "c"):
        b.query("aware", agent=agent, atom="mis_monitor", equals=True)
    b.query("aware", agent="b", atom="p", equals=True)
    b.state()


@case(
    "core/operations/expand-awareness-named-agents",
    "Expand-Awareness for named agents grows only their awareness sets; a later expansion "
    "that is new for some named agent is accepted.",
    [EXPAND],
)
def _expand_named(b: CaseBuilder) -> None:
    b.apply("c", ExpandAwareness("mis_monitor", ("a",)))
    b.query("aware", agent="a", atom="mis_monitor", equals=True)
    b.query("aware", agent="b", atom="mis_monitor", equals=False)
    b.apply("c", ExpandAwareness("mis_monitor", ("a", "b")))
    b.query("aware", agent="b", atom="mis_monitor", equals=True)
    b.query("aware", agent="c", atom="mis_monitor", equals=False)
    b.state()


@case(
    "core/operations/question",
    "Question opens an issue: it registers no record and commits nobody (B.3 T1: "
    "Args_1 = {timeline}).",
    [QUESTION, DEF21],
)
def _question(b: CaseBuilder) -> None:
    b.apply("a", Observe("o2", "3x traffic"))
    b.apply("b", Question("q1", "why is traffic 3x normal?"))
    b.query("commitments", agent="b", equals=[])
    b.query("affected", "o2", equals=[])
    b.state()
