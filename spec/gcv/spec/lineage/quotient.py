"""Sections 5-6: representations, the judges over them, and the generic QBAF lifting.

Three representations of a profile (Section 5):

* per-occurrence: every occurrence counts, with its role and strength;
* the content-keyed quotient: occurrences with one normalised content and
  role merge into one unit of maximal strength;
* the lineage quotient: occurrences of one root-role unit merge into one unit
  of maximal strength (Appendix A.1), and root labels are then erased, so it
  keeps distinct roots apart but forgets wording, identity, multiplicity and
  the names of roots.

A judge maps a profile to a score in [0, 1]; the threshold verdict accepts
the topic when the score reaches the threshold.  The judges here evaluate
DF-QuAD or Max-QuAD on the skeleton with one leaf per unit of a
representation.

Section 6 lifts a semantics to QBAFs by quotienting equivalent occurrence
nodes before evaluation.  Equivalent nodes must have the same signed
neighbourhood after quotienting (in and out: this module's reading of
"matching signed neighbourhoods"); a class that violates this is malformed and
raises ``IncompatibleClassError``.  A merged node's base score is the maximum
of its members' (Appendix A.1).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from typing import TypeAlias

from gcv.spec.lineage.dfquad import (
    QBAF,
    Aggregator,
    Real,
    Sign,
    compute_combination,
    compute_layers,
    compute_max_aggregate,
    compute_probabilistic_sum,
    compute_strengths,
    compute_topological_order,
    get_attackers,
    get_signed_sources,
    get_signed_targets,
    get_supporters,
)
from gcv.spec.lineage.errors import (
    CycleError,
    IncompatibleClassError,
    MalformedProfileError,
    MalformedQBAFError,
)
from gcv.spec.lineage.model import Profile, compute_root_aggregate

__all__ = [
    "VERDICT_THRESHOLD",
    "Judge",
    "Leaf",
    "Partition",
    "QJudge",
    "check_compatibility",
    "compute_content_partition",
    "compute_content_quotient",
    "compute_leaf_score",
    "compute_lifted_strengths",
    "compute_lineage_partition",
    "compute_lineage_quotient",
    "compute_occurrence_qbaf",
    "compute_occurrence_representation",
    "compute_quotient",
    "compute_root_label_partition",
    "compute_singleton_partition",
    "compute_verdict",
    "is_lineage_stratified",
    "judge_content_dfquad",
    "judge_lineage_dfquad",
    "judge_lineage_maxquad",
    "judge_occurrence_dfquad",
    "judge_occurrence_maxquad",
    "judge_plurality",
    "judge_qbaf_content_dfquad",
    "judge_qbaf_dfquad",
    "judge_qbaf_lineage_dfquad",
    "judge_qbaf_lineage_maxquad",
    "judge_qbaf_maxquad",
    "make_b1_example",
]

VERDICT_THRESHOLD = Fraction(1, 2)
"""The threshold of the toy debate's verdict (Section 7.1): accept when the score is >= 1/2.

With ``>=`` the balanced toy debate at .5 is accepted and the replica's .42
rejects it, the verdict reversal the paper reports.
"""

Leaf: TypeAlias = tuple[str, Sign, Real]
"""One unit of a representation as the judge sees it: (target claim, sign, strength)."""

Judge: TypeAlias = Callable[[Profile], Real]
"""A deterministic judge: a profile's score in [0, 1]."""

QJudge: TypeAlias = Callable[[QBAF], Real]
"""A judge over QBAFs: the topic's score in [0, 1]."""

Partition: TypeAlias = Mapping[str, str]
"""An equivalence on a QBAF's nodes: each node's class, named by its least member."""


# ---------------------------------------------------------------------------
# Representations (Section 5)
# ---------------------------------------------------------------------------


def compute_occurrence_representation(profile: Profile) -> tuple[Leaf, ...]:
    """Section 5 (per-occurrence representation). One leaf per occurrence, sorted.

    Wording and identity are dropped; multiplicity is kept, so a relay counts.
    """
    return tuple(sorted((o.target, o.sign, o.strength) for o in profile.occurrences))


