"""mkdocs hooks: the site's pages are the checkout's Markdown files at their own paths.

The documents link to one another by their paths in the repository (docs/index.md to
``../README.md``, README.md to ``docs/sessions.md`` and ``spec/gcv/spec/normative.md``), so the
site keeps those paths: README.md is its home page, docs/*.md are under docs/, spec/'s
documents under spec/, and the files they link to (the figures, the example adapters, the
schemas) are copied beside them.  Each link then resolves on the site as it does on GitHub,
and ``mkdocs build --strict`` fails on one that does not.  The API reference pages are
generated: one per layer, each a mkdocstrings directive.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "build" / "site-package"
"""The package laid out as the wheel holds it, where mkdocstrings reads the docstrings."""

PAGES = (
    "README.md",
    "CHANGELOG.md",
    "docs/*.md",
    "spec/gcv/spec/*.md",
    "spec/gcv/spec/protocol/*.md",
    "spec/gcv/spec/vectors/COVERAGE.md",
)
"""The Markdown files of the site, as globs from the top of the checkout."""

LINKED = (
    "docs/figures/*.svg",
    "docs/*.png",
    "docs/*.tsv",
    "docs/*.json",
    "spec/gcv/spec/*.json",
    "spec/gcv/spec/protocol/*.json",
    "spec/gcv/spec/vectors/*.json",
    "gcv/conformance/examples/*.py",
    "gcv/conformance/examples/*.js",
)
"""The other files the pages link to, copied as they are."""

_TOOLS_ONLY = '    options:\n      filters: ["!^_[^_]", "!^spec$", "!^reference$", "!^proofs$"]\n'
"""The layers have pages of their own: the tools' page leaves them out."""

API = {
    "api/gcv.md": ("The tools: gcv", "gcv"),
    "api/reference.md": ("The engine: gcv.reference", "gcv.reference"),
    "api/spec.md": ("The specification: gcv.spec", "gcv.spec"),
    "api/proofs.md": ("The proofs: gcv.proofs", "gcv.proofs"),
}
"""Each API page: its title and the package whose docstrings it shows."""


def on_startup(command: str, dirty: bool) -> None:
    """Lay the package out as it installs (setuptools' ``build_py``): the API reference
    reads ``gcv`` as one folder, where the checkout spreads it over four source roots."""
    shutil.rmtree(PACKAGE, ignore_errors=True)  # nothing the checkout no longer has
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(PACKAGE)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )


def on_files(files: Files, config: Any) -> Files:
    """Replace docs/ as the docs folder sees it with the checkout's pages at their paths."""
    site = Files([])
    for pattern in PAGES + LINKED:
        for path in sorted(ROOT.glob(pattern)):
            relative = path.relative_to(ROOT).as_posix()
            site.append(File(relative, str(ROOT), config["site_dir"], config["use_directory_urls"]))
    for uri, (title, package) in API.items():
        content = f"# {title}\n\n::: {package}\n" + (_TOOLS_ONLY if package == "gcv" else "")
        site.append(File.generated(config, uri, content=content))
    return site
