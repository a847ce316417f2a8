"""Hypothesis strategies for the lineage tests: direct profiles and acyclic QBAFs."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from gcv.spec.lineage.dfquad import QBAF, Sign
from gcv.spec.lineage.model import Occurrence, Profile, make_direct_profile

TENTHS = [Fraction(k, 10) for k in range(11)]
INTERIOR = [Fraction(k, 10) for k in range(1, 10)]

strengths = st.sampled_from(TENTHS)
interior = st.sampled_from(INTERIOR)
signs = st.sampled_from([Sign.SUPPORT, Sign.ATTACK])


@st.composite
def occurrences(draw: st.DrawFn, topic: str = "topic") -> Occurrence:
    """A direct occurrence; roots and contents come from small pools, so they collide."""
    root = draw(st.sampled_from(["r1", "r2", "r3"]))
    return Occurrence(
        identity=draw(st.sampled_from(["ann", "ben", "cy", "dee"])),
        surface=draw(st.sampled_from(["text one", "text two", "text three"])),
        content=draw(st.sampled_from(["c1", "c2", "c3"])),
        root=root,
        target=topic,
        sign=draw(signs),
        strength=draw(strengths),
    )


@st.composite
def profiles(draw: st.DrawFn, max_size: int = 4, interior_base: bool = False) -> Profile:
    """A direct profile of up to ``max_size`` occurrences (replicas and corroborations included)."""
    base = draw(interior if interior_base else strengths)
    return make_direct_profile(base, draw(st.lists(occurrences(), max_size=max_size)))


@st.composite
def dags(
    draw: st.DrawFn,
    max_nodes: int = 6,
    interior_base: bool = False,
    labelled: bool = True,
    number: str = "fraction",
) -> QBAF:
    """An acyclic QBAF on nodes n0 (the topic) .. n{k-1}; edges go from higher to lower index.

    Every non-topic node gets its own root and content label when ``labelled``.
    """
    size = draw(st.integers(1, max_nodes))
    nodes = [f"n{i}" for i in range(size)]
    pool = interior if interior_base else strengths
    if number == "float":
        pool = st.floats(0.0, 1.0, allow_nan=False)
    base = {node: draw(pool) for node in nodes}
    supports, attacks = set(), set()
    for i in range(1, size):
        for j in range(i):
            kind = draw(st.sampled_from(["none", "none", "support", "attack"]))
            if kind == "support":
                supports.add((nodes[i], nodes[j]))
            elif kind == "attack":
                attacks.add((nodes[i], nodes[j]))
    labels = {n: n.replace("n", "root-") for n in nodes[1:]} if labelled else {}
    contents = {n: n.replace("n", "content-") for n in nodes[1:]} if labelled else {}
    return QBAF("n0", base, frozenset(supports), frozenset(attacks), labels, contents)
