"""The rule for tests that need a system program (tests/programs.py), both ways: skipped,
naming the Debian package, where the program is missing; failed where CI asks for every
program; run where it is present."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

_CONFTEST = """
from tests.conftest import pytest_runtest_setup  # noqa: F401  (the hook under test)

def pytest_configure(config):
    config.addinivalue_line("markers", "needs_program(*names): system program")
"""

_TEST = """
import pytest

@pytest.mark.needs_program("dot")
def test_draws():
    pass
"""


def _run(tmp_path: Path, path_folder: Path, **env: str) -> tuple[int, str]:
    (tmp_path / "conftest.py").write_text(_CONFTEST, "utf-8")
    (tmp_path / "test_needs.py").write_text(_TEST, "utf-8")
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CI", "GCV_REQUIRE_PROGRAMS", "PYTEST_ADDOPTS")
    }
    # No plugin is needed by the planted test: not loading them makes each run a third as long.
    environment.update(
        PATH=str(path_folder), PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **env
    )
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.returncode, completed.stdout


@pytest.fixture
def empty_path(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def test_a_missing_program_skips_naming_its_package(tmp_path: Path, empty_path: Path) -> None:
    code, out = _run(tmp_path, empty_path)
    assert code == 0 and "1 skipped" in out, out
    assert "needs dot (Debian: apt-get install graphviz)" in out, out


@pytest.mark.parametrize("variable", ["GCV_REQUIRE_PROGRAMS", "CI"])
def test_a_missing_program_fails_in_ci(tmp_path: Path, empty_path: Path, variable: str) -> None:
    code, out = _run(tmp_path, empty_path, **{variable: "1"})
    # A failure in the test's set-up: pytest counts it as an error, and the run fails.
    assert code == 1 and "1 error" in out, out
    assert "needs dot (Debian: apt-get install graphviz)" in out, out


def test_a_present_program_runs_the_test(tmp_path: Path, empty_path: Path) -> None:
    fake_dot = empty_path / "dot"
    fake_dot.write_text("#!/bin/sh\n", "utf-8")
    fake_dot.chmod(0o755)
    code, out = _run(tmp_path, empty_path, GCV_REQUIRE_PROGRAMS="1")
    assert code == 0 and "1 passed" in out, out