def compute_content_quotient(profile: Profile) -> tuple[tuple[str, str, Sign, Real], ...]:
    """Section 5 (content-keyed quotient). One unit per (content, target, sign), of max strength.

    Matching content merges even across distinct roots, so a matched fresh
    report disappears into the unit it matches (p. 6).
    """
    strengths: dict[tuple[str, str, Sign], list[Real]] = {}
    for o in profile.occurrences:
        strengths.setdefault((o.content, o.target, o.sign), []).append(o.strength)
    return tuple(
        sorted(
            (content, target, sign, compute_root_aggregate(values))
            for (content, target, sign), values in strengths.items()
        )
    )


def compute_lineage_quotient(profile: Profile) -> tuple[Leaf, ...]:
    """Section 5 (lineage quotient). The root-role units with their root labels erased.

    Renderings of one root-role merge (maximal strength); distinct roots stay
    separate; wording, identity, multiplicity and root names are forgotten.

    >>> from gcv.spec.lineage.model import make_units_profile, make_relay, compute_extension
    >>> p = make_units_profile(Fraction(1, 2), [(Sign.SUPPORT, Fraction(1, 5))])
    >>> compute_lineage_quotient(compute_extension(p, make_relay(p.occurrences[0], "bob")))
    (('topic', <Sign.SUPPORT: 1>, Fraction(1, 5)),)
    """
    strengths: dict[tuple[str, str, Sign], list[Real]] = {}
    for o in profile.occurrences:
        strengths.setdefault((o.root, o.target, o.sign), []).append(o.strength)
    return tuple(
        sorted(
            (target, sign, compute_root_aggregate(values))
            for (_, target, sign), values in strengths.items()
        )
    )


# ---------------------------------------------------------------------------
# Judges over the representations
# ---------------------------------------------------------------------------


def compute_leaf_score(skeleton: QBAF, leaves: Iterable[Leaf], aggregate: Aggregator) -> Real:
    """Evaluate the skeleton with each leaf as an extra argument aimed at its claim.

    A leaf's score is its strength (it has no supporters or attackers), so it
    enters its target's aggregate directly; claims are evaluated in
    topological order.  Returns the topic's score.
    """
    leaves = list(leaves)
    if not skeleton.supports and not skeleton.attacks:
        # A skeleton without links is a direct star: only the topic's own leaves count
        topic = skeleton.topic
        sides: dict[Sign, list[Real]] = {Sign.SUPPORT: [], Sign.ATTACK: []}
        for target, sign, strength in leaves:
            if target == topic:
                sides[sign].append(strength)
        return compute_combination(
            skeleton.base[topic],
            aggregate(sorted(sides[Sign.ATTACK])),
            aggregate(sorted(sides[Sign.SUPPORT])),
        )
    score: dict[str, Real] = {}
    for claim in compute_topological_order(skeleton):
        supports = [score[s] for s in get_supporters(skeleton, claim)]
        attacks = [score[s] for s in get_attackers(skeleton, claim)]
        for target, sign, strength in leaves:
            if target == claim:
                (supports if sign is Sign.SUPPORT else attacks).append(strength)
        score[claim] = compute_combination(
            skeleton.base[claim], aggregate(sorted(attacks)), aggregate(sorted(supports))
        )
    return score[skeleton.topic]


def judge_occurrence_dfquad(profile: Profile) -> Real:
    """Section 4.3 (occurrence DF-QuAD). DF-QuAD with one argument per occurrence."""
    return compute_leaf_score(
        profile.skeleton, compute_occurrence_representation(profile), compute_probabilistic_sum
    )


def judge_occurrence_maxquad(profile: Profile) -> Real:
    """Section 6 (Max-QuAD). Max aggregation over occurrences; replicas are absorbed."""
    return compute_leaf_score(
        profile.skeleton, compute_occurrence_representation(profile), compute_max_aggregate
    )


def judge_content_dfquad(profile: Profile) -> Real:
    """Section 5 (content-quotient DF-QuAD). DF-QuAD on the content-keyed quotient."""
    leaves = [(t, s, v) for _, t, s, v in compute_content_quotient(profile)]
    return compute_leaf_score(profile.skeleton, leaves, compute_probabilistic_sum)


