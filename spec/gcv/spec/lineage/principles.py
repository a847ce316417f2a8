"""Sections 4-5: the principles, replication-proofness, the information boundary, coarseness.

The principles (Section 4, p. 4), each checked on one case for any judge:

* RRI (root replication invariance): a root replica, which adds no unit and
  no strength, leaves the score unchanged;
* LNI (label-naming invariance): a consistent renaming of root labels leaves
  the score unchanged;
* CRI (content replication invariance): a report whose content and role are
  already present, no stronger, leaves the score unchanged, whatever its root
  (Section 4.3: the content-keyed quotient satisfies CRI and violates RRI);
* FLR (fresh-lineage response): an eligible fresh report moves the score in
  its sign's direction (strictly, for strict FLR);
* qFLR: it moves the score by at least a modulus.

Then Proposition 4.1 (RRI is threshold-uniform replication immunity), the
information boundary of Section 4.2, and Section 5's factorization and
coarseness on finite domains.

Whole, at about 680 lines: it is Sections 4-6 in the paper's order, one function per
numbered item, and each later statement (Proposition 4.1, the information boundary,
coarseness, the QBAF principles) is stated through the principle checks and extensions
defined first; split by section, the later files would import the first and the paper's
order would become an import list.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from gcv.spec.lineage.dfquad import (
    QBAF,
    Real,
    Sign,
    compute_dfquad_strengths,
    compute_probabilistic_sum,
    get_signed_sources,
    get_signed_targets,
)
from gcv.spec.lineage.errors import IneligibleExtensionError
from gcv.spec.lineage.model import (
    Occurrence,
    Profile,
    compute_extension,
    get_roots,
    get_topic,
    is_content_replica,
    is_eligible,
    is_matched_pair,
    is_root_replica,
    make_alias,
    make_excerpt,
    make_fresh,
    make_paraphrase,
    make_relay,
    rename_roots,
)
from gcv.spec.lineage.quotient import (
    Judge,
    QJudge,
    check_compatibility,
    compute_lineage_partition,
    compute_lineage_quotient,
    compute_quotient,
    compute_verdict,
)
from gcv.spec.lineage.response import make_fresh_leaf

__all__ = [
    "PRINCIPLES",
    "Interface",
    "Modulus",
    "QModulus",
    "Violation",
    "compute_boundary_violation",
    "compute_orbit_components",
    "find_qbaf_violations",
    "find_violations",
    "generate_content_replicas",
    "generate_fresh_extensions",
    "generate_renamings",
    "generate_replica_extensions",
    "is_cri_respected",
    "is_factorizing",
    "is_finer_than_lineage",
    "is_fixed_threshold_stable",
    "is_flr_respected",
    "is_information_boundary_witness",
    "is_lni_respected",
    "is_orbit_connected",
    "is_permitted_step",
    "is_qflr_respected",
    "is_renaming",
    "is_replication_proof",
    "is_rri_lni_on_domain",
    "is_rri_respected",
    "is_structural_flr_respected",
    "is_structural_lni_respected",
    "is_structural_qflr_respected",
    "is_structural_rri_respected",
    "is_structurally_eligible",
    "is_threshold_uniform_immune",
    "make_lineage_code_judge",
    "make_qbaf_replica",
    "observe_prompt",
]

PRINCIPLES = ("RRI", "LNI", "CRI", "FLR", "qFLR")
"""The principles of Section 4, in the paper's order."""

Modulus = Callable[[Profile, Occurrence], Real]
"""A lower bound on the signed score change an eligible fresh report must cause (qFLR)."""

QModulus = Callable[[QBAF, Sign, Real], Real]
"""A lower bound on the signed move of a fresh direct root of a sign and strength (QBAFs)."""

Interface = Callable[[Profile], Hashable]
"""What a judge observes of a profile (Section 4.2): a prompt, a quotient, ..."""


@dataclass(frozen=True)
class Violation:
    """A witness that a judge violates a principle: the case and the two scores."""

    principle: str
    before: Profile | QBAF
    after: Profile | QBAF
    score_before: Real
    score_after: Real
    detail: str


# ---------------------------------------------------------------------------
# Section 4: the principles, one case at a time
# ---------------------------------------------------------------------------


