"""The exported bundle stands alone: copied by itself into an empty folder, its two example
adapters pass the paper profile run from there, each declaring only what it implements."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.conformance.generate import main as vectors_main
from gcv.conformance.runner import EXIT_OK
from tests.programs import require_programs

GCV = [sys.executable, "-m", "gcv.cli"]

# What each adapter implements, and so declares: no more (a declared feature it lacked
# would fail or leave steps unrun) and no less (the cases it can run are run).
DECLARED = {
    "examples/adapter.py": {
        "core",
        "query:verify",
        "query:affected",
        "query:affected_star",
        "query:standing",
    },
    "examples/adapter.js": {
        "core",
        "query:verify",
        "query:affected",
        "query:affected_star",
        "query:affected_star_active",
        "query:standing",
        "query:dependencies",
        "query:attackers",
        "query:dissenters",
        "query:commitments",
    },
}


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exported = tmp_path_factory.mktemp("export") / "bundle"
    assert vectors_main(["--export", str(exported)]) == EXIT_OK
    folder = tmp_path_factory.mktemp("empty")
    assert not any(folder.iterdir())
    shutil.copytree(exported, folder / "gcv-vectors")
    shutil.rmtree(exported)  # nothing but the copy is left to read
    return folder / "gcv-vectors"


def _interpreter(adapter: str) -> list[str]:
    if adapter.endswith(".js"):
        return require_programs("node")
    return [sys.executable]


@pytest.mark.slow
@pytest.mark.parametrize("adapter", sorted(DECLARED))
def test_each_example_adapter_passes_the_paper_profile_from_the_bundle_alone(
    alone: Path, adapter: str
) -> None:
    command = [*_interpreter(adapter), adapter]
    run = subprocess.run(
        [*GCV, "conform", "--vectors", "vectors", "--json", "-", "--", *command],
        cwd=alone,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == EXIT_OK, run.stdout[-2000:] + run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["suite"] == json.loads((alone / "manifest.json").read_text())["suite"]
    assert set(report["implementation"]["features"]) == DECLARED[adapter]
    counts = report["counts"]
    assert counts["fail"] == counts["error"] == 0 and counts["pass"] > 100, counts
    paper = report["profiles"]["paper"]
    assert paper["steps"] > 500 and paper["differing"] == 0, paper
