"""The queries through the API, by the compiled walk and by the pure one, beside a bare
CPython loop and networkx: the table of docs/performance.md, "The walks".

    .venv/bin/python -O -m tests.benchmarks.bench_walks [--lengths 13,2000,20000,200000]
        [--worst 1000000] [--passes 7] [--json OUT] [--write]
    .venv/bin/python -O -m tests.benchmarks.bench_walks --from OUT --write
    .venv/bin/python -O -m tests.benchmarks.bench_walks --before main [--lengths ...]

``--write`` puts the tables into docs/performance.md (between its walks markers) and the
figures into docs/walks-performance.json; ``--from`` renders a run saved with ``--json``
instead of measuring; ``--before REF`` measures only the pure walk, as
``reference/gcv/reference/closure.py`` was at the git REF and as it is now, through the API and
bare, in one run.

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
    the pure walk alone, ``closure.reverse_closure`` / ``closure.dependency_walk`` under
    python -O: a plain CPython breadth-first loop over the same numbered arrays, its marks
    in a set (a dict of parents for Verify) and then, from 1 in 16 records, flat (a
    bytearray; an array('i') of parents), answering with numbers; no argument checks, no
    names.
``networkx``
    ``nx.ancestors`` / ``nx.descendants`` on a ``DiGraph`` of Dep by name (beta added when
    on a cycle, as the engine reports it), the graph built beforehand.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import networkx as nx

import gcv.reference.closure
import gcv.reference.verifier
from gcv.proofs.code.bindings import load_module
from gcv.reference.closure import COMPILED, PURE, dependency_walk, reverse_closure
from gcv.reference.verifier import Verifier
from tests.benchmarks.bench_store import splice
from tests.benchmarks.conversation import (
    PLANTED,
    PLANTED_AFFECTED,
    SHAPES,
    Conversation,
    worst_case,
)
from tests.benchmarks.suite import calibrated
from tests.maps import answered_by

__all__ = ["BEGIN", "END", "Timing", "main", "timed"]

BEGIN, END = "<!-- walks: begin -->", "<!-- walks: end -->"
LABELS = {"verify": "Verify", "affected": "Affected*"}
DOCS = Path(__file__).resolve().parents[2] / "docs"

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
        numbers[key], _ = calibrated(call, budget)
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
    assert grounding.grounded == dependency_walk(n.supports, n.good, start).grounded
    assert [n.name[i] for i in reverse_closure(n.dependents, beta)] == list(affected)
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
    calls["verify_bare"] = partial(dependency_walk, n.supports, n.good, start)
    calls["affected_bare"] = partial(reverse_closure, n.dependents, beta)
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


def _worst_ratios(results: dict[str, Any], query: str) -> str:
    ratios = [
        row[f"{query}_compiled"]["cpu"] / row[f"{query}_pure"]["cpu"]
        for row in results["worst"]
        if f"{query}_compiled" in row
    ]
    return f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "n/a"


def _conversation_ratios(results: dict[str, Any], query: str, walk: str) -> str:
    ratios = [
        row[f"{query}_{walk}"]["cpu"] / row[f"{query}_bare"]["cpu"]
        for row in results["conversation"]
        if f"{query}_{walk}" in row
    ]
    return f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "n/a"


def section(results: dict[str, Any]) -> str:
    """The walks' section of docs/performance.md."""
    compiled = [row["affected_compiled"]["cpu"] * 1e6 for row in results["conversation"]]
    lengths = ", ".join(f"{row['turns']:,}" for row in results["conversation"])
    load = results["load_average"]
    query, slowest = max(
        ((q, row) for row in results["worst"] for q in ("verify", "affected")),
        key=lambda pair: float(pair[1][pair[0] + "_pure"]["cpu"]),
    )
    return (
        "## The walks: compiled and pure, against a bare loop and networkx\n\n"
        "Measured by `.venv/bin/python -O -m tests.benchmarks.bench_walks --write` "
        f"(Python {results['python']}, contracts off; {results['passes']} interleaved passes "
        f"per figure on the conversation, {results['worst_passes']} on the worst cases; 2 "
        f"cores shared with other work, load average {load[0]:.1f} at the start and "
        f"{load[1]:.1f} at the end). Each figure is the median of the passes in the "
        "calling thread's CPU time, with the lowest and highest pass and the median wall "
        "time: the machine's load shows in the wall time, much less in the CPU time. "
        "*API* is the Verifier's query (argument checks, the walk, the named answer), "
        "answered by the compiled walk (`reference/gcv/reference/_walk.c`) or the pure one "
        "(`reference/gcv/reference/closure.py`); *bare loop* is the pure walk alone "
        "(`reverse_closure`, `dependency_walk`): a plain CPython breadth-first loop over the "
        "same numbered arrays, with no argument checks and no names; *networkx* is "
        "`nx.ancestors` / `nx.descendants` on a `DiGraph` of Dep by name.\n\n"
        + tables(results)
        + "\n\n"
        f"Affected*(o5) through the API: {min(compiled):.2f}-{max(compiled):.2f} us with the "
        f"compiled walk over {lengths} turns (paper, Section 4.5: 0.25-0.46 us over "
        "13-2,000 turns, language and machine not stated); compiled over bare loop "
        f"{_conversation_ratios(results, 'affected', 'compiled')} (Verify(h1): "
        f"{_conversation_ratios(results, 'verify', 'compiled')}); pure over bare loop "
        f"{_conversation_ratios(results, 'affected', 'pure')} (Verify(h1): "
        f"{_conversation_ratios(results, 'verify', 'pure')}). On the worst cases the compiled "
        f"walk takes {_worst_ratios(results, 'verify')} of the pure walk's time for Verify "
        f"and {_worst_ratios(results, 'affected')} for Affected*; without it the slowest "
        f"worst case is {slowest['shape']} {LABELS[query]} at "
        f"{slowest[query + '_pure']['cpu']:.1f} s "
        '(where its time goes: "The pure walk with flat marks", below).\n'
    )


