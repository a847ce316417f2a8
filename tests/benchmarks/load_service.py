"""A load test of the service: many SDK clients, several workers, one PostgreSQL database.

    .venv/bin/python -m tests.benchmarks.load_service [--clients 50] [--turns 200]
        [--sessions 20] [--workers 4] [--kill-at 0.3] [--deadline 900]

Starts a throwaway PostgreSQL cluster (:mod:`tests.postgres`), then ``gcv mcp --http
--workers W --sessions postgresql://...`` on a free loopback port, and drives it with
CLIENTS concurrent clients of the ``mcp`` SDK (each its own connection, in one process),
client i appending TURNS turns to session ``s{i mod SESSIONS}`` (an Observe of a record
named for the client and the turn).  When a fraction KILL_AT of all turns has been
acknowledged, the busiest worker (by CPU so far) is killed with SIGKILL (uvicorn's
supervisor starts another).  A call that fails (the killed worker's) is retried on a new
connection with the same turn: ``duplicate-record`` then says the first attempt was
committed.  It stops when every turn is acknowledged, or at the deadline.

Printed: turns per second (wall), the latency of an acknowledged append (p50, p99),
the CPU per call of the service (its workers, the supervisor, the PostgreSQL server:
read from /proc) and of the clients; then each session's log, read from the database,
compared with what its clients were told was accepted: turns lost (acknowledged, not
logged), duplicated (logged twice), out of order (a client's turns not in the order it
sent them).  Exit 0 when none is lost, duplicated or out of order.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import anyio
from mcp import Client

from gcv.store import open_session
from tests.postgres import fresh_schema, start_cluster, stop_cluster
from tests.programs import require_programs

_TICKS = os.sysconf("SC_CLK_TCK")


def _tree(root: int) -> dict[int, float]:
    """CPU seconds of ``root`` and every process below it, by pid."""
    children: dict[int, list[int]] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / _TICKS
    found, pending = {}, [root]
    while pending:
        pid = pending.pop()
        found[pid] = cpu.get(pid, 0.0)
        pending.extend(children.get(pid, []))
    return found


class Load:
    """The run's shared counters."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.acknowledged = 0
        self.latencies: list[float] = []
        self.told: dict[str, set[str]] = {}  # session -> records acknowledged
        self.retries = Counter[str]()
        self.failed: list[str] = []
        self.killed = anyio.Event()


async def _append(client: Client, session: str, record: str) -> str:
    operations = [{"op": "observe", "id": record, "claim": f"load {record}"}]
    result = await client.call_tool(
        "append_turn", {"session": session, "speaker": "a", "operations": operations}
    )
    if not result.is_error:
        return "accepted"
    content = result.structured_content or {}
    return str(content.get("error", {}).get("code", "error"))


async def _client(url: str, index: int, turns: int, sessions: int, load: Load) -> None:
    session = f"s{index % sessions}"
    pending = [f"c{index}-t{k}" for k in range(turns)]
    while pending:
        try:
            async with Client(url) as client:
                await client.call_tool(
                    "open_session", {"session": session, "agents": {"a": "load"}}
                )
                while pending:
                    record = pending[0]
                    started = time.perf_counter()
                    outcome = await _append(client, session, record)
                    if outcome == "duplicate-record":  # a retried turn, committed before
                        load.retries["committed before the failure"] += 1
                    elif outcome != "accepted":
                        load.failed.append(f"{record}: {outcome}")
                    else:
                        load.latencies.append(time.perf_counter() - started)
                    load.told.setdefault(session, set()).add(record)
                    load.acknowledged += 1
                    pending.pop(0)
        except Exception as error:  # the killed worker's connections, and their retries
            load.retries[type(error).__name__] += 1
            await anyio.sleep(0)


def _worker_pids(supervisor: int) -> list[int]:
    """The service's worker processes (multiprocessing's spawned children, not its
    resource tracker)."""
    workers = []
    for pid in _tree(supervisor):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command and b"resource_tracker" not in command:
            workers.append(pid)
    return sorted(workers)


