"""Time Verify and Affected* on one generated conversation (a quick look; the full
benchmark is ``python -m tests.benchmarks``).

    .venv/bin/python -m tests.benchmarks.bench_queries [TURNS]      # contracts on
    .venv/bin/python -O -m tests.benchmarks.bench_queries [TURNS]   # contracts off

Prints the map's size, the median time per query over every record, and the
retraction query Affected*(o5), whose answer is {h1, h3, h4} at every length.
"""

from __future__ import annotations

import sys

from tests.benchmarks.conversation import PLANTED, Conversation
from tests.benchmarks.suite import median_seconds


def main(turns: int = 2000) -> None:
    conversation = Conversation()
    conversation.grow_to(turns)
    v = conversation.verifier
    records = list(v.state.records)
    edges = sum(len(s) for s in v.state.dep.values())
    contracts = "on" if __debug__ else "off"
    print(f"{turns} turns: {len(records)} records, {edges} Dep links, contracts {contracts}")

    def verify_all() -> None:
        for r in records:
            v.verify(r)

    def star_all() -> None:
        for r in records:
            v.affected_star(r)

    verify_us = median_seconds(verify_all, repeat=5) / len(records) * 1e6
    star_us = median_seconds(star_all, repeat=5) / len(records) * 1e6
    single_us = median_seconds(lambda: v.affected_star(PLANTED)) * 1e6
    size = len(v.affected_star(PLANTED))
    print(f"verify        median over all records: {verify_us:8.2f} us")
    print(f"affected_star median over all records: {star_us:8.2f} us")
    print(f"affected_star({PLANTED}) with |Affected*| = {size}: {single_us:8.2f} us")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
