"""Time what the Interpreter's validation adds to a turn, as the conversation grows.

    .venv/bin/python -O -m tests.benchmarks.bench_interpret [TURNS ...]   # contracts off
    .venv/bin/python -m tests.benchmarks.bench_interpret [TURNS ...]      # contracts on

For a generated conversation of each length, times one three-operation reply
through ``read_reply`` (text and schema), ``check_turn`` (the engine on a copy:
O(|D_t|), the cost of measuring without committing) and ``apply_turn`` on the
verifier (what a deployed interpreter pays, O(changes)).
"""

from __future__ import annotations

import copy
import json
import random
import statistics
import sys
import time
import timeit

from gcv.interpret.validate import check_turn, read_reply
from gcv.reference.operations import Hypothesize, Observe, Question
from gcv.reference.verifier import Turn, Verifier


def generate(turns: int, seed: int = 0) -> Verifier:
    """A conversation of ``turns`` turns: each registers an observation, a hypothesis
    resting on up to three earlier records, and every fifth turn a question."""
    rng = random.Random(seed)
    v = Verifier(["a", "b", "c"])
    for n in range(turns):
        earlier = list(v.state.records)
        rests = tuple(rng.sample(earlier, min(3, len(earlier))))
        ops: list[Observe | Hypothesize | Question] = [
            Observe(f"o{n}", f"fact {n}"),
            Hypothesize(f"h{n}", f"explanation {n}", depends_on=rests),
        ]
        if n % 5 == 0:
            ops.append(Question(f"q{n}", f"why {n}?"))
        v.apply_turn(Turn("abc"[n % 3], tuple(ops)))
    return v


def _microseconds(call: object, number: int) -> float:
    timer = timeit.Timer(call)  # type: ignore[arg-type]
    return min(timer.repeat(repeat=5, number=number)) / number * 1e6


def _row(turns: int) -> str:
    v = generate(turns)
    cited = next(iter(v.state.records))
    reply = json.dumps(
        {
            "operations": [
                {"op": "observe", "id": "bench-o", "claim": "a new fact"},
                {"op": "hypothesize", "id": "bench-h", "claim": "why", "depends_on": [cited]},
                {"op": "question", "id": "bench-q", "claim": "so what?"},
            ]
        }
    )
    operations = read_reply(reply).operations
    assert operations is not None
    speaker = v.state.agents[0]
    read_us = _microseconds(lambda: read_reply(reply), 200)
    check_us = _microseconds(lambda: check_turn(v, speaker, operations), 5)
    # apply_turn commits, so each timed call gets its own copy, made beforehand.
    copies = [copy.deepcopy(v) for _ in range(20)]
    times = []
    for each in copies:
        started = time.perf_counter()
        each.apply_turn(Turn(speaker, operations))
        times.append(time.perf_counter() - started)
    apply_us = statistics.median(times) * 1e6
    return (
        f"{turns:>6} {len(v.state.records):>8} {read_us:>10.1f}us {check_us:>10.1f}us "
        f"{apply_us:>10.1f}us"
    )


def main(lengths: list[int]) -> None:
    print(f"contracts {'off' if not __debug__ else 'on'}")
    print(f"{'turns':>6} {'records':>8} {'read_reply':>12} {'check_turn':>12} {'apply_turn':>12}")
    for turns in lengths:
        print(_row(turns))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [13, 200, 2000])
