"""Section 2 of *Grounded Continuation*, executable: the dependency map and its two queries.

This module is the oracle the reference engine is checked against.  It is
written to be obviously right, not fast: relations are sets of pairs, and
every closure is computed by iterating its definition until nothing changes.

A failed ``assert`` means the arguments are outside the definition (for
example, a query about a record that is not in Args_t).

Types
-----
Records and agents are plain strings.  ``Dep`` is a set of pairs
``(alpha, beta)`` meaning beta is in Dep_t(alpha); ``Att`` is a set of pairs
``(attacker, target)``.

Reference: Grounded Continuation: A Linear-Time Runtime Verifier for LLM
Conversations, Section 2 and Appendix A.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ABANDONED",
    "ACTIVE",
    "GOOD_STANDING",
    "RESOLVED",
    "STANDING_LABELS",
    "WEAKENED",
    "DependencyMap",
    "compute_affected",
    "compute_affected_iteration",
    "compute_affected_star",
    "compute_dependency_closure",
    "get_active_set",
    "has_dependency_path",
    "is_conflict_free_map",
    "is_grounded",
]

# -- Constants ---------------------------------------------------------------------

ACTIVE = "active"
WEAKENED = "weakened"
ABANDONED = "abandoned"
RESOLVED = "resolved"
STANDING_LABELS = frozenset({ACTIVE, WEAKENED, ABANDONED, RESOLVED})
GOOD_STANDING = frozenset({ACTIVE, RESOLVED})


# -- Types -------------------------------------------------------------------------


@dataclass(frozen=True)
class DependencyMap:
    """Definition 2.1 (dependency map), the parts the queries read: Args, Att, st, Dep."""

    args: frozenset[str]
    att: frozenset[tuple[str, str]]
    standing: Mapping[str, str]
    dep: frozenset[tuple[str, str]]

    def __post_init__(self) -> None:
        # Verify that every argument carries exactly one standing label
        assert set(self.standing) == set(self.args)
        assert set(self.standing.values()) <= STANDING_LABELS
        # Verify that Att and Dep are relations over Args
        assert all(a in self.args and b in self.args for a, b in self.att)
        assert all(a in self.args and b in self.args for a, b in self.dep)


# -- Definition 2.1 ----------------------------------------------------------------


def get_active_set(d: DependencyMap) -> frozenset[str]:
    """Definition 2.1 (S_t). The arguments in good standing: labelled active or resolved."""
    return frozenset(a for a in d.args if d.standing[a] in GOOD_STANDING)


# -- The runtime check (Lemma 2.1) ---------------------------------------------------


def compute_dependency_closure(d: DependencyMap, alpha: str) -> frozenset[str]:
    """Dep*_t(alpha). The arguments reachable from ``alpha`` along Dep links, ``alpha`` too."""
    # Verify that alpha is an argument
    assert alpha in d.args
    closure = {alpha}
    while True:
        grown = closure | {beta for (a, beta) in d.dep if a in closure}
        if grown == closure:
            return frozenset(closure)
        closure = grown


def is_grounded(d: DependencyMap, alpha_c: str | None) -> bool:
    """Section 2, the runtime check. Check if a candidate associated with ``alpha_c`` is grounded.

    Grounded iff every argument of Dep*_t(alpha_c) belongs to S_t; a candidate
    with no associated record (``None``, or an identifier outside Args_t) is
    ungrounded (Appendix A.1, "Recorded support and traversal").  Lemma 2.1
    states that the Verify walk accepts exactly these candidates.
    """
    if alpha_c is None or alpha_c not in d.args:
        return False
    return compute_dependency_closure(d, alpha_c) <= get_active_set(d)


# -- Definition 2.3 and Corollary 2.4 -------------------------------------------------


def compute_affected(d: DependencyMap, beta: str) -> frozenset[str]:
    """Definition 2.3 (Affected). The arguments with a direct Dep link to ``beta``."""
    # Verify that beta is an argument
    assert beta in d.args
    return frozenset(alpha for (alpha, b) in d.dep if b == beta)


def compute_affected_iteration(d: DependencyMap, beta: str) -> list[frozenset[str]]:
    """Definition 2.3 (the X_k sequence). X_0 = Affected(beta); X_k+1 adds every argument
    with a Dep link into X_k.  Returns X_0, X_1, ..., X_n where X_n is the first repeat.

    The paper states that the sequence stabilises within |Args_t| rounds.
    """
    sequence = [compute_affected(d, beta)]
    while True:
        current = sequence[-1]
        following = current | {alpha for (alpha, b) in d.dep if b in current}
        sequence.append(frozenset(following))
        if following == current:
            return sequence


def compute_affected_star(d: DependencyMap, beta: str) -> frozenset[str]:
    """Definition 2.3 (Affected*). The union of the X_k."""
    return frozenset().union(*compute_affected_iteration(d, beta))


def has_dependency_path(d: DependencyMap, alpha: str, beta: str) -> bool:
    """Corollary 2.4's characterisation. Check if a non-empty Dep path leads from
    ``alpha`` to ``beta`` (vertices may repeat, so ``alpha == beta`` needs a cycle).
    """
    # Verify that both are arguments
    assert alpha in d.args
    assert beta in d.args
    # Arguments reachable in one or more steps are the closures of alpha's direct supports.
    direct = {b for (a, b) in d.dep if a == alpha}
    return any(beta in compute_dependency_closure(d, b) for b in direct)


# -- Lemma 2.2 ---------------------------------------------------------------------


def is_conflict_free_map(d: DependencyMap) -> bool:
    """Lemma 2.2 (conflict-free invariant). Check that no argument of S_t is attacked."""
    active = get_active_set(d)
    return all(target not in active for (_, target) in d.att)
