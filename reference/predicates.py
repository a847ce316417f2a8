"""Typed predicates that the contracts of ``reference`` forward to.

mypy does not check lambda bodies, so each contract is a one-line lambda
calling one of these.  The cheap ones cost no more than the function they
check; the ones that recompute a closure naively are used only under
``icontract.SLOW``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from itertools import pairwise

import icontract

from reference.depmap import AttackAdded, Change, StandingChanged, StateView
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
    "is_relation_over",
    "is_well_formed_view",
    "is_within_good_standing",
    "keeps_out_of_standing_out",
]


def is_within_good_standing(
    members: Collection[RecordId], standing: Mapping[RecordId, Standing]
) -> bool:
    """Check that every member lies in S_t."""
    return all(standing.get(member) in GOOD_STANDING for member in members)


def is_relation_over(
    relation: Mapping[RecordId, Collection[RecordId]], members: Collection[RecordId]
) -> bool:
    """Check that ``relation`` relates only ``members``: Dep_t maps Args_t to subsets of
    Args_t, and Att_t is a subset of Args_t x Args_t (Definition 2.1)."""
    return all(
        key in members and all(value in members for value in values)
        for key, values in relation.items()
    )


def is_well_formed_view(view: StateView) -> bool:
    """Check that ``view`` is a state the engine can be in: each agent of Ags has an
    awareness set A_i, and the recorded attacks relate registered records only."""
    return all(agent in view.awareness for agent in view.agents) and is_relation_over(
        view.attackers, view.standing
    )


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


@icontract.ensure(
    lambda dep, start, members, result: not result or _contains_and_is_closed(dep, start, members),
    "Dep*(alpha) contains alpha and is closed under Dep",
    enabled=icontract.SLOW,
)
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


def _contains_and_is_closed(
    dep: Mapping[RecordId, Collection[RecordId]],
    start: RecordId,
    members: Collection[RecordId],
) -> bool:
    return start in members and is_closed_under_dep(dep, members)


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


@icontract.ensure(
    lambda rdep, withdrawn, members, result: (
        not result or is_closed_under_rdep(rdep, withdrawn, members)
    ),
    "the union of the X_k is closed under the X_k step (Definition 2.3)",
    enabled=icontract.SLOW,
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
