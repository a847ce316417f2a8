"""QBAFs and their gradual semantics: DF-QuAD (Rago et al.) and Max-QuAD.

Section 6 of the paper lifts the lineage quotient to quantitative bipolar
argumentation frameworks (QBAFs).  This module holds the QBAF itself (a topic,
base scores in [0, 1], support and attack edges, and the optional root and
content labels the liftings read) and the two semantics the paper's judges use:

* DF-QuAD (Rago, Toni, Aurisicchio and Baroni 2016, "Discontinuity-Free
  Decision Support with Quantitative Argumentation Debates", KR 2016,
  pp. 63-73): supporters and attackers are each aggregated by the
  probabilistic sum ``F(v1..vn) = 1 - prod(1 - vi)`` (``F() = 0``), and the
  base score ``v0`` is combined with the two aggregates by
  ``v0 - v0 (va - vs)`` when ``va >= vs`` and ``v0 + (1 - v0)(vs - va)``
  otherwise;
* Max-QuAD: the same combination with the maximum as aggregator (Section 6:
  "a maximum aggregator can fail [strict response] when a new input does not
  exceed the current maximum").

Numbers are ``Fraction`` where the paper's figures must come out exact, or
``float`` where an audit must be fast; every function accepts either.
An edge ``(a, b)`` means ``a`` supports (or attacks) ``b``.  Bad input raises a
:class:`~gcv.spec.lineage.errors.LineageError`; a failed ``assert`` marks a state
the definitions rule out.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

from gcv.spec.lineage.errors import CycleError, MalformedQBAFError, StrengthError

__all__ = [
    "QBAF",
    "Aggregator",
    "Real",
    "Sign",
    "check_strength",
    "compute_combination",
    "compute_dfquad_strengths",
    "compute_extended_qbaf",
    "compute_layers",
    "compute_max_aggregate",
    "compute_maxquad_strengths",
    "compute_probabilistic_sum",
    "compute_strengths",
    "compute_topological_order",
    "get_attackers",
    "get_signed_sources",
    "get_signed_targets",
    "get_supporters",
    "is_multilayer",
]

# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------

Real: TypeAlias = Fraction | float
"""A strength, base score or score: a real number in [0, 1] (exact or float)."""

Aggregator: TypeAlias = Callable[[Sequence[Real]], Real]
"""Maps the strengths of a node's supporters (or attackers) to one aggregate."""


class Sign(enum.IntEnum):
    """The argumentative sign of an occurrence or edge: +1 supports, -1 attacks."""

    ATTACK = -1
    SUPPORT = 1


