"""The two queries of Section 2, as pure functions over plain mappings.

``dependency_walk`` is the Verify walk of Lemma 2.1 and ``reverse_closure`` is
Affected* of Definition 2.3.  They take the Dep relation (or its reverse
index) and the standing labels as plain mappings, so CrossHair and the Z3
encodings reason about exactly the code the engine runs.

References
----------
Grounded Continuation: A Linear-Time Runtime Verifier for LLM Conversations,
Section 2 ("The runtime check", "Retraction queries") and Appendix A.2.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import icontract

from reference.predicates import (
    is_closed_under_dep,
    is_closed_under_rdep,
    is_dependency_path,
    is_least_reverse_closure,
    is_reachable_closure,
    is_relation_over,
    is_within_good_standing,
)
from reference.records import GOOD_STANDING, RecordId, Standing

__all__ = ["Grounding", "dependency_walk", "one_step_affected", "reverse_closure"]


@dataclass(frozen=True, slots=True)
class Grounding:
    """The answer of the Verify walk for a candidate's associated record alpha_c.

    Attributes
    ----------
    candidate:
        alpha_c, or ``None`` when no record is associated (then ungrounded).
    grounded:
        Whether Dep*(alpha_c) is inside S_t.
    closure:
        On acceptance, exactly Dep*(alpha_c) (alpha_c first, then breadth-first);
        empty on rejection.
    witness:
        On rejection, a record of Dep*(alpha_c) outside S_t (``None`` when there
        is no associated record).
    path:
        On rejection, Dep links from alpha_c to the witness (a shortest such path).
    """

    candidate: RecordId | None
    grounded: bool
    closure: tuple[RecordId, ...] = ()
    witness: RecordId | None = None
    path: tuple[RecordId, ...] = ()


def _accepts_within_good_standing(result: Grounding, standing: Mapping[RecordId, Standing]) -> bool:
    return not result.grounded or is_within_good_standing(result.closure, standing)


def _accepts_a_closed_set(
    result: Grounding, dep: Mapping[RecordId, Collection[RecordId]], start: RecordId
) -> bool:
    return not result.grounded or (
        result.closure[0] == start and is_closed_under_dep(dep, result.closure)
    )


def _accepts_exactly_dep_star(
    result: Grounding, dep: Mapping[RecordId, Collection[RecordId]], start: RecordId
) -> bool:
    return not result.grounded or is_reachable_closure(dep, start, result.closure)


def _rejects_with_a_witness(
    result: Grounding,
    dep: Mapping[RecordId, Collection[RecordId]],
    standing: Mapping[RecordId, Standing],
    start: RecordId,
) -> bool:
    return result.grounded or (
        result.witness is not None
        and result.path[0] == start
        and result.path[-1] == result.witness
        and standing[result.witness] not in GOOD_STANDING
        and is_dependency_path(dep, result.path)
    )


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


def _path_to(parent: Mapping[RecordId, RecordId | None], end: RecordId) -> tuple[RecordId, ...]:
    path = [end]
    step = parent[end]
    while step is not None:
        path.append(step)
        step = parent[step]
    return tuple(reversed(path))


@icontract.ensure(
    lambda result, rdep, withdrawn: set(result) == set(rdep.get(withdrawn, ())),
    "Definition 2.3: Affected(beta) = {alpha : beta in Dep(alpha)}",
)
def one_step_affected(
    rdep: Mapping[RecordId, Collection[RecordId]], withdrawn: RecordId
) -> tuple[RecordId, ...]:
    """Affected(beta): the records with a direct Dep link to ``withdrawn``.

    Mirrors Definition 2.3 (``spec.core.compute_affected``).

    >>> one_step_affected({"o5": ["h3"], "h3": ["h4"]}, "o5")
    ('h3',)
    """
    return tuple(rdep.get(withdrawn, ()))


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
