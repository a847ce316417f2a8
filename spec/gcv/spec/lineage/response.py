"""Section 6 and Appendix B: strict response, the response modulus, propagation, boundaries.

* Proposition 4 (Section 6, Appendix B.2): for a direct topic leaf, strict
  fresh-root response holds exactly when the supporter (attacker) aggregate
  strictly increases; a maximum aggregator fails when the new input does not
  exceed the current maximum.
* Section 6.1 and Appendix B.5 (response modulus): a fresh direct supporter
  of strength ``t`` raises the DF-QuAD score by at least
  ``t (1 - v_s) min{v0, 1 - v0}``, an attacker lowers it by at least
  ``t (1 - v_a) min{v0, 1 - v0}``, and the bounds are tight.
* Theorem 6 (Appendix B.3): a fresh root at a node all of whose paths to the
  topic share attack parity moves the topic strictly, with sign
  ``eps0 * eps`` (each attack edge flips it); Appendix B.4: with opposite
  parities the effects can cancel.
* Appendix B.6: falsely splitting a root into ``m`` roots inflates its
  aggregate, ``1 - (1 - t)^m > t``; falsely merging ``m`` roots suppresses it.

DF-QuAD is piecewise linear in ``d = v_s - v_a`` with slope ``1 - v0`` for
``d > 0`` and ``v0`` for ``d < 0``; a fresh supporter raises ``v_s`` by
exactly ``t (1 - v_s)``.  The modulus follows, with equality when the whole
move stays on the side of the smaller slope.
"""

from __future__ import annotations

from fractions import Fraction

from gcv.spec.lineage.dfquad import (
    QBAF,
    Aggregator,
    Real,
    Sign,
    check_strength,
    compute_combination,
    compute_dfquad_strengths,
    compute_extended_qbaf,
    compute_probabilistic_sum,
    compute_topological_order,
    get_signed_sources,
    get_signed_targets,
)
from gcv.spec.lineage.errors import IneligibleExtensionError, MalformedQBAFError
from gcv.spec.lineage.model import (
    Occurrence,
    Profile,
    compute_same_side_aggregate,
    compute_units,
    get_base,
    get_topic,
    is_eligible,
    make_units_profile,
)
from gcv.spec.lineage.quotient import (
    check_compatibility,
    compute_lineage_partition,
    compute_quotient,
)

__all__ = [
    "B5_FIGURES",
    "compute_b5_figures",
    "compute_dfquad_modulus",
    "compute_direct_gain",
    "compute_merge_loss",
    "compute_path_parities",
    "compute_predicted_sign",
    "compute_qbaf_modulus",
    "compute_response_modulus",
    "compute_split_aggregate",
    "is_interior",
    "is_split_inflating",
    "is_strict_direct_response",
    "make_b4_example",
    "make_b5_configuration",
    "make_fresh_leaf",
]

B5_FIGURES = {
    "modulus": Fraction(128, 100_000),
    "t(1-v_s)": Fraction(64, 10_000),
    "min(v0,1-v0)": Fraction(2, 10),
}
"""Appendix B.5 (p. 12): the modulus 0.00128 and its two factors' lower bounds."""


# ---------------------------------------------------------------------------
# Proposition 4 (Appendix B.2)
# ---------------------------------------------------------------------------


def is_strict_direct_response(profile: Profile, fresh: Occurrence, aggregate: Aggregator) -> bool:
    """Proposition 4 (B.2). Check the fresh report strictly raises its side's lineage aggregate.

    For an eligible direct report this is exactly when a judge combining the
    lineage units with ``aggregate`` responds strictly (DF-QuAD's combination
    is strictly monotone in each aggregate when ``0 < v0 < 1``).
    """
    if not is_eligible(profile, fresh):
        raise IneligibleExtensionError(f"occurrence with root {fresh.root!r} is not eligible")
    topic = get_topic(profile)
    same = sorted(
        u.strength for u in compute_units(profile) if u.target == topic and u.sign is fresh.sign
    )
    return aggregate(sorted([*same, fresh.strength])) > aggregate(same)


