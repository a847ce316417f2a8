"""Cost of a hard announcement and of a lexicographic upgrade against |W| (Proposition 2.5).

    .venv/bin/python -O -m tests.benchmarks.bench_epistemic [MAX_ATOMS]   # contracts off
    .venv/bin/python -m tests.benchmarks.bench_epistemic [MAX_ATOMS]      # contracts on

For k = 4 .. MAX_ATOMS (default 16) atoms the model has |W| = 2^k worlds, three agents,
each with two cells (split on the first atom) and ranks spread over 8 levels, so that the
upgrade really sorts.  A fresh model is used for every timed call, so the formula's atom
extension is computed each time (one pass over W) rather than read from a cache.  Printed
per size: the best of 5 runs of [!psi] (psi = p1 | p2, keeping 3/4 of W) and of [up-up p1]
(all three agents), with the time per world and, for the upgrade, per |W| log2 |W|.  The
O(|W|) and O(|W| log |W|) shapes show as flat columns.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable

from gcv.reference.epistemic.formula import parse
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.updates import announce, lexicographic_upgrade

AGENTS = ("a", "b", "c")


def _model(k: int, seed: int = 0) -> PlausibilityModel:
    rng = random.Random(seed)
    n = 1 << k
    atoms = tuple(f"p{j}" for j in range(k))
    aware = dict.fromkeys(AGENTS, frozenset(atoms))
    cells = {a: tuple(w & 1 for w in range(n)) for a in AGENTS}
    ranks = {a: tuple(rng.randrange(8) for _ in range(n)) for a in AGENTS}
    return PlausibilityModel(AGENTS, atoms, aware, tuple(range(n)), cells, ranks)


def _best_seconds(
    make: Callable[[], PlausibilityModel], run: Callable[[PlausibilityModel], object]
) -> float:
    best = math.inf
    for _ in range(5):
        model = make()
        start = time.perf_counter()
        run(model)
        best = min(best, time.perf_counter() - start)
    return best


def main(max_atoms: int = 16) -> None:
    psi, gamma = parse("p1 | p2"), parse("p1")
    print(f"contracts {'off' if not __debug__ else 'on'}; 3 agents; best of 5 runs")
    print(
        f"{'k':>3} {'|W|':>7} {'[!psi] ms':>10} {'us/world':>9} {'[up-up] ms':>11} "
        f"{'us/world':>9} {'ns/(W log W)':>13}"
    )
    for k in range(4, max_atoms + 1):
        n = 1 << k
        base = _model(k)

        def fresh(base: PlausibilityModel = base) -> PlausibilityModel:
            # Same parts, empty caches: the atom extension is recomputed in every run.
            return base.with_parts(ranks={a: base.ranks(a) for a in AGENTS})

        hard = _best_seconds(fresh, lambda m: announce(m, psi))
        soft = _best_seconds(fresh, lambda m: lexicographic_upgrade(m, gamma))
        print(
            f"{k:>3} {n:>7} {hard * 1e3:>10.3f} {hard / n * 1e6:>9.3f} {soft * 1e3:>11.3f} "
            f"{soft / n * 1e6:>9.3f} {soft / (n * math.log2(n)) * 1e9:>13.1f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 16)
