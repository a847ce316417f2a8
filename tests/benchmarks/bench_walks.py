"""The queries through the API, by the compiled walk and by the pure one, beside a bare
CPython loop and networkx: the table of docs/performance.md, "The walks".

    .venv/bin/python -O -m tests.benchmarks.bench_walks [--lengths 13,2000,20000,200000]
        [--worst 1000000] [--passes 7] [--json OUT]

Each figure is the median over ``--passes`` passes of a loop calibrated to at least 20 ms
of wall time, in the calling thread's CPU time (``time.thread_time``: what the query
itself cost, whatever else the machine runs) beside wall time; the spread is the lowest
and highest pass.  Figures per query, in microseconds (conversation) or milliseconds
(worst cases).

Conversation (``tests.benchmarks.conversation``: Phase 2, then generated turns):
Affected*(o5), whose answer is {h1, h3, h4} at every length, and Verify(h1), an accepted
walk over the records h1 rests on.  Worst cases: each query visits every record.

``API``
    ``Verifier.affected_star`` / ``Verifier.verify``: the argument checks, the walk and
    the named answer (a ``Grounding`` for Verify), with ``closure.COMPILED`` and with
    ``closure.PURE`` answering.
``bare``
    the leanest CPython loop over the same numbered arrays: a reverse breadth-first walk
    with a set of marks returning the list of numbers (Affected*), or a forward one with a
    dict of parents returning only whether the walk accepts (Verify); no checks, no names.
``networkx``
    ``nx.ancestors`` / ``nx.descendants`` on a ``DiGraph`` of Dep by name (beta added when
    on a cycle, as the engine reports it), the graph built beforehand.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import networkx as nx

import gcv.reference.verifier
from gcv.reference.closure import COMPILED, PURE, Links, Queries
from gcv.reference.verifier import Verifier
from tests.benchmarks.conversation import (
    PLANTED,
    PLANTED_AFFECTED,
    SHAPES,
    Conversation,
    worst_case,
)

__all__ = ["Timing", "main", "timed"]

VERIFIED = "h1"
"""Verify's candidate in the conversation: accepted, over the records h1 rests on."""


@dataclass(frozen=True)
class Timing:
    """Seconds per call: thread CPU time (median, lowest and highest pass) and wall time
    (median)."""

    cpu: float
    cpu_low: float
    cpu_high: float
    wall: float


