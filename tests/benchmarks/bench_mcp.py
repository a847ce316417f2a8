"""What a ``gcv mcp`` call costs over stdio: server CPU per call, and what of it is ours.

    .venv/bin/python -m tests.benchmarks.bench_mcp [CALLS] [--compare PYTHON]
        [--era handshake|envelope|both] [--optimised-only]

Starts ``gcv mcp`` as an agent host does (a subprocess spoken to over standard input and
output, through the ``mcp`` SDK's own client), opens a session with Phase 2's agents and
turns, then makes CALLS (default 300) calls of each kind: ``verify`` on h4 (its walk
reaches seven records), ``affected`` on o5 (three hops), ``append_turn`` (one Observe;
each one SQLite transaction with ``synchronous=FULL``), ``state_at`` at the last turn and
``explain`` on h2 (which replays the log); with contracts on and under ``python -O``
(only the latter with ``--optimised-only``).  The server's CPU is read from /proc while it
runs, the client's is this process's.

Each protocol era is measured (``--era``, default both): the *handshake* era (an
``initialize`` handshake, then requests; protocol 2025-11-25, what hosts speak today) and
the *envelope* era (2026-07-28: no handshake, each request carries its version and the
client's capabilities, and the SDK builds a connection for each; its client's default).

``ours`` is the CPU of answering the same call in this process through
:func:`gcv.agent.tools.call_tool` (argument checks, the store's refresh, the walk, the
answer), ``checks`` the part of it that checks the arguments
(:func:`gcv.agent.tools.check_arguments`), so ``server - ours`` is what the SDK and the
pipe cost.  With ``--compare PYTHON`` (another checkout's interpreter, say the main
branch's virtual environment) its server runs beside this one, the calls alternating
between the two in rounds, so that the ratio of their CPU per call (``compared / this
tree``) is measured in one run on one machine.
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

from gcv.agent.folder import SessionFolder
from gcv.agent.tools import call_tool, check_arguments, tool_named
from gcv.scenarios import scenario_text

_TICKS = os.sysconf("SC_CLK_TCK")
ROUNDS = 5
TOOLS = ("verify", "affected", "append_turn", "state_at", "explain")
ERAS = {"handshake": "legacy", "envelope": "auto"}
"""Each era's name, and the SDK client's ``mode`` that speaks it."""


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _server_pid(folder: str) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if folder.encode() in command and b"mcp" in command:
                return int(entry.name)
    raise RuntimeError("the server process is not running")


def _arguments(tool: str, k: int) -> dict[str, Any]:
    return {
        "verify": {"session": "bench", "record": "h4"},
        "affected": {"session": "bench", "record": "o5"},
        "append_turn": {
            "session": "bench",
            "speaker": "a",
            "operations": [{"op": "observe", "id": f"x{k}", "claim": f"fact {k}"}],
        },
        "state_at": {"session": "bench", "at": 13},
        "explain": {"session": "bench", "record": "h2"},
    }[tool]


def _phase2_calls() -> list[dict[str, Any]]:
    return [
        {"session": "bench", "speaker": t["speaker"], "operations": t["operations"]}
        for t in json.loads(scenario_text("phase2-debugging"))["turns"]
    ]


def ours(calls: int) -> dict[str, float]:
    """CPU seconds per call of answering each tool in this process (no protocol)."""
    with tempfile.TemporaryDirectory() as place:
        folder = SessionFolder(place)
        call_tool(folder, "open_session", {"session": "bench", "scenario": "phase2-debugging"})
        for arguments in _phase2_calls():
            call_tool(folder, "append_turn", arguments)
        spent = dict.fromkeys(TOOLS, 0.0)
        per_round = max(1, calls // ROUNDS)
        for round_number in range(ROUNDS):  # as the servers are driven: the log grows alike
            for tool in TOOLS:
                started = time.process_time()
                for k in range(per_round):
                    call_tool(folder, tool, _arguments(tool, round_number * per_round + k))
                spent[tool] += time.process_time() - started
        folder.close()
    return {tool: cpu / (per_round * ROUNDS) for tool, cpu in spent.items()}


def checks(calls: int) -> dict[str, float]:
    """CPU seconds per call of checking each tool's arguments alone (a part of ours)."""
    spent = {}
    for tool in TOOLS:
        arguments = [_arguments(tool, k) for k in range(calls)]
        started = time.process_time()
        for each in arguments:
            check_arguments(tool_named(tool), each)
        spent[tool] = (time.process_time() - started) / calls
    return spent


