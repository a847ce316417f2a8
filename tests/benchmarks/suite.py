"""The measurements, one process per contract setting; ``tests.benchmarks`` runs both.

    .venv/bin/python -O -m tests.benchmarks.suite off OUT.json [--quick]  # contracts off
    .venv/bin/python -m tests.benchmarks.suite on OUT.json [--quick]      # contracts on

Every figure is a median over repeated runs, taken on a machine that others share;
the ratios (against replay, against the peers, between sizes) are what to read.

``retraction``
    Affected*(o5) on a growing conversation (Phase 2, then generated turns; its
    answer is {h1, h3, h4} at every length) against the two replay baselines of
    :mod:`tests.benchmarks.history_replay`; apply_turn throughput from the engine replay.
``worst``
    Verify and Affected* on the worst-case maps, each query visiting every record.
``memory``
    tracemalloc: what the map retains per record, and the peak while it is built.
``peers``
    the engine against networkx, ``ltms``'s JTMS and ``veritas-tms`` on the same graphs.
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gcv.reference.verifier import Turn, Verifier
from tests.benchmarks import peers
from tests.benchmarks.conversation import (
    PLANTED,
    PLANTED_AFFECTED,
    SHAPES,
    Conversation,
    empty_map,
    worst_case,
    worst_case_turns,
)
from tests.benchmarks.history_replay import engine_replay, replay_affected_star

__all__ = ["calibrated", "main", "median_seconds"]

Row = dict[str, Any]


@dataclass(frozen=True)
class Sizes:
    """What each part measures at."""

    retraction: tuple[int, ...]
    worst: tuple[int, ...]
    memory_turns: int
    memory_chain: int
    peer_turns: int
    peer_worst: int
    peer_worst_fast: int


FULL = Sizes(
    (13, 100, 2_000, 20_000, 200_000),
    (10_000, 100_000, 1_000_000),
    20_000,
    100_000,
    2_000,
    1_000,
    10_000,
)
QUICK = Sizes((13, 100, 2_000, 20_000), (10_000, 100_000), 2_000, 10_000, 2_000, 300, 3_000)
ON_LIMIT = {"retraction": 20_000, "worst": 100_000}
"""Contracts on, the conversation stops at 20,000 turns and the worst cases at 10^5
records (building 10^6 with every contract checked takes minutes); the -O run covers
the full range."""


def calibrated(call: Callable[[], object], budget: float) -> tuple[int, float]:
    """How many calls of ``call`` take at least ``budget`` s of wall time, and how long
    that many took."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            call()
        elapsed = time.perf_counter() - start
        if elapsed >= budget or number >= 1 << 20:
            return number, elapsed
        number *= 2 if elapsed == 0 else max(2, min(10, int(budget / elapsed) + 1))


def median_seconds(call: Callable[[], object], *, repeat: int = 7, budget: float = 0.02) -> float:
    """Median time of one ``call``: ``repeat`` runs of a loop calibrated to ``budget`` s."""
    number, elapsed = calibrated(call, budget)
    runs = [elapsed / number]
    for _ in range(repeat - 1):
        start = time.perf_counter()
        for _ in range(number):
            call()
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs)


def _check(holds: bool, what: object) -> None:
    # Not assert: the contracts-off run is python -O, which strips asserts.
    if not holds:
        raise RuntimeError(f"benchmark answer is wrong: {what!r}")


def _operations(log: Sequence[Turn]) -> int:
    return sum(len(turn.operations) for turn in log)


def _dep_links(verifier: Verifier) -> int:
    return sum(len(supports) for supports in verifier.state.dep.values())


# -- retraction against history replay ---------------------------------------------


def retraction(sizes: Sequence[int], log_file: Path | None) -> list[Row]:
    """Affected*(o5) against history length, with both replay baselines."""
    if log_file is not None and log_file.exists():
        with log_file.open("rb") as handle:
            log: list[Turn] = pickle.load(handle)
        return _retraction_over_a_log(sizes, log)
    conversation = Conversation()
    rows = []
    for size in sizes:
        conversation.grow_to(size)
        rows.append(_retraction_row(conversation.verifier, conversation.log[:size]))
    if log_file is not None:
        with log_file.open("wb") as handle:
            pickle.dump(conversation.log, handle)
    return rows