def is_rri_respected(judge: Judge, profile: Profile, replica: Occurrence) -> bool:
    """Section 4 (RRI). Check a root replica leaves the judge's score unchanged."""
    # Verify that the extension is a root replica (adds no unit or strength)
    if not is_root_replica(profile, replica):
        raise IneligibleExtensionError(
            f"occurrence by {replica.identity!r} (root {replica.root!r}) is not a root replica"
        )
    return judge(compute_extension(profile, replica)) == judge(profile)


def is_lni_respected(judge: Judge, profile: Profile, renaming: Mapping[str, str]) -> bool:
    """Section 4 (LNI). Check a consistent renaming of root labels leaves the score unchanged."""
    return judge(rename_roots(profile, renaming)) == judge(profile)


def is_cri_respected(judge: Judge, profile: Profile, replica: Occurrence) -> bool:
    """Section 4.3 (CRI). Check a content replica leaves the judge's score unchanged."""
    # Verify that the extension repeats a present content and role, no stronger
    if not is_content_replica(profile, replica):
        raise IneligibleExtensionError(
            f"occurrence with content {replica.content!r} is not a content replica"
        )
    return judge(compute_extension(profile, replica)) == judge(profile)


def _signed_change(judge: Judge, profile: Profile, occurrence: Occurrence) -> Real:
    # Verify that the fresh report is eligible (fixed before any score is compared)
    if not is_eligible(profile, occurrence):
        raise IneligibleExtensionError(
            f"occurrence with root {occurrence.root!r} is not an eligible fresh report"
        )
    after = judge(compute_extension(profile, occurrence))
    return int(occurrence.sign) * (after - judge(profile))


def is_flr_respected(
    judge: Judge, profile: Profile, fresh: Occurrence, *, strict: bool = True
) -> bool:
    """Section 4 (FLR). Check an eligible fresh report moves the score in its sign's direction.

    Strict FLR asks for a strict move; weak FLR for no move against the sign.
    """
    change = _signed_change(judge, profile, fresh)
    return change > 0 if strict else change >= 0


def is_qflr_respected(judge: Judge, profile: Profile, fresh: Occurrence, modulus: Modulus) -> bool:
    """Section 4 (qFLR). Check the signed move is at least ``modulus(profile, fresh)``."""
    return _signed_change(judge, profile, fresh) >= modulus(profile, fresh)


# ---------------------------------------------------------------------------
# Extensions to check the principles on
# ---------------------------------------------------------------------------


def generate_replica_extensions(profile: Profile) -> list[Occurrence]:
    """Section 3.1. Root replicas of every occurrence: relay, paraphrase, alias, weaker, excerpt."""
    replicas: list[Occurrence] = []
    for index, occurrence in enumerate(profile.occurrences):
        replicas += [
            make_relay(occurrence, f"relay-{index}"),
            make_paraphrase(occurrence, f"paraphraser-{index}", f"{occurrence.surface} (reworded)"),
            make_alias(occurrence, f"{occurrence.identity}-alias"),
            replace(
                make_relay(occurrence, f"weak-relay-{index}"), strength=occurrence.strength / 2
            ),
            make_excerpt(
                occurrence,
                f"{occurrence.content}/excerpt-{index}",
                f"{occurrence.surface} (excerpt)",
                occurrence.strength,
            ),
        ]
    return [r for r in replicas if is_root_replica(profile, r)]


def generate_content_replicas(profile: Profile) -> list[Occurrence]:
    """Section 4.3. Content replicas: a relay (same root) and a matched copy under a new root."""
    replicas: list[Occurrence] = []
    for index, occurrence in enumerate(profile.occurrences):
        replicas.append(make_relay(occurrence, f"content-relay-{index}"))
        replicas.append(
            make_fresh(
                make_relay(occurrence, f"content-copy-{index}"), _new_root(profile, f"copy-{index}")
            )
        )
    return replicas


def _new_root(profile: Profile, stem: str) -> str:
    roots = get_roots(profile)
    label = f"fresh:{stem}"
    while label in roots:
        label += "'"
    return label


