"""``mypy --strict -p gcv`` over the package as it installs.

    .venv/bin/python -m tests.typecheck [MYPY OPTION ...]

mypy finds a module by its folder and does not run setuptools' editable finder, so from
the checkout it cannot see that ``spec/`` is ``gcv.spec`` (setup.py's ``package_dir``), and
mypy's configuration has no way to say so.  This lays the package out as the wheel holds
it, with setuptools' own ``build_py`` (into ``build/typecheck/``, each file copied with its
time stamp, so mypy's cache in ``.mypy_cache`` stays warm), runs mypy there, and prints
its messages with the checkout's paths (``gcv/spec/core.py`` is ``spec/core.py``).

Exit status: mypy's (0: no error), or build_py's when the layout cannot be built.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "build" / "typecheck"
"""Where the installed layout is built; rebuilt from nothing each run, so that a file
removed from the checkout is not checked."""

_INSTALLED_LAYER = re.compile(r"^gcv/(spec|reference|proofs)/", re.MULTILINE)


def checkout_paths(output: str) -> str:
    """mypy's ``output`` with each installed layer's path made the checkout's."""
    return _INSTALLED_LAYER.sub(r"\1/", output)


def main(argv: list[str]) -> int:
    shutil.rmtree(LAYOUT, ignore_errors=True)
    built = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(LAYOUT)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        sys.stderr.write(built.stdout + built.stderr)
        return built.returncode
    options = ["--config-file", str(ROOT / "pyproject.toml")]
    options += ["--cache-dir", str(ROOT / ".mypy_cache")]
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "-p", "gcv", *options, *argv],
        cwd=LAYOUT,
        capture_output=True,
        text=True,
    )
    sys.stdout.write(checkout_paths(checked.stdout))
    sys.stderr.write(checkout_paths(checked.stderr))
    return checked.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