def _retraction_over_a_log(sizes: Sequence[int], log: Sequence[Turn]) -> list[Row]:
    # The contracts-on run re-applies the -O run's log (the same turns) rather than
    # generating it again.
    verifier, done, rows = empty_map(), 0, []
    for size in sizes:
        for turn in log[done:size]:
            verifier.apply_turn(turn)
        done = size
        rows.append(_retraction_row(verifier, log[:size]))
    return rows


def _retraction_row(verifier: Verifier, log: Sequence[Turn]) -> Row:
    answer = verifier.affected_star(PLANTED)
    _check(set(answer) == PLANTED_AFFECTED, answer)
    _check(replay_affected_star(log, PLANTED) == PLANTED_AFFECTED, "history replay")
    query = median_seconds(lambda: verifier.affected_star(PLANTED))
    runs = 5 if len(log) <= 20_000 else 3
    replay = median_seconds(lambda: replay_affected_star(log, PLANTED), repeat=runs)
    engine_runs = []
    for _ in range(3 if len(log) <= 20_000 else 1):
        fresh = empty_map()
        gc.collect()
        start = time.perf_counter()
        replayed = engine_replay(log, PLANTED, fresh)
        engine_runs.append(time.perf_counter() - start)
        _check(set(replayed) == PLANTED_AFFECTED, "engine replay")
        del fresh
    engine = statistics.median(engine_runs)
    operations = _operations(log)
    return {
        "turns": len(log),
        "records": len(verifier.state.records),
        "dep_links": _dep_links(verifier),
        "operations": operations,
        "affected": len(answer),
        "query_us": query * 1e6,
        "replay_us": replay * 1e6,
        "replay_ratio": replay / query,
        "engine_replay_us": engine * 1e6,
        "engine_replay_ratio": engine / query,
        "apply_ops_per_s": operations / engine,
    }


# -- worst cases -----------------------------------------------------------------------


def _visited_links(adjacency: Any, visited: Sequence[str]) -> int:
    return sum(len(adjacency.get(record, ())) for record in visited)


def worst(sizes: Sequence[int]) -> list[Row]:
    """Verify and Affected* over every record of the worst-case maps."""
    rows = []
    for shape in SHAPES:
        for size in sizes:
            rows.append(_worst_row(shape, size))
            gc.collect()
    return rows


def _worst_row(shape: str, size: int) -> Row:
    case = worst_case(shape, size)
    verifier = Verifier(("a", "b", "c"))
    gc.collect()
    start = time.perf_counter()
    for turn in case.turns:
        verifier.apply_turn(turn)
    build = time.perf_counter() - start
    closure = verifier.verify(case.verify_from).closure
    affected = verifier.affected_star(case.retract)
    _check(len(closure) == size and len(affected) >= size - 1, (shape, size))
    runs = 5 if size <= 100_000 else 3
    verify = median_seconds(lambda: verifier.verify(case.verify_from), repeat=runs)
    star = median_seconds(lambda: verifier.affected_star(case.retract), repeat=runs)
    numbers = [verifier.state.numbering.number[r] for r in closure]
    floor = median_seconds(lambda: _touch(verifier, numbers), repeat=runs)
    return {
        "shape": shape,
        "records": size,
        "dep_links": _dep_links(verifier),
        "build_ops_per_s": _operations(case.turns) / build,
        "verify_s": verify,
        "verify_visited": len(closure),
        "verify_links": _visited_links(verifier.state.dep, closure),
        "verify_ns_per_record": verify / len(closure) * 1e9,
        "affected_star_s": star,
        "affected_star_visited": len(affected),
        "affected_star_links": _visited_links(verifier.state.rdep, (case.retract, *affected)),
        "affected_star_ns_per_record": star / len(affected) * 1e9,
        "floor_ns_per_record": floor / len(closure) * 1e9,
    }