def _calibrated(call: Callable[[], object], budget: float) -> int:
    """How many calls of ``call`` take at least ``budget`` s of wall time."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            call()
        elapsed = time.perf_counter() - start
        if elapsed >= budget or number >= 1 << 20:
            return number
        number *= 2 if elapsed == 0 else max(2, min(10, int(budget / elapsed) + 1))


def timed(
    calls: dict[str, Callable[[], object]],
    *,
    passes: int = 7,
    budget: float = 0.02,
    prepare: Callable[[str], object] = lambda key: None,
) -> dict[str, Timing]:
    """Each call timed over ``passes`` passes of a loop calibrated to ``budget`` s, after
    ``prepare(key)``.  The passes are interleaved (one of each call, then the next round),
    so that a change in what else the machine runs falls on every call alike."""
    numbers = {}
    for key, call in calls.items():
        prepare(key)
        numbers[key] = _calibrated(call, budget)
    cpu: dict[str, list[float]] = {key: [] for key in calls}
    wall: dict[str, list[float]] = {key: [] for key in calls}
    for _ in range(passes):
        for key, call in calls.items():
            number = numbers[key]
            prepare(key)
            gc.collect()
            start_cpu, start_wall = time.thread_time(), time.perf_counter()
            for _ in range(number):
                call()
            cpu[key].append((time.thread_time() - start_cpu) / number)
            wall[key].append((time.perf_counter() - start_wall) / number)
    return {
        key: Timing(statistics.median(c), min(c), max(c), statistics.median(wall[key]))
        for key, c in cpu.items()
    }


def bare_affected_star(dependents: Links, withdrawn: int) -> list[int]:
    """Affected* as the leanest CPython loop: numbers, a set of marks, no checks."""
    seen: set[int] = set()
    queue = [withdrawn]
    for record in queue:
        for dependent in dependents[record]:
            if dependent not in seen:
                seen.add(dependent)
                queue.append(dependent)
    return queue[1:]


def bare_verify(supports: Links, good: Sequence[int], start: int) -> bool:
    """Verify as the leanest CPython loop: a dict of parents, the verdict only."""
    if not good[start]:
        return False
    parents = {start: start}
    queue = [start]
    for record in queue:
        for support in supports[record]:
            if support not in parents:
                parents[support] = record
                if not good[support]:
                    return False
                queue.append(support)
    return True


@contextmanager
def answered_by(queries: Queries) -> Iterator[None]:
    """The Verifier asks ``queries`` for the duration."""
    saved = gcv.reference.verifier.QUERIES
    gcv.reference.verifier.QUERIES = queries
    try:
        yield
    finally:
        gcv.reference.verifier.QUERIES = saved


def _graph(verifier: Verifier) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(verifier.state.records)
    graph.add_edges_from((r, s) for r, supports in verifier.state.dep.items() for s in supports)
    return graph


def _nx_affected_star(graph: nx.DiGraph, beta: str) -> set[str]:
    found: set[str] = nx.ancestors(graph, beta)
    if any(s == beta or nx.has_path(graph, s, beta) for s in graph.successors(beta)):
        found.add(beta)
    return found


def _row(
    verifier: Verifier, verify_from: str, retract: str, passes: int, budget: float
) -> dict[str, Any]:
    """Every timing of one map; the answers checked equal first."""
    n = verifier.state.numbering
    start, beta = n.number[verify_from], n.number[retract]
    graph = _graph(verifier)
    answers = {}
    for queries in (PURE, COMPILED or PURE):
        with answered_by(queries):
            answers[queries.walk] = (verifier.verify(verify_from), verifier.affected_star(retract))
    grounding, affected = answers[PURE.walk]
    assert len(set(answers.values())) == 1, "the walks disagree"
    assert grounding.grounded == bare_verify(n.supports, n.good, start)
    assert [n.name[i] for i in bare_affected_star(n.dependents, beta)] == list(affected)
    assert set(nx.descendants(graph, verify_from)) | {verify_from} == set(grounding.closure)
    assert _nx_affected_star(graph, retract) == set(affected)
    row: dict[str, Any] = {
        "records": len(n.name),
        "dep_links": sum(len(s) for s in n.supports),
        "verify_visits": len(grounding.closure),
        "affected": len(affected),
    }

    calls: dict[str, Callable[[], object]] = {}
    for queries in (COMPILED, PURE):
        if queries is None:
            continue
        key = "compiled" if queries is COMPILED else "pure"
        calls[f"verify_{key}"] = partial(verifier.verify, verify_from)
        calls[f"affected_{key}"] = partial(verifier.affected_star, retract)
    calls["verify_bare"] = partial(bare_verify, n.supports, n.good, start)
    calls["affected_bare"] = partial(bare_affected_star, n.dependents, beta)
    calls["verify_networkx"] = partial(nx.descendants, graph, verify_from)
    calls["affected_networkx"] = partial(_nx_affected_star, graph, retract)
    with answered_by(PURE):  # restored afterwards; each API call set before its passes
        timings = timed(calls, passes=passes, budget=budget, prepare=_answering)
    for key, timing in timings.items():
        row[key] = asdict(timing)
    return row


def _answering(key: str) -> None:
    """Make the Verifier ask the walk a call's key names (``..._compiled``, ``..._pure``)."""
    if key.endswith("_compiled") and COMPILED is not None:
        gcv.reference.verifier.QUERIES = COMPILED
    elif key.endswith("_pure"):
        gcv.reference.verifier.QUERIES = PURE


