"""Section 3 (model): occurrences, roots, root-role units, extensions, matched interventions.

A report is an *occurrence* (Section 3.1, pp. 3-4): who displayed it, its
surface text, its normalised content, the root label of the evidence it
renders, the claim it targets, its sign and its strength.  The unit of
aggregation is the root together with its role (target claim and sign), and a
unit's strength is the maximum over its occurrences (Appendix A.1).  A root is
*fresh* when the profile does not represent it yet.  Agents can relay,
paraphrase, resubmit under an alias or split excerpts (replication, Section
3.2), or acquire a fresh root; a *matched intervention* pairs a replica with a
fresh extension that agrees with it on every field but the root (Section 3.3).

Profiles carry a *skeleton*: the claims (the topic and any intermediate claim)
with their base scores and their own signed links; occurrences attach to
skeleton claims as leaves.  A direct profile's skeleton is the topic alone.

Bad input raises a :class:`~gcv.spec.lineage.errors.LineageError`; a failed
``assert`` marks a state the definitions rule out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction  # noqa: F401  (doctests)
from itertools import combinations_with_replacement
from typing import NamedTuple

from gcv.spec.lineage.dfquad import QBAF, Real, Sign, check_strength, compute_probabilistic_sum
from gcv.spec.lineage.errors import IneligibleExtensionError, MalformedProfileError

__all__ = [
    "TOPIC",
    "MatchedIntervention",
    "Occurrence",
    "Profile",
    "RootRoleUnit",
    "compute_extension",
    "compute_reduction",
    "compute_reduction_steps",
    "compute_root_aggregate",
    "compute_same_side_aggregate",
    "compute_units",
    "get_base",
    "get_roots",
    "get_topic",
    "is_absorbing",
    "is_content_replica",
    "is_eligible",
    "is_fresh",
    "is_matched_pair",
    "is_root_replica",
    "is_singleton_faithful",
    "make_alias",
    "make_direct_profile",
    "make_excerpt",
    "make_fresh",
    "make_matched_intervention",
    "make_paraphrase",
    "make_relay",
    "make_units_profile",
    "rename_roots",
]

TOPIC = "topic"
"""The name of the topic claim in a direct profile."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """Section 3.1 (occurrence). One rendering of one root, aimed at one claim (pp. 3-4)."""

    identity: str
    """The displayed identity (agent or alias) that submitted it."""
    surface: str
    """Its surface text (wording)."""
    content: str
    """Its normalised content (the canonical proposition); paraphrases share it."""
    root: str
    """The supplied root label of the evidence it renders."""
    target: str
    """The claim it targets."""
    sign: Sign
    """Whether it supports (+1) or attacks (-1) its target."""
    strength: Real
    """Its strength in [0, 1]."""

    def __post_init__(self) -> None:
        for name in ("identity", "surface", "content", "root", "target"):
            value = getattr(self, name)
            # Verify that every label is a non-empty string
            if not isinstance(value, str) or not value:
                raise MalformedProfileError(
                    f"occurrence field {name} must be a non-empty string, got {value!r}"
                )
        # Verify that the sign is +1 or -1
        if not isinstance(self.sign, Sign):
            raise MalformedProfileError(f"occurrence sign must be a Sign, got {self.sign!r}")
        what = f"strength of the occurrence by {self.identity!r} (root {self.root!r})"
        object.__setattr__(self, "strength", check_strength(self.strength, what))


@dataclass(frozen=True, slots=True)
class Profile:
    """Section 3.1 (profile). The claims' skeleton and the occurrences submitted so far."""

    skeleton: QBAF
    occurrences: tuple[Occurrence, ...]

    def __post_init__(self) -> None:
        # Verify that the claims form a QBAF
        if not isinstance(self.skeleton, QBAF):
            raise MalformedProfileError(
                f"a profile's skeleton must be a QBAF, got {self.skeleton!r}"
            )
        occurrences = tuple(self.occurrences)
        claims = self.skeleton.base
        for occurrence in occurrences:
            if not isinstance(occurrence, Occurrence):
                raise MalformedProfileError(f"{occurrence!r} is not an Occurrence")
            # Verify that the occurrence targets a claim of the skeleton
            if occurrence.target not in claims:
                raise MalformedProfileError(
                    f"occurrence by {occurrence.identity!r} targets unknown claim "
                    f"{occurrence.target!r}"
                )
        object.__setattr__(self, "occurrences", occurrences)


