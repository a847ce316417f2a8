"""The compiled walk checked equal to the pure one: every small map, and long ones.

The pure walk of :mod:`gcv.reference.closure` is the definition; the kernel compiled from
``reference/gcv/reference/_walk.c`` answers the Verifier's queries only when its build passed
:func:`first_difference` (``setup.py`` runs it on the built file and records the build it
checked; :data:`gcv.reference.closure.KERNEL` says whether it did).  The tests run it
deeper (``tests/test_walk_kernel.py``).

What is compared, on each map, for each start record: Verify's whole answer (acceptance,
Dep*(alpha) in the walk's order, the witness and its path), Affected* and Affected* within
S_t (the records, in order).  The maps:

- **every small map** of n records (n = 1 .. ``records``): every Dep relation over them,
  each record's links listed in increasing order, with every assignment of S_t, and every
  start record (or record 0 only, ``every_start=False``);
- **long maps** past the kernel's first 64 slots (its buffers then grow, doubling): chains,
  fans, cycles through every record, lattices and a dense map of 63 to 300 records, with
  S_t full, without its last record, and every seventh record out of it, queried from
  records at both ends and in the middle, queried small after large (stale marks) and
  large after small (growth).

References
----------
Grounded Continuation, Lemma 2.1 (Verify), Definition 2.3 (Affected*), Proposition 2.5.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from gcv.reference.closure import Queries
from gcv.reference.identifiers import RecordId

__all__ = ["LONG_SIZES", "NumberedMap", "first_difference", "long_maps", "small_maps", "standings"]


@dataclass(frozen=True)
class NumberedMap:
    """Dep over records 0 .. n-1 as the map numbers it: links, reverse links, S_t, names."""

    label: str
    supports: list[array[int]]
    dependents: list[array[int]]
    good: bytearray
    name: list[RecordId]

    @classmethod
    def of(cls, label: str, links: Sequence[Sequence[int]], good: Sequence[bool]) -> NumberedMap:
        """The numbered arrays of the map whose record i links to ``links[i]``."""
        dependents: list[array[int]] = [array("i") for _ in links]
        for record, targets in enumerate(links):
            for target in targets:
                dependents[target].append(record)
        name = [RecordId(f"r{i}") for i in range(len(links))]
        return cls(label, [array("i", t) for t in links], dependents, bytearray(good), name)

    def verify_and_active(self, queries: Queries, start: int) -> tuple[object, ...]:
        """Verify and Affected* within S_t from ``start``, by ``queries``."""
        return (
            queries.grounding(self.supports, self.good, self.name, start),
            queries.affected_star_active(self.dependents, self.good, self.name, start),
        )

    def answers(self, queries: Queries, start: int) -> tuple[object, ...]:
        """Verify, Affected* and Affected* within S_t from ``start``, by ``queries``."""
        return (
            queries.grounding(self.supports, self.good, self.name, start),
            queries.affected_star(self.dependents, self.name, start),
            queries.affected_star_active(self.dependents, self.good, self.name, start),
        )


def small_maps(records: int) -> Iterator[NumberedMap]:
    """Every Dep relation over exactly ``records`` records (links increasing), S_t full;
    :func:`standings` walks the map through every assignment of S_t."""
    n = records
    for bits in range(1 << (n * n)):
        links = [[j for j in range(n) if bits >> (i * n + j) & 1] for i in range(n)]
        yield NumberedMap.of(f"links {links}", links, [True] * n)


def standings(m: NumberedMap) -> Iterator[str]:
    """Set ``m``'s S_t flags to each assignment in turn, naming it (then all true again)."""
    n = len(m.good)
    for flags in range(1 << n):
        m.good[:] = bytes(flags >> i & 1 for i in range(n))
        yield f"S_t flags {list(m.good)}"
    m.good[:] = bytes([1] * n)


LONG_SIZES = (63, 64, 65, 127, 129, 300)
"""Map sizes around the kernel's first buffer (64 slots) and its doublings."""


def _shapes(n: int) -> dict[str, list[list[int]]]:
    return {
        "chain": [[i - 1] if i else [] for i in range(n)],
        "fan": [[], *([0] for _ in range(1, n - 1)), list(range(1, n - 1))],
        "cycle": [[(i + 1) % n] for i in range(n)],
        "lattice": [[j for j in (i - 1, i - 2) if j >= 0] for i in range(n)],
        "dense": [[j for j in range(n) if (i * 7 + j * 3) % 5 == 0 and j != i] for i in range(n)],
    }


def long_maps() -> Iterator[NumberedMap]:
    """Chains, fans, cycles, lattices and a dense map of each of :data:`LONG_SIZES`
    records, with three assignments of S_t; sizes up, then down."""
    for n in (*LONG_SIZES, *reversed(LONG_SIZES)):
        for shape, links in _shapes(n).items():
            standings = {
                "all": [True] * n,
                "last out": [i != n - 1 for i in range(n)],
                "every 7th out": [i % 7 != 3 for i in range(n)],
            }
            for which, good in standings.items():
                yield NumberedMap.of(f"{shape} of {n} records, S_t {which}", links, good)


def first_difference(
    kernel: Queries, pure: Queries, records: int, *, every_start: bool = True
) -> str | None:
    """The first query on which ``kernel`` and ``pure`` answer differently, or ``None``.

    :func:`long_maps` from records 0, 1, n // 2, n - 2 and n - 1, then every small map of
    1 .. ``records`` records from every start (record 0 only when not ``every_start``).
    """
    for m in long_maps():
        n = len(m.name)
        for start in (0, 1, n // 2, n - 2, n - 1):
            if (got := m.answers(kernel, start)) != (want := m.answers(pure, start)):
                return f"{m.label}, start {start}: kernel {got}, pure {want}"
    for n in range(1, records + 1):
        starts = range(n) if every_start else range(1)
        for m in small_maps(n):
            for start in starts:
                got = kernel.affected_star(m.dependents, m.name, start)
                if got != (want := pure.affected_star(m.dependents, m.name, start)):
                    return f"Affected* on {m.label}, start {start}: kernel {got}, pure {want}"
                for flags in standings(m):
                    if (got := m.verify_and_active(kernel, start)) != (
                        want := m.verify_and_active(pure, start)
                    ):
                        where = f"{m.label}, {flags}, start {start}"
                        return f"{where}: kernel {got}, pure {want}"
    return None
