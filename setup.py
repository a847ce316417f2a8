"""Where the packages come from, and the optional compiled walk.

Everything else is declared in pyproject.toml.

The layers keep the design card's top-level folders, ``spec/``, ``reference/`` and
``proofs/``, and install as ``gcv.spec``, ``gcv.reference`` and ``gcv.proofs``
(``package_dir``: ``spec/gcv/spec`` is ``gcv.spec``, and so on), so that the
distribution holds one import package, ``gcv``, and a user's own ``spec`` or
``reference`` cannot shadow a layer (docs/layout.md).  Each top-level folder is a
source root holding its layer's portion of ``gcv``: the folder is the import path,
so tools that find modules by folder follow it.

``optional=True`` makes setuptools warn and go on when the extension fails to build (no
compiler, no Python headers), so an sdist still installs, with the pure Python walk
answering (gcv --version names the walk).  A built kernel answers only once this very build
passed ``gcv.reference.walk_check`` against the pure walk (:class:`BuildCheckedWalk`).
"""

import secrets
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent

CHECKED_RECORDS = 3
"""The build checks the kernel on every map of up to this many records, from every start
(and on long maps); the tests go deeper (tests/test_walk_kernel.py)."""

_CHECK = """
import importlib.util, sys, types
from pathlib import Path

root, built, records = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])


def load(name, path, package=False):
    where = [str(Path(path).parent)] if package else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=where)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


gcv = types.ModuleType("gcv")
gcv.__path__ = []
sys.modules["gcv"] = gcv
kernel = load("gcv.reference._walk", built)
layer = root / "reference" / "gcv" / "reference"
load("gcv.reference", layer / "__init__.py", package=True)
from gcv.reference.closure import PURE, Queries
from gcv.reference.walk_check import first_difference

compiled = Queries("compiled (C)", kernel.walk, kernel.affected_star, kernel.affected_star_active)
difference = first_difference(compiled, PURE, records)
print(difference or "equal")
sys.exit(difference is not None)
"""
"""Run by the build's own interpreter (icontract is a build requirement): the engine as the
checkout lays it out, with the kernel just built standing in for gcv.reference._walk."""


class BuildCheckedWalk(build_ext):
    """Build the kernel under a fresh name, check it against the pure walk, and record the
    name beside it (``_walk_checked.py``) only when the check passed."""

    def _record(self, ext: Extension) -> Path:
        # In the build folder: build_ext builds there and copies in place afterwards.
        built = Path(self.build_lib, self.get_ext_filename(self.get_ext_fullname(ext.name)))
        return built.with_name("_walk_checked.py")

    def build_extension(self, ext: Extension) -> None:
        build = secrets.token_hex(8)
        ext.define_macros = [("GCV_WALK_BUILD", f'"{build}"')]
        built, record = Path(self.get_ext_fullpath(ext.name)), self._record(ext)
        record.unlink(missing_ok=True)
        super().build_extension(ext)  # a failed build raises: no kernel, no record
        command = [sys.executable, "-O", "-c", _CHECK, str(ROOT), str(built), str(CHECKED_RECORDS)]
        check = subprocess.run(command, capture_output=True, text=True, check=False)
        if check.returncode == 0:
            record.write_text(
                f'"""Written by setup.py: this build passed its check."""\n\nBUILD = "{build}"\n'
            )
        else:
            self.warn(
                "the compiled walk was not checked equal to the pure walk, which answers:\n"
                + check.stdout[-2000:]
                + check.stderr[-2000:]
            )

    def copy_extensions_to_source(self) -> None:
        """An editable install copies the kernel into the checkout; the record goes with it
        (and a stale one goes)."""
        super().copy_extensions_to_source()
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            package, _, _ = ext.name.rpartition(".")
            inplace = Path(build_py.get_package_dir(package)) / "_walk_checked.py"
            inplace.unlink(missing_ok=True)
            if self._record(ext).exists():
                self.copy_file(str(self._record(ext)), str(inplace))


LAYERS = ("spec", "reference", "proofs")
"""The top-level folders, each holding ``gcv/<layer>``."""


def _layer_packages(layer: str) -> list[str]:
    """``gcv.<layer>`` and its subpackages (data folders included), as they install."""
    found = find_namespace_packages(
        where=f"{layer}/gcv/{layer}", exclude=["__pycache__", "*.__pycache__"]
    )
    return [f"gcv.{layer}", *(f"gcv.{layer}.{package}" for package in found)]


setup(
    packages=[
        *find_namespace_packages(include=["gcv", "gcv.*"], exclude=["*.__pycache__"]),
        *(package for layer in LAYERS for package in _layer_packages(layer)),
    ],
    package_dir={f"gcv.{layer}": f"{layer}/gcv/{layer}" for layer in LAYERS},
    ext_modules=[
        Extension(
            "gcv.reference._walk",
            ["reference/gcv/reference/_walk.c"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": BuildCheckedWalk},
)
