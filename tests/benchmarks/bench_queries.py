"""Time Verify and Affected* on a generated conversation.

    .venv/bin/python -m tests.benchmarks.bench_queries [TURNS]      # contracts on
    .venv/bin/python -O -m tests.benchmarks.bench_queries [TURNS]   # contracts off

Prints the map's size and the mean time per query over every record, and for the
first observation (a premise with a small affected set).
"""

from __future__ import annotations

import sys
import timeit

from tests.benchmarks.conversation import generate


def _mean_microseconds(call: object, repeat: int) -> float:
    timer = timeit.Timer(call)  # type: ignore[arg-type]
    return min(timer.repeat(repeat=5, number=repeat)) / repeat * 1e6


def main(turns: int = 2000) -> None:
    v = generate(turns)
    records = list(v.state.records)
    edges = sum(len(s) for s in v.state.dep.values())
    print(f"{turns} turns: {len(records)} records, {edges} Dep links, contracts {'off' if not __debug__ else 'on'}")

    def every(query: object) -> None:
        for r in records:
            query(r)  # type: ignore[operator]

    verify_us = _mean_microseconds(lambda: every(v.verify), 3) / len(records)
    star_us = _mean_microseconds(lambda: every(v.affected_star), 3) / len(records)
    premise = "o1"
    single_us = _mean_microseconds(lambda: v.affected_star(premise), 2000)
    print(f"verify        mean over all records: {verify_us:8.2f} us")
    print(f"affected_star mean over all records: {star_us:8.2f} us")
    print(f"affected_star({premise}) with |Affected*| = {len(v.affected_star(premise))}: {single_us:8.2f} us")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