# ---------------------------------------------------------------------------
# Section 6.1 and Appendix B.5 (the response modulus)
# ---------------------------------------------------------------------------


def compute_response_modulus(base: Real, same_side: Real, strength: Real) -> Real:
    """Section 6.1 (response modulus). Return ``t (1 - v_same) min{v0, 1 - v0}``.

    >>> compute_response_modulus(Fraction(4, 5), Fraction(121, 125), Fraction(1, 5))
    Fraction(4, 3125)
    """
    check_strength(base, "base score")
    check_strength(same_side, "same-side aggregate")
    check_strength(strength, "strength")
    return strength * (1 - same_side) * min(base, 1 - base)


def compute_direct_gain(
    base: Real, attack: Real, support: Real, sign: Sign, strength: Real
) -> Real:
    """Section 6.1. The signed DF-QuAD change when a fresh direct leaf joins the star.

    The star enters only through ``v0`` and the two aggregates (Section 5:
    "on direct stars, LQ-DF-QuAD needs only the base score and both
    aggregates").
    """
    for value, what in (
        (base, "base score"),
        (attack, "attack aggregate"),
        (support, "support aggregate"),
        (strength, "strength"),
    ):
        check_strength(value, what)
    before = compute_combination(base, attack, support)
    if sign is Sign.SUPPORT:
        after = compute_combination(base, attack, 1 - (1 - support) * (1 - strength))
    else:
        after = compute_combination(base, 1 - (1 - attack) * (1 - strength), support)
    return int(sign) * (after - before)


def compute_dfquad_modulus(profile: Profile, fresh: Occurrence) -> Real:
    """Section 6.1. The modulus of a fresh direct report in a profile (a qFLR modulus)."""
    topic = get_topic(profile)
    return compute_response_modulus(
        get_base(profile),
        compute_same_side_aggregate(profile, topic, fresh.sign),
        fresh.strength,
    )


def compute_qbaf_modulus(qbaf: QBAF, sign: Sign, strength: Real) -> Real:
    """Section 6.1. The modulus of a fresh direct root at the topic of a QBAF.

    ``v_same`` aggregates the lineage-lifted scores of the topic's direct
    children of the fresh root's sign.
    """
    partition = compute_lineage_partition(qbaf)
    check_compatibility(qbaf, partition)
    quotient = compute_quotient(qbaf, partition)
    scores = compute_dfquad_strengths(quotient)
    same = sorted(scores[s] for g, s in get_signed_sources(quotient, quotient.topic) if g is sign)
    return compute_response_modulus(
        quotient.base[quotient.topic], compute_probabilistic_sum(same), strength
    )


def make_b5_configuration() -> tuple[Profile, Occurrence]:
    """Appendix B.5. Topic .8, supporters .2, .8, .8, attacker .2, and a fresh supporter .2.

    The fresh supporter is matched to the .2 supporter (same fields, new root).
    """
    fifth, four_fifths = Fraction(1, 5), Fraction(4, 5)
    profile = make_units_profile(
        four_fifths,
        [
            (Sign.SUPPORT, fifth),
            (Sign.SUPPORT, four_fifths),
            (Sign.SUPPORT, four_fifths),
            (Sign.ATTACK, fifth),
        ],
    )
    matched = profile.occurrences[0]
    fresh = Occurrence(
        "newcomer",
        matched.surface,
        matched.content,
        "fresh-root",
        matched.target,
        matched.sign,
        matched.strength,
    )
    return profile, fresh


def compute_b5_figures() -> dict[str, Real]:
    """Appendix B.5. The modulus at the B.5 configuration, its two factors, and the exact gain."""
    profile, fresh = make_b5_configuration()
    base = get_base(profile)
    topic = get_topic(profile)
    support = compute_same_side_aggregate(profile, topic, Sign.SUPPORT)
    attack = compute_same_side_aggregate(profile, topic, Sign.ATTACK)
    return {
        "modulus": compute_dfquad_modulus(profile, fresh),
        "t(1-v_s)": fresh.strength * (1 - support),
        "min(v0,1-v0)": min(base, 1 - base),
        "gain": compute_direct_gain(base, attack, support, fresh.sign, fresh.strength),
    }