def _closure_at(ref: str) -> ModuleType:
    """``reference/gcv/reference/closure.py`` as it was at the git ``ref`` (at
    ``reference/closure.py`` before each layer's folder became its import path), loaded as a
    module of its own."""
    root = Path(__file__).resolve().parents[2]
    for path in ("reference/gcv/reference/closure.py", "reference/closure.py"):
        shown = subprocess.run(
            ["git", "show", f"{ref}:{path}"], cwd=root, capture_output=True, text=True
        )
        if shown.returncode == 0:
            return load_module(shown.stdout, f"{ref}:{path}", "gcv.reference.closure_before")
    raise SystemExit(f"bench_walks: {ref} holds no closure.py ({shown.stderr.strip()})")


def before_after(ref: str, lengths: Sequence[int], sizes: Sequence[int], passes: int) -> str:
    """The pure walk at ``ref`` and now, in one run: through the API and bare, per query,
    thread CPU; a markdown table."""
    before = _closure_at(ref)
    now = gcv.reference.closure
    out = [
        f"Pure walk at `{ref}` (before) and in this tree (after), thread CPU median per query "
        f"({passes} interleaved passes; us on the conversation, ms on the worst cases)",
        "",
        "| map | query | API before | API after | bare before | bare after "
        "| API after / bare after |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]

    def rows(label: str, verifier: Verifier, verify_from: str, retract: str, scale: float) -> None:
        n = verifier.state.numbering
        start, beta = n.number[verify_from], n.number[retract]
        for query, api, bare_before, bare_after in (
            (
                "Verify",
                partial(verifier.verify, verify_from),
                partial(before.dependency_walk, n.supports, n.good, start),
                partial(now.dependency_walk, n.supports, n.good, start),
            ),
            (
                "Affected*",
                partial(verifier.affected_star, retract),
                partial(before.reverse_closure, n.dependents, beta),
                partial(now.reverse_closure, n.dependents, beta),
            ),
        ):
            with answered_by(before.PURE):
                answer_before = api()
            with answered_by(now.PURE):
                assert api() == answer_before, (label, query)
            calls = {
                "api_before": api,
                "api_after": api,
                "bare_before": bare_before,
                "bare_after": bare_after,
            }

            def prepare(key: str) -> None:
                gcv.reference.verifier.QUERIES = before.PURE if key == "api_before" else now.PURE

            with answered_by(now.PURE):
                t = timed(
                    calls, passes=passes, budget=0.02 if scale > 1e3 else 0.0, prepare=prepare
                )
            cells = [f"{t[k].cpu * scale:.2f}" for k in calls]
            ratio = t["api_after"].cpu / t["bare_after"].cpu
            out.append(f"| {label} | {query} | {' | '.join(cells)} | {ratio:.2f} |")

    conversation = Conversation(keep_log=False)
    for turns in lengths:
        conversation.grow_to(turns)
        rows(f"conversation, {turns:,} turns", conversation.verifier, VERIFIED, PLANTED, 1e6)
        print(f"  {turns:,} turns measured", file=sys.stderr, flush=True)
    for shape in SHAPES:
        for size in sizes:
            case = worst_case(shape, size)
            verifier = Verifier(("a", "b", "c"))
            for turn in case.turns:
                verifier.apply_turn(turn)
            rows(f"{shape}, {size:,} records", verifier, case.verify_from, case.retract, 1e3)
            print(f"  {shape} {size:,} measured", file=sys.stderr, flush=True)
            del verifier, case
            gc.collect()
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="13,2000,20000,200000")
    parser.add_argument("--worst", default="1000000")
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--from", dest="saved", type=Path)
    parser.add_argument("--write", action="store_true")
    parser.add_argument(
        "--before",
        metavar="REF",
        help="only the pure walk, at the git REF and now, through the API and bare, in one run",
    )
    args = parser.parse_args(argv)
    if args.before:
        lengths = [int(s) for s in args.lengths.split(",")]
        sizes = [int(s) for s in args.worst.split(",") if s]
        print(before_after(args.before, lengths, sizes, max(3, args.passes // 2)))
        return 0
    if args.saved:
        results = json.loads(args.saved.read_text())
    else:
        worst_passes = max(3, args.passes // 2)
        start = os.getloadavg()[0]
        results = {
            "python": sys.version.split()[0],
            "contracts": "on" if __debug__ else "off (python -O)",
            "compiled": COMPILED is not None,
            "passes": args.passes,
            "worst_passes": worst_passes,
            "conversation": conversation_rows(
                [int(s) for s in args.lengths.split(",")], args.passes
            ),
            "worst": worst_rows([int(s) for s in args.worst.split(",") if s], worst_passes),
        }
        results["load_average"] = [start, os.getloadavg()[0]]
    print(f"Python {results['python']}, contracts {results['contracts']}")
    print(tables(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if args.write:
        (DOCS / "walks-performance.json").write_text(json.dumps(results, indent=1) + "\n")
        page = DOCS / "performance.md"
        text = page.read_text(encoding="utf-8")
        page.write_text(splice(text, section(results), BEGIN, END), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
