"""The session store's throughput: appends per second and reopen time, 10^3 to 10^5 turns.

    .venv/bin/python -O -m tests.benchmarks.bench_store [SIZES ...] [--write]

For each size N (default 1,000, 10,000 and 100,000 turns of the realistic
conversation: Phase 2, then generated turns) and for a store without snapshots
and one with the default snapshot interval:

- the store is filled to N - 1,000 turns with ``durable=False`` (SQLite's
  ``synchronous=NORMAL``: no wait for the disk per turn) and the rate is
  reported;
- the last 1,000 turns are appended with ``durable=True`` (``synchronous=FULL``,
  the default: each turn on disk before ``append`` returns) and the rate is
  reported: the steady rate at size N;
- the store is closed and reopened three times; the median time to open (the
  file checks and every logged turn's checksum) and to replay the live map is
  reported, with the file's size.

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

DOCS = Path(__file__).resolve().parents[2] / "docs"
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
    """Seconds to open the store (checks) and to replay its live map."""
    started = time.perf_counter()
    with open_session(path) as session:
        opened = time.perf_counter()
        if session.turn == 0:  # reading the turn replays the live map
            raise RuntimeError(f"{path}: the store is empty")
        return opened - started, time.perf_counter() - opened


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
        "open_s": statistics.median(r[0] for r in reopen),
        "replay_s": statistics.median(r[1] for r in reopen),
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
        "Reopen = open (file checks, every turn's checksum) + replay of the live map "
        "(from the latest snapshot when there is one); medians of three.",
        "",
        "| turns | snapshots every | bulk appends/s | durable appends/s "
        "| open (s) | replay (s) | reopen (s) | file (MB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        bulk = f"{r['bulk_appends_per_s']:,.0f}" if r["bulk_appends_per_s"] else "-"
        every = f"{r['snapshot_every']:,}" if r["snapshot_every"] else "none"
        lines.append(
            f"| {r['turns']:,} | {every} | {bulk} | {r['durable_appends_per_s']:,.0f} "
            f"| {r['open_s']:.3f} | {r['replay_s']:.3f} | {r['open_s'] + r['replay_s']:.3f} "
            f"| {r['file_mb']:.1f} |"
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
    reopen = {every: r["open_s"] + r["replay_s"] for every, r in at.items()}
    said = [
        f"At {largest:,} turns, snapshots every {snap['snapshot_every']:,} turns make a reopen "
        f"take {reopen[snap['snapshot_every']]:.2f} s instead of {reopen[0]:.2f} s; they cost "
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


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the table, and with ``--write`` update the docs."""
    words = list(sys.argv[1:] if argv is None else argv)
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
    print(section)
    if write:
        figures = {"python": platform.python_version(), "load_average": load, "rows": rows}
        (DOCS / "store-performance.json").write_text(json.dumps(figures, indent=1) + "\n")
        performance = DOCS / "performance.md"
        performance.write_text(splice(performance.read_text(encoding="utf-8"), section))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