def make_direct_profile(
    base: Real, occurrences: Iterable[Occurrence], topic: str = TOPIC
) -> Profile:
    """Return the direct profile whose skeleton is the topic alone, with base score ``base``."""
    return Profile(QBAF(topic, {topic: base}), tuple(occurrences))


def get_topic(profile: Profile) -> str:
    """Return the topic claim of ``profile``."""
    return profile.skeleton.topic


def get_base(profile: Profile) -> Real:
    """Return the base score of the topic claim."""
    return profile.skeleton.base[profile.skeleton.topic]


def get_roots(profile: Profile) -> frozenset[str]:
    """Return the root labels represented in ``profile``."""
    return frozenset(occurrence.root for occurrence in profile.occurrences)


# ---------------------------------------------------------------------------
# Root-role units and the root aggregate (Section 3.1, Appendix A.1)
# ---------------------------------------------------------------------------


def compute_root_aggregate(strengths: Sequence[Real]) -> Real:
    """Appendix A.1 (absorption fixes the root aggregate). Return the maximum strength.

    A unit's strength is the maximum over its occurrences: the singleton and
    absorption conditions force it, and the maximum satisfies both (p. 10).
    """
    # Verify that the unit has at least one occurrence
    assert strengths, "a root-role unit has at least one occurrence"
    return max(strengths)


def is_singleton_faithful(
    aggregate: Callable[[Sequence[Real]], Real], grid: Sequence[Real]
) -> bool:
    """Appendix A.1 (singleton condition). Check ``aggregate([x]) == x`` on the grid."""
    return all(aggregate([value]) == value for value in grid)


def is_absorbing(
    aggregate: Callable[[Sequence[Real]], Real], grid: Sequence[Real], max_size: int = 3
) -> bool:
    """Appendix A.1 (absorption). Check a rendering no stronger than the aggregate is absorbed.

    For every multiset ``S`` over ``grid`` of size 1..``max_size`` and every
    ``x`` in ``grid`` with ``x <= aggregate(S)``: ``aggregate(S + [x]) ==
    aggregate(S)``.  The arithmetic mean fails: a weaker rendering lowers it.

    >>> grid = [Fraction(1, 5), Fraction(1, 2), Fraction(4, 5)]
    >>> is_absorbing(compute_root_aggregate, grid), is_absorbing(lambda s: sum(s) / len(s), grid)
    (True, False)
    """
    for size in range(1, max_size + 1):
        for values in combinations_with_replacement(grid, size):
            current = aggregate(list(values))
            for extra in grid:
                if extra <= current and aggregate([*values, extra]) != current:
                    return False
    return True


class RootRoleUnit(NamedTuple):
    """Section 3.1 (root-role unit). A root with its role (target, sign) and its strength."""

    root: str
    target: str
    sign: Sign
    strength: Real


def compute_units(profile: Profile) -> tuple[RootRoleUnit, ...]:
    """Section 3.1. Return the root-role units of ``profile``, each with its maximal strength."""
    strengths: dict[tuple[str, str, Sign], list[Real]] = {}
    for occurrence in profile.occurrences:
        key = (occurrence.root, occurrence.target, occurrence.sign)
        strengths.setdefault(key, []).append(occurrence.strength)
    return tuple(
        RootRoleUnit(root, target, sign, compute_root_aggregate(values))
        for (root, target, sign), values in sorted(strengths.items())
    )


def compute_same_side_aggregate(profile: Profile, target: str, sign: Sign) -> Real:
    """Section 6.1. The DF-QuAD aggregate of the units aimed at ``target`` with ``sign``."""
    strengths: dict[str, list[Real]] = {}
    for o in profile.occurrences:
        if o.target == target and o.sign is sign:
            strengths.setdefault(o.root, []).append(o.strength)
    return compute_probabilistic_sum(
        sorted(compute_root_aggregate(values) for values in strengths.values())
    )


