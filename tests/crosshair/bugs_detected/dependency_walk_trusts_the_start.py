"""A copy of ``reference.closure.dependency_walk`` with a planted bug CrossHair must find.

The bug: the walk checks the standing of every record it reaches but not of alpha_c
itself, so a weakened or abandoned candidate with no dependencies is accepted, against
Lemma 2.1 (Dep*(alpha_c) contains alpha_c, which must be in S_t).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping

import icontract

from reference.closure import (
    Grounding,
    _accepts_a_closed_set,
    _accepts_within_good_standing,
    _path_to,
    _rejects_with_a_witness,
)
from reference.predicates import is_relation_over
from reference.records import GOOD_STANDING, RecordId, Standing


@icontract.require(
    lambda standing, start: start in standing, "the associated record alpha_c is in Args_t"
)
@icontract.require(
    lambda dep, standing: is_relation_over(dep, standing),
    "Definition 2.1: Dep_t maps Args_t to subsets of Args_t",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda result, standing: _accepts_within_good_standing(result, standing),
    "Lemma 2.1: the walk accepts only if Dep*(alpha_c) is inside S_t",
)
@icontract.ensure(
    lambda result, dep, start: _accepts_a_closed_set(result, dep, start),
    "Lemma 2.1: on acceptance the returned set contains alpha_c and is closed under Dep",
)
@icontract.ensure(
    lambda result, dep, standing, start: _rejects_with_a_witness(result, dep, standing, start),
    "Lemma 2.1: on rejection a Dep path leads from alpha_c to a record outside S_t",
)
def dependency_walk(
    dep: Mapping[RecordId, Collection[RecordId]],
    standing: Mapping[RecordId, Standing],
    start: RecordId,
) -> Grounding:
    """The Verify walk, except that alpha_c's own label is never read (the planted bug)."""
    parent: dict[RecordId, RecordId | None] = {start: None}
    frontier = deque([start])
    while frontier:
        record = frontier.popleft()
        for support in dep.get(record, ()):
            if support in parent:
                continue
            parent[support] = record
            if standing[support] not in GOOD_STANDING:
                return Grounding(start, False, witness=support, path=_path_to(parent, support))
            frontier.append(support)
    return Grounding(start, True, closure=tuple(parent))
