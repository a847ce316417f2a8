"""``core/interactions``: what classic bugs need to show.

Turns whose operations decide each other's outcome (A.3, "State composition", and the
fixed order), records out of standing met by the queries, a rejected turn that must
leave no link behind, and maps deep or shared enough that a walk without a visited set
or a recursive one does not finish.  Each setup makes no choice of the reference, so a
step is in the ``paper`` profile unless it tests a choice itself.
"""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import (
    COMPOSITION,
    COR24,
    DEF21,
    DEF23,
    EXPAND,
    LEMMA21,
    LEMMA22,
    OBSERVE,
    ORDER,
    RESOLVE,
    REVISE,
    SUBSUMPTION,
    SUPPORT,
    UNDERMINE,
)
from gcv.conformance.vectors import PROFILED_SUITE_VERSION
from gcv.reference.operations import (
    Hypothesize,
    Observe,
    Resolve,
    Revise,
    Support,
    Undermine,
)

__all__: list[str] = []

CHAIN = 300
"""Records in the deep chain: deeper than Python's default recursion allows a naive walk."""
LAYERS = 40
"""Layers of the lattice: 2^40 dependency paths, two records per layer."""


def _h1_on_o1(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"))
    b.apply("a", Hypothesize("h1", "token bug", depends_on=("o1",)))


@case(
    "core/interactions/undermine-then-resolve",
    "Undermine applies before Resolve in a turn, so Resolve meets a weakened target and the "
    "turn is refused at the Resolve (wrong-standing), leaving no attack behind.",
    [ORDER, COMPOSITION, LEMMA22],
    tags=["order"],
)
def _undermine_then_resolve(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply(
        "b",
        Resolve("h1"),
        Undermine("h1", "e1", "wrong error code"),
        rejected="wrong-standing",
        field="target",
    )
    b.query("standing", "h1", equals="active")
    b.query("attackers", "h1", equals=[])
    b.ungrounded("e1", [])


@case(
    "core/interactions/revise-then-resolve",
    "Revise applies before Resolve, so Resolve meets an abandoned target: refused at the "
    "Resolve, the target still active.",
    [ORDER, COMPOSITION, LEMMA22],
    tags=["order"],
)
def _revise_then_resolve(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply("b", Resolve("h1"), Revise("h1"), rejected="wrong-standing", field="target")
    b.query("standing", "h1", equals="active")


@case(
    "core/interactions/support-evidence-is-a-premise",
    "Support applies before Resolve, so evidence a Support registers can be a premise of an "
    "authoritative Resolve of the same turn.",
    [ORDER, COMPOSITION, SUPPORT, RESOLVE],
    tags=["order"],
)
def _support_then_decision(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply(
        "b",
        Resolve("h1", authoritative=True, premises=("e1",)),
        Support("h1", "e1", "timing is consistent"),
    )
    b.query("standing", "h1", equals="resolved")
    b.query("dependencies", "h1", equals=["o1", "e1"])
    b.grounded("h1", ["h1", "o1", "e1"])


NEW = {"added_in": PROFILED_SUITE_VERSION}


@case(
    "core/interactions/resolve-written-before-support",
    "Support applies before Resolve (order.kinds.narrated, B.2 T13), whatever the order "
    "written: a Resolve written first may subsume the evidence the Support registers. Applied "
    "as written, or Resolve before Support, the evidence is not yet registered "
    "(unknown-record).",
    [ORDER, COMPOSITION, SUPPORT, RESOLVE, SUBSUMPTION],
    tags=["order"],
    **NEW,
)
def _resolve_written_before_support(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply("b", Resolve("h1", subsumes=("e1",)), Support("h1", "e1", "timing is consistent"))
    b.query("standing", "h1", equals="resolved")
    b.query("dependencies", "e1", equals=["h1"])
    b.query("affected_star", "h1", equals=["h1", "e1"])


@case(
    "core/interactions/revise-written-before-hypothesize",
    "Hypothesize applies before Revise (order.kinds.narrated, B.2 T12), whatever the order "
    "written: a Revise written first may cite as attacker the hypothesis the turn registers. "
    "Applied as written, the attacker is not yet registered (unknown-record).",
    [ORDER, COMPOSITION, LEMMA22],
    tags=["order"],
    **NEW,
)
def _revise_written_before_hypothesize(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply(
        "b",
        Revise("h1", attackers=("h2",)),
        Hypothesize("h2", "a retry storm", depends_on=("o1",)),
    )
    b.query("standing", "h1", equals="abandoned")
    b.query("attackers", "h1", equals=["h2"])
    b.grounded("h2", ["h2", "o1"])


@case(
    "core/interactions/support-evidence-joins-dep",
    "Support adds its evidence to Dep(target) (Definition 2.1): withdrawing the evidence "
    "leaves the target ungrounded, with the evidence as witness, and the target among the "
    "evidence's dependents.",
    [SUPPORT, DEF21, LEMMA21, DEF23],
    **NEW,
)
def _support_evidence_joins_dep(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply("b", Support("h1", "e1", "timing is consistent"))
    b.query("dependencies", "h1", equals=["o1", "e1"])
    b.query("affected", "e1", equals=["h1"])
    b.grounded("h1", ["h1", "o1", "e1"])
    b.apply("c", Revise("e1"))
    b.ungrounded("h1", ["e1"])
    b.query("affected_star_active", "e1", equals=["h1"])


@case(
    "core/interactions/evidence-rests-on-its-target",
    "New evidence may rest on the record it supports: T3.cite.not-self forbids only citing "
    "the operation's own record, so the Dep cycle h1 -> e1 -> h1 is accepted (Definition 2.1 "
    "admits it) and Affected*(h1) holds h1 (Corollary 2.4: h1 lies on a cycle). Refusing "
    "it as self-reference (the clause read wider) is not one of the papers' readings.",
    [SUPPORT, DEF21, COR24],
    **NEW,
)
def _evidence_rests_on_its_target(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply("b", Support("h1", "e1", "replayed from h1's trace", evidence_depends_on=("h1",)))
    b.query("dependencies", "e1", equals=["h1"])
    b.query("affected_star", "h1", equals=["h1", "e1"])
    b.grounded("h1", ["h1", "o1", "e1"])


@case(
    "core/interactions/registered-evidence-commits-its-speaker",
    "The speaker of a Support or Undermine commits to the evidence it registers (B.3), and "
    "an Observe's speaker to the observation (Section 2: Observe commits content).",
    [SUPPORT, UNDERMINE, OBSERVE],
    **NEW,
)
def _registered_evidence_commits(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Observe("o2", "latency spike"))
    b.apply("b", Support("o1", "e1", "the gateway log agrees"))
    b.apply("c", Undermine("o2", "e2", "the probe was down"))
    b.query("commitments", agent="a", equals=["o1", "o2"])
    b.query("commitments", agent="b", equals=["e1"])
    b.query("commitments", agent="c", equals=["e2"])


@case(
    "core/interactions/decision-records-dissent",
    'An authoritative Resolve records its dissenters (B.3: a decision "recording dissent").',
    [RESOLVE],
    **NEW,
)
def _decision_records_dissent(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply("b", Resolve("h1", authoritative=True, dissenters=("a", "c")))
    b.query("dissenters", "h1", equals=["a", "c"])
    b.query("standing", "h1", equals="resolved")


@case(
    "core/interactions/weakened-record-supported",
    "Supporting a weakened record adds the Dep link and revives nothing: it stays weakened, "
    "and what rests on it stays ungrounded (no operation moves it back into S_t).",
    [SUPPORT, LEMMA22, LEMMA21],
)
def _weakened_supported(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply("a", Hypothesize("h2", "retry storm", depends_on=("h1",)))
    b.apply("b", Undermine("h1", "e1", "wrong error code"))
    b.apply("c", Support("h1", "e2", "but the timing fits"))
    b.query("standing", "h1", equals="weakened")
    b.query("dependencies", "h1", equals=["o1", "e2"])
    b.ungrounded("h2", ["h1"])


@case(
    "core/interactions/abandoned-records-in-queries",
    "An abandoned premise stays in the map: Verify of what rests on it fails with it as the "
    "witness, and Affected* and Affected include records out of standing.",
    [LEMMA21, DEF23, COR24],
)
def _abandoned_in_queries(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply("a", Hypothesize("h2", "retry storm", depends_on=("h1",)))
    b.apply("b", Revise("h1"))
    b.apply("b", Revise("o1"))
    b.query("standing", "o1", equals="abandoned")
    b.ungrounded("h2", ["h1", "o1"])
    b.query("affected", "o1", equals=["h1"])
    b.query("affected_star", "o1", equals=["h1", "h2"])
    b.query("affected_star_active", "o1", equals=["h2"])


@case(
    "core/interactions/rejected-turn-leaves-no-link",
    "A rejected turn leaves no trace in the reverse index either: a hypothesis it would have "
    "registered on o1 is not among o1's dependents, and is unknown.",
    [COMPOSITION, DEF21, DEF23],
    tags=["atomicity"],
)
def _rejected_leaves_no_link(b: CaseBuilder) -> None:
    _h1_on_o1(b)
    b.apply(
        "b",
        Hypothesize("h2", "retry storm", depends_on=("o1",)),
        Hypothesize("h1", "again"),
        rejected="duplicate-record",
    )
    b.query("affected_star", "o1", equals=["h1"])
    b.query("affected", "o1", equals=["h1"])
    b.ungrounded("h2", [])
    b.apply("b", Hypothesize("h2", "retry storm", depends_on=("h1",)))
    b.query("affected_star", "o1", equals=["h1", "h2"])


@case(
    "core/interactions/deep-chain",
    f"A chain of {CHAIN} records, each resting on the one before: Verify and Affected* walk "
    "it whole (a recursive walk exceeds Python's default recursion limit).",
    [LEMMA21, DEF23, COR24],
)
def _deep_chain(b: CaseBuilder) -> None:
    b.apply("a", Observe("r0", "root"))
    for k in range(1, CHAIN):
        b.apply("a", Hypothesize(f"r{k}", f"step {k}", depends_on=(f"r{k - 1}",)))
    b.grounded(f"r{CHAIN - 1}", [f"r{k}" for k in range(CHAIN)])
    b.apply("b", Revise("r0"))
    b.ungrounded(f"r{CHAIN - 1}", ["r0"])
    b.query("affected_star", "r0", equals=[f"r{k}" for k in range(1, CHAIN)])


@case(
    "core/interactions/shared-lattice",
    f"{LAYERS} layers of two records, each resting on both of the layer below: 2^{LAYERS} "
    "dependency paths over 2 records a layer, so only a walk with a visited set finishes.",
    [LEMMA21, DEF23, COR24],
)
def _lattice(b: CaseBuilder) -> None:
    b.apply("a", Observe("x0", "left root"), Observe("y0", "right root"))
    for k in range(1, LAYERS):
        below = (f"x{k - 1}", f"y{k - 1}")
        b.apply(
            "a",
            Hypothesize(f"x{k}", "left", depends_on=below),
            Hypothesize(f"y{k}", "right", depends_on=below),
        )
    top = f"x{LAYERS - 1}"
    everything = [f"{side}{k}" for k in range(LAYERS) for side in "xy"]
    b.grounded(top, [r for r in everything if r != f"y{LAYERS - 1}"])
    b.apply("b", Revise("y0"))
    b.ungrounded(top, ["y0"])
    b.query("affected_star", "x0", equals=[r for r in everything if r[1:] != "0"])


@case(
    "core/interactions/empty-lists-as-absent",
    "An empty list is the field left out (chosen, form.empty-list-as-absent): premises: [] "
    "and dissenters: [] on a consensual Resolve, agents: [] on Expand-Awareness (every "
    "agent), attackers: [] on Revise, evidence_depends_on: [] on existing evidence; "
    "depends_on: [] rests on nothing under either reading (paper).",
    [DEF21, RESOLVE, SUPPORT, EXPAND, REVISE],
    **NEW,
)
def _empty_lists(b: CaseBuilder) -> None:
    b.apply(
        "a",
        {"op": "observe", "id": "o1", "claim": "401s", "depends_on": []},
        {"op": "observe", "id": "o2", "claim": "3x traffic"},
    )
    b.apply("a", {"op": "hypothesize", "id": "h1", "claim": "token bug", "depends_on": []})
    b.query("dependencies", "h1", equals=[])
    b.grounded("h1", ["h1"])
    b.apply("c", {"op": "resolve", "target": "h1", "premises": [], "dissenters": []})
    b.query("standing", "h1", equals="resolved")
    b.query("dissenters", "h1", equals=[])
    b.apply("a", {"op": "expand-awareness", "atom": "r", "agents": []})
    for agent in ("a", "b", "c"):
        b.query("aware", agent=agent, atom="r", equals=True)
    b.apply("b", {"op": "revise", "target": "o2", "attackers": []})
    b.query("attackers", "o2", equals=[])
    b.query("standing", "o2", equals="abandoned")
    b.apply("b", {"op": "support", "target": "h1", "evidence": "o1", "evidence_depends_on": []})
    b.query("dependencies", "h1", equals=["o1"])
    b.state()


@case(
    "core/interactions/decision-resolved-twice",
    "A resolved record is in S_t, so it may be resolved again (paper, "
    "T3.resolve.target-in-good-standing) and stays resolved; the dissent of both decisions "
    "is kept (chosen, T3.resolve.dissent-accumulates), also across a later consensual "
    "Resolve; a later decision's premises join Dep as a first one's do.",
    [DEF21, RESOLVE, LEMMA21],
    **NEW,
)
def _resolved_twice(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Observe("o2", "token expiry is 5 min"))
    b.apply("a", Hypothesize("h1", "token bug", depends_on=("o1",)))
    b.apply("a", Resolve("h1", authoritative=True, dissenters=("b",)))
    b.query("dissenters", "h1", equals=["b"])
    b.apply("a", Resolve("h1", authoritative=True, dissenters=("c",)))
    b.query("standing", "h1", equals="resolved")
    b.grounded("h1", ["h1", "o1"])
    b.query("dissenters", "h1", equals=["b", "c"])
    b.apply("a", Resolve("h1", authoritative=True, premises=("o2",)))
    b.query("dependencies", "h1", equals=["o1", "o2"])
    b.apply("b", Resolve("h1"))
    b.query("standing", "h1", equals="resolved")
    b.query("dissenters", "h1", equals=["b", "c"])
    b.query("commitments", agent="c", equals=["h1"])
    b.state()