async def _drive(args: argparse.Namespace, url: str, supervisor: int, load: Load) -> float:
    """Run the clients, kill a worker on the way; return the kill's turn count."""
    killed_at = 0.0

    async def killer() -> None:
        nonlocal killed_at
        while load.acknowledged < args.kill_at * load.total:
            await anyio.sleep(0.05)
        workers = _worker_pids(supervisor)
        cpu = _tree(supervisor)
        victim = max(workers, key=lambda pid: cpu.get(pid, 0.0))  # the busiest
        os.kill(victim, signal.SIGKILL)
        killed_at = load.acknowledged
        print(f"killed worker {victim} of {workers} after {load.acknowledged} turns", flush=True)

    with anyio.move_on_after(args.deadline):
        async with anyio.create_task_group() as group:
            group.start_soon(killer)
            for index in range(args.clients):
                group.start_soon(_client, url, index, args.turns, args.sessions, load)
    return killed_at


def _check(database: str, load: Load, turns_per_client: int) -> dict[str, int]:
    """Each session's log against what its clients were told."""
    lost = duplicated = disorder = extra = 0
    for session, told in sorted(load.told.items()):
        with open_session(f"{database}#{session}") as stored:
            logged = [
                op.id  # type: ignore[attr-defined]
                for entry in stored.log()
                if entry.rejected is None
                for op in entry.turn.operations
            ]
        counts = Counter(logged)
        duplicated += sum(n - 1 for n in counts.values() if n > 1)
        lost += len(told - set(logged))
        extra += len(set(logged) - told)
        by_client: dict[str, list[int]] = {}
        for record in logged:
            client, _, turn = record.partition("-t")
            by_client.setdefault(client, []).append(int(turn))
        disorder += sum(turns != sorted(turns) for turns in by_client.values())
    return {"lost": lost, "duplicated": duplicated, "out of order": disorder, "unacked": extra}


def main(argv: list[str]) -> int:
    """Run the load; print the figures; exit 1 on a lost, duplicated or reordered turn."""
    parser = argparse.ArgumentParser(prog="load_service")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--kill-at", type=float, default=0.3)
    parser.add_argument("--deadline", type=float, default=900.0)
    args = parser.parse_args(argv)
    initdb, pg_ctl = require_programs("initdb", "pg_ctl")
    cluster = start_cluster(initdb, pg_ctl)
    service = None
    try:
        database = fresh_schema(cluster)
        service = subprocess.Popen(
            [
                *(sys.executable, "-O", "-m", "gcv.cli", "mcp", "--sessions", database),
                *("--http", "--workers", str(args.workers)),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        assert service.stderr is not None
        announced = service.stderr.readline()
        url = announced.rsplit(" ", 1)[1].strip()
        load = Load(args.clients * args.turns)
        postgres = int((cluster.folder / "data" / "postmaster.pid").read_text().split()[0])
        before = {"service": _tree(service.pid), "postgres": _tree(postgres)}
        client_cpu, started = time.process_time(), time.perf_counter()
        killed_at = anyio.run(_drive, args, url, service.pid, load)
        wall = time.perf_counter() - started
        client_cpu = time.process_time() - client_cpu
        after = {"service": _tree(service.pid), "postgres": _tree(postgres)}
        # A process's CPU counted from its first reading (the killed worker's is lost
        # with it: the figure is a lower bound by that worker's share).
        server_cpu = {
            part: sum(after[part][p] - before[part].get(p, 0.0) for p in after[part])
            for part in after
        }
        calls = load.acknowledged + sum(load.retries.values())
        print(
            f"{args.clients} clients x {args.turns} turns over {args.sessions} sessions, "
            f"{args.workers} workers, one killed after {killed_at:.0f} turns: "
            f"{load.acknowledged} of {load.total} acknowledged in {wall:.1f} s "
            f"({load.acknowledged / wall:.0f} turns/s); latency p50 "
            f"{statistics.median(load.latencies) * 1000:.1f} ms, p99 "
            f"{statistics.quantiles(load.latencies, n=100)[98] * 1000:.1f} ms; CPU per call: "
            f"service {server_cpu['service'] / calls * 1000:.2f} ms, PostgreSQL "
            f"{server_cpu['postgres'] / calls * 1000:.2f} ms, clients "
            f"{client_cpu / calls * 1000:.2f} ms; retries {dict(load.retries)}; "
            f"failed {len(load.failed)} {load.failed[:3]}",
            flush=True,
        )
        verdict = _check(database, load, args.turns)
        print(f"logs against acknowledgements: {verdict}")
        return 0 if not any(verdict.values()) and not load.failed else 1
    finally:
        if service is not None:
            service.send_signal(signal.SIGINT)
            service.wait()
        stop_cluster(cluster)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