def judge_lineage_dfquad(profile: Profile) -> Real:
    """Section 5 (LQ-DF-QuAD). DF-QuAD on the lineage quotient.

    >>> from gcv.spec.lineage.model import make_units_profile
    >>> p = make_units_profile(Fraction(1, 2), [(Sign.SUPPORT, Fraction(1, 5)),
    ...                                         (Sign.ATTACK, Fraction(1, 5))])
    >>> judge_lineage_dfquad(p)
    Fraction(1, 2)
    """
    return compute_leaf_score(
        profile.skeleton, compute_lineage_quotient(profile), compute_probabilistic_sum
    )


def judge_lineage_maxquad(profile: Profile) -> Real:
    """Section 6. Max-QuAD on the lineage quotient (replica-immune, not strictly responsive)."""
    return compute_leaf_score(
        profile.skeleton, compute_lineage_quotient(profile), compute_max_aggregate
    )


def judge_plurality(profile: Profile) -> Real:
    """Section 4.3 (plurality vote). The share of direct occurrences that support the topic.

    An occurrence-sensitive judge outside the QBAF family: 1/2 with no
    direct occurrence, so its threshold-1/2 verdict is a plurality vote.
    """
    topic = profile.skeleton.topic
    signs = [o.sign for o in profile.occurrences if o.target == topic]
    if not signs:
        return Fraction(1, 2)
    return Fraction(sum(1 for s in signs if s is Sign.SUPPORT), len(signs))


def compute_verdict(score: Real, threshold: Real = VERDICT_THRESHOLD) -> bool:
    """Section 4.1 (threshold verdict). Accept the topic iff ``score >= threshold``."""
    return score >= threshold


# ---------------------------------------------------------------------------
# The generic lifting (Section 6)
# ---------------------------------------------------------------------------


def _name_classes(keys: Mapping[str, Hashable]) -> dict[str, str]:
    """Group nodes by key; name each class by its least member."""
    members: dict[Hashable, list[str]] = {}
    for node in sorted(keys):
        members.setdefault(keys[node], []).append(node)
    return {node: group[0] for group in members.values() for node in group}


def compute_singleton_partition(qbaf: QBAF) -> dict[str, str]:
    """Section 6. The partition into singletons (the lifting then is the semantics itself)."""
    return {node: node for node in qbaf.base}


def _compute_role_keys(qbaf: QBAF, labels: Mapping[str, str]) -> dict[str, Hashable]:
    """Key each labelled node by (label, signed targets' keys); unlabelled nodes by themselves.

    The key of a node's role needs its targets' keys, so nodes are keyed
    from the topic outwards (reverse topological order).
    """
    key: dict[str, Hashable] = {}
    for node in reversed(compute_topological_order(qbaf)):
        if node in labels:
            role = frozenset((sign, key[target]) for sign, target in get_signed_targets(qbaf, node))
            key[node] = ("label", labels[node], role)
        else:
            key[node] = ("node", node)
    return key


def compute_lineage_partition(qbaf: QBAF) -> dict[str, str]:
    """Section 6 (lineage partition). Merge nodes with one root label and one role.

    A role is the node's signed targets, themselves taken up to the partition.
    Nodes without a root label (claims) stay singletons.  Raises
    ``CycleError`` if the raw QBAF is cyclic.
    """
    return _name_classes(_compute_role_keys(qbaf, qbaf.roots))


def compute_content_partition(qbaf: QBAF) -> dict[str, str]:
    """Section 6 (content partition). Merge nodes with one content key and one role."""
    return _name_classes(_compute_role_keys(qbaf, qbaf.contents))


def compute_root_label_partition(qbaf: QBAF) -> dict[str, str]:
    """Appendix B.1. Merge nodes by root label alone, ignoring role (the naive quotient)."""
    return _name_classes(
        {
            node: ("label", qbaf.roots[node]) if node in qbaf.roots else ("node", node)
            for node in qbaf.base
        }
    )


