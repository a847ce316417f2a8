"""Dung's abstract argumentation semantics, by brute force over small frameworks.

The definitions of Section 2's Preliminaries (after Dung 1995): conflict-free,
admissible, complete, grounded, preferred and stable extensions, and the
restriction AF|X used by Proposition 2.3.  Extensions are found by trying every
subset, so keep frameworks small (up to about 12 arguments).

On an acyclic framework the four semantics have one extension, which
:func:`compute_acyclic_grounded_extension` computes in O(|Args| + |Att|) by
topological processing (the proof of Proposition 2.5).

Reference: Dung, Phan Minh. 1995. "On the Acceptability of Arguments and Its
Fundamental Role in Nonmonotonic Reasoning, Logic Programming and n-Person
Games." Artificial Intelligence 77 (2): 321-57. https://doi.org/10.1016/0004-3702(94)00041-X.
"""

from __future__ import annotations

from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from itertools import chain, combinations

__all__ = [
    "Framework",
    "compute_acyclic_grounded_extension",
    "compute_admissible_sets",
    "compute_complete_extensions",
    "compute_grounded_extension",
    "compute_preferred_extensions",
    "compute_restriction",
    "compute_stable_extensions",
    "get_attackers",
    "is_acyclic",
    "is_admissible",
    "is_conflict_free",
    "is_defended",
]

MAX_BRUTE_FORCE_ARGUMENTS = 16


@dataclass(frozen=True)
class Framework:
    """An argumentation framework (Args, Att) with Att a set of (attacker, target) pairs."""

    args: frozenset[str]
    att: frozenset[tuple[str, str]]

    def __post_init__(self) -> None:
        # Verify that Att is a relation over Args
        assert all(a in self.args and b in self.args for a, b in self.att)


def _subsets(args: frozenset[str]) -> list[frozenset[str]]:
    # Verify that brute force stays feasible
    assert len(args) <= MAX_BRUTE_FORCE_ARGUMENTS
    ordered = sorted(args)
    every = chain.from_iterable(combinations(ordered, n) for n in range(len(ordered) + 1))
    return [frozenset(s) for s in every]


def get_attackers(af: Framework, argument: str) -> frozenset[str]:
    """The arguments attacking ``argument``."""
    return frozenset(a for (a, b) in af.att if b == argument)


def is_conflict_free(af: Framework, s: frozenset[str]) -> bool:
    """Conflict-free. Check that no member of ``s`` attacks a member of ``s``."""
    return not any(a in s and b in s for (a, b) in af.att)


def is_defended(af: Framework, s: frozenset[str], argument: str) -> bool:
    """Acceptability. Check that ``s`` attacks every attacker of ``argument``."""
    return all(any((d, attacker) in af.att for d in s) for attacker in get_attackers(af, argument))


def is_admissible(af: Framework, s: frozenset[str]) -> bool:
    """Admissible. Conflict-free and defending each of its members."""
    return is_conflict_free(af, s) and all(is_defended(af, s, a) for a in s)


def compute_admissible_sets(af: Framework) -> list[frozenset[str]]:
    """Every admissible set of ``af``."""
    return [s for s in _subsets(af.args) if is_admissible(af, s)]


def compute_complete_extensions(af: Framework) -> list[frozenset[str]]:
    """Complete extensions. Admissible sets containing every argument they defend."""
    return [
        s
        for s in compute_admissible_sets(af)
        if all(a in s for a in af.args if is_defended(af, s, a))
    ]


def compute_grounded_extension(af: Framework) -> frozenset[str]:
    """Grounded extension. The least fixed point of F(S) = {a : S defends a}, from the empty set."""
    s: frozenset[str] = frozenset()
    while True:
        following = frozenset(a for a in af.args if is_defended(af, s, a))
        if following == s:
            return s
        s = following


def compute_preferred_extensions(af: Framework) -> list[frozenset[str]]:
    """Preferred extensions. The maximal admissible sets (by inclusion)."""
    admissible = compute_admissible_sets(af)
    return [s for s in admissible if not any(s < t for t in admissible)]


def compute_stable_extensions(af: Framework) -> list[frozenset[str]]:
    """Stable extensions. Conflict-free sets attacking every argument outside them."""
    return [
        s
        for s in _subsets(af.args)
        if is_conflict_free(af, s) and all(any((d, a) in af.att for d in s) for a in af.args - s)
    ]


def compute_restriction(af: Framework, removed: frozenset[str]) -> Framework:
    """Section 2, AF|X. ``af`` with the arguments of ``removed`` and their attacks taken out."""
    kept = af.args - removed
    return Framework(kept, frozenset((a, b) for (a, b) in af.att if a in kept and b in kept))


def _attackers_of_each(af: Framework) -> dict[str, set[str]]:
    """Each argument's attackers, built in one pass over Att."""
    attackers: dict[str, set[str]] = {a: set() for a in af.args}
    for a, b in af.att:
        attackers[b].add(a)
    return attackers


def is_acyclic(af: Framework) -> bool:
    """(A2). Check that the attack graph has no cycle (self-attacks included)."""
    try:
        TopologicalSorter(_attackers_of_each(af)).prepare()
    except CycleError:
        return False
    return True


def compute_acyclic_grounded_extension(af: Framework) -> frozenset[str]:
    """Proof of Proposition 2.5: "when the attack graph Att is acyclic, the grounded, complete,
    preferred, and stable semantics all yield the same unique extension (Dung, 1995),
    computable in O(|Args| + |Att|) by topological processing (Dunne, 2007)".

    Attackers come before their targets; an argument is in exactly when none of its attackers
    is (each attacker being already decided).
    """
    # Verify that the framework is acyclic (A2)
    assert is_acyclic(af)
    attackers = _attackers_of_each(af)
    accepted: set[str] = set()
    for argument in TopologicalSorter(attackers).static_order():
        if not attackers[argument] & accepted:
            accepted.add(argument)
    return frozenset(accepted)
