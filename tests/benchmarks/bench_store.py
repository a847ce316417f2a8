"""The session store's throughput: appends per second and reopen time, 10^3 to 10^5 turns.

    .venv/bin/python -O -m tests.benchmarks.bench_store [SIZES ...] [--write]
    .venv/bin/python -O -m tests.benchmarks.bench_store --compare PYTHON [SIZES ...]

For each size N (default 1,000, 10,000 and 100,000 turns of the realistic
conversation: Phase 2, then generated turns) and for a store without snapshots
and one with the default snapshot interval:

- the store is filled to N - 1,000 turns with ``durable=False`` (SQLite's
  ``synchronous=NORMAL``: no wait for the disk per turn) and the rate is
  reported;
- the last 1,000 turns are appended with ``durable=True`` (``synchronous=FULL``,
  the default: each turn on disk before ``append`` returns) and the rate is
  reported: the steady rate at size N;
- the store is closed and reopened three times; the median CPU time (and wall time)
  to open it, which checks the whole log and builds the live map (from the sealed
  snapshot when one holds), is reported, with the file's size.

``--compare PYTHON`` measures only the reopen with snapshots, in fresh processes: this
tree's and another checkout's (PYTHON is its interpreter; each builds its own store
with the same turns), alternating, five times each, and prints the CPU ratio.

Each append is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), as in use.
``--write`` puts the table into docs/performance.md (between its store markers)
and the figures into docs/store-performance.json.
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gcv.reference.verifier import Turn
from gcv.store import DEFAULT_SNAPSHOT_EVERY, create_session, open_session
from tests.benchmarks.conversation import AGENTS, PHASE2_ATOMS, Conversation

__all__ = ["BEGIN", "END", "kept_block", "main", "measure", "render", "splice"]

_ROOT = Path(__file__).resolve().parents[2]
DOCS = _ROOT / "docs"
BEGIN, END = "<!-- session store: begin -->", "<!-- session store: end -->"
SIZES = (1_000, 10_000, 100_000)
DURABLE_TAIL = 1_000
HEADER = {"agents": {a: a for a in AGENTS}, "atoms": list(PHASE2_ATOMS)}


def _fill(path: Path, turns: Sequence[Turn], durable: bool) -> float:
    """Append ``turns`` one transaction each; return the seconds taken."""
    with open_session(path, durable=durable) as session:
        started = time.perf_counter()
        for turn in turns:
            session.append(turn)
        return time.perf_counter() - started


def _reopen(path: Path) -> tuple[float, float]:
    """CPU and wall seconds to open the store and have its live map."""
    started, cpu = time.perf_counter(), time.process_time()
    with open_session(path) as session:
        if session.turn == 0:  # the live map, built (or, in older stores, replayed here)
            raise RuntimeError(f"{path}: the store is empty")
        return time.process_time() - cpu, time.perf_counter() - started


def measure(size: int, log: Sequence[Turn], snapshot_every: int, folder: Path) -> dict[str, Any]:
    """One row: fill, durable tail, reopen, for a store of ``size`` turns."""
    path = folder / f"store-{size}-{snapshot_every}.gcv"
    create_session(path, HEADER, snapshot_every=snapshot_every).close()
    bulk = log[: size - DURABLE_TAIL]
    bulk_seconds = _fill(path, bulk, durable=False)
    tail_seconds = _fill(path, log[len(bulk) : size], durable=True)
    reopen = [_reopen(path) for _ in range(3)]
    row = {
        "turns": size,
        "snapshot_every": snapshot_every,
        "bulk_appends_per_s": len(bulk) / bulk_seconds if bulk else None,
        "durable_appends_per_s": DURABLE_TAIL / tail_seconds,
        "reopen_cpu_s": statistics.median(r[0] for r in reopen),
        "reopen_wall_s": statistics.median(r[1] for r in reopen),
        "file_mb": path.stat().st_size / 1e6,
    }
    path.unlink()
    return row


def render(rows: Sequence[dict[str, Any]], contracts: bool, load: Sequence[float]) -> str:
    """The Markdown section of docs/performance.md (``load``: the load averages measured)."""
    mode = "with contracts" if contracts else "python -O"
    lines = [
        f"## Session store: appends and reopen ({mode})",
        "",
        "Measured by `.venv/bin/python -O -m tests.benchmarks.bench_store --write` "
        f"(Python {platform.python_version()}, SQLite {sqlite3.sqlite_version} in WAL mode, "
        f"2 cores shared with other work: load average {min(load):.1f} to {max(load):.1f} "
        "while measuring; the durable rate is the disk's fsync latency, and varies with it). "
        "Each append is one transaction; *bulk* appends use `durable=False` "
        "(`synchronous=NORMAL`), the last 1,000 turns `durable=True` (`FULL`, the default). "
        "Reopen = open the store and have its live map: SQLite's quick check, the whole "
        "log checked (the rows up to a sealed snapshot in one pass, the rest along the "
        "chain), the map from the snapshot and the turns after it; medians of three, in "
        "CPU time of the process (and wall).",
        "",
        "| turns | snapshots every | bulk appends/s | durable appends/s "
        "| reopen CPU (s) | reopen wall (s) | file (MB) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        bulk = f"{r['bulk_appends_per_s']:,.0f}" if r["bulk_appends_per_s"] else "-"
        every = f"{r['snapshot_every']:,}" if r["snapshot_every"] else "none"
        lines.append(
            f"| {r['turns']:,} | {every} | {bulk} | {r['durable_appends_per_s']:,.0f} "
            f"| {r['reopen_cpu_s']:.3f} | {r['reopen_wall_s']:.3f} | {r['file_mb']:.1f} |"
        )
    lines += ["", *_comparison(rows)]
    return "\n".join(lines) + "\n"


def _comparison(rows: Sequence[dict[str, Any]]) -> list[str]:
    """What snapshots and durable=False change, read off the rows of the largest size."""
    largest = max(r["turns"] for r in rows)
    at = {r["snapshot_every"]: r for r in rows if r["turns"] == largest}
    if 0 not in at or len(at) < 2:
        return []
    plain, snap = at[0], next(r for every, r in at.items() if every)
    reopen = {every: r["reopen_cpu_s"] for every, r in at.items()}
    said = [
        f"At {largest:,} turns, snapshots every {snap['snapshot_every']:,} turns make a reopen "
        f"take {reopen[snap['snapshot_every']]:.2f} s of CPU instead of {reopen[0]:.2f} s; "
        "they cost "
        f"bulk appends ({snap['bulk_appends_per_s']:,.0f}/s instead of "
        f"{plain['bulk_appends_per_s']:,.0f}/s: the map is pickled every "
        f"{snap['snapshot_every']:,} turns) and file size ({snap['file_mb']:.1f} MB instead "
        f"of {plain['file_mb']:.1f})."
    ]
    if plain["bulk_appends_per_s"]:
        ratio = plain["bulk_appends_per_s"] / plain["durable_appends_per_s"]
        said.append(
            f"Without snapshots, `durable=False` appends {ratio:.0f} times as many turns per "
            "second as the default, which waits for the disk at every turn."
        )
    return [" ".join(said)]


def kept_block(text: str, begin: str = BEGIN, end: str = END) -> str:
    """The section of an existing docs/performance.md between ``begin`` and ``end`` (the
    store's by default), markers included ('' if none)."""
    if begin not in text or end not in text:
        return ""
    return text[text.index(begin) : text.index(end) + len(end)] + "\n"


def splice(text: str, section: str, begin: str = BEGIN, end: str = END) -> str:
    """``text`` with ``section`` between ``begin`` and ``end`` (appended if not there)."""
    block = f"{begin}\n{section}{end}\n"
    if begin in text and end in text:
        return text[: text.index(begin)] + block + text[text.index(end) + len(end) + 1 :]
    return text.rstrip("\n") + "\n\n" + block


# Run by each interpreter of --compare, with its own checkout's gcv: build (argv: path,
# size, snapshot_every) or reopen (argv: path) a store; prints CPU seconds.
_BUILD = """
import sys
from gcv.store import create_session, open_session
from tests.benchmarks.bench_store import HEADER
from tests.benchmarks.conversation import Conversation
path, size, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
conversation = Conversation(seed=0)
conversation.grow_to(size)
create_session(path, HEADER, snapshot_every=every).close()
with open_session(path, durable=False) as session:
    for turn in conversation.log[:size]:
        session.append(turn)
"""
_REOPEN = """
import sys, time
from gcv.store import open_session
cpu = time.process_time()
with open_session(sys.argv[1]) as session:
    session.turn
print(time.process_time() - cpu)
"""


def _checkout(python: str) -> Path:
    """The checkout of a virtual environment's interpreter (``CHECKOUT/.venv/bin/python``),
    where its ``gcv`` and ``tests`` are imported from."""
    return Path(python).absolute().parents[2]


def compare(other: str, sizes: Sequence[int], rounds: int = 5) -> list[str]:
    """Reopen CPU with snapshots, this tree against ``other``'s, alternating in one run;
    the lines printed."""
    said = []
    pythons = {"this tree": sys.executable, "compared": other}
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            paths = {name: Path(folder) / f"{k}-{size}.gcv" for k, name in enumerate(pythons)}
            for name, python in pythons.items():
                build = [python, "-O", "-c", _BUILD, str(paths[name]), str(size)]
                subprocess.run(
                    [*build, str(DEFAULT_SNAPSHOT_EVERY)], check=True, cwd=_checkout(python)
                )
            spent: dict[str, list[float]] = {name: [] for name in pythons}
            for _ in range(rounds):
                for name, python in pythons.items():
                    done = subprocess.run(
                        [python, "-O", "-c", _REOPEN, str(paths[name])],
                        check=True,
                        cwd=_checkout(python),
                        capture_output=True,
                        text=True,
                    )
                    spent[name].append(float(done.stdout))
            medians = {name: statistics.median(cpu) for name, cpu in spent.items()}
            said.append(
                f"{size:,} turns, snapshots every {DEFAULT_SNAPSHOT_EVERY:,}: reopen CPU "
                + ", ".join(f"{name} {cpu:.3f} s" for name, cpu in medians.items())
                + f" (each {', '.join(f'{c:.3f}' for c in spent['this tree'])} / "
                + f"{', '.join(f'{c:.3f}' for c in spent['compared'])}); compared / this "
                + f"{medians['compared'] / medians['this tree']:.2f}"
            )
            print(said[-1], flush=True)
    return said


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the table, and with ``--write`` update the docs."""
    words = list(sys.argv[1:] if argv is None else argv)
    other = None
    if "--compare" in words:
        other = words[words.index("--compare") + 1]
        del words[words.index("--compare") : words.index("--compare") + 2]
        if "--write" not in words:
            compare(other, [int(w) for w in words] or [SIZES[-1]])
            return 0
    write = "--write" in words
    sizes = [int(w) for w in words if w != "--write"] or list(SIZES)
    conversation = Conversation(seed=0)
    conversation.grow_to(max(sizes))
    rows = []
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            for snapshot_every in (0, DEFAULT_SNAPSHOT_EVERY):
                row = measure(size, conversation.log, snapshot_every, Path(folder))
                load.append(os.getloadavg()[0])
                print(json.dumps(row), flush=True)
                rows.append(row)
    section = render(rows, contracts=__debug__, load=load)
    if other is not None:
        lines = compare(other, [SIZES[-1]])
        section += (
            "\nReopen CPU with snapshots, this tree against the main branch before sealed "
            "snapshots (`--compare MAIN/.venv/bin/python`, each building its own store of "
            "the same turns), alternating, medians of five fresh processes:\n\n"
            + "".join(f"- {line}\n" for line in lines)
        )
    print(section)
    if write:
        figures = {"python": platform.python_version(), "load_average": load, "rows": rows}
        (DOCS / "store-performance.json").write_text(json.dumps(figures, indent=1) + "\n")
        performance = DOCS / "performance.md"
        performance.write_text(splice(performance.read_text(encoding="utf-8"), section))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
