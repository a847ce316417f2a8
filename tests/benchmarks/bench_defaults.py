"""What a user runs, with the default settings, at 10^3, 10^4 and 10^5 turns: linear?

    .venv/bin/python -O -m tests.benchmarks.bench_defaults [SIZES ...] [--write]

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
  empty picture at once, so the figure is this package's time, not Graphviz's.  Its
  steps grow with the history (each turn's step holds the answers of every record whose
  Verify walk or Affected* the turn can change, and each agent's beliefs), so it is
  measured on its own sizes, 100, 300 and 1,000 turns (``--explore`` to change them).

Each figure is the child process's CPU time (user + system, ``resource.RUSAGE_CHILDREN``)
beside its wall time, start-up included (``gcv --version`` is measured too and shown).
The slope is the least-squares exponent b of CPU = a * N^b over the sizes: 1 is linear.
About five minutes for the default sizes, most of it filling the 10^5-turn store.
``--write`` writes docs/defaults-performance.json (read by docs/performance.md).
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

__all__ = ["main", "measure", "slope", "slopes"]

JSON = Path(__file__).resolve().parents[2] / "docs" / "defaults-performance.json"
BEGIN, END = "<!-- defaults: begin -->", "<!-- defaults: end -->"
"""docs/performance.md's section quoting the figures (kept by python -m tests.benchmarks)."""
SIZES = (1_000, 10_000, 100_000)
EXPLORE_SIZES = (100, 300, 1_000)
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


def measure(size: int, folder: Path, explore: bool) -> dict[str, Any]:
    """Every command's CPU and wall seconds on a store of ``size`` turns (``gcv explore``
    only when ``explore``)."""
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
    runs = {
        "start-up (gcv --version)": ([*gcv, "--version"], environment),
        "session show --json": (
            [*gcv, "session", "show", "--db", str(store), "--json"],
            environment,
        ),
        "state_at (MCP tool)": ([sys.executable, "-c", _STATE_AT, str(folder)], environment),
        "draw --format dot": ([*gcv, "draw", "--db", str(store), "--format", "dot"], environment),
    }
    if explore:
        runs = {
            name: runs[name] for name in ("start-up (gcv --version)", "session show --json")
        } | {
            "explore (layout stood in)": (
                [*gcv, "explore", "--db", str(store), "-o", str(folder / "page.html")],
                with_stand_in,
            )
        }
    return {
        "turns": size,
        "records": _records(store),
        "commands": {name: _cpu(words, env, folder) for name, (words, env) in runs.items()},
    }


def _records(store: Path) -> int:
    with open_session(store) as session:
        return len(session.verifier.state.records)


def slope(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """The least-squares exponent b of seconds = a * size^b.

    Examples
    --------
    >>> round(slope([10, 100, 1000], [1.0, 10.0, 100.0]), 6)
    1.0
    """
    xs, ys = [math.log(s) for s in sizes], [math.log(max(t, 1e-6)) for t in seconds]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def slopes(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each command's slope over ``rows``, CPU net of start-up."""
    sizes = [row["turns"] for row in rows]
    found = {}
    for name in rows[0]["commands"]:
        if name.startswith("start-up"):
            continue
        net = [
            row["commands"][name]["cpu"] - row["commands"]["start-up (gcv --version)"]["cpu"]
            for row in rows
        ]
        found[name] = round(slope(sizes, net), 2)
    return found


def _rows(sizes: Sequence[int], explore: bool) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            row = measure(size, Path(scratch), explore)
        rows.append(row)
        for name, figure in row["commands"].items():
            print(
                f"{size:>7} turns {row['records']:>7} records  {name:<28} "
                f"cpu {figure['cpu']:7.2f} s  wall {figure['wall']:7.2f} s",
                flush=True,
            )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the table and the slopes; ``--write`` writes the JSON file."""
    words = list(sys.argv[1:] if argv is None else argv)
    write = "--write" in words
    explore_sizes = list(EXPLORE_SIZES)
    if "--explore" in words:
        at = words.index("--explore")
        explore_sizes = [int(w) for w in words[at + 1].split(",")]
        del words[at : at + 2]
    sizes = [int(w) for w in words if w != "--write"] or list(SIZES)
    rows, explored = _rows(sizes, False), _rows(explore_sizes, True)
    result = {
        "command": "python -O -m tests.benchmarks.bench_defaults",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "contracts": "default tier (no ICONTRACT_SLOW, no -O) in each command's process",
        "rows": rows,
        "slopes": slopes(rows) if len(rows) > 1 else {},
        "explore_rows": explored,
        "explore_slopes": slopes(explored) if len(explored) > 1 else {},
    }
    for name, b in (result["slopes"] | result["explore_slopes"]).items():
        print(f"slope of {name} (CPU net of start-up): N^{b}")
    if write:
        JSON.write_text(json.dumps(result, indent=2) + "\n", "utf-8")
        print(f"wrote {JSON}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