def generate_fresh_extensions(profile: Profile, strengths: Sequence[Real]) -> list[Occurrence]:
    """Section 3.3. Eligible fresh reports: matched copies of direct occurrences and new ones.

    Every matched fresh twin of a direct occurrence, then, for each sign and
    strength, a report with new root and new content aimed at the topic;
    ineligible ones are left out.
    """
    topic = get_topic(profile)
    fresh: list[Occurrence] = []
    for index, occurrence in enumerate(profile.occurrences):
        if occurrence.target == topic:
            fresh.append(
                make_fresh(
                    make_relay(occurrence, f"matched-{index}"),
                    _new_root(profile, f"matched-{index}"),
                )
            )
    for sign in (Sign.SUPPORT, Sign.ATTACK):
        for index, strength in enumerate(strengths):
            stem = f"{sign.name.lower()}-{index}"
            fresh.append(
                Occurrence(
                    f"newcomer-{stem}",
                    f"new report {stem}",
                    f"new-content-{stem}",
                    _new_root(profile, stem),
                    topic,
                    sign,
                    strength,
                )
            )
    return [f for f in fresh if is_eligible(profile, f)]


def generate_renamings(profile: Profile) -> list[dict[str, str]]:
    """Section 4 (LNI). Two consistent renamings: prime every label; rotate the labels."""
    roots = sorted(get_roots(profile))
    renamings = [{root: f"{root}'" for root in roots}]
    if len(roots) > 1:
        renamings.append({root: roots[(i + 1) % len(roots)] for i, root in enumerate(roots)})
    return renamings


def find_violations(
    judge: Judge,
    profile: Profile,
    *,
    fresh_strengths: Sequence[Real] = (Fraction(1, 5), Fraction(4, 5)),
    modulus: Modulus | None = None,
) -> list[Violation]:
    """Check all five principles on the extensions generated from ``profile``.

    qFLR is checked only when a ``modulus`` is given.  Returns every
    violation found; an empty list means none on these cases.
    """
    before = judge(profile)
    found: list[Violation] = []

    def record(principle: str, after: Profile, detail: str) -> None:
        found.append(Violation(principle, profile, after, before, judge(after), detail))

    for replica in generate_replica_extensions(profile):
        if not is_rri_respected(judge, profile, replica):
            record("RRI", compute_extension(profile, replica), f"replica {replica}")
    for renaming in generate_renamings(profile):
        if not is_lni_respected(judge, profile, renaming):
            record("LNI", rename_roots(profile, renaming), f"renaming {renaming}")
    for replica in generate_content_replicas(profile):
        if not is_cri_respected(judge, profile, replica):
            record("CRI", compute_extension(profile, replica), f"content replica {replica}")
    for fresh in generate_fresh_extensions(profile, fresh_strengths):
        if not is_flr_respected(judge, profile, fresh):
            record("FLR", compute_extension(profile, fresh), f"fresh report {fresh}")
        if modulus is not None and not is_qflr_respected(judge, profile, fresh, modulus):
            record(
                "qFLR",
                compute_extension(profile, fresh),
                f"fresh report {fresh}, modulus {modulus(profile, fresh)}",
            )
    return found


# ---------------------------------------------------------------------------
# Proposition 4.1 (replication-proofness characterises RRI)
# ---------------------------------------------------------------------------


def is_fixed_threshold_stable(
    judge: Judge, before: Profile, after: Profile, threshold: Real
) -> bool:
    """Section 4.1. Check the verdict at one fixed threshold is unchanged (weaker than RRI)."""
    return compute_verdict(judge(before), threshold) == compute_verdict(judge(after), threshold)


def is_threshold_uniform_immune(
    judge: Judge, before: Profile, after: Profile, thresholds: Iterable[Real] = ()
) -> bool:
    """Proposition 4.1. Check the verdict is unchanged at every threshold.

    Only the two scores themselves can separate the verdicts (a threshold
    strictly between them, or equal to the larger, flips one), so checking
    at both scores (and at any extra ``thresholds``) decides every
    threshold; it holds exactly when the scores are equal.
    """
    critical = {judge(before), judge(after), *thresholds}
    return all(is_fixed_threshold_stable(judge, before, after, t) for t in critical)


def is_replication_proof(judge: Judge, profile: Profile, path: Sequence[Occurrence]) -> bool:
    """Proposition 4.1 (replication paths). Verdicts at every threshold survive every step.

    Each occurrence of ``path`` must be a root replica of the profile built
    so far; raises ``IneligibleExtensionError`` otherwise.
    """
    current = profile
    for occurrence in path:
        if not is_root_replica(current, occurrence):
            raise IneligibleExtensionError(f"path step {occurrence} is not a root replica")
        following = compute_extension(current, occurrence)
        if not is_threshold_uniform_immune(judge, profile, following):
            return False
        current = following
    return True


# ---------------------------------------------------------------------------
# Section 4.2 (information necessity)
# ---------------------------------------------------------------------------


