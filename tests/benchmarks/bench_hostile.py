"""Cost under hostile input: formula parsing and trace replay grow linearly.

    python -m tests.benchmarks.bench_hostile [--quick]

Prints CPU seconds (``time.process_time``) for a flat formula of n conjuncts
(the parser once copied the part tuple at each ``&``: quadratic) and for
``gcv replay``'s work on a trace of n turns (replay once digested D_t before
every turn: quadratic).  Each row also prints the time per unit, which stays
flat when the cost is linear.  Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

from gcv.reference.epistemic.formula import MAX_LENGTH, parse
from gcv.replay import replay
from gcv.trace import load_trace


def _cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def flat_formula(conjuncts: int) -> str:
    """``p & p & ... & p``: the longest flat formula within MAX_LENGTH has 50,000 parts."""
    return (
        " & ".join(["p"] * conjuncts)
        if conjuncts * 4 <= MAX_LENGTH
        else "&".join(["p"] * conjuncts)
    )


def chain_trace(turns: int) -> str:
    """A trace of ``turns`` Observe turns, each resting on the one before, every 10th rejected."""
    rows: list[dict[str, object]] = []
    for n in range(1, turns + 1):
        depends = [f"o{n - 1}"] if n > 1 else []
        rows.append(
            {
                "turn": n,
                "speaker": "a",
                "operations": [
                    {"op": "observe", "id": f"o{n}", "claim": "c", "depends_on": depends}
                ],
            }
        )
        if n % 10 == 0:  # a duplicate id: rejected, and the digest checks D_t is unchanged
            rows.append(
                {
                    "turn": n + 1,
                    "speaker": "a",
                    "rejected": "duplicate-record",
                    "operations": [{"op": "observe", "id": f"o{n}", "claim": "c"}],
                }
            )
    document = {"format": "gcv-trace/1", "agents": {"a": "A"}, "turns": rows}
    return json.dumps(document)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    print("flat formula: conjuncts, CPU s to parse, us per conjunct")
    for n in (6_250, 12_500, 25_000, 50_000):
        text = flat_formula(n)
        seconds = _cpu(lambda text=text: parse(text))
        print(f"  {n:>7,}  {seconds:8.3f}  {1e6 * seconds / n:6.2f}")
    print("replay: turns, CPU s to load and replay, us per turn")
    for n in (1_000, 2_000, 4_000) if quick else (1_000, 4_000, 16_000, 100_000):
        text = chain_trace(n)
        seconds = _cpu(lambda text=text: replay(load_trace(text)))
        count = len(load_trace(text).turns)
        print(f"  {count:>7,}  {seconds:8.3f}  {1e6 * seconds / count:6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
