"""Why the walks have two phases: the engine's queries against one-phase variants.

    .venv/bin/python -O -m tests.benchmarks.bench_walk_phases [--sizes 100000,1000000]

``reference/closure.py`` keeps a walk's marks in a dict until the walk has reached 1/16
of the map, then in a flat array.  A one-phase walk keeping its marks in a dict (or a
set, for Affected*) throughout reads more simply; this prints what it would cost on
the worst-case maps of ``tests.benchmarks.suite`` (each query visiting every record),
as the one-phase time over the engine's.  A flat array from the start is not a
candidate: allocating O(|Args|) per query breaks Proposition 2.5's bound for a small
query on a long conversation.
"""

from __future__ import annotations

import argparse
import gc
from collections.abc import Sequence

from gcv.reference.closure import Links, dependency_walk, reverse_closure
from gcv.reference.verifier import Verifier
from tests.benchmarks.conversation import SHAPES, worst_case
from tests.benchmarks.suite import median_seconds

__all__ = ["main"]


def one_phase_walk(supports: Links, good: Sequence[int], start: int) -> bool:
    """The Verify walk with its marks (1 + the record each was reached from) in a dict."""
    if not good[start]:
        return False
    marks = {start: start + 1}
    queue = [start]
    for record in queue:
        for support in supports[record]:
            if support not in marks:
                marks[support] = record + 1
                if not good[support]:
                    return False
                queue.append(support)
    return True


def one_phase_closure(dependents: Links, withdrawn: int) -> tuple[int, ...]:
    """Affected* with its marks in a set."""
    seen: set[int] = set()
    queue = [withdrawn]
    for record in queue:
        for dependent in dependents[record]:
            if dependent not in seen:
                seen.add(dependent)
                queue.append(dependent)
    return tuple(queue[1:])


def ratios(shape: str, size: int) -> tuple[float, float]:
    """One phase's time over two phases', for Verify and for Affected*, on one worst case."""
    case = worst_case(shape, size)
    verifier = Verifier(("a", "b", "c"))
    for turn in case.turns:
        verifier.apply_turn(turn)
    n = verifier.state.numbering
    supports, dependents, good = n.supports, n.dependents, n.good
    start, beta = n.number[case.verify_from], n.number[case.retract]
    assert one_phase_walk(supports, good, start) == dependency_walk(supports, good, start).grounded
    assert one_phase_closure(dependents, beta) == reverse_closure(dependents, beta)
    runs = 5 if size <= 100_000 else 3
    two = median_seconds(lambda: dependency_walk(supports, good, start), repeat=runs)
    one = median_seconds(lambda: one_phase_walk(supports, good, start), repeat=runs)
    two_star = median_seconds(lambda: reverse_closure(dependents, beta), repeat=runs)
    one_star = median_seconds(lambda: one_phase_closure(dependents, beta), repeat=runs)
    return one / two, one_star / two_star


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    args = parser.parse_args(argv)
    print("| shape | records | Verify: one phase / two | Affected*: one phase / two |")
    print("|---|---:|---:|---:|")
    for shape in SHAPES:
        for size in (int(s) for s in args.sizes.split(",")):
            verify, affected = ratios(shape, size)
            print(f"| {shape} | {size:,} | {verify:.2f}x | {affected:.2f}x |", flush=True)
            gc.collect()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