def observe_prompt(profile: Profile) -> tuple[str, ...]:
    """Section 4.2. A lineage-blind interface: the debate as a prompt would show it.

    One line per occurrence with identity, wording, content, role and
    strength, but no root annotation: a matched replica and fresh report
    render identically.
    """
    return tuple(
        f"{o.identity}: {o.surface!r} [{o.content}] {o.sign.name.lower()}s {o.target} "
        f"with strength {o.strength}"
        for o in profile.occurrences
    )


def is_information_boundary_witness(
    interface: Interface, profile: Profile, replica: Occurrence, fresh: Occurrence
) -> bool:
    """Section 4.2. Check a matched pair the interface cannot tell apart.

    ``replica`` and ``fresh`` must be a matched intervention (Section 3.3)
    with ``fresh`` eligible; the witness holds when both extensions give the
    same observation.
    """
    if not (is_matched_pair(profile, replica, fresh) and is_eligible(profile, fresh)):
        raise IneligibleExtensionError("the pair is not a matched, eligible intervention")
    return interface(compute_extension(profile, replica)) == interface(
        compute_extension(profile, fresh)
    )


def compute_boundary_violation(
    decide: Callable[[Hashable], Real],
    interface: Interface,
    profile: Profile,
    replica: Occurrence,
    fresh: Occurrence,
) -> str:
    """Section 4.2 (information boundary). Name the principle a judge through ``interface`` breaks.

    On a witness the two extensions score the same, so either the replica
    moves the score (RRI fails) or the fresh report does not move it
    strictly (strict FLR fails).  Returns ``"RRI"`` or ``"FLR"``.
    """
    if not is_information_boundary_witness(interface, profile, replica, fresh):
        raise IneligibleExtensionError("the interface separates the pair: not a witness")
    before = decide(interface(profile))
    after_replica = decide(interface(compute_extension(profile, replica)))
    after_fresh = decide(interface(compute_extension(profile, fresh)))
    # Verify that one observation gets one score (replica and fresh are a witness pair)
    assert after_replica == after_fresh, "one observation, one score"
    if after_replica != before:
        return "RRI"
    # Verify that nothing moves strictly once RRI holds
    assert int(fresh.sign) * (after_fresh - before) <= 0, "no strict move once RRI holds"
    return "FLR"


# ---------------------------------------------------------------------------
# Section 5 (the lineage quotient is the coarsest sufficient representation)
# ---------------------------------------------------------------------------


def is_factorizing(
    judge: Judge, representation: Callable[[Profile], Hashable], domain: Sequence[Profile]
) -> bool:
    """Section 5. Check the judge's score is a function of the representation on ``domain``."""
    seen: dict[Hashable, Real] = {}
    for profile in domain:
        key = representation(profile)
        score = judge(profile)
        if seen.setdefault(key, score) != score:
            return False
    return True


def is_renaming(before: Profile, after: Profile) -> bool:
    """Section 4 (LNI). Check ``after`` is ``before`` under an injective renaming of roots."""
    if before.skeleton != after.skeleton or len(before.occurrences) != len(after.occurrences):
        return False
    mapping: dict[str, str] = {}
    for old, new in zip(before.occurrences, after.occurrences, strict=True):
        if replace(new, root=old.root) != old or mapping.setdefault(old.root, new.root) != new.root:
            return False
    return len(set(mapping.values())) == len(mapping)


def is_permitted_step(before: Profile, after: Profile) -> bool:
    """Appendix A.2 (permitted step). A root-replica extension, its reversal, or a renaming."""
    for small, large in ((before, after), (after, before)):
        if (
            small.skeleton == large.skeleton
            and len(large.occurrences) == len(small.occurrences) + 1
        ):
            for index, occurrence in enumerate(large.occurrences):
                rest = large.occurrences[:index] + large.occurrences[index + 1 :]
                if rest == small.occurrences and is_root_replica(small, occurrence):
                    return True
    return is_renaming(before, after)


def compute_orbit_components(domain: Sequence[Profile]) -> list[list[int]]:
    """Section 5 (orbits). Group the domain's profiles joined by permitted steps inside it."""
    parent = list(range(len(domain)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(domain)):
        for j in range(i + 1, len(domain)):
            if find(i) != find(j) and is_permitted_step(domain[i], domain[j]):
                parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(domain)):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values())


