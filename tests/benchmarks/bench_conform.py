"""The conformance runner's throughput, in protocol steps per second.

    .venv/bin/python -m tests.benchmarks.bench_conform [ROUNDS]

Runs the whole vector suite ROUNDS times (default 3) against ``gcv serve`` with its
contracts on and under ``python -O`` (contracts off), and prints the best round of each;
then as ``gcv conform --json --junit`` does (python -O), rewriting both reports as cases
finish.
Then the runner's ceiling: 2000 standing queries against a stub that answers each with a
fixed line (the pipe, the runner's schema checks and comparison, nothing else); and 30
fuzzing conversations in lockstep with ``gcv serve``.  A step is one request and
its response; the start request of each case is not counted.  The machine's load is
printed too, since it is shared.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from gcv.conformance.fuzz import FuzzShard, run_shard
from gcv.conformance.process import Implementation
from gcv.conformance.runner import main as conform
from gcv.conformance.runner import run_cases
from gcv.conformance.vectors import load_suite

_STUB = """
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["cmd"] == "handshake":
        result = {"protocol": "gcv-conform/1", "name": "stub", "version": "0",
                  "features": ["core", "query:standing"]}
        print(json.dumps({"id": r["id"], "ok": True, "result": result}), flush=True)
    else:
        print(json.dumps({"id": r["id"], "ok": True, "result": "active"}), flush=True)
"""


def _best_rate(command: list[str], rounds: int) -> tuple[float, int, int]:
    cases = load_suite()
    best, steps, passed = 0.0, 0, 0
    for _ in range(rounds):
        impl = Implementation(command)
        impl.start()
        report = run_cases(impl, cases)
        impl.close()
        rate = report.steps / report.seconds
        if rate > best:
            best, steps, passed = rate, report.steps, report.counts["pass"]
    return best, steps, passed


def _best_rate_with_reports(command: list[str], rounds: int) -> tuple[float, int]:
    best, steps = 0.0, 0
    with tempfile.TemporaryDirectory() as folder:
        report_path, junit = Path(folder) / "report.json", Path(folder) / "report.xml"
        for _ in range(rounds):
            with contextlib.redirect_stdout(io.StringIO()):  # the summary is not measured
                conform(["--json", str(report_path), "--junit", str(junit), "--", *command])
            report = json.loads(report_path.read_text())
            if report["steps"] / report["seconds"] > best:
                best, steps = report["steps"] / report["seconds"], report["steps"]
    return best, steps


def main(rounds: int = 3) -> None:
    python = sys.executable
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    stub = Path(os.environ.get("TMPDIR", "/tmp")) / "gcv_conform_stub.py"
    stub.write_text(_STUB)
    runs = [
        ("gcv serve, contracts on", [python, "-m", "gcv.cli", "serve"]),
        ("gcv serve, python -O", [python, "-O", "-m", "gcv.cli", "serve"]),
    ]
    for label, command in runs:
        rate, steps, passed = _best_rate(command, rounds)
        print(f"{label:26} {rate:8.0f} steps/s   ({steps} steps, {passed} cases passed)")
    rate, steps = _best_rate_with_reports(runs[1][1], rounds)
    print(f"{'  and both reports':26} {rate:8.0f} steps/s   ({steps} steps, reports rewritten)")
    impl = Implementation([python, str(stub)])
    impl.start()
    query = {"cmd": "query", "query": "standing", "record": "o1"}
    started = time.perf_counter()
    for _ in range(2000):
        impl.request(query)
    rate = 2000 / (time.perf_counter() - started)
    impl.close()
    print(f"{'stub (the runner alone)':26} {rate:8.0f} steps/s   (2000 standing queries)")
    started = time.perf_counter()
    shard = run_shard(FuzzShard(0, 30, 1, (python, "-O", "-m", "gcv.cli", "serve"), 8))
    elapsed = time.perf_counter() - started
    print(
        f"{'fuzz, 30 conversations':26} {shard.requests / elapsed:8.0f} steps/s   "
        f"({shard.requests} requests, both sides, Hypothesis and a start included)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
