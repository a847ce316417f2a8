"""Time Verify and Affected* on one generated conversation (a quick look; the table of
docs/performance.md is ``tests.benchmarks.bench_walks``, the full suite
``python -m tests.benchmarks``).

    .venv/bin/python -m tests.benchmarks.bench_queries [TURNS]      # contracts on
    .venv/bin/python -O -m tests.benchmarks.bench_queries [TURNS]   # contracts off

Prints the map's size, the walk answering (gcv --version names it), the time per query
over every record, and the retraction query Affected*(o5), whose answer is {h1, h3, h4}
at every length: each the median of seven passes in thread CPU time, with the lowest and
highest pass, beside the median wall time.
"""

from __future__ import annotations

import sys

from gcv.reference.closure import QUERIES
from tests.benchmarks.bench_walks import Timing, timed
from tests.benchmarks.conversation import PLANTED, Conversation


def _us(timing: Timing, per: int = 1) -> str:
    cpu, low, high = (t / per * 1e6 for t in (timing.cpu, timing.cpu_low, timing.cpu_high))
    return f"{cpu:8.2f} us CPU ({low:.2f}-{high:.2f}), {timing.wall / per * 1e6:8.2f} us wall"


def main(turns: int = 2000) -> None:
    conversation = Conversation()
    conversation.grow_to(turns)
    v = conversation.verifier
    records = list(v.state.records)
    edges = sum(len(s) for s in v.state.dep.values())
    contracts = "on" if __debug__ else "off"
    print(f"{turns} turns: {len(records)} records, {edges} Dep links, contracts {contracts}")
    print(f"walk: {QUERIES.walk}")

    def verify_all() -> None:
        for r in records:
            v.verify(r)

    def star_all() -> None:
        for r in records:
            v.affected_star(r)

    timings = timed(
        {
            "verify": verify_all,
            "star": star_all,
            "single": lambda: v.affected_star(PLANTED),
        }
    )
    size = len(v.affected_star(PLANTED))
    print(f"verify        per record: {_us(timings['verify'], len(records))}")
    print(f"affected_star per record: {_us(timings['star'], len(records))}")
    print(f"affected_star({PLANTED}) with |Affected*| = {size}: {_us(timings['single'])}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