def _check_partition_covers(qbaf: QBAF, partition: Partition) -> None:
    # Verify that the partition assigns exactly the QBAF's nodes to classes that are nodes
    if set(partition) != set(qbaf.base):
        missing = sorted(set(qbaf.base) - set(partition))
        extra = sorted(set(partition) - set(qbaf.base))
        raise MalformedQBAFError(
            f"the partition must cover exactly the QBAF's nodes (missing {missing}, "
            f"unknown {extra})"
        )
    for node, name in partition.items():
        if partition.get(name) != name:
            raise MalformedQBAFError(
                f"node {node!r} is put in class {name!r}, which is not a member of itself"
            )


def compute_quotient(qbaf: QBAF, partition: Partition) -> QBAF:
    """Appendix B.1 (the quotient graph). Merge each class into one node; base = max.

    No compatibility check: this is the bare quotient, which can be cyclic
    even when ``qbaf`` is not (see :func:`make_b1_example`).  An edge inside
    one class becomes a self-loop and raises ``CycleError``; a class pair
    joined by both a support and an attack raises ``IncompatibleClassError``.
    """
    _check_partition_covers(qbaf, partition)
    bases: dict[str, list[Real]] = {}
    for node, name in partition.items():
        bases.setdefault(name, []).append(qbaf.base[node])
    supports = {(partition[s], partition[t]) for s, t in qbaf.supports}
    attacks = {(partition[s], partition[t]) for s, t in qbaf.attacks}
    for source, target in sorted(supports | attacks):
        if source == target:
            raise CycleError(
                f"an edge inside class {source!r} becomes a self-loop", (source, source)
            )
    both = sorted(supports & attacks)
    if both:
        raise IncompatibleClassError(
            f"classes {both[0][0]!r} and {both[0][1]!r} are joined by both a support and an "
            f"attack after quotienting",
            both[0],
        )
    return QBAF(
        topic=partition[qbaf.topic],
        base={name: compute_root_aggregate(values) for name, values in bases.items()},
        supports=frozenset(supports),
        attacks=frozenset(attacks),
    )


def check_compatibility(qbaf: QBAF, partition: Partition) -> None:
    """Section 6 (compatibility). Raise ``IncompatibleClassError`` on a malformed class.

    Every two members of a class must have the same signed out-neighbourhood
    and the same signed in-neighbourhood once neighbours are replaced by
    their classes; the topic must be alone in its class.
    """
    _check_partition_covers(qbaf, partition)
    members: dict[str, list[str]] = {}
    for node in sorted(partition):
        members.setdefault(partition[node], []).append(node)
    topic_class = members[partition[qbaf.topic]]
    if len(topic_class) > 1:
        raise IncompatibleClassError(
            f"the topic {qbaf.topic!r} shares its class with {topic_class[1]!r}",
            (qbaf.topic, topic_class[1]),
        )
    for name, group in sorted(members.items()):
        first = group[0]
        out_first = {(s, partition[t]) for s, t in get_signed_targets(qbaf, first)}
        in_first = {(s, partition[t]) for s, t in get_signed_sources(qbaf, first)}
        for other in group[1:]:
            out_other = {(s, partition[t]) for s, t in get_signed_targets(qbaf, other)}
            in_other = {(s, partition[t]) for s, t in get_signed_sources(qbaf, other)}
            if out_other != out_first:
                raise IncompatibleClassError(
                    f"class {name!r} is malformed: {first!r} and {other!r} have different signed "
                    f"targets after quotienting ({sorted(out_first)} vs {sorted(out_other)})",
                    (first, other),
                )
            if in_other != in_first:
                raise IncompatibleClassError(
                    f"class {name!r} is malformed: {first!r} and {other!r} have different signed "
                    f"sources after quotienting ({sorted(in_first)} vs {sorted(in_other)})",
                    (first, other),
                )


def compute_lifted_strengths(
    qbaf: QBAF, partition: Partition, aggregate: Aggregator = compute_probabilistic_sum
) -> dict[str, Real]:
    """Section 6 (generic lifting). Quotient compatible classes, evaluate, read back per node.

    Raises ``IncompatibleClassError`` on a malformed class and ``CycleError``
    when the quotient is cyclic (Appendix B.1).  On the singleton partition
    the result is the semantics itself.
    """
    check_compatibility(qbaf, partition)
    scores = compute_strengths(compute_quotient(qbaf, partition), aggregate)
    return {node: scores[name] for node, name in partition.items()}