def is_orbit_connected(domain: Sequence[Profile]) -> bool:
    """Section 5 (orbit-connected domain). Equal lineage quotients lie in one orbit component."""
    component = {i: c for c, group in enumerate(compute_orbit_components(domain)) for i in group}
    first: dict[Hashable, int] = {}
    for i, profile in enumerate(domain):
        key = compute_lineage_quotient(profile)
        if component[first.setdefault(key, i)] != component[i]:
            return False
    return True


def is_rri_lni_on_domain(judge: Judge, domain: Sequence[Profile]) -> bool:
    """Section 5. Check RRI and LNI on every permitted step between profiles of ``domain``."""
    return all(
        judge(p) == judge(q)
        for i, p in enumerate(domain)
        for q in domain[i + 1 :]
        if is_permitted_step(p, q)
    )


def make_lineage_code_judge(domain: Sequence[Profile]) -> Judge:
    """Section 5 (coarseness). A judge scoring each lineage-quotient class of ``domain`` apart.

    It recodes the lineage quotient as a number in [0, 1], so it satisfies
    RRI and LNI, and any representation it factors through must separate
    what the lineage quotient separates.
    """
    classes = sorted({compute_lineage_quotient(p) for p in domain}, key=repr)
    code = {key: Fraction(index, max(1, len(classes) - 1)) for index, key in enumerate(classes)}

    def judge(profile: Profile) -> Real:
        return code[compute_lineage_quotient(profile)]

    return judge


def is_finer_than_lineage(
    representation: Callable[[Profile], Hashable], domain: Sequence[Profile]
) -> bool:
    """Section 5. Check equal ``representation`` implies equal lineage quotient on ``domain``.

    By the coarseness theorem this is what a representation needs to be
    sufficient for every deterministic RRI-LNI judge: it must support
    :func:`make_lineage_code_judge`.
    """
    return is_factorizing(make_lineage_code_judge(domain), representation, domain)


# ---------------------------------------------------------------------------
# Section 6: the principles on QBAFs (structural RRI, LNI, FLR, qFLR)
# ---------------------------------------------------------------------------


def make_qbaf_replica(qbaf: QBAF, node: str, name: str, base: Real | None = None) -> QBAF:
    """Section 6 (structural replica). A copy of ``node`` under the same root: no new unit.

    Same root and content labels, same signed targets and sources, and a
    base score no greater than the node's (default: equal).
    """
    if node == qbaf.topic or node not in qbaf.roots:
        raise IneligibleExtensionError(f"node {node!r} renders no root, so it has no replica")
    base = qbaf.base[node] if base is None else base
    # Verify that the replica adds no strength
    if base > qbaf.base[node]:
        raise IneligibleExtensionError(
            f"a replica of {node!r} with base {base} would be stronger than {qbaf.base[node]}"
        )
    if name in qbaf.base:
        raise IneligibleExtensionError(f"node {name!r} is already in the QBAF")
    targets = get_signed_targets(qbaf, node)
    sources = get_signed_sources(qbaf, node)
    return QBAF(
        topic=qbaf.topic,
        base={**qbaf.base, name: base},
        supports=qbaf.supports
        | {(name, t) for s, t in targets if s is Sign.SUPPORT}
        | {(x, name) for s, x in sources if s is Sign.SUPPORT},
        attacks=qbaf.attacks
        | {(name, t) for s, t in targets if s is Sign.ATTACK}
        | {(x, name) for s, x in sources if s is Sign.ATTACK},
        roots={**qbaf.roots, name: qbaf.roots[node]},
        contents={
            **qbaf.contents,
            **({name: qbaf.contents[node]} if node in qbaf.contents else {}),
        },
    )


def is_structural_rri_respected(
    judge: QJudge, qbaf: QBAF, node: str, base: Real | None = None
) -> bool:
    """Section 6 (structural RRI). Check a replica of ``node`` leaves the topic's score alone."""
    return judge(make_qbaf_replica(qbaf, node, f"{node}~replica", base)) == judge(qbaf)


def is_structural_lni_respected(judge: QJudge, qbaf: QBAF, renaming: Mapping[str, str]) -> bool:
    """Section 6 (structural LNI). Check an injective renaming of root labels changes nothing."""
    labels = sorted(set(qbaf.roots.values()))
    renamed = [renaming.get(label, label) for label in labels]
    if len(set(renamed)) != len(renamed):
        raise IneligibleExtensionError(f"renaming {dict(renaming)!r} merges distinct roots")
    relabelled = QBAF(
        qbaf.topic,
        qbaf.base,
        qbaf.supports,
        qbaf.attacks,
        {n: renaming.get(r, r) for n, r in qbaf.roots.items()},
        qbaf.contents,
    )
    return judge(relabelled) == judge(qbaf)


