"""Shared test settings: contracts at full strength and the Hypothesis profiles.

``GCV_HYPOTHESIS_PROFILE=deep`` selects the deep profile (many more examples
and longer operation sequences); the default ``fast`` profile keeps the
README's test command within minutes, and ``ci`` (the default where ``CI`` is set, as
``.ci/run`` has it) is ``fast`` derandomised; the fast tier, ``-m "not slow"``, loads
``quick`` (ten examples a property).  The built distributions and an environment with
the wheel installed are built once per run, for the wheel's tests and the release checks.
"""

import os
import sysconfig
from pathlib import Path

# The costly postconditions (naive closure recomputation) run in the tests;
# icontract reads this when it is first imported.
os.environ.setdefault("ICONTRACT_SLOW", "1")

import pytest
from hypothesis import settings

from gcv.release import build, fresh_environment, project_version

settings.register_profile("fast", max_examples=60, deadline=None, print_blob=True)
# CI runs the same examples every time (a red run is the change's, never the draw's) and
# keeps no example database; locally each run draws anew.
settings.register_profile("ci", settings.get_profile("fast"), derandomize=True, database=None)
settings.register_profile(
    "deep", max_examples=3000, deadline=None, stateful_step_count=200, print_blob=True
)
# The fast tier (-m "not slow") runs every property test at a small budget.
settings.register_profile(
    "quick", settings.get_profile("fast"), max_examples=10, stateful_step_count=15
)
settings.load_profile(
    os.environ.get("GCV_HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "fast")
)


def pytest_configure(config: pytest.Config) -> None:
    """The fast tier's budget, unless a profile is asked for by name."""
    if "not slow" in config.option.markexpr and "GCV_HYPOTHESIS_PROFILE" not in os.environ:
        settings.load_profile("quick")


ROOT = Path(__file__).resolve().parents[1]

# A plugin for tests/sanitize_walk.sh alone: it needs the sanitized build it is given.
collect_ignore = ["sanitized_walk.py"]


@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """This checkout's sdist and wheel, built once as a release builds them (the wheel from
    the sdist), with the test environment's setuptools so that nothing is fetched."""
    return build(ROOT, tmp_path_factory.mktemp("dist"), project_version(ROOT), isolation=False)


@pytest.fixture(scope="session")
def wheel_environment(
    tmp_path_factory: pytest.TempPathFactory, distributions: tuple[Path, Path]
) -> Path:
    """The bin folder of a fresh virtual environment with the wheel installed, its
    dependencies the test environment's (a path entry, so this checkout's editable install
    does not come along)."""
    purelib = Path(sysconfig.get_paths()["purelib"])
    return fresh_environment(distributions[1], tmp_path_factory.mktemp("env"), purelib)
