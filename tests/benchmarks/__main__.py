"""Run every benchmark, print the tables, and write docs/performance.{json,png,md}.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python -m tests.benchmarks            # about ten minutes on 2 cores
    .venv/bin/python -m tests.benchmarks --quick    # smaller sizes, about two minutes

The measurements run in two child processes: ``python -O`` (contracts removed) for
the full range, then ``python`` (contracts on) on the same turn log for the sizes it
can reach in time; then the engine's hot paths are profiled (``profile_hot``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.benchmarks import bench_defaults, bench_walks
from tests.benchmarks.bench_store import kept_block
from tests.benchmarks.report import render_markdown, render_plot, tables, tidy_profile

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
COMMAND = ".venv/bin/python -m tests.benchmarks"


def _child(flags: list[str], args: list[str]) -> None:
    command = [sys.executable, *flags, "-m", "tests.benchmarks.suite", *args]
    subprocess.run(command, cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--out", type=Path, default=DOCS, help="where to write the figures")
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument(
        "--render", type=Path, metavar="JSON", help="only redraw the tables and plot from JSON"
    )
    args = parser.parse_args(argv)
    if args.render is not None:
        _write(json.loads(args.render.read_text(encoding="utf-8")), args.out)
        return 0
    quick = ["--quick"] if args.quick else []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gcv-bench-") as scratch:
        folder = Path(scratch)
        log = ["--log", str(folder / "log.pickle")]
        print("python -O (contracts off):", flush=True)
        _child(["-O"], ["off", str(folder / "off.json"), *log, *quick])
        print("python (contracts on):", flush=True)
        _child([], ["on", str(folder / "on.json"), *log, *quick, "--parts", "retraction,worst"])
        results: dict[str, Any] = {
            "off": json.loads((folder / "off.json").read_text(encoding="utf-8")),
            "on": json.loads((folder / "on.json").read_text(encoding="utf-8")),
        }
    if not args.no_profile:
        print("profiling (python -O):", flush=True)
        profiled = subprocess.run(
            [sys.executable, "-O", "-m", "tests.benchmarks.profile_hot", "--top", "8"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        results["profile"] = profiled.stdout
    results["command"] = COMMAND + (" --quick" if args.quick else "")
    results["python"] = sys.version.split()[0]
    results["seconds"] = time.perf_counter() - started
    _write(results, args.out)
    return 0


def _write(results: dict[str, Any], out: Path) -> None:
    if "profile" in results:
        results["profile"] = tidy_profile(results["profile"])
    text = tables(results)
    print(text)
    out.mkdir(parents=True, exist_ok=True)
    (out / "performance.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    render_plot(results, out / "performance.png")
    page = out / "performance.md"
    # The walks' and the session store's sections are measured on their own; keep them.
    old = page.read_text(encoding="utf-8") if page.exists() else ""
    kept = kept_block(old, bench_walks.BEGIN, bench_walks.END) + kept_block(old)
    kept += kept_block(old, bench_defaults.BEGIN, bench_defaults.END)
    markdown = render_markdown(results, text)
    page.write_text(markdown + ("\n" + kept if kept else ""), encoding="utf-8")
    print(f"wrote {out}/performance.json, .png, .md ({results['seconds']:.0f} s of measuring)")


if __name__ == "__main__":
    raise SystemExit(main())
