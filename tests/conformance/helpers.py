"""Commands for the implementations the runner is tested against, and a way to run it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gcv.conformance.runner import main

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
EXAMPLES = Path(__file__).parents[2] / "gcv" / "conformance" / "examples"
ADAPTER = EXAMPLES / "adapter.py"
SERVE = [sys.executable, "-m", "gcv.cli", "serve"]


def fake(mode: str) -> list[str]:
    """The command of the fault-injecting implementation in ``mode``."""
    return [sys.executable, str(FAKE), mode]


def conform(tmp_path: Path, options: list[str], command: list[str]) -> tuple[int, dict[str, Any]]:
    """Run ``gcv conform OPTIONS -- COMMAND`` in-process; its exit code and JSON report."""
    report = tmp_path / "report.json"
    code = main([*options, "--json", str(report), "--", *command])
    return code, json.loads(report.read_text()) if report.is_file() else {}


def statuses(report: dict[str, Any]) -> dict[str, str]:
    """Case id -> status."""
    return {r["id"]: r["status"] for r in report["results"]}
