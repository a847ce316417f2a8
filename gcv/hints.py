"""Hints that name the command fitting how this package was installed."""

from __future__ import annotations

from pathlib import Path

import icontract

__all__ = ["DISTRIBUTION", "install_hint"]

DISTRIBUTION = "grounded-continuation"
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


@icontract.ensure(lambda extra, result: f"[{extra}]" in result, "the hint installs the extra")
def install_hint(extra: str, root: Path = _PACKAGE_ROOT) -> str:
    """The pip command that adds the optional dependencies ``extra``.

    From a source checkout (``root`` holds pyproject.toml: an editable install)
    the command reinstalls that checkout; otherwise it installs the extra of the
    published distribution.

    Examples
    --------
    >>> install_hint("conformance", Path("/nowhere"))
    "pip install 'grounded-continuation[conformance]'"
    """
    if (root / "pyproject.toml").is_file():
        return f"pip install -e '{root}[{extra}]'"
    return f"pip install '{DISTRIBUTION}[{extra}]'"
