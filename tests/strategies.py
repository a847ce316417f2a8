"""Hypothesis strategies shared by the tests: random dependency maps and operations."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from gcv.conformance.fuzz_strategies import AGENTS, typed_operations_over
from gcv.reference.closure import Grounding, dependency_walk, one_step_affected, reverse_closure
from gcv.reference.records import GOOD_STANDING, Standing
from gcv.reference.verifier import Turn
from gcv.spec import core


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

    def _numbers(self) -> tuple[list[list[int]], list[list[int]], list[bool]]:
        # args are r0 .. r(n-1), so record ri is number i
        at = {r: i for i, r in enumerate(self.args)}
        supports = [[at[s] for s in self.dep.get(r, ())] for r in self.args]
        dependents = [[at[d] for d in self.rdep.get(r, ())] for r in self.args]
        good = [self.standing[r] in GOOD_STANDING for r in self.args]
        return supports, dependents, good

    def walk(self, start: str) -> Grounding:
        """The engine's Verify walk from ``start`` on this map, named back."""
        supports, _, good = self._numbers()
        return dependency_walk(supports, good, self.args.index(start)).named(start, self.args)

    def affected(self, beta: str) -> tuple[str, ...]:
        """The engine's one-step Affected(beta) on this map."""
        _, dependents, _ = self._numbers()
        return tuple(self.args[i] for i in one_step_affected(dependents, self.args.index(beta)))

    def affected_star(self, beta: str) -> tuple[str, ...]:
        """The engine's Affected*(beta) on this map."""
        _, dependents, _ = self._numbers()
        return tuple(self.args[i] for i in reverse_closure(dependents, self.args.index(beta)))

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


# The conformance fuzzer's generator: one strategy for the tests and the fuzzer.
operations_over = typed_operations_over


def turns_over(existing: tuple[str, ...]) -> st.SearchStrategy[Turn]:
    """Turns of up to three operations over ``existing`` records."""
    return st.builds(
        Turn,
        speaker=st.sampled_from(AGENTS),
        operations=st.lists(operations_over(existing), min_size=1, max_size=3).map(tuple),
    )
