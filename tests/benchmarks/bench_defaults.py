"""What a user runs, with the default settings, at 10^3, 10^4 and 10^5 turns: linear?

    .venv/bin/python -O -m tests.benchmarks.bench_defaults [SIZES ...] [--explore SIZES] [--write]

For each size N (default 1,000, 10,000 and 100,000 turns of the realistic conversation:
Phase 2, then generated turns, ``tests/benchmarks/conversation.py``) a session store is
filled once (``durable=False``, by this process: ``-O`` only makes the filling faster),
then each command runs in a fresh process exactly as the
console script and the MCP server run it: contracts in their default tier (no
``ICONTRACT_SLOW``, no ``-O``):

- ``gcv session show --db S --json``;
- the MCP tool ``state_at`` (``gcv.agent.tools.call_tool``, the server's handler);
- ``gcv draw --db S --format dot`` (the drawing; svg and png add the layout program's time);
- ``gcv explore --db S -o page.html`` with a stand-in layout program that answers an
  empty picture at once, so the figure is this package's time, not Graphviz's (the
  page's size is reported too).  ``--explore SIZES`` (comma-separated) measures it at
  other sizes than the others'.

Each figure is the child process's CPU time (user + system, ``resource.RUSAGE_CHILDREN``)
beside its wall time, start-up included (``gcv --version`` is measured too and shown).
The slope is the exponent b of CPU = a * N^b, net of start-up: the least-squares one
over every size (``overall``) and between each size and the next (``steps``); 1 is
linear.  About ten minutes for the default sizes on a shared 2-core machine, most of it
filling the 10^5-turn store and exploring it.  ``--write`` writes
docs/defaults-performance.json and rewrites the figures docs/performance.md quotes from
it (:func:`tests.docs_check.rewrite_figures`).
"""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gcv.store import create_session, open_session
from tests.benchmarks.conversation import AGENTS, PHASE2_ATOMS, Conversation
from tests.docs_check import rewrite_figures

__all__ = ["main", "measure", "slope", "slopes"]

ROOT = Path(__file__).resolve().parents[2]
JSON = ROOT / "docs" / "defaults-performance.json"
PAGE = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- defaults: begin -->", "<!-- defaults: end -->"
"""docs/performance.md's section quoting the figures (kept by python -m tests.benchmarks)."""
SIZES = (1_000, 10_000, 100_000)
START_UP, EXPLORE = "start-up (gcv --version)", "explore (layout stood in)"
HEADER = {"name": "bench", "agents": {a: a for a in AGENTS}, "atoms": list(PHASE2_ATOMS)}
_STATE_AT = """
import sys
from gcv.agent.folder import SessionFolder
from gcv.agent.tools import call_tool
answer = call_tool(SessionFolder(sys.argv[1]), "state_at", {"session": "bench"})
print(len(answer["state"]["grounding"]))
"""
_EMPTY_PICTURE = (
    "#!/bin/sh\ncat >/dev/null\necho '<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>'\n"
)


def _fill(store: Path, size: int) -> None:
    conversation = Conversation(seed=0)
    conversation.grow_to(size)
    create_session(store, HEADER).close()
    with open_session(store, durable=False) as session:
        for turn in conversation.log:
            session.append(turn)


def _cpu(command: Sequence[str], environment: dict[str, str], cwd: Path) -> dict[str, float]:
    """The CPU and wall seconds of one run of ``command``, which must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=environment, cwd=cwd, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{command} exited {done.returncode}: {done.stderr[-2000:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": round(cpu, 3), "wall": round(wall, 3)}


def measure(size: int, folder: Path, commands: Sequence[str]) -> dict[str, Any]:
    """The CPU and wall seconds of each of ``commands`` (names as :func:`main` prints
    them) on a store of ``size`` turns, with the start-up's."""
    store = folder / "bench.gcv"
    _fill(store, size)
    stand_in = folder / "bin"
    stand_in.mkdir()
    (stand_in / "dot").write_text(_EMPTY_PICTURE, "utf-8")
    (stand_in / "dot").chmod(0o755)
    environment = {
        k: v for k, v in os.environ.items() if k not in ("ICONTRACT_SLOW", "PYTHONOPTIMIZE")
    }
    with_stand_in = {**environment, "PATH": f"{stand_in}{os.pathsep}{environment['PATH']}"}
    gcv = [sys.executable, "-m", "gcv.cli"]
    page = folder / "page.html"
    runs = {
        START_UP: ([*gcv, "--version"], environment),
        "session show --json": (
            [*gcv, "session", "show", "--db", str(store), "--json"],
            environment,
        ),
        "state_at (MCP tool)": ([sys.executable, "-c", _STATE_AT, str(folder)], environment),
        "draw --format dot": ([*gcv, "draw", "--db", str(store), "--format", "dot"], environment),
        EXPLORE: ([*gcv, "explore", "--db", str(store), "-o", str(page)], with_stand_in),
    }
    row: dict[str, Any] = {"turns": size, "records": _records(store), "commands": {}}
    for name in (START_UP, *commands):
        words, env = runs[name]
        row["commands"][name] = _cpu(words, env, folder)
    if EXPLORE in commands:
        row["page_bytes"] = page.stat().st_size
    return row


