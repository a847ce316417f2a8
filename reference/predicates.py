"""Typed predicates that the contracts of ``reference`` forward to.

mypy does not check lambda bodies, so each contract is a one-line lambda
calling one of these.  The cheap ones cost no more than the function they
check; the ones that recompute a closure naively are used only under
``icontract.SLOW``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from itertools import pairwise

from reference.depmap import AttackAdded, Change, StandingChanged
from reference.records import GOOD_STANDING, RecordId, Standing

__all__ = [
    "is_closed_under_dep",
    "is_closed_under_rdep",
    "is_conflict_free",
    "is_conflict_free_after",
    "is_dependency_path",
    "is_index_of",
    "is_least_reverse_closure",
    "is_reachable_closure",
    "is_within_good_standing",
    "keeps_out_of_standing_out",
]


def is_within_good_standing(
    members: Collection[RecordId], standing: Mapping[RecordId, Standing]
) -> bool:
    """Check that every member lies in S_t."""
    return all(standing.get(member) in GOOD_STANDING for member in members)


def is_closed_under_dep(
    dep: Mapping[RecordId, Collection[RecordId]], members: Collection[RecordId]
) -> bool:
    """Check that ``members`` contains Dep(alpha) for each of its members alpha."""
    inside = set(members)
    return all(support in inside for member in inside for support in dep.get(member, ()))


def is_dependency_path(
    dep: Mapping[RecordId, Collection[RecordId]], path: tuple[RecordId, ...]
) -> bool:
    """Check that each step of ``path`` follows a recorded Dep link."""
    return all(later in dep.get(earlier, ()) for earlier, later in pairwise(path))


def is_reachable_closure(
    dep: Mapping[RecordId, Collection[RecordId]],
    start: RecordId,
    members: Collection[RecordId],
) -> bool:
    """Check, naively, that ``members`` is exactly Dep*(start) (start included)."""
    reached = {start}
    while True:
        grown = reached | {s for r in reached for s in dep.get(r, ())}
        if grown == reached:
            return reached == set(members)
        reached = grown


def is_closed_under_rdep(
    rdep: Mapping[RecordId, Collection[RecordId]],
    withdrawn: RecordId,
    members: Collection[RecordId],
) -> bool:
    """Check that ``members`` contains Affected(withdrawn) and Affected(x) for each member x.

    That is, ``members`` is closed under the step X -> X | Affected(X) of
    Definition 2.3, so it contains Affected*(withdrawn).
    """
    inside = set(members)
    return all(d in inside for d in rdep.get(withdrawn, ())) and all(
        d in inside for member in inside for d in rdep.get(member, ())
    )


def is_least_reverse_closure(
    rdep: Mapping[RecordId, Collection[RecordId]],
    withdrawn: RecordId,
    members: Collection[RecordId],
) -> bool:
    """Check, naively, that ``members`` is the union of Definition 2.3's X_k sequence."""
    current = set(rdep.get(withdrawn, ()))
    while True:
        grown = current | {d for x in current for d in rdep.get(x, ())}
        if grown == current:
            return current == set(members)
        current = grown


def is_index_of(
    forward: Mapping[RecordId, Collection[RecordId]],
    backward: Mapping[RecordId, Collection[RecordId]],
) -> bool:
    """Check that ``backward`` is exactly the inverse relation of ``forward``."""
    pairs = {(a, b) for a, bs in forward.items() for b in bs}
    inverse = {(a, b) for b, as_ in backward.items() for a in as_}
    return pairs == inverse


def is_conflict_free(
    standing: Mapping[RecordId, Standing], ratt: Mapping[RecordId, Collection[RecordId]]
) -> bool:
    """Lemma 2.2: no argument of S_t is the target of an attack in Att_t."""
    return all(standing[target] not in GOOD_STANDING for target, by in ratt.items() if by)


def is_conflict_free_after(
    changes: Collection[Change],
    standing: Mapping[RecordId, Standing],
    ratt: Mapping[RecordId, Collection[RecordId]],
) -> bool:
    """Lemma 2.2, one turn: each attack the turn added targets a record outside S_t,
    and each record the turn labelled into S_t has no recorded attacker."""
    for change in changes:
        if isinstance(change, AttackAdded) and standing[change.target] in GOOD_STANDING:
            return False
        if (
            isinstance(change, StandingChanged)
            and change.after in GOOD_STANDING
            and ratt.get(change.record)
        ):
            return False
    return True


def keeps_out_of_standing_out(changes: Collection[Change]) -> bool:
    """No change moves a weakened or abandoned record back into S_t."""
    return not any(
        isinstance(c, StandingChanged)
        and c.before not in GOOD_STANDING
        and c.after in GOOD_STANDING
        for c in changes
    )
