"""The optional compiled walk: built when a C compiler is present, skipped otherwise.

Everything else is declared in pyproject.toml.  ``optional=True`` makes setuptools warn
and go on when the extension fails to build (no compiler, no Python headers), so an sdist
still installs, with the pure Python walk answering (gcv --version names the walk).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gcv.reference._walk",
            ["reference/_walk.c"],
            optional=True,
        )
    ]
)