def _touch(verifier: Verifier, visited: Sequence[int]) -> None:
    """The least a traversal of ``visited`` does: read each record's Dep links and label once
    (in the numbering the queries walk).

    Its time per record grows with the map as memory does (the records stop fitting
    in the caches); a query whose ratio to it stays level is linear.
    """
    numbering = verifier.state.numbering
    supports, good = numbering.supports, numbering.good
    for record in visited:
        supports[record]  # the reads are the point
        good[record]


# -- memory ------------------------------------------------------------------------------


def _traced(build: Callable[[], Verifier]) -> tuple[Verifier, int, int]:
    gc.collect()
    tracemalloc.start()
    verifier = build()
    gc.collect()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return verifier, current, peak


def _grown(turns: int) -> Verifier:
    conversation = Conversation(keep_log=False)
    conversation.grow_to(turns)
    return conversation.verifier


def _chain(records: int) -> Verifier:
    verifier = Verifier(("a", "b", "c"))
    for turn in worst_case_turns("chain", records):
        verifier.apply_turn(turn)
    return verifier


def memory(turns: int, chain: int) -> list[Row]:
    """Bytes per record the map retains, and the peak while building it (tracemalloc).

    The turns are generated inside the traced region and dropped once applied, so the
    retained figure is the map itself, identifier and claim strings included.
    """
    rows = []
    for name, build in (
        (f"conversation, {turns:,} turns", lambda: _grown(turns)),
        (f"chain, {chain:,} records", lambda: _chain(chain)),
    ):
        verifier, current, peak = _traced(build)
        records = len(verifier.state.records)
        rows.append(
            {
                "map": name,
                "records": records,
                "dep_links": _dep_links(verifier),
                "retained_bytes_per_record": current / records,
                "peak_bytes_per_record": peak / records,
            }
        )
        del verifier
    return rows


# -- peers ---------------------------------------------------------------------------------


def _graphs(
    turns: int, small: int, fast: int
) -> Iterator[tuple[str, Verifier, list[Turn], str, bool]]:
    """The graphs compared, and whether veritas is built on them (not at ``fast`` sizes)."""
    conversation = Conversation()
    conversation.grow_to(turns)
    log = conversation.log
    yield f"conversation, {turns:,} turns", conversation.verifier, log, PLANTED, True
    for size in (small, fast):
        for shape in SHAPES:
            case = worst_case(shape, size)
            verifier = Verifier(("a", "b", "c"))
            for turn in case.turns:
                verifier.apply_turn(turn)
            name = f"{shape}, {size:,} records"
            yield name, verifier, list(case.turns), case.retract, size == small


