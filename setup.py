"""Where the packages come from, and the optional compiled walk.

Everything else is declared in pyproject.toml.

The layers keep the design card's top-level folders, ``spec/``, ``reference/`` and
``proofs/``, and install as ``gcv.spec``, ``gcv.reference`` and ``gcv.proofs``
(``package_dir``), so that the distribution holds one import package, ``gcv``, and a
user's own ``spec`` or ``reference`` cannot shadow a layer (docs/layout.md).  Each folder's
``__init__.py`` refuses to be imported under its bare name, so one file is never two
modules.

``optional=True`` makes setuptools warn and go on when the extension fails to build (no
compiler, no Python headers), so an sdist still installs, with the pure Python walk
answering (gcv --version names the walk).
"""

from setuptools import Extension, find_namespace_packages, setup

LAYERS = ("spec", "reference", "proofs")
"""The folders mapped into ``gcv``: ``spec/`` is ``gcv.spec``, and so on."""


def _layer_packages(layer: str) -> list[str]:
    """``gcv.<layer>`` and its subpackages (data folders included), as they install."""
    found = find_namespace_packages(where=layer, exclude=["__pycache__", "*.__pycache__"])
    return [f"gcv.{layer}", *(f"gcv.{layer}.{package}" for package in found)]


setup(
    packages=[
        *find_namespace_packages(include=["gcv", "gcv.*"], exclude=["*.__pycache__"]),
        *(package for layer in LAYERS for package in _layer_packages(layer)),
    ],
    package_dir={f"gcv.{layer}": layer for layer in LAYERS},
    ext_modules=[
        Extension(
            "gcv.reference._walk",
            ["reference/_walk.c"],
            optional=True,
        )
    ],
)