# ---------------------------------------------------------------------------
# Extensions (Sections 3.1-3.3)
# ---------------------------------------------------------------------------


def compute_extension(profile: Profile, *occurrences: Occurrence) -> Profile:
    """Section 3.2. Return ``profile`` with ``occurrences`` appended."""
    return Profile(profile.skeleton, profile.occurrences + tuple(occurrences))


def is_fresh(profile: Profile, occurrence: Occurrence) -> bool:
    """Section 3.1 (fresh root). Check if the occurrence's root is not yet represented."""
    return occurrence.root not in get_roots(profile)


def is_root_replica(profile: Profile, occurrence: Occurrence) -> bool:
    """Section 4 (root replica). Check if the occurrence adds no unit and no strength.

    Its root-role unit is already in ``profile`` with at least its strength,
    so it neither opens a unit nor raises a unit's maximum.
    """
    return any(
        unit.root == occurrence.root
        and unit.target == occurrence.target
        and unit.sign is occurrence.sign
        and occurrence.strength <= unit.strength
        for unit in compute_units(profile)
    )


def is_content_replica(profile: Profile, occurrence: Occurrence) -> bool:
    """Section 4.3 (content replica). Check if its content-role key exists with >= strength.

    The replicas the content-keyed quotient absorbs (CRI): same normalised
    content, target and sign as a present occurrence, no stronger than the
    strongest such occurrence.  Its root may be new.
    """
    return any(
        other.content == occurrence.content
        and other.target == occurrence.target
        and other.sign is occurrence.sign
        and occurrence.strength <= other.strength
        for other in profile.occurrences
    )


def make_relay(occurrence: Occurrence, identity: str) -> Occurrence:
    """Section 3.1 (relay). Another agent repeats the report verbatim: same root."""
    return replace(occurrence, identity=identity)


def make_paraphrase(occurrence: Occurrence, identity: str, surface: str) -> Occurrence:
    """Section 3.1 (paraphrase). New wording, same normalised content, same root."""
    return replace(occurrence, identity=identity, surface=surface)


def make_alias(occurrence: Occurrence, alias: str) -> Occurrence:
    """Section 3.1 (alias resubmission). The same report under another displayed identity."""
    return replace(occurrence, identity=alias)


def make_excerpt(occurrence: Occurrence, content: str, surface: str, strength: Real) -> Occurrence:
    """Section 3.1 (excerpt split). A part of the report: new content key, same root, no stronger.

    The excerpt is a root replica (it adds no unit or strength) but carries a
    content key the profile has not seen, which a content-keyed quotient counts.
    """
    # Verify that the excerpt is no stronger than the report it is cut from
    if strength > occurrence.strength:
        raise IneligibleExtensionError(
            f"an excerpt of strength {strength} would be stronger than its report "
            f"({occurrence.strength})"
        )
    return replace(occurrence, content=content, surface=surface, strength=strength)


def make_fresh(occurrence: Occurrence, root: str) -> Occurrence:
    """Section 3.3. The occurrence with its root label replaced: every judged field kept."""
    return replace(occurrence, root=root)


@dataclass(frozen=True)
class MatchedIntervention:
    """Section 3.3 (matched intervention). A replica and a fresh report differing only in root."""

    replica: Occurrence
    fresh: Occurrence


def is_matched_pair(profile: Profile, replica: Occurrence, fresh: Occurrence) -> bool:
    """Section 3.3. Check ``replica`` is a root replica, ``fresh`` is fresh, and they match.

    Matching means agreement on every specified report field (identity,
    surface, content, target, sign, strength) except the root annotation.
    """
    return (
        is_root_replica(profile, replica)
        and is_fresh(profile, fresh)
        and replace(fresh, root=replica.root) == replica
    )


def make_matched_intervention(
    profile: Profile, position: int, identity: str, fresh_root: str
) -> MatchedIntervention:
    """Section 3.3. Relay the occurrence at ``position`` and pair it with its fresh-root twin."""
    # Verify that the position names an occurrence
    if not 0 <= position < len(profile.occurrences):
        raise IneligibleExtensionError(
            f"position {position} is outside the profile's {len(profile.occurrences)} occurrences"
        )
    replica = make_relay(profile.occurrences[position], identity)
    intervention = MatchedIntervention(replica, make_fresh(replica, fresh_root))
    if not is_matched_pair(profile, intervention.replica, intervention.fresh):
        raise IneligibleExtensionError(
            f"root {fresh_root!r} is already represented, so the pair is not matched"
        )
    return intervention