async def _measure(
    servers: list[tuple[tuple[str, ...], str]], calls: int
) -> list[dict[str, float]]:
    """Server CPU per call of each tool, for each (interpreter, era), in alternating rounds;
    last, the client's CPU per call (the mean over the servers)."""
    folders = [tempfile.mkdtemp() for _ in servers]
    spent: list[dict[str, float]] = [dict.fromkeys(TOOLS, 0.0) for _ in servers]
    client_spent = dict.fromkeys(TOOLS, 0.0)
    async with anyio.create_task_group():
        clients = []
        for (python, era), folder in zip(servers, folders, strict=True):
            # Started in its sessions folder: from a checkout, ``-m`` would import that
            # checkout's gcv first, whatever the interpreter has installed.
            params = StdioServerParameters(
                command=python[0],
                args=[*python[1:], "-m", "gcv.cli", "mcp", "--sessions", folder],
                cwd=folder,
            )
            clients.append(Client(params, mode=ERAS[era]))
        entered = [await client.__aenter__() for client in clients]
        try:
            for client in entered:
                await client.call_tool(
                    "open_session", {"session": "bench", "scenario": "phase2-debugging"}
                )
                for arguments in _phase2_calls():
                    await client.call_tool("append_turn", arguments)
            pids = [_server_pid(folder) for folder in folders]
            per_round = max(1, calls // ROUNDS)
            for round_number in range(ROUNDS):
                for tool in TOOLS:
                    for index, client in enumerate(entered):
                        before, client_before = _cpu(pids[index]), time.process_time()
                        for k in range(per_round):
                            number = round_number * per_round + k
                            result = await client.call_tool(tool, _arguments(tool, number))
                            assert not result.is_error, result.content
                        spent[index][tool] += _cpu(pids[index]) - before
                        client_spent[tool] += time.process_time() - client_before
        finally:
            for client in reversed(clients):
                await client.__aexit__(None, None, None)
    total = per_round * ROUNDS
    results = [{tool: cpu / total for tool, cpu in server.items()} for server in spent]
    results.append({tool: cpu / total / len(servers) for tool, cpu in client_spent.items()})
    return results


def _option(words: list[str], name: str) -> str | None:
    """The value of ``name`` in ``words``, removed from them."""
    if name not in words:
        return None
    at = words.index(name)
    value = words[at + 1]
    del words[at : at + 2]
    return value


def main(argv: list[str]) -> int:
    """Print each tool's server CPU per call, ours and the SDK's, and the comparison."""
    words = list(argv)
    compare = _option(words, "--compare")
    era_option = _option(words, "--era") or "both"
    eras = list(ERAS) if era_option == "both" else [era_option]
    optimised_only = "--optimised-only" in words
    if optimised_only:
        words.remove("--optimised-only")
    calls = int(words[0]) if words else 300
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {calls} calls each")
    for optimised in (True,) if optimised_only else (False, True):
        flags = ["-O"] if optimised else []
        pythons = [(sys.executable, *flags)] + ([(compare, *flags)] if compare else [])
        servers = [(python, era) for era in eras for python in pythons]
        *per_server, client = anyio.run(_measure, servers, calls)
        measured = dict(zip(servers, per_server, strict=True))
        mine = ours(calls) if optimised == (not __debug__) else None
        checked = checks(calls) if mine else None
        label = "python -O (contracts off)" if optimised else "contracts on"
        for era in eras:
            print(f"\n{label}, {era} era: server CPU per call (ms)")
            header = f"  {'tool':12} {'this tree':>10}"
            header += f" {'compared':>10} {'ratio':>7}" if compare else ""
            header += f" {'ours':>7} {'checks':>7} {'SDK+pipe':>9}" if mine else ""
            print(header + f" {'client':>7}")
            here = measured[(pythons[0], era)]
            for tool in TOOLS:
                line = f"  {tool:12} {here[tool] * 1000:10.3f}"
                if compare:
                    there = measured[(pythons[1], era)]
                    line += f" {there[tool] * 1000:10.3f} {there[tool] / here[tool]:7.2f}"
                if mine and checked:
                    line += f" {mine[tool] * 1000:7.3f} {checked[tool] * 1000:7.3f}"
                    line += f" {(here[tool] - mine[tool]) * 1000:9.3f}"
                print(line + f" {client[tool] * 1000:7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