def conversation_rows(lengths: Sequence[int], passes: int) -> list[dict[str, Any]]:
    """Affected*(o5) and Verify(h1) on one conversation grown through ``lengths`` turns."""
    conversation, rows = Conversation(keep_log=False), []
    for turns in lengths:
        conversation.grow_to(turns)
        verifier = conversation.verifier
        assert set(verifier.affected_star(PLANTED)) == PLANTED_AFFECTED
        rows.append({"turns": turns, **_row(verifier, VERIFIED, PLANTED, passes, 0.02)})
        print(f"  {turns:,} turns measured", file=sys.stderr, flush=True)
    return rows


def worst_rows(sizes: Sequence[int], passes: int) -> list[dict[str, Any]]:
    """Verify and Affected* visiting every record of each worst-case shape."""
    rows = []
    for shape in SHAPES:
        for size in sizes:
            case = worst_case(shape, size)
            verifier = Verifier(("a", "b", "c"))
            for turn in case.turns:
                verifier.apply_turn(turn)
            row = _row(verifier, case.verify_from, case.retract, passes, 0.0)
            rows.append({"shape": shape, "size": size, **row})
            print(f"  {shape} {size:,} measured", file=sys.stderr, flush=True)
            del verifier, case
            gc.collect()
    return rows


def _cell(timing: dict[str, float], scale: float, digits: int) -> str:
    return (
        f"{timing['cpu'] * scale:.{digits}f} "
        f"({timing['cpu_low'] * scale:.{digits}f}-{timing['cpu_high'] * scale:.{digits}f}; "
        f"wall {timing['wall'] * scale:.{digits}f})"
    )


def _ratio(row: dict[str, Any], query: str, over: str) -> str:
    if f"{query}_compiled" not in row:
        return "n/a"
    return f"{row[f'{query}_compiled']['cpu'] / row[f'{query}_{over}']['cpu']:.2f}"


def tables(results: dict[str, Any]) -> str:
    """The two tables, in Markdown."""
    columns = ("compiled", "pure", "bare", "networkx")
    out = [
        "Conversation, per query in us: thread CPU median (lowest-highest pass; wall median)",
        "",
        "| turns | records | query | API, compiled | API, pure | bare loop | networkx "
        "| compiled / bare | pure / bare |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    queries = (("affected", f"Affected*({PLANTED})"), ("verify", f"Verify({VERIFIED})"))
    for row in results["conversation"]:
        for query, label in queries:
            cells = [
                _cell(row[f"{query}_{c}"], 1e6, 2) if f"{query}_{c}" in row else "n/a"
                for c in columns
            ]
            pure_over_bare = row[f"{query}_pure"]["cpu"] / row[f"{query}_bare"]["cpu"]
            out.append(
                f"| {row['turns']:,} | {row['records']:,} | {label} | {' | '.join(cells)} "
                f"| {_ratio(row, query, 'bare')} | {pure_over_bare:.2f} |"
            )
    out += [
        "",
        "Worst cases, per query in ms: thread CPU median (lowest-highest pass; wall median)",
        "",
        "| shape | records | query | API, compiled | API, pure | bare loop | networkx "
        "| compiled / pure |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in results["worst"]:
        for query, label in (("verify", "Verify"), ("affected", "Affected*")):
            cells = [
                _cell(row[f"{query}_{c}"], 1e3, 1) if f"{query}_{c}" in row else "n/a"
                for c in columns
            ]
            out.append(
                f"| {row['shape']} | {row['size']:,} | {label} | {' | '.join(cells)} "
                f"| {_ratio(row, query, 'pure')} |"
            )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="13,2000,20000,200000")
    parser.add_argument("--worst", default="1000000")
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    worst_passes = max(3, args.passes // 2)
    results = {
        "python": sys.version.split()[0],
        "contracts": "on" if __debug__ else "off (python -O)",
        "compiled": COMPILED is not None,
        "passes": args.passes,
        "worst_passes": worst_passes,
        "conversation": conversation_rows([int(s) for s in args.lengths.split(",")], args.passes),
        "worst": worst_rows([int(s) for s in args.worst.split(",") if s], worst_passes),
    }
    print(f"Python {results['python']}, contracts {results['contracts']}")
    print(tables(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
