"""``gcv.reference.closure.dependency_walk``, its contracts, and a planted bug for CrossHair.

The body is the engine's first phase alone (marks in a dict throughout), which is
enough for the contracts to judge.

The bug: the walk checks the standing of every record it reaches but not of alpha_c
itself, so a weakened or abandoned candidate with no dependencies is accepted, against
Lemma 2.1 (Dep*(alpha_c) contains alpha_c, which must be in S_t).
"""

from __future__ import annotations

from collections.abc import Sequence

import icontract

from gcv.reference.closure import (
    Links,
    Walk,
    _accepts_a_closed_set,
    _accepts_within_good_standing,
    _path_to,
    _rejects_with_a_witness,
    is_numbered_relation,
)


@icontract.require(
    lambda supports, good, start: 0 <= start < len(good) == len(supports),
    "the associated record alpha_c is in Args_t",
)
@icontract.require(
    lambda supports, good: is_numbered_relation(supports, good),
    "Definition 2.1: Dep_t maps Args_t to subsets of Args_t",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda result, good: _accepts_within_good_standing(result, good),
    "Lemma 2.1: the walk accepts only if Dep*(alpha_c) is inside S_t",
)
@icontract.ensure(
    lambda result, supports, start: _accepts_a_closed_set(result, supports, start),
    "Lemma 2.1: on acceptance the returned set contains alpha_c and is closed under Dep",
)
@icontract.ensure(
    lambda result, supports, good, start: _rejects_with_a_witness(result, supports, good, start),
    "Lemma 2.1: on rejection a Dep path leads from alpha_c to a record outside S_t",
)
def dependency_walk(supports: Links, good: Sequence[int], start: int) -> Walk:
    """The Verify walk, except that alpha_c's own label is never read (the planted bug)."""
    marks = {start: start + 1}
    queue = [start]
    for record in queue:
        for support in supports[record]:
            if support not in marks:
                marks[support] = record + 1
                if not good[support]:
                    return Walk(False, witness=support, path=_path_to(marks, support))
                queue.append(support)
    return Walk(True, closure=tuple(queue))
