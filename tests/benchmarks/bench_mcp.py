"""What a ``gcv mcp`` call costs over stdio, in calls per second, with CPU beside wall time.

    .venv/bin/python -m tests.benchmarks.bench_mcp [CALLS]

Starts ``gcv mcp`` as an agent host does (a subprocess spoken to over standard input
and output, through the ``mcp`` SDK's own client), opens a session with Phase 2's
agents and turns, then times CALLS (default 300) calls of each kind: ``verify`` on
h4 (its walk reaches seven records), ``affected`` on o5 (three hops),
``append_turn`` (one Observe each; every append is one SQLite transaction with
``synchronous=FULL``), ``state_at`` at the last turn and ``explain`` on h2 (which
replays the log).  The server runs with contracts on and under ``python -O``.  CPU is
the client's (this process) and the server's (read from /proc while it runs), so the
split between the protocol's two ends shows; the machine's load is printed too, since
it is shared.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from gcv.scenarios import scenario_text

_TICKS = os.sysconf("SC_CLK_TCK")


def _server_cpu(folder: Path) -> float:
    """CPU seconds of the running server: the process whose command line names ``folder``."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            if str(folder).encode() in command and b"mcp" in command:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / _TICKS
        except OSError:
            continue
    raise RuntimeError("the server process is not running")


def _calls(turn_count: int, calls: int) -> dict[str, list[dict[str, Any]]]:
    observe = [
        {
            "session": "bench",
            "speaker": "a",
            "operations": [{"op": "observe", "id": f"x{k}", "claim": f"fact {k}"}],
        }
        for k in range(calls)
    ]
    return {
        "verify": [{"session": "bench", "record": "h4"}] * calls,
        "affected": [{"session": "bench", "record": "o5"}] * calls,
        "append_turn": observe,
        "state_at": [{"session": "bench", "at": turn_count}] * calls,
        "explain": [{"session": "bench", "record": "h2"}] * calls,
    }


async def _measure(optimised: bool, calls: int) -> None:
    phase2 = json.loads(scenario_text("phase2-debugging"))
    with tempfile.TemporaryDirectory() as folder:
        python = [sys.executable, "-O"] if optimised else [sys.executable]
        params = StdioServerParameters(
            command=python[0], args=[*python[1:], "-m", "gcv.cli", "mcp", "--sessions", folder]
        )
        async with Client(params) as client:
            await client.call_tool(
                "open_session", {"session": "bench", "scenario": "phase2-debugging"}
            )
            for turn in phase2["turns"]:
                written = {k: turn[k] for k in ("speaker", "operations")}
                await client.call_tool("append_turn", {"session": "bench", **written})
            label = "python -O (contracts off)" if optimised else "contracts on"
            print(f"gcv mcp over stdio, {label}, {calls} calls each:")
            for tool, arguments in _calls(len(phase2["turns"]), calls).items():
                server_before, client_before = _server_cpu(Path(folder)), time.process_time()
                start = time.perf_counter()
                for argument in arguments:
                    result = await client.call_tool(tool, argument)
                    assert not result.is_error, result.content
                wall = time.perf_counter() - start
                client_cpu = time.process_time() - client_before
                server_cpu = _server_cpu(Path(folder)) - server_before
                print(
                    f"  {tool:12} {calls / wall:7.0f} calls/s   wall {wall:6.2f} s   "
                    f"CPU server {server_cpu:5.2f} s, client {client_cpu:5.2f} s"
                )


def main(argv: list[str]) -> int:
    """Print the calls per second of each tool, contracts on and off."""
    calls = int(argv[0]) if argv else 300
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for optimised in (False, True):
        anyio.run(_measure, optimised, calls)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