def _build_seconds(build: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        build()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peer_rows(turns: int, small: int, fast: int) -> list[Row]:
    """Build and retract on the same graphs: the engine, networkx, JTMS, veritas."""
    return [_peer_row(*graph) for graph in _graphs(turns, small, fast)]


def _peer_row(name: str, verifier: Verifier, log: list[Turn], beta: str, with_veritas: bool) -> Row:
    dep = {r: list(verifier.state.dep.get(r, ())) for r in verifier.state.records}
    truth = set(verifier.affected_star(beta))
    runs = 3
    graph = peers.networkx_build(dep)
    _check(peers.networkx_affected(graph, beta) == truth, name)
    return {
        "graph": name,
        "records": len(dep),
        "dep_links": sum(map(len, dep.values())),
        "retract": beta,
        "affected": len(truth),
        "records_on_cycles": len(peers.cycle_records(dep)),
        "engine": {
            "build_s": _build_seconds(lambda: engine_replay(log, beta, empty_map()), runs),
            "retract_s": median_seconds(lambda: verifier.affected_star(beta)),
            "faithful": True,
        },
        "networkx": {
            "build_s": _build_seconds(lambda: peers.networkx_build(dep), runs),
            "retract_s": median_seconds(lambda: peers.networkx_affected(graph, beta)),
            "faithful": True,
        },
        "jtms": _jtms(dep, beta, truth, runs),
        "veritas": _veritas(dep, beta, truth, small_enough=with_veritas),
    }


def _jtms(dep: peers.Graph, beta: str, truth: set[str], runs: int) -> Row:
    jtms, nodes = peers.jtms_build(dep)
    never_in = peers.jtms_out(nodes)
    build = _build_seconds(lambda: peers.jtms_build(dep), runs)
    if dep[beta]:
        # beta rests on records (it lies on a cycle): it has a justification, and a
        # JTMS retracts only assumptions.
        return {"build_s": build, "retract_s": None, "faithful": False, "never_in": len(never_in)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        peers.jtms_retract(jtms, nodes, beta)
        times.append(time.perf_counter() - start)
        reported = peers.jtms_out(nodes) - never_in - {beta}
        peers.jtms_restore(jtms, nodes, beta)
    missed = truth - {beta} - reported
    return {
        "build_s": build,
        "retract_s": statistics.median(times),
        "faithful": not missed and reported == truth - {beta},
        "never_in": len(never_in),
        "missed": len(missed),
    }


def _veritas(dep: peers.Graph, beta: str, truth: set[str], *, small_enough: bool) -> Row:
    if not small_enough:
        return {"skipped": "building a store is quadratic in the Dep depth (see docs)"}
    order = peers.topological_order(dep)
    if order is None:
        # Cyclic: assert in registration order; the links that close cycles are pruned.
        order = list(dep)
    builds, retracts, reported = [], [], set()
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        store = peers.veritas_build(dep, order)
        builds.append(time.perf_counter() - start)
        start = time.perf_counter()
        reported = peers.veritas_retract(store, beta)
        retracts.append(time.perf_counter() - start)
        stored = len(store.all_beliefs())  # type: ignore[attr-defined]
    missed = truth - {beta} - reported
    return {
        "build_s": statistics.median(builds),
        "retract_s": statistics.median(retracts),
        "faithful": not missed and reported == truth - {beta},
        "rejected": len(dep) - stored,
        "missed": len(missed),
    }


# -- entry point ------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("contracts", choices=("on", "off"))
    parser.add_argument("out", type=Path)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a check")
    parser.add_argument("--log", type=Path, help="the turn log to share between the runs")
    parser.add_argument("--parts", default="retraction,worst,memory,peers")
    args = parser.parse_args(argv)
    if (args.contracts == "on") != __debug__:
        parser.error("run 'off' with python -O, and 'on' without it")
    sizes = QUICK if args.quick else FULL
    parts = args.parts.split(",")
    result: dict[str, Any] = {"contracts": args.contracts}
    started = time.perf_counter()
    if "retraction" in parts:
        turns = sizes.retraction
        if args.contracts == "on":
            turns = tuple(t for t in turns if t <= ON_LIMIT["retraction"])
        result["retraction"] = retraction(turns, args.log)
        print(f"  retraction done ({time.perf_counter() - started:.0f} s)", flush=True)
    if "worst" in parts:
        records = sizes.worst
        if args.contracts == "on":
            records = tuple(r for r in records if r <= ON_LIMIT["worst"])
        result["worst"] = worst(records)
        print(f"  worst cases done ({time.perf_counter() - started:.0f} s)", flush=True)
    if "memory" in parts and args.contracts == "off":
        result["memory"] = memory(sizes.memory_turns, sizes.memory_chain)
        print(f"  memory done ({time.perf_counter() - started:.0f} s)", flush=True)
    if "peers" in parts and args.contracts == "off":
        result["peers"] = peer_rows(sizes.peer_turns, sizes.peer_worst, sizes.peer_worst_fast)
        print(f"  peers done ({time.perf_counter() - started:.0f} s)", flush=True)
    result["seconds"] = time.perf_counter() - started
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
