"""A copy of the two closure queries of ``reference/closure.py``, with their contracts.

CrossHair must print nothing here: within the budget of the runner test it finds no
input that breaks a contract.  The copy is the engine's code as it was when the planted
bugs of ``bugs_detected/`` were written beside it; the engine's own file is searched by
``python -m tests.crosshair.run``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import icontract

from reference.closure import (
    Grounding,
    _accepts_a_closed_set,
    _accepts_exactly_dep_star,
    _accepts_within_good_standing,
    _path_to,
    _rejects_with_a_witness,
)
from reference.predicates import is_closed_under_rdep, is_least_reverse_closure, is_relation_over
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
@icontract.ensure(
    lambda result, dep, start: _accepts_exactly_dep_star(result, dep, start),
    "Lemma 2.1: on acceptance the walk returns exactly Dep*(alpha_c)",
    enabled=icontract.SLOW,
)
def dependency_walk(
    dep: Mapping[RecordId, Collection[RecordId]],
    standing: Mapping[RecordId, Standing],
    start: RecordId,
) -> Grounding:
    """Walk Dep from ``start``; accept iff everything it transitively rests on is in S_t.

    Mirrors Lemma 2.1 (``spec.core.is_grounded``).

    Parameters
    ----------
    dep:
        Dep_t: record -> the records it rests on (an absent key means none).
    standing:
        st_t over Args_t.
    start:
        alpha_c, the candidate's associated record.

    Returns
    -------
    Grounding
        Accepted with exactly Dep*(start), or rejected with a witness outside S_t
        and a shortest Dep path to it.

    Examples
    --------
    >>> A, W = Standing.ACTIVE, Standing.WEAKENED
    >>> dependency_walk({"h": ["o1", "o2"]}, {"h": A, "o1": A, "o2": A}, "h").closure
    ('h', 'o1', 'o2')
    >>> dependency_walk({"h": ["o1"], "o1": ["o2"]}, {"h": A, "o1": A, "o2": W}, "h").path
    ('h', 'o1', 'o2')

    Notes
    -----
    Breadth-first with a visited set: each record is checked against S_t on its
    first visit and expanded at most once, so the walk takes
    O(|Dep*(start)| + the Dep links leaving it), within O(|Args| + |Dep|)
    (Proposition 2.5).  Cycles are harmless.
    """
    if standing[start] not in GOOD_STANDING:
        return Grounding(start, False, witness=start, path=(start,))
    parent: dict[RecordId, RecordId | None] = {start: None}
    # The queue is a list read by a for loop while it grows (the loop reads each
    # appended record in turn): breadth-first with no deque, and no work per edge
    # beyond one visited-set test.
    queue = [start]
    supports_of = dep.get
    for record in queue:
        supports = supports_of(record)
        if not supports:
            continue
        for support in supports:
            if support not in parent:
                parent[support] = record
                if standing[support] not in GOOD_STANDING:
                    return Grounding(start, False, witness=support, path=_path_to(parent, support))
                queue.append(support)
    return Grounding(start, True, closure=tuple(parent))


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
    """Affected*(beta): every record with a non-empty Dep path to ``withdrawn``.

    Mirrors Definition 2.3 and Corollary 2.4 (``spec.core.compute_affected_star``).

    Parameters
    ----------
    rdep:
        The reverse index of Dep_t: record -> the records resting on it.
    withdrawn:
        beta, the premise record whose retraction is queried.

    Returns
    -------
    tuple of RecordId
        Affected*(beta), breadth-first from beta, each record once.  Records out of
        standing are included, and ``withdrawn`` itself is included exactly when
        it lies on a dependency cycle.

    Examples
    --------
    >>> rdep = {"o5": ["h3"], "h3": ["h4"], "h4": ["h1", "h3"]}
    >>> sorted(reverse_closure(rdep, "o5"))
    ['h1', 'h3', 'h4']
    >>> sorted(reverse_closure({"a": ["b"], "b": ["a"]}, "a"))
    ['a', 'b']

    Notes
    -----
    Visits {beta} | Affected*(beta) and the reverse links leaving them:
    O(1 + |Affected*(beta)| + m_beta), independent of the history length
    (Proposition 2.5).
    """
    seen: dict[RecordId, None] = {}
    # Marked when first reached, so each record enters the queue once (beta may
    # enter twice: as the start and, on a cycle, as a dependent).
    queue = [withdrawn]
    dependents_of = rdep.get
    for record in queue:
        dependents = dependents_of(record)
        if not dependents:
            continue
        for dependent in dependents:
            if dependent not in seen:
                seen[dependent] = None
                queue.append(dependent)
    return tuple(seen)