def check_strength(value: object, what: str) -> Real:
    """Return ``value`` if it is a real number in [0, 1]; raise ``StrengthError`` otherwise.

    >>> check_strength(Fraction(1, 5), "strength")
    Fraction(1, 5)
    >>> check_strength(1.5, "strength of o1")
    Traceback (most recent call last):
    ...
    gcv.spec.lineage.errors.StrengthError: strength of o1 must lie in [0, 1], got 1.5
    """
    if (type(value) is Fraction or type(value) is float) and 0 <= value <= 1:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise StrengthError(f"{what} must be a real number in [0, 1], got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise StrengthError(f"{what} must be a finite number in [0, 1], got {value!r}")
    if not 0 <= value <= 1:
        raise StrengthError(f"{what} must lie in [0, 1], got {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    return value


# ---------------------------------------------------------------------------
# The QBAF
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class QBAF:
    """Section 6 (QBAF). A topic, base scores, supports and attacks, and optional labels.

    ``roots`` and ``contents`` label the nodes that render evidence (the
    occurrences): the lineage lifting groups nodes by root label and role, the
    content lifting by content key and role.  Claims carry no label.
    """

    topic: str
    base: Mapping[str, Real]
    supports: frozenset[tuple[str, str]] = frozenset()
    attacks: frozenset[tuple[str, str]] = frozenset()
    roots: Mapping[str, str] = field(default_factory=dict)
    contents: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("base", "roots", "contents"):
            if not isinstance(getattr(self, name), Mapping):
                raise MalformedQBAFError(f"the QBAF's {name} must be a mapping from nodes")
        base = {
            str(node): check_strength(score, f"base score of {node!r}")
            for node, score in self.base.items()
        }
        # Verify that the topic is a node
        if self.topic not in base:
            raise MalformedQBAFError(f"topic {self.topic!r} is not a node of the QBAF")
        supports = frozenset(self.supports)
        attacks = frozenset(self.attacks)
        for kind, edges in (("support", supports), ("attack", attacks)):
            for edge in edges:
                # Verify that every edge joins two known, distinct nodes
                if not (isinstance(edge, tuple) and len(edge) == 2):
                    raise MalformedQBAFError(f"{kind} edge {edge!r} is not a (source, target) pair")
                source, target = edge
                for end in (source, target):
                    if end not in base:
                        raise MalformedQBAFError(f"{kind} edge {edge!r} names unknown node {end!r}")
                if source == target:
                    raise MalformedQBAFError(f"{kind} edge {edge!r} is a self-loop")
        # Verify that no edge is both a support and an attack
        both = sorted(supports & attacks)
        if both:
            raise MalformedQBAFError(f"edges {both!r} are both supports and attacks")
        for kind, labels in (("root", self.roots), ("content", self.contents)):
            for node, label in labels.items():
                if node not in base:
                    raise MalformedQBAFError(f"{kind} label {label!r} names unknown node {node!r}")
                if not isinstance(label, str) or not label:
                    raise MalformedQBAFError(f"{kind} label of {node!r} must be a non-empty string")
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "supports", supports)
        object.__setattr__(self, "attacks", attacks)
        object.__setattr__(self, "roots", dict(self.roots))
        object.__setattr__(self, "contents", dict(self.contents))


def get_supporters(qbaf: QBAF, node: str) -> list[str]:
    """Return the supporters of ``node``, sorted."""
    return sorted(source for source, target in qbaf.supports if target == node)


def get_attackers(qbaf: QBAF, node: str) -> list[str]:
    """Return the attackers of ``node``, sorted."""
    return sorted(source for source, target in qbaf.attacks if target == node)


def get_signed_targets(qbaf: QBAF, node: str) -> frozenset[tuple[Sign, str]]:
    """Return the signed out-neighbourhood of ``node``: its (sign, target) pairs."""
    return frozenset(
        [(Sign.SUPPORT, target) for source, target in qbaf.supports if source == node]
        + [(Sign.ATTACK, target) for source, target in qbaf.attacks if source == node]
    )


def get_signed_sources(qbaf: QBAF, node: str) -> frozenset[tuple[Sign, str]]:
    """Return the signed in-neighbourhood of ``node``: its (sign, source) pairs."""
    return frozenset(
        [(Sign.SUPPORT, source) for source, target in qbaf.supports if target == node]
        + [(Sign.ATTACK, source) for source, target in qbaf.attacks if target == node]
    )


def compute_extended_qbaf(
    qbaf: QBAF,
    node: str,
    base: Real,
    targets: Iterable[tuple[Sign, str]],
    *,
    root: str | None = None,
    content: str | None = None,
) -> QBAF:
    """Return ``qbaf`` with a new ``node`` of the given base score aimed at ``targets``."""
    if node in qbaf.base:
        raise MalformedQBAFError(f"node {node!r} is already in the QBAF")
    targets = list(targets)
    supports = {(node, target) for sign, target in targets if sign is Sign.SUPPORT}
    attacks = {(node, target) for sign, target in targets if sign is Sign.ATTACK}
    roots = dict(qbaf.roots)
    contents = dict(qbaf.contents)
    if root is not None:
        roots[node] = root
    if content is not None:
        contents[node] = content
    return QBAF(
        topic=qbaf.topic,
        base={**qbaf.base, node: base},
        supports=qbaf.supports | supports,
        attacks=qbaf.attacks | attacks,
        roots=roots,
        contents=contents,
    )


def compute_topological_order(qbaf: QBAF) -> list[str]:
    """Order the nodes so that every edge goes from an earlier node to a later one.

    Kahn's algorithm with sorted ties, so the order does not depend on hashing.
    Raises ``CycleError`` (carrying a cycle) when the graph is cyclic.

    >>> q = QBAF("t", {"t": Fraction(1, 2), "a": Fraction(1, 5)}, supports=frozenset({("a", "t")}))
    >>> compute_topological_order(q)
    ['a', 't']
    """
    successors: dict[str, list[str]] = {node: [] for node in qbaf.base}
    indegree = {node: 0 for node in qbaf.base}
    for source, target in sorted(qbaf.supports | qbaf.attacks):
        successors[source].append(target)
        indegree[target] += 1
    ready = sorted(node for node, count in indegree.items() if count == 0)
    order: list[str] = []
    while ready:
        node = ready.pop(0)
        order.append(node)
        for target in successors[node]:
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
        ready.sort()
    if len(order) < len(indegree):
        cycle = _find_cycle(qbaf, set(indegree) - set(order))
        raise CycleError(f"the QBAF has a cycle: {' -> '.join(cycle)}", cycle)
    return order


def _find_cycle(qbaf: QBAF, nodes: set[str]) -> list[str]:
    """Return a cycle among ``nodes``, the nodes Kahn's algorithm left over.

    Each left-over node keeps a left-over predecessor (that is why its
    in-degree never reached 0), so walking predecessors must revisit a node.
    """
    predecessors = {
        node: sorted(s for s, t in qbaf.supports | qbaf.attacks if t == node and s in nodes)
        for node in nodes
    }
    node = min(nodes)
    path: list[str] = []
    while node not in path:
        path.append(node)
        # Verify that a left-over node has a left-over predecessor (it is on a cycle)
        assert predecessors[node], f"left-over node {node!r} has a left-over predecessor"
        node = predecessors[node][0]
    cycle = [*path[path.index(node) :], node]
    return cycle[::-1]


def compute_layers(qbaf: QBAF) -> dict[str, int] | None:
    """Section 6 (multi-layer QBAF). Return each node's layer, or ``None`` if not multi-layer.

    The topic is layer 0 and every edge goes from layer k + 1 to layer k; a
    node whose targets lie in different layers, or that reaches no target,
    makes the QBAF not multi-layer.
    """
    order = compute_topological_order(qbaf)
    if get_signed_targets(qbaf, qbaf.topic):
        return None
    layer: dict[str, int] = {qbaf.topic: 0}
    for node in reversed(order):
        if node == qbaf.topic:
            continue
        levels = {layer.get(target) for _, target in get_signed_targets(qbaf, node)}
        if len(levels) != 1 or None in levels:
            return None
        (level,) = levels
        assert level is not None
        layer[node] = level + 1
    return layer


def is_multilayer(qbaf: QBAF) -> bool:
    """Section 6. Check if every edge of ``qbaf`` goes from one layer to the next."""
    return compute_layers(qbaf) is not None


# ---------------------------------------------------------------------------
# DF-QuAD and Max-QuAD
# ---------------------------------------------------------------------------


def compute_probabilistic_sum(values: Sequence[Real]) -> Real:
    """DF-QuAD aggregation (Rago et al. 2016, Def. 1). Return ``1 - prod(1 - v)``; 0 if empty.

    >>> compute_probabilistic_sum([Fraction(1, 5), Fraction(1, 5)])
    Fraction(9, 25)
    """
    product: Real = 1
    for value in values:
        product = product * (1 - value)
    return 1 - product


def compute_max_aggregate(values: Sequence[Real]) -> Real:
    """Max-QuAD aggregation. Return the largest value; 0 if empty.

    >>> compute_max_aggregate([Fraction(1, 5), Fraction(4, 5)])
    Fraction(4, 5)
    """
    return max(values, default=0)


def compute_combination(base: Real, attack: Real, support: Real) -> Real:
    """DF-QuAD combination (Rago et al. 2016, Def. 2). Combine ``v0`` with ``va`` and ``vs``.

    >>> compute_combination(Fraction(1, 2), Fraction(9, 25), Fraction(1, 5))
    Fraction(21, 50)
    """
    if attack >= support:
        return base - base * (attack - support)
    return base + (1 - base) * (support - attack)


def compute_strengths(qbaf: QBAF, aggregate: Aggregator) -> dict[str, Real]:
    """Evaluate an acyclic QBAF in topological order with the given aggregator.

    Each node's score is the combination of its base score with the
    aggregates of its attackers' and supporters' scores.  The aggregated
    values are sorted first, so the result depends only on their multiset.
    Raises ``CycleError`` on a cyclic QBAF.
    """
    supporters: dict[str, list[str]] = {node: [] for node in qbaf.base}
    attackers: dict[str, list[str]] = {node: [] for node in qbaf.base}
    for source, target in qbaf.supports:
        supporters[target].append(source)
    for source, target in qbaf.attacks:
        attackers[target].append(source)
    score: dict[str, Real] = {}
    for node in compute_topological_order(qbaf):
        supports = sorted(score[source] for source in supporters[node])
        attacks = sorted(score[source] for source in attackers[node])
        score[node] = compute_combination(qbaf.base[node], aggregate(attacks), aggregate(supports))
    return score


def compute_dfquad_strengths(qbaf: QBAF) -> dict[str, Real]:
    """DF-QuAD (Rago et al. 2016, Def. 3). Return every node's final strength.

    >>> q = QBAF("t", {"t": Fraction(1, 2), "s": Fraction(1, 5), "a": Fraction(1, 5)},
    ...          supports=frozenset({("s", "t")}), attacks=frozenset({("a", "t")}))
    >>> compute_dfquad_strengths(q)["t"]
    Fraction(1, 2)
    """
    return compute_strengths(qbaf, compute_probabilistic_sum)


def compute_maxquad_strengths(qbaf: QBAF) -> dict[str, Real]:
    """Max-QuAD. Return every node's final strength under maximum aggregation."""
    return compute_strengths(qbaf, compute_max_aggregate)
