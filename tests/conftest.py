"""Shared test settings: contracts at full strength and the Hypothesis profiles.

``GCV_HYPOTHESIS_PROFILE=deep`` selects the deep profile (many more examples
and longer operation sequences); the default ``fast`` profile keeps the
README's test command within minutes, and ``ci`` (the default where ``CI`` is set, as
``.ci/run`` has it) is ``fast`` derandomised; the fast tier, ``-m "not slow"``, loads
``quick`` (ten examples a property).  The built distributions and an environment with
the wheel installed are built once per run, shared by xdist's workers, for the wheel's
tests and the release checks.
"""

from __future__ import annotations

import os
import sysconfig
import tempfile
from pathlib import Path

# The costly postconditions (naive closure recomputation) run in the tests;
# icontract reads this when it is first imported.
os.environ.setdefault("ICONTRACT_SLOW", "1")
# Session stores seal their snapshots with a key kept outside them (gcv/store/seal.py): the
# tests use one of their own, never the user's.
os.environ.setdefault(
    "GCV_STORE_KEY_FILE", os.path.join(tempfile.gettempdir(), f"gcv-tests-{os.getuid()}.key")
)

import pytest
from filelock import FileLock
from hypothesis import settings

from gcv.release import build, fresh_environment, project_version
from gcv.release import distributions as release_distributions
from tests.programs import require_programs

settings.register_profile("fast", max_examples=60, deadline=None, print_blob=True)
# CI runs the same examples every time (a red run is the change's, never the draw's) and
# keeps no example database; locally each run draws anew.
settings.register_profile("ci", settings.get_profile("fast"), derandomize=True, database=None)
settings.register_profile(
    "deep", max_examples=3000, deadline=None, stateful_step_count=200, print_blob=True
)
_BASE_PROFILE = "ci" if os.environ.get("CI") else "fast"
# The fast tier (-m "not slow") runs every property test at a small budget, derandomised
# in CI as the base is.
settings.register_profile(
    "quick", settings.get_profile(_BASE_PROFILE), max_examples=10, stateful_step_count=15
)
settings.load_profile(os.environ.get("GCV_HYPOTHESIS_PROFILE", _BASE_PROFILE))


FAST_FILE_BUDGET = 5.0
"""Seconds a test file may take in the fast tier before the run names it (a report, not a
failure: tests never assert on the machine's speed)."""


def _fast_tier(config: pytest.Config) -> bool:
    return "not slow" in config.option.markexpr


def pytest_configure(config: pytest.Config) -> None:
    """The fast tier's budget, unless a profile is asked for by name."""
    if _fast_tier(config) and "GCV_HYPOTHESIS_PROFILE" not in os.environ:
        settings.load_profile("quick")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``needs_program``: skip (in CI, fail) a test whose system program is missing."""
    for mark in item.iter_markers("needs_program"):
        require_programs(*mark.args)


_SECONDS: dict[str, float] = {}
"""Each test file's time in this run; under xdist, the controller's sum of its workers'."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::", 1)[0]
    _SECONDS[path] = _SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """In the fast tier, name the files over their budget: candidates for ``slow``."""
    over = {p: s for p, s in _SECONDS.items() if s > FAST_FILE_BUDGET}
    if _fast_tier(config) and over:
        terminalreporter.write_sep("-", f"fast-tier files over {FAST_FILE_BUDGET:.0f} s")
        for path, seconds in sorted(over.items(), key=lambda item: -item[1]):
            terminalreporter.write_line(f"{seconds:6.1f} s  {path}: mark its slow tests")


ROOT = Path(__file__).resolve().parents[1]

# A plugin for tests/sanitize_walk.sh alone: it needs the sanitized build it is given.
collect_ignore = ["sanitized_walk.py"]


def _shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every xdist worker of this run shares.

    Its maker holds ``<folder>.lock`` while making it and leaves ``<folder>.made``
    (pytest-xdist's documented pattern): the first worker builds, the others wait, reuse.
    """
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name


@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """This checkout's sdist and wheel, built once per run as a release builds them (the
    wheel from the sdist), with the test environment's setuptools so nothing is fetched."""
    folder = _shared_folder(tmp_path_factory, "dist")
    with FileLock(f"{folder}.lock"):
        if not Path(f"{folder}.made").exists():
            build(ROOT, folder, project_version(ROOT), isolation=False)
            Path(f"{folder}.made").touch()
    return release_distributions(folder, project_version(ROOT))


@pytest.fixture(scope="session")
def wheel_environment(
    tmp_path_factory: pytest.TempPathFactory, distributions: tuple[Path, Path]
) -> Path:
    """The bin folder of a fresh virtual environment with the wheel installed, its
    dependencies the test environment's (a path entry, so this checkout's editable install
    does not come along); made once per run."""
    folder = _shared_folder(tmp_path_factory, "env")
    purelib = Path(sysconfig.get_paths()["purelib"])
    with FileLock(f"{folder}.lock"):
        if not Path(f"{folder}.made").exists():
            fresh_environment(distributions[1], folder, purelib)
            Path(f"{folder}.made").touch()
    return folder / "bin"
