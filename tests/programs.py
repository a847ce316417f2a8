"""System programs some tests need, and what happens when one is missing.

A test that drives a program from outside Python carries ``@pytest.mark.needs_program(
"dot")`` (several names allowed), or calls :func:`require_programs` from a fixture.  Where a
program is missing the test is skipped with a reason naming the Debian package that provides
it, so the README's test command passes on a machine with nothing but Python.  Where
``GCV_REQUIRE_PROGRAMS`` is set (``.ci/run`` sets it, and so does ``CI``), a missing program
fails the test instead: CI tests everything, and a skip cannot hide there.
"""

from __future__ import annotations

import os
import shutil
from glob import glob

import pytest

__all__ = ["DEBIAN_PACKAGES", "find_program", "programs_required", "require_programs"]

DEBIAN_PACKAGES: dict[str, str] = {
    "dot": "graphviz",
    "chromium": "chromium",
    "chromedriver": "chromium-driver",
    "node": "nodejs",
    "gcc": "gcc",
    "initdb": "postgresql",
    "pg_ctl": "postgresql",
    "postgres": "postgresql",
}
"""Each program a test may need, and the Debian package that installs it."""

_SEARCHED_BESIDE_PATH = {
    # Debian installs PostgreSQL's server programs outside PATH, one folder per version.
    "postgresql": "/usr/lib/postgresql/*/bin",
}


def find_program(name: str) -> str | None:
    """The path of program ``name``: on PATH, or where its Debian package puts it."""
    found = shutil.which(name)
    if found is not None:
        return found
    pattern = _SEARCHED_BESIDE_PATH.get(DEBIAN_PACKAGES.get(name, ""))
    for folder in sorted(glob(pattern), reverse=True) if pattern else ():
        found = shutil.which(name, path=folder)
        if found is not None:
            return found
    return None


def programs_required() -> bool:
    """True where a missing program is a failure rather than a skip (CI)."""
    return bool(os.environ.get("GCV_REQUIRE_PROGRAMS") or os.environ.get("CI"))


def require_programs(*names: str) -> list[str]:
    """The programs' paths; skip the running test when one is missing (fail it, in CI),
    naming its Debian package."""
    for name in names:
        if name not in DEBIAN_PACKAGES:
            raise ValueError(f"needs_program: {name!r} has no Debian package in DEBIAN_PACKAGES")
    found = {name: find_program(name) for name in names}
    missing = [name for name, path in found.items() if path is None]
    if not missing:
        return [str(found[name]) for name in names]
    packages = sorted({DEBIAN_PACKAGES[name] for name in missing})
    reason = f"needs {', '.join(missing)} (Debian: apt-get install {' '.join(packages)})"
    if programs_required():
        pytest.fail(f"{reason}; missing where GCV_REQUIRE_PROGRAMS or CI is set", pytrace=False)
    pytest.skip(reason)