def is_eligible(profile: Profile, occurrence: Occurrence) -> bool:
    """Section 3.3 (eligibility). Fixed before any score is compared.

    Uses only freshness, role, strength, well-formedness and non-saturation
    (p. 4), never the score inequality under test.  This reading: the root is
    fresh; the report targets the topic directly; its strength is positive;
    the topic's base score lies strictly inside (0, 1); and the lineage
    aggregate on the report's side is below 1 (not saturated).
    """
    topic = get_topic(profile)
    return (
        is_fresh(profile, occurrence)
        and occurrence.target == topic
        and occurrence.strength > 0
        and 0 < get_base(profile) < 1
        and compute_same_side_aggregate(profile, topic, occurrence.sign) < 1
    )


def rename_roots(profile: Profile, renaming: Mapping[str, str]) -> Profile:
    """Section 4 (LNI). Apply a consistent, injective renaming of root labels.

    Labels missing from ``renaming`` are kept.  Raises
    ``IneligibleExtensionError`` if two roots would receive one label.
    """
    roots = sorted(get_roots(profile))
    renamed = [renaming.get(root, root) for root in roots]
    # Verify that the renaming keeps distinct roots distinct
    if len(set(renamed)) != len(renamed):
        raise IneligibleExtensionError(
            f"renaming {dict(renaming)!r} merges distinct roots of the profile"
        )
    return Profile(
        profile.skeleton,
        tuple(replace(o, root=renaming.get(o.root, o.root)) for o in profile.occurrences),
    )


# ---------------------------------------------------------------------------
# Appendix A.2 (quotient completeness)
# ---------------------------------------------------------------------------


def compute_reduction(profile: Profile) -> Profile:
    """Appendix A.2. Keep one maximal-strength representative per root-role unit.

    The representative is the first occurrence of the unit with the unit's
    strength; every deleted occurrence is a root replica of what remains.
    """
    kept: list[Occurrence] = []
    units = compute_units(profile)
    for unit in units:
        representative = next(
            o
            for o in profile.occurrences
            if (o.root, o.target, o.sign) == (unit.root, unit.target, unit.sign)
            and o.strength == unit.strength
        )
        kept.append(representative)
    order = {id(o): index for index, o in enumerate(profile.occurrences)}
    return Profile(profile.skeleton, tuple(sorted(kept, key=lambda o: order[id(o)])))


def compute_reduction_steps(profile: Profile) -> list[Profile]:
    """Appendix A.2. The profiles from ``profile`` to its reduction, one deletion at a time.

    Each step deletes the last occurrence that is not a kept representative;
    it is a root replica of the remaining profile, so each step reverses a
    root-replica extension (a permitted step).  Deleting a maximal-strength
    occurrence is never a step.
    """
    keep = {id(o) for o in compute_reduction(profile).occurrences}
    steps = [profile]
    current = list(profile.occurrences)
    for index in range(len(current) - 1, -1, -1):
        if id(current[index]) not in keep:
            removed = current.pop(index)
            remaining = Profile(profile.skeleton, tuple(current))
            # Verify that the deleted occurrence is a replica (A.2)
            assert is_root_replica(remaining, removed), "A.2: a deleted occurrence is a replica"
            steps.append(remaining)
    return steps


def make_units_profile(
    base: Real, units: Iterable[tuple[Sign, Real]], prefix: str = "r", topic: str = TOPIC
) -> Profile:
    """A direct profile with one occurrence per (sign, strength), each its own root and content.

    A convenience for examples and audits: occurrence ``i`` is displayed by
    ``agent-i``, has content ``c-i`` and root ``{prefix}{i}``.
    """
    occurrences = [
        Occurrence(f"agent-{i}", f"report {i}", f"c-{i}", f"{prefix}{i}", topic, sign, strength)
        for i, (sign, strength) in enumerate(units)
    ]
    return make_direct_profile(base, occurrences, topic)
