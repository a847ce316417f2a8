"""A copy of ``reference.closure.reverse_closure`` with a planted bug CrossHair must find.

The bug: the walk marks beta as seen before it starts, the way reachability is often
coded (networkx's ``ancestors`` also leaves the source out).  Definition 2.3 puts beta
in Affected*(beta) when beta lies on a Dep cycle, so on ``{"a": ["a"]}`` the copy
answers ``()`` instead of ``("a",)``, and the first postcondition fails.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import icontract

from reference.predicates import is_closed_under_rdep, is_least_reverse_closure
from reference.records import RecordId


@icontract.ensure(
    lambda result, rdep, withdrawn: is_closed_under_rdep(rdep, withdrawn, result),
    "Definition 2.3: Affected*(beta) contains Affected(beta) and is closed under the X_k step",
)
@icontract.ensure(
    lambda result: len(set(result)) == len(result), "each visited identifier is output once"
)
@icontract.ensure(
    lambda result, rdep, withdrawn: is_least_reverse_closure(rdep, withdrawn, result),
    "Definition 2.3: Affected*(beta) is exactly the union of the X_k",
    enabled=icontract.SLOW,
)
def reverse_closure(
    rdep: Mapping[RecordId, Collection[RecordId]], withdrawn: RecordId
) -> tuple[RecordId, ...]:
    """Affected*(beta), except that beta is never reported (the planted bug)."""
    seen: dict[RecordId, None] = {withdrawn: None}  # the bug: beta counts as visited
    pending = list(rdep.get(withdrawn, ()))
    while pending:
        record = pending.pop()
        if record in seen:
            continue
        seen[record] = None
        pending.extend(d for d in rdep.get(record, ()) if d not in seen)
    return tuple(r for r in seen if r != withdrawn)
