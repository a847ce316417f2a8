"""Proposition 2.3 and Corollary 2.4 (selective retraction), as checkable statements.

Each ``is_*`` function states one conclusion for a given map and withdrawn
premise; :func:`is_selective_retraction_sound` and
:func:`is_closure_retraction_sound` bundle them, under the propositions'
hypotheses.  Use them on small maps: the preferred-extension clause is
decided by brute force (``gcv.spec.dung``).
"""

from __future__ import annotations

from gcv.spec.core import (
    DependencyMap,
    compute_affected,
    compute_affected_star,
    get_active_set,
    has_dependency_path,
    is_conflict_free_map,
)
from gcv.spec.dung import (
    Framework,
    compute_preferred_extensions,
    compute_restriction,
    is_admissible,
    is_conflict_free,
)

__all__ = [
    "compute_closure_removal",
    "compute_one_step_removal",
    "is_closure_retraction_sound",
    "is_selective_retraction_sound",
    "is_survivor_set_admissible",
    "is_survivor_set_conflict_free",
    "is_survivor_set_in_preferred",
]


def _framework(d: DependencyMap) -> Framework:
    return Framework(d.args, d.att)


def compute_one_step_removal(d: DependencyMap, beta: str) -> frozenset[str]:
    """Proposition 2.3, R := {beta} | Affected(beta)."""
    return frozenset({beta}) | compute_affected(d, beta)


def compute_closure_removal(d: DependencyMap, beta: str) -> frozenset[str]:
    """Corollary 2.4, R* := {beta} | Affected*(beta)."""
    return frozenset({beta}) | compute_affected_star(d, beta)


def is_survivor_set_conflict_free(d: DependencyMap, removed: frozenset[str]) -> bool:
    """Check that S_t minus ``removed`` is conflict-free in AF_t|removed."""
    restricted = compute_restriction(_framework(d), removed)
    return is_conflict_free(restricted, get_active_set(d) - removed)


def is_survivor_set_admissible(d: DependencyMap, removed: frozenset[str]) -> bool:
    """Check that S_t minus ``removed`` is admissible in AF_t|removed."""
    restricted = compute_restriction(_framework(d), removed)
    return is_admissible(restricted, get_active_set(d) - removed)


def is_survivor_set_in_preferred(d: DependencyMap, removed: frozenset[str]) -> bool:
    """Check that some preferred extension of AF_t|removed contains S_t minus ``removed``."""
    survivors = get_active_set(d) - removed
    restricted = compute_restriction(_framework(d), removed)
    return any(survivors <= e for e in compute_preferred_extensions(restricted))


def is_selective_retraction_sound(d: DependencyMap, beta: str) -> bool:
    """Proposition 2.3 (selective retraction). Under Lemma 2.2 with beta outside S_t:
    S' = S_t minus R is conflict-free and admissible in AF_t|R, some preferred
    extension contains it, and every alpha of S_t with beta not in Dep_t(alpha)
    is in S'.
    """
    # Verify the proposition's hypotheses
    assert is_conflict_free_map(d)
    assert beta not in get_active_set(d)
    removed = compute_one_step_removal(d, beta)
    survivors = get_active_set(d) - removed
    independent = {a for a in get_active_set(d) if (a, beta) not in d.dep}
    return (
        is_survivor_set_conflict_free(d, removed)
        and is_survivor_set_admissible(d, removed)
        and is_survivor_set_in_preferred(d, removed)
        and independent <= survivors
    )


def is_closure_retraction_sound(d: DependencyMap, beta: str) -> bool:
    """Corollary 2.4. Under Proposition 2.3's hypotheses: S_t minus R* is conflict-free in
    AF_t|R*, and every alpha of S_t with no Dep path to beta is preserved; and, for
    any map, R* minus {beta} is exactly the set with a non-empty Dep path to beta.
    """
    # Verify the corollary's hypotheses
    assert is_conflict_free_map(d)
    assert beta not in get_active_set(d)
    removed = compute_closure_removal(d, beta)
    survivors = get_active_set(d) - removed
    independent = {a for a in get_active_set(d) if not has_dependency_path(d, a, beta)}
    with_path = {a for a in d.args if has_dependency_path(d, a, beta)}
    return (
        is_survivor_set_conflict_free(d, removed)
        and independent <= survivors
        and compute_affected_star(d, beta) == with_path
    )