# ---------------------------------------------------------------------------
# Theorem 6 (Appendix B.3) and Appendix B.4
# ---------------------------------------------------------------------------


def compute_path_parities(qbaf: QBAF, node: str) -> frozenset[int]:
    """Theorem 6. The attack-edge parities (0 even, 1 odd) of all paths from ``node`` to the topic.

    Empty when no path reaches the topic.  Raises ``CycleError`` on a cyclic QBAF.
    """
    compute_topological_order(qbaf)  # acyclicity is required: paths are finite
    if node not in qbaf.base:
        raise MalformedQBAFError(f"node {node!r} is not in the QBAF")
    if node == qbaf.topic:
        return frozenset({0})
    parities: set[int] = set()
    for sign, target in get_signed_targets(qbaf, node):
        flip = 1 if sign is Sign.ATTACK else 0
        parities |= {(p + flip) % 2 for p in compute_path_parities(qbaf, target)}
    return frozenset(parities)


def compute_predicted_sign(qbaf: QBAF, node: str, fresh_sign: Sign) -> int | None:
    """Theorem 6. ``eps0 * eps`` when all paths from ``node`` share parity, else ``None``."""
    parities = compute_path_parities(qbaf, node)
    if len(parities) != 1:
        return None
    (parity,) = parities
    return int(fresh_sign) * (-1 if parity else 1)


def is_interior(qbaf: QBAF) -> bool:
    """Theorem 6 (non-saturation). Check every base score lies strictly inside (0, 1).

    Then no DF-QuAD score reaches 0 or 1, no aggregate reaches 1, and every
    combination is strictly monotone in both aggregates: the hypothesis this
    module reads into "strictly changes".
    """
    return all(0 < value < 1 for value in qbaf.base.values())


def make_fresh_leaf(qbaf: QBAF, node: str, sign: Sign, strength: Real, name: str = "fresh") -> QBAF:
    """Section 6.1. Attach a fresh root (new root label, new content) to ``node``."""
    return compute_extended_qbaf(
        qbaf, name, strength, [(sign, node)], root=f"root:{name}", content=f"content:{name}"
    )


def make_b4_example() -> tuple[QBAF, str]:
    """Appendix B.4. Opposite-parity paths that cancel.

    ``x`` supports ``a`` and ``b``; ``a`` supports and ``b`` attacks the
    topic; all base scores are 1/2.  A fresh supporter at ``x`` raises both
    ``a`` and ``b`` by the same amount, the topic's support and attack
    aggregates stay equal, and its score stays at 1/2.  Returns the QBAF and ``x``.
    """
    half = Fraction(1, 2)
    qbaf = QBAF(
        topic="t",
        base={"t": half, "a": half, "b": half, "x": half},
        supports=frozenset({("x", "a"), ("x", "b"), ("a", "t")}),
        attacks=frozenset({("b", "t")}),
        roots={"a": "root-a", "b": "root-b", "x": "root-x"},
        contents={"a": "content-a", "b": "content-b", "x": "content-x"},
    )
    return qbaf, "x"


# ---------------------------------------------------------------------------
# Appendix B.6 (false splits and merges)
# ---------------------------------------------------------------------------


def compute_split_aggregate(strength: Real, parts: int) -> Real:
    """Appendix B.6. The aggregate of ``parts`` distinct roots of one strength: ``1 - (1-t)^m``."""
    if parts < 1:
        raise IneligibleExtensionError(f"a root splits into at least one part, got {parts}")
    check_strength(strength, "strength of the split root")
    return compute_probabilistic_sum([strength] * parts)


def is_split_inflating(strength: Real, parts: int) -> bool:
    """Appendix B.6. Check ``1 - (1 - t)^m > t``: a false split inflates the aggregate.

    >>> is_split_inflating(Fraction(1, 5), 2), is_split_inflating(Fraction(1, 5), 1)
    (True, False)
    """
    return compute_split_aggregate(strength, parts) > strength


def compute_merge_loss(strength: Real, parts: int) -> Real:
    """Appendix B.6. What falsely merging ``m`` equal distinct roots into one removes."""
    return compute_split_aggregate(strength, parts) - strength
