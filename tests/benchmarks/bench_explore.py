"""Cost of ``gcv explore``'s page: its steps are built in one pass, linear in turns.

    python -m tests.benchmarks.bench_explore [--quick]

For conversations of n turns (``tests.test_explore.long_conversation``: an
observation each turn, and a hypothesis resting on it and on the one before)
it prints the CPU and wall seconds of the page's steps (one replay, each step
holding only what its turn changed) and of the whole page (with the one Graphviz
layout), with the time per turn, which stays flat when the cost is linear.  The
page once replayed every prefix anew: quadratic.  Each step stores the answers its
turn changed, so a conversation whose every turn lengthens one chain of Dep links
changes every answer along it and costs more.  Not a test: the figures depend
on the machine.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

from gcv.explore import explorer_page, steps_of
from gcv.trace import load_trace
from tests.test_explore import long_conversation


def _times(work: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def main(argv: list[str]) -> int:
    sizes = (50, 100, 200) if "--quick" in argv else (100, 200, 400, 800)
    head = ("turns", "steps cpu s", "wall s", "ms/turn", "page cpu s", "wall s")
    print("{:>6} {:>12} {:>8} {:>8} {:>11} {:>8}".format(*head))
    for turns in sizes:
        trace = load_trace(json.dumps(long_conversation(turns)))
        steps_cpu, steps_wall = _times(lambda: steps_of(trace))  # noqa: B023
        page_cpu, page_wall = _times(lambda: explorer_page(trace))  # noqa: B023
        per_turn = 1000 * steps_cpu / turns
        print(
            f"{turns:>6} {steps_cpu:>12.2f} {steps_wall:>8.2f} {per_turn:>8.2f}"
            f" {page_cpu:>11.2f} {page_wall:>8.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
