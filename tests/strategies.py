"""Hypothesis strategies shared by the tests: random dependency maps and operations."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from reference.depmap import DependencyMap
from reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from reference.records import Standing
from reference.verifier import Turn
from spec import core


@dataclass(frozen=True)
class RandomMap:
    """A random (Args, st, Dep, Att), in both the reference's and the spec's shapes."""

    args: tuple[str, ...]
    standing: dict[str, Standing]
    dep_pairs: frozenset[tuple[str, str]]
    att_pairs: frozenset[tuple[str, str]]

    @property
    def dep(self) -> dict[str, list[str]]:
        """Dep as record -> supports, each list sorted so runs are reproducible."""
        out: dict[str, list[str]] = {}
        for a, b in sorted(self.dep_pairs):
            out.setdefault(a, []).append(b)
        return out

    @property
    def rdep(self) -> dict[str, list[str]]:
        """The reverse index of Dep."""
        out: dict[str, list[str]] = {}
        for a, b in sorted(self.dep_pairs):
            out.setdefault(b, []).append(a)
        return out

    def to_spec(self) -> core.DependencyMap:
        """The same map as the spec's value."""
        return core.DependencyMap(
            args=frozenset(self.args),
            att=self.att_pairs,
            standing={a: s.value for a, s in self.standing.items()},
            dep=self.dep_pairs,
        )


@st.composite
def random_maps(draw: st.DrawFn, max_records: int = 8, cycles: bool = True) -> RandomMap:
    """Maps of 1..max_records records; Dep may contain cycles (and self-loops) when ``cycles``."""
    n = draw(st.integers(1, max_records))
    args = tuple(f"r{i}" for i in range(n))
    standing = {a: draw(st.sampled_from(list(Standing))) for a in args}
    pairs = st.tuples(st.sampled_from(args), st.sampled_from(args))
    dep = draw(st.frozensets(pairs, max_size=3 * n))
    if not cycles:  # keep only edges to lower-numbered records: a DAG
        dep = frozenset((a, b) for a, b in dep if int(a[1:]) > int(b[1:]))
    att = draw(st.frozensets(pairs, max_size=2 * n))
    return RandomMap(args, standing, dep, att)


def spec_map(state: DependencyMap) -> core.DependencyMap:
    """The reference's live map as the spec's value (Args, Att, st, Dep)."""
    return core.DependencyMap(
        args=frozenset(state.records),
        att=frozenset((a, t) for a, ts in state.att.items() for t in ts),
        standing={r: s.value for r, s in state.standing.items()},
        dep=frozenset((r, s) for r, ss in state.dep.items() for s in ss),
    )


AGENTS = ("a", "b", "c")
_claims = st.sampled_from(["p", "q", "the token bug"])
_agents = st.lists(st.sampled_from(AGENTS), max_size=2, unique=True).map(tuple)


def operations_over(existing: tuple[str, ...]) -> st.SearchStrategy[Operation]:
    """Well-formed operations that mostly cite ``existing`` records and mostly register fresh
    ones, so sequences grow real maps (cycles included) while still breaking preconditions."""
    fresh = st.sampled_from([f"n{len(existing)}_{k}" for k in range(6)])
    if not existing:  # nothing to cite yet: register
        return st.builds(Observe, id=fresh, claim=_claims)
    # A citation names an unknown record about once in 20 * len(existing) draws.
    cited = st.sampled_from((*existing * 20, "ghost"))
    # A registration reuses an existing identifier about once in ten.
    new = st.one_of(*[fresh] * 9, st.sampled_from(existing))
    cited_tuple = st.lists(cited, max_size=3, unique=True).map(tuple)
    evidence = [
        st.builds(
            cls, target=cited, evidence=new, evidence_claim=_claims, evidence_depends_on=cited_tuple
        )
        for cls in (Support, Undermine)
    ] + [st.builds(cls, target=cited, evidence=cited) for cls in (Support, Undermine)]
    return st.one_of(
        st.builds(Observe, id=new, claim=_claims, depends_on=cited_tuple),
        st.builds(Hypothesize, id=new, claim=_claims, depends_on=cited_tuple),
        *evidence,
        st.builds(Revise, target=cited, attackers=cited_tuple),
        st.builds(Resolve, target=cited, subsumes=cited_tuple),
        st.builds(
            Resolve,
            target=cited,
            subsumes=cited_tuple,
            authoritative=st.just(True),
            premises=cited_tuple,
            dissenters=_agents,
        ),
        st.builds(ExpandAwareness, atom=st.sampled_from(["p", "q", "r"]), agents=_agents),
        st.builds(Question, id=new, claim=_claims, depends_on=cited_tuple),
    )


def turns_over(existing: tuple[str, ...]) -> st.SearchStrategy[Turn]:
    """Turns of up to three operations over ``existing`` records."""
    return st.builds(
        Turn,
        speaker=st.sampled_from(AGENTS),
        operations=st.lists(operations_over(existing), min_size=1, max_size=3).map(tuple),
    )
