"""``gcv.reference.closure.reverse_closure``, its contracts, and a planted bug for CrossHair.

The body is the engine's first phase alone (marks in a dict throughout).

The bug: the walk marks beta as seen before it starts, the way reachability is often
coded (networkx's ``ancestors`` also leaves the source out).  Definition 2.3 puts beta
in Affected*(beta) when beta lies on a Dep cycle, so on ``[[0]]`` (record 0 resting on
itself) the copy answers ``()`` instead of ``(0,)``, and the first postcondition fails.
"""

from __future__ import annotations

import icontract

from gcv.reference.closure import (
    Links,
    is_closed_from,
    is_least_closed_from,
    is_relation_over_numbers,
)


@icontract.require(
    lambda dependents, withdrawn: 0 <= withdrawn < len(dependents), "beta is in Args_t"
)
@icontract.require(
    lambda dependents: is_relation_over_numbers(dependents),
    "Definition 2.1: Dep_t's reverse index relates records of Args_t",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda result, dependents, withdrawn: is_closed_from(dependents, withdrawn, result),
    "Definition 2.3: Affected*(beta) contains Affected(beta) and is closed under the X_k step",
)
@icontract.ensure(
    lambda result: len(set(result)) == len(result), "each visited record is output once"
)
@icontract.ensure(
    lambda result, dependents, withdrawn: is_least_closed_from(dependents, withdrawn, result),
    "Definition 2.3: Affected*(beta) is exactly the union of the X_k",
    enabled=icontract.SLOW,
)
def reverse_closure(dependents: Links, withdrawn: int) -> tuple[int, ...]:
    """Affected*(beta), except that beta is never reported (the planted bug)."""
    seen = {withdrawn: 1}  # the bug: beta counts as visited
    queue = [withdrawn]
    for record in queue:
        for dependent in dependents[record]:
            if dependent not in seen:
                seen[dependent] = 1
                queue.append(dependent)
    return tuple(queue[1:])
