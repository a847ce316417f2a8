"""Typed predicates that the contracts of ``reference`` forward to.

mypy does not check lambda bodies, so each contract is a one-line lambda
calling one of these.  The cheap ones cost no more than the function they
check; the ones that recompute a closure naively are used only under
``icontract.SLOW``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import pairwise

import icontract

from gcv.reference.depmap import AttackAdded, Change, DependencyMap, StandingChanged, StateView
from gcv.reference.identifiers import RecordId
from gcv.reference.records import GOOD_STANDING, Standing

__all__ = [
    "Links",
    "are_all_good",
    "is_closed_from",
    "is_closed_under",
    "is_conflict_free",
    "is_conflict_free_after",
    "is_dependency_path",
    "is_index_of",
    "is_least_closed_from",
    "is_link_path",
    "is_numbered_relation",
    "is_numbering_of",
    "is_reached_exactly",
    "is_relation_over",
    "is_relation_over_numbers",
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


def is_dependency_path(
    dep: Mapping[RecordId, Collection[RecordId]], path: tuple[RecordId, ...]
) -> bool:
    """Check that each step of ``path`` follows a recorded Dep link."""
    return all(later in dep.get(earlier, ()) for earlier, later in pairwise(path))


# -- the queries' predicates, over record numbers (see DependencyMap.numbering) ----------

Links = Sequence[Sequence[int]]
"""A relation over records 0 .. n-1: ``links[i]`` lists the records i links to."""


def is_relation_over_numbers(links: Links) -> bool:
    """Check that every link stays among the numbered records: a relation over Args_t
    (Definition 2.1)."""
    size = len(links)
    return all(0 <= j < size for targets in links for j in targets)


def is_numbered_relation(links: Links, good: Sequence[int]) -> bool:
    """Check that ``links`` and ``good`` number the same records and every link stays among
    them: Dep_t maps Args_t to subsets of Args_t (Definition 2.1)."""
    return len(links) == len(good) and is_relation_over_numbers(links)


def are_all_good(members: Iterable[int], good: Sequence[int]) -> bool:
    """Check that every member lies in S_t."""
    return all(good[member] for member in members)


def is_closed_under(links: Links, members: Collection[int]) -> bool:
    """Check that ``members`` contains links[i] for each of its members i."""
    inside = set(members)
    return all(j in inside for i in inside for j in links[i])


def is_link_path(links: Links, path: Sequence[int]) -> bool:
    """Check that each step of ``path`` follows a link."""
    return all(later in links[earlier] for earlier, later in pairwise(path))


@icontract.require(lambda links, start: 0 <= start < len(links), "alpha is a numbered record")
@icontract.require(
    lambda links: is_relation_over_numbers(links),
    "links relate numbered records only (Definition 2.1)",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda links, start, members, result: (
        not result or (start in members and is_closed_under(links, members))
    ),
    "Dep*(alpha) contains alpha and is closed under Dep",
    enabled=icontract.SLOW,
)
def is_reached_exactly(links: Links, start: int, members: Collection[int]) -> bool:
    """Check, naively, that ``members`` is exactly Dep*(start) (start included)."""
    return _grown_until_stable(links, {start}) == set(members)


def is_closed_from(links: Links, origin: int, members: Collection[int]) -> bool:
    """Check that ``members`` contains links[origin] and links[x] for each member x.

    With ``links`` the reverse index of Dep, ``members`` is then closed under the step
    X -> X | Affected(X) of Definition 2.3, so it contains Affected*(origin).
    """
    inside = set(members)
    return all(j in inside for j in links[origin]) and is_closed_under(links, inside)


@icontract.require(lambda links, origin: 0 <= origin < len(links), "beta is a numbered record")
@icontract.require(
    lambda links: is_relation_over_numbers(links),
    "links relate numbered records only (Definition 2.1)",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda links, origin, members, result: not result or is_closed_from(links, origin, members),
    "the union of the X_k is closed under the X_k step (Definition 2.3)",
    enabled=icontract.SLOW,
)
def is_least_closed_from(links: Links, origin: int, members: Collection[int]) -> bool:
    """Check, naively, that ``members`` is the union of Definition 2.3's X_k sequence
    (with ``links`` the reverse index of Dep and ``origin`` the withdrawn beta)."""
    return _grown_until_stable(links, set(links[origin])) == set(members)


def _grown_until_stable(links: Links, first: set[int]) -> set[int]:
    """X_0 = ``first``, X_(k+1) = X_k | links(X_k), until X_k stops growing: the naive
    fixed point both closure checks compare against (Definition 2.3's rounds)."""
    current = first
    while True:
        grown = current | {j for i in current for j in links[i]}
        if grown == current:
            return current
        current = grown


def is_index_of(
    forward: Mapping[RecordId, Collection[RecordId]],
    backward: Mapping[RecordId, Collection[RecordId]],
) -> bool:
    """Check that ``backward`` is exactly the inverse relation of ``forward``."""
    pairs = {(a, b) for a, bs in forward.items() for b in bs}
    inverse = {(a, b) for b, as_ in backward.items() for a in as_}
    return pairs == inverse


def is_numbering_of(state: DependencyMap) -> bool:
    """Check that the map's numbering describes exactly its Args_t, Dep_t, reverse index
    and S_t, link for link in the order recorded."""
    numbering, name = state.numbering, list(state.numbering.name)
    return (
        name == list(state.standing)
        and len(numbering.number) == len(name)
        and all(numbering.number[record] == i for i, record in enumerate(name))
        and [[name[j] for j in links] for links in numbering.supports]
        == [list(state.dep.get(record, ())) for record in name]
        and [[name[j] for j in links] for links in numbering.dependents]
        == [list(state.rdep.get(record, ())) for record in name]
        and list(numbering.good)
        == [int(state.standing[record] in GOOD_STANDING) for record in name]
    )


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
