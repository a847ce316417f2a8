"""The mutation campaign (tests/mutation_campaign.py) on a local cluster, held to mutmut's
own run: over a small module, each mutant's verdict is the one ``mutmut run`` gives it.

The module is a project of its own made here (one function, a test that leaves some
mutants alive), so that mutmut's whole run (generation, the stats of which test reaches
which function, the clean and the forced-failure runs, every mutant) costs seconds, not
the engine's hour.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mutation import KILLED, SURVIVED

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

MODULE = """
def scale(x, factor):
    return x * factor + 1


def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x
"""

TESTS = """
from tinymath.arith import clamp, scale


def test_scale():
    assert scale(2, 3) == 7


def test_clamp_below_and_within():
    assert clamp(-1, 0, 10) == 0
    assert clamp(5, 0, 10) == 5
"""
"""Every mutant of ``scale`` dies; ``clamp``'s (``<=`` for ``<``, ``>=`` for ``>``) live:
no test tries a bound itself."""

CONFIG = """
[tool.mutmut]
source_paths = ["tinymath/"]
pytest_add_cli_args_test_selection = ["tiny_tests/"]
also_copy = ["tiny_tests/"]
"""


def _project(folder: Path) -> Path:
    (folder / "tinymath").mkdir(parents=True)
    (folder / "tinymath" / "__init__.py").write_text("")
    (folder / "tinymath" / "arith.py").write_text(MODULE)
    (folder / "tiny_tests").mkdir()
    (folder / "tiny_tests" / "test_arith.py").write_text(TESTS)
    (folder / "pyproject.toml").write_text(CONFIG)
    return folder


def _verdicts(project: Path, *command: str) -> dict[str, int | None]:
    """Run ``python -m tests.mutation COMMAND`` in ``project``; each mutant's exit code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(
        [sys.executable, "-m", "tests.mutation", *command],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    meta = json.loads((project / "mutants" / "tinymath" / "arith.py.meta").read_text())
    codes: dict[str, int | None] = meta["exit_code_by_key"]
    return codes


def test_a_campaign_gives_each_mutant_mutmuts_own_verdict(tmp_path: Path) -> None:
    project = _project(tmp_path / "campaign")
    alone = shutil.copytree(project, tmp_path / "alone")
    by_mutmut = _verdicts(alone, "run", "--max-children", "1")
    on_campaign = _verdicts(project, "campaign", "--workers", "2", "--batch", "2")
    assert on_campaign == by_mutmut
    codes = set(on_campaign.values())
    assert codes & KILLED and codes & SURVIVED, "some mutants are killed and some survive"


def test_the_campaigns_driver_leaves_gcv_for_mutmut_to_import() -> None:
    """mutmut's stats and clean runs import the tests in the driver, and with them ``gcv``
    from its copy holding the mutants; a ``gcv`` imported before from the checkout would
    be the one the tests use, and no test would reach a mutant."""
    probe = (
        "import sys, tests.mutation, tests.mutation_campaign; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'gcv'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout
