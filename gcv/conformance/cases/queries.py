"""``core/queries``: the Verify walk (Lemma 2.1), Affected and Affected* (Definition 2.3,
Corollary 2.4) with cycles, selective retraction (Proposition 2.3), and query errors."""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.common import base
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import (
    COR24,
    DEF21,
    DEF23,
    LEMMA21,
    LEMMA22,
    PROP23,
    SUBSUMPTION,
    SUPPORT,
)
from gcv.reference.operations import Hypothesize, Observe, Resolve, Revise, Support, Undermine

__all__: list[str] = []


def _chain(b: CaseBuilder) -> None:
    """o1 <- h1 <- h2 <- h3 (each hypothesis rests on the one before), and o2 <- h4."""
    b.apply("a", Observe("o1", "401s"), Observe("o2", "3x traffic"))
    b.apply("b", Hypothesize("h1", "token bug", depends_on=("o1",)))
    b.apply("c", Hypothesize("h2", "retry storm", depends_on=("h1",)))
    b.apply("a", Hypothesize("h3", "Redis exhaustion", depends_on=("h2",)))
    b.apply("b", Hypothesize("h4", "bot traffic", depends_on=("o2",)))


@case(
    "core/queries/verify-grounded-returns-dep-star",
    "Verify accepts a candidate whose whole Dep* lies in S_t and returns exactly Dep*.",
    [LEMMA21],
)
def _verify_grounded(b: CaseBuilder) -> None:
    _chain(b)
    b.grounded("h3", ["h3", "h2", "h1", "o1"])
    b.grounded("h4", ["h4", "o2"])
    b.grounded("o1", ["o1"])


@case(
    "core/queries/verify-flags-a-distant-withdrawal",
    "Verify rejects a candidate three Dep links above a withdrawn record; the witness is a "
    "member of Dep* outside S_t.",
    [LEMMA21],
)
def _verify_distant(b: CaseBuilder) -> None:
    _chain(b)
    b.apply("c", Revise("o1"))
    b.ungrounded("h3", ["o1"])
    b.ungrounded("h1", ["o1"])
    b.grounded("h4", ["h4", "o2"])


@case(
    "core/queries/verify-any-witness",
    "With two records of Dep* outside S_t either is a valid witness.",
    [LEMMA21],
)
def _verify_witnesses(b: CaseBuilder) -> None:
    _chain(b)
    b.apply("a", Hypothesize("h5", "both", depends_on=("h3", "h4")))
    b.apply("c", Revise("o1"), Undermine("h4", "o2"))
    b.ungrounded("h5", ["h4", "o1"])


@case(
    "core/queries/verify-candidate-out-of-standing",
    "A candidate that is itself weakened or abandoned is ungrounded, with itself as witness.",
    [LEMMA21],
)
def _verify_self(b: CaseBuilder) -> None:
    base(b)
    b.ungrounded("h2", ["h2"])
    b.ungrounded("h3", ["h3"])
    b.grounded("h4", ["h4"])


@case(
    "core/queries/verify-no-associated-record",
    "A candidate with no associated record (null, or an id not in Args_t) is ungrounded, "
    "and that is an answer, not an error (A.1).",
    [LEMMA21],
)
def _verify_none(b: CaseBuilder) -> None:
    base(b)
    b.ungrounded(None, [])
    b.ungrounded("zz", [])


@case(
    "core/queries/verify-weakened-support",
    "Weakening a supporting record (not only abandoning it) takes its dependents out of "
    "grounding: S_t holds active and resolved records only.",
    [LEMMA21, DEF21],
)
def _verify_weakened(b: CaseBuilder) -> None:
    _chain(b)
    b.apply("c", Undermine("h1", "e1", "wrong error code", ("o2",)))
    b.ungrounded("h2", ["h1"])
    b.grounded("e1", ["e1", "o2"])


@case(
    "core/queries/verify-resolved-support",
    "A resolved record is in S_t: resting on it keeps a candidate grounded.",
    [LEMMA21, DEF21],
)
def _verify_resolved(b: CaseBuilder) -> None:
    _chain(b)
    b.apply("a", Resolve("h1"))
    b.grounded("h3", ["h3", "h2", "h1", "o1"])


@case(
    "core/queries/affected-is-one-step",
    "Affected(beta) holds only the direct dependents of beta; Affected*(beta) all transitive "
    "ones (the X_k union), which the one-step query misses.",
    [DEF23],
)
def _affected_vs_star(b: CaseBuilder) -> None:
    _chain(b)
    b.query("affected", "o1", equals=["h1"])
    b.query("affected_star", "o1", equals=["h1", "h2", "h3"])
    b.query("affected", "h1", equals=["h2"])
    b.query("affected_star", "h1", equals=["h2", "h3"])
    b.query("affected_star", "h3", equals=[])
    b.query("affected_star", "o2", equals=["h4"])