def _records(store: Path) -> int:
    with open_session(store) as session:
        return len(session.verifier.state.records)


def slope(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """The least-squares exponent b of seconds = a * size^b.

    Examples
    --------
    >>> round(slope([10, 100, 1000], [1.0, 10.0, 100.0]), 6)
    1.0
    >>> round(slope([10, 100], [1.0, 100.0]), 6)
    2.0
    """
    xs, ys = [math.log(s) for s in sizes], [math.log(max(t, 1e-6)) for t in seconds]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def slopes(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each command's slope over ``rows``, CPU net of start-up: over every size
    (``overall``) and from each size to the next (``steps``, in order)."""
    found: dict[str, dict[str, Any]] = {}
    for name in rows[0]["commands"]:
        if name == START_UP:
            continue
        sizes = [row["turns"] for row in rows]
        net = [row["commands"][name]["cpu"] - row["commands"][START_UP]["cpu"] for row in rows]
        found[name] = {
            "overall": round(slope(sizes, net), 2),
            "steps": [
                round(slope(sizes[i : i + 2], net[i : i + 2]), 2) for i in range(len(rows) - 1)
            ],
        }
    return found


def _rows(sizes: Sequence[int], explore_sizes: Sequence[int]) -> list[dict[str, Any]]:
    rows = []
    others = ("session show --json", "state_at (MCP tool)", "draw --format dot")
    for size in sorted({*sizes, *explore_sizes}):
        commands = [*(others if size in sizes else ()), *([EXPLORE] * (size in explore_sizes))]
        with tempfile.TemporaryDirectory() as scratch:
            row = measure(size, Path(scratch), commands)
        rows.append(row)
        for name, figure in row["commands"].items():
            print(
                f"{size:>7} turns {row['records']:>7} records  {name:<28} "
                f"cpu {figure['cpu']:7.2f} s  wall {figure['wall']:7.2f} s",
                flush=True,
            )
        if "page_bytes" in row:
            print(f"{size:>7} turns: the page is {row['page_bytes']:,} bytes", flush=True)
    return rows


def _with(rows: Sequence[dict[str, Any]], command: str) -> list[dict[str, Any]]:
    """The rows that measured ``command``, with only it and the start-up."""
    return [
        {**row, "commands": {n: row["commands"][n] for n in (START_UP, command)}}
        for row in rows
        if command in row["commands"]
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the table and the slopes; ``--write`` writes the JSON file and
    rewrites the figures docs/performance.md quotes."""
    words = list(sys.argv[1:] if argv is None else argv)
    write = "--write" in words
    explore_sizes: list[int] | None = None
    if "--explore" in words:
        at = words.index("--explore")
        explore_sizes = [int(w) for w in words[at + 1].split(",")]
        del words[at : at + 2]
    sizes = [int(w) for w in words if w != "--write"] or list(SIZES)
    rows = _rows(sizes, sizes if explore_sizes is None else explore_sizes)
    commands = [name for name in rows[-1]["commands"] if name != START_UP]
    found = {}
    for name in commands:
        measured = _with(rows, name)
        if len(measured) > 1:
            found |= slopes(measured)
    result = {
        "command": "python -O -m tests.benchmarks.bench_defaults",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "contracts": "default tier (no ICONTRACT_SLOW, no -O) in each command's process",
        "rows": rows,
        "slopes": found,
    }
    for name, b in found.items():
        steps = ", ".join(f"N^{s}" for s in b["steps"])
        print(f"slope of {name} (CPU net of start-up): N^{b['overall']} ({steps} by size)")
    if write:
        JSON.write_text(json.dumps(result, indent=2) + "\n", "utf-8")
        PAGE.write_text(rewrite_figures(PAGE.read_text("utf-8")), "utf-8")
        print(f"wrote {JSON} and the figures {PAGE} quotes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