def is_structurally_eligible(qbaf: QBAF, sign: Sign, strength: Real) -> bool:
    """Section 3.3 on QBAFs. A fresh direct root: positive strength, unsaturated topic and side.

    The side's aggregate is taken over the lineage-lifted scores of the
    topic's direct children of that sign.
    """
    partition = compute_lineage_partition(qbaf)
    check_compatibility(qbaf, partition)
    quotient = compute_quotient(qbaf, partition)
    scores = compute_dfquad_strengths(quotient)
    same = sorted(scores[x] for s, x in get_signed_sources(quotient, quotient.topic) if s is sign)
    return strength > 0 and 0 < qbaf.base[qbaf.topic] < 1 and compute_probabilistic_sum(same) < 1


def _structural_change(judge: QJudge, qbaf: QBAF, sign: Sign, strength: Real) -> Real:
    if not is_structurally_eligible(qbaf, sign, strength):
        raise IneligibleExtensionError(
            f"a fresh {sign.name.lower()} of strength {strength} is not eligible here"
        )
    fresh = make_fresh_leaf(qbaf, qbaf.topic, sign, strength, name="fresh~root")
    return int(sign) * (judge(fresh) - judge(qbaf))


def is_structural_flr_respected(
    judge: QJudge, qbaf: QBAF, sign: Sign, strength: Real, *, strict: bool = True
) -> bool:
    """Section 6 (FLR, direct topic leaves). Check a fresh direct root moves the topic its way."""
    change = _structural_change(judge, qbaf, sign, strength)
    return change > 0 if strict else change >= 0


def is_structural_qflr_respected(
    judge: QJudge, qbaf: QBAF, sign: Sign, strength: Real, modulus: QModulus
) -> bool:
    """Section 6.1 (qFLR on QBAFs). Check the move is at least ``modulus(qbaf, sign, strength)``."""
    return _structural_change(judge, qbaf, sign, strength) >= modulus(qbaf, sign, strength)


def find_qbaf_violations(
    judge: QJudge,
    qbaf: QBAF,
    *,
    fresh_strengths: Sequence[Real] = (Fraction(1, 5), Fraction(4, 5)),
    modulus: QModulus | None = None,
) -> list[Violation]:
    """Check structural RRI, LNI, FLR (and qFLR given a modulus) on one QBAF.

    Replicas of every root-rendering node (equal and half base), two
    renamings of the root labels (priming them; rotating them), and eligible
    fresh direct roots of both signs at ``fresh_strengths``.
    """
    before = judge(qbaf)
    found: list[Violation] = []

    def record(principle: str, after: QBAF, detail: str) -> None:
        found.append(Violation(principle, qbaf, after, before, judge(after), detail))

    for node in sorted(qbaf.roots):
        if node == qbaf.topic:
            continue
        for base in (qbaf.base[node], qbaf.base[node] / 2):
            if not is_structural_rri_respected(judge, qbaf, node, base):
                record(
                    "RRI",
                    make_qbaf_replica(qbaf, node, f"{node}~replica", base),
                    f"replica of {node} with base {base}",
                )
    labels = sorted(set(qbaf.roots.values()))
    for renaming in (
        {label: f"{label}'" for label in labels},
        {label: labels[(i + 1) % len(labels)] for i, label in enumerate(labels)},
    ):
        if not is_structural_lni_respected(judge, qbaf, renaming):
            record("LNI", qbaf, f"renaming {renaming}")
    for sign in (Sign.SUPPORT, Sign.ATTACK):
        for strength in fresh_strengths:
            if not is_structurally_eligible(qbaf, sign, strength):
                continue
            after = make_fresh_leaf(qbaf, qbaf.topic, sign, strength, name="fresh~root")
            if not is_structural_flr_respected(judge, qbaf, sign, strength):
                record("FLR", after, f"fresh {sign.name.lower()} of strength {strength}")
            if modulus is not None and not is_structural_qflr_respected(
                judge, qbaf, sign, strength, modulus
            ):
                record("qFLR", after, f"fresh {sign.name.lower()} of strength {strength}")
    return found