@case(
    "core/queries/affected-star-keeps-withdrawn-records",
    "Affected and Affected* include records already out of standing; their intersection "
    "with S_t is the currently active dependents.",
    [DEF23, PROP23],
)
def _affected_withdrawn(b: CaseBuilder) -> None:
    _chain(b)
    b.apply("c", Revise("h2"))
    b.query("affected_star", "o1", equals=["h1", "h2", "h3"])
    b.query("affected_star_active", "o1", equals=["h1", "h3"])
    b.query("affected", "h1", equals=["h2"])


@case(
    "core/queries/affected-star-distinct-ids",
    "Two records with the same claim are distinct: retracting one affects only the records "
    "that cite it (A.1, o8 and o8' in Phase 2).",
    [DEF23, DEF21],
)
def _affected_same_claim(b: CaseBuilder) -> None:
    b.apply("a", Observe("o8", "connection pool exhausted"))
    b.apply("b", Observe("o8p", "connection pool exhausted"))
    b.apply("c", Hypothesize("h1", "Redis", depends_on=("o8",)))
    b.apply("a", Hypothesize("h2", "DB", depends_on=("o8p",)))
    b.query("affected_star", "o8", equals=["h1"])
    b.query("affected_star", "o8p", equals=["h2"])


@case(
    "core/queries/cycle-by-subsumption",
    "A dependency cycle made by Resolve's subsumption: beta is in Affected*(beta) exactly "
    "when it lies on a cycle (Corollary 2.4, paths may revisit vertices), and the walk "
    "terminates on the cycle.",
    [COR24, DEF23, LEMMA21, SUBSUMPTION],
)
def _cycle_subsumption(b: CaseBuilder) -> None:
    _chain(b)
    b.apply("c", Resolve("h3", subsumes=("h1",)))
    b.query("affected_star", "h1", equals=["h1", "h2", "h3"])
    b.query("affected_star", "h3", equals=["h1", "h2", "h3"])
    b.query("affected_star", "o1", equals=["h1", "h2", "h3"])
    b.query("affected", "h3", equals=["h1"])
    b.grounded("h2", ["h1", "h2", "h3", "o1"])
    b.query("affected_star", "o2", equals=["h4"])


@case(
    "core/queries/cycle-by-support",
    "A cycle made by Support citing a dependent as evidence; weakening one member takes "
    "every member of the cycle out of grounding.",
    [COR24, LEMMA21, SUPPORT],
)
def _cycle_support(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "401s"), Hypothesize("h1", "token bug", depends_on=("o1",)))
    b.apply("b", Hypothesize("h2", "retry storm", depends_on=("h1",)))
    b.apply("c", Support("h1", "h2"))
    b.query("affected_star", "h1", equals=["h1", "h2"])
    b.query("affected_star", "o1", equals=["h1", "h2"])
    b.grounded("h1", ["h1", "h2", "o1"])
    b.apply("c", Undermine("h2", "e1", "wrong timing"))
    b.ungrounded("h1", ["h2"])
    b.ungrounded("h2", ["h2"])
    b.grounded("o1", ["o1"])


@case(
    "core/queries/selective-retraction",
    "Withdrawing a premise flags exactly its recorded dependents; records of S_t with no "
    "dependency path to it stay grounded and unattacked.",
    [PROP23, COR24, LEMMA22],
)
def _selective(b: CaseBuilder) -> None:
    _chain(b)
    b.apply("a", Hypothesize("h5", "capacity", depends_on=("o2", "h4")))
    b.apply("b", Revise("o2"))
    b.query("affected_star", "o2", equals=["h4", "h5"])
    b.query("affected_star_active", "o2", equals=["h4", "h5"])
    for record in ("h1", "h2", "h3", "o1"):
        b.query("verify", record, equals=True)
        b.query("attackers", record, equals=[])
    b.ungrounded("h5", ["o2"])


@case(
    "core/queries/conflict-free-after-attacks",
    "After Undermine and Revise, every attacked record is outside S_t (Lemma 2.2): each "
    "attacked record is weakened or abandoned.",
    [LEMMA22],
)
def _conflict_free(b: CaseBuilder) -> None:
    base(b)
    b.apply("c", Undermine("h1", "o2"), Revise("o1", ("h4",)))
    b.query("attackers", "h1", equals=["o2"])
    b.query("standing", "h1", equals="weakened")
    b.query("attackers", "o1", equals=["h4"])
    b.query("standing", "o1", equals="abandoned")
    b.survey("standing", "attackers")


@case(
    "core/queries/unknown-record-is-an-error",
    "A query about an unregistered record is an error (unknown-record), not an empty "
    "answer; an unknown agent is unknown-agent; an atom outside Prop_t is simply not known.",
    [DEF23, DEF21],
)
def _unknown(b: CaseBuilder) -> None:
    base(b)
    for query in (
        "affected",
        "affected_star",
        "affected_star_active",
        "standing",
        "dependencies",
        "attackers",
        "dissenters",
    ):
        b.query(query, "zz", error="unknown-record")
    b.query("commitments", agent="zz", error="unknown-agent")
    b.query("aware", agent="zz", atom="p", error="unknown-agent")
    b.query("aware", agent="a", atom="never_mentioned", equals=False)