def judge_qbaf_dfquad(qbaf: QBAF) -> Real:
    """Section 6. Per-occurrence DF-QuAD: the topic's score on the raw QBAF."""
    return compute_strengths(qbaf, compute_probabilistic_sum)[qbaf.topic]


def judge_qbaf_maxquad(qbaf: QBAF) -> Real:
    """Section 6. Per-occurrence Max-QuAD: the topic's score on the raw QBAF."""
    return compute_strengths(qbaf, compute_max_aggregate)[qbaf.topic]


def judge_qbaf_content_dfquad(qbaf: QBAF) -> Real:
    """Section 6. DF-QuAD lifted through the content partition."""
    return compute_lifted_strengths(qbaf, compute_content_partition(qbaf))[qbaf.topic]


def judge_qbaf_lineage_dfquad(qbaf: QBAF) -> Real:
    """Section 6 (LQ[DF-QuAD]). DF-QuAD lifted through the lineage partition."""
    return compute_lifted_strengths(qbaf, compute_lineage_partition(qbaf))[qbaf.topic]


def judge_qbaf_lineage_maxquad(qbaf: QBAF) -> Real:
    """Section 6. Max-QuAD lifted through the lineage partition."""
    return compute_lifted_strengths(qbaf, compute_lineage_partition(qbaf), compute_max_aggregate)[
        qbaf.topic
    ]


def compute_occurrence_qbaf(profile: Profile) -> QBAF:
    """Section 6. The per-occurrence QBAF of a profile: its skeleton plus one node per occurrence.

    Occurrence ``i`` becomes node ``occurrence-i`` with its strength as base
    score, one edge to its target, and its root and content as labels; the
    lineage (content) lifting of this QBAF is the lineage (content) quotient
    judge of the profile.
    """
    skeleton = profile.skeleton
    base = dict(skeleton.base)
    supports = set(skeleton.supports)
    attacks = set(skeleton.attacks)
    roots: dict[str, str] = {}
    contents: dict[str, str] = {}
    for index, occurrence in enumerate(profile.occurrences):
        node = f"occurrence-{index}"
        # Verify that occurrence nodes do not collide with claims
        if node in base:
            raise MalformedProfileError(f"claim {node!r} collides with an occurrence node name")
        base[node] = occurrence.strength
        (supports if occurrence.sign is Sign.SUPPORT else attacks).add((node, occurrence.target))
        roots[node] = occurrence.root
        contents[node] = occurrence.content
    return QBAF(skeleton.topic, base, frozenset(supports), frozenset(attacks), roots, contents)


# ---------------------------------------------------------------------------
# Appendix B.1 (acyclicity after lineage quotienting)
# ---------------------------------------------------------------------------


def is_lineage_stratified(qbaf: QBAF, partition: Partition) -> bool:
    """Appendix B.1 (lineage stratification). Multi-layer, with each class inside one layer.

    Stratification guarantees an acyclic quotient (every quotient edge goes
    from layer k + 1 to layer k); it is not necessary for one.
    """
    layers = compute_layers(qbaf)
    if layers is None:
        return False
    return all(layers[node] == layers[name] for node, name in partition.items())


def make_b1_example() -> QBAF:
    """Appendix B.1. An acyclic QBAF whose root-label quotient has a cycle.

    Root ``r`` is rendered at layer 2 (``r2`` supports ``q1``) and at layer 1
    (``r1`` supports the topic); root ``q`` likewise (``q2`` supports
    ``r1``).  Merging by root label gives ``r -> q -> r``.  The lineage
    partition (root and role) keeps the renderings apart, and the
    compatibility check rejects the root-label classes.
    """
    half = Fraction(1, 2)
    return QBAF(
        topic="t",
        base={"t": half, "r1": half, "r2": half, "q1": half, "q2": half},
        supports=frozenset({("r1", "t"), ("q1", "t"), ("r2", "q1"), ("q2", "r1")}),
        roots={"r1": "r", "r2": "r", "q1": "q", "q2": "q"},
    )
