"""Profile the engine's hot paths with cProfile and print the top entries by own time.

    .venv/bin/python -O -m tests.benchmarks.profile_hot [--top N]   # contracts off
    .venv/bin/python -m tests.benchmarks.profile_hot [--top N]      # contracts on

Three workloads, each profiled on its own: replaying a generated 20,000-turn
conversation through ``Verifier.apply_turn``; 20,000 retraction queries
``affected_star("o5")`` on it; Verify and Affected* on the 100,000-record worst-case
chain (ten of each).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
from collections.abc import Callable

from gcv.reference.verifier import Verifier
from tests.benchmarks.conversation import AGENTS, PLANTED, Conversation, empty_map, worst_case

__all__ = ["main", "profile"]


def profile(work: Callable[[], object], top: int) -> str:
    """Run ``work`` under cProfile; return the ``top`` entries by own (total) time."""
    profiler = cProfile.Profile()
    profiler.enable()
    work()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
    return "\n".join(lines[start : start + top + 1])


def workloads() -> dict[str, Callable[[], object]]:
    """The three profiled workloads, built outside the profiler."""
    conversation = Conversation()
    conversation.grow_to(20_000)
    log = list(conversation.log)
    live = conversation.verifier
    chain = worst_case("chain", 100_000)
    chain_map = Verifier(list(AGENTS))
    for turn in chain.turns:
        chain_map.apply_turn(turn)

    def replay() -> None:
        fresh = empty_map()
        for turn in log:
            fresh.apply_turn(turn)

    def retraction() -> None:
        for _ in range(20_000):
            live.affected_star(PLANTED)

    def worst() -> None:
        for _ in range(10):
            chain_map.verify(chain.verify_from)
            chain_map.affected_star(chain.retract)

    return {"apply_turn replay": replay, "retraction query": retraction, "worst case": worst}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args(argv)
    print(f"contracts {'on' if __debug__ else 'off (python -O)'}")
    for name, work in workloads().items():
        print(f"\n== {name} ==")
        print(profile(work, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
