#!/usr/bin/env python3
"""Give each layer a folder that is its import path, keeping the top-level folders.

    python3 move_layers.py        # from the checkout's root, on a clean tree

spec/X becomes spec/gcv/spec/X, reference/X reference/gcv/reference/X, proofs/X
proofs/gcv/proofs/X (git mv, so history follows).  Each top-level folder is then a source
root holding one portion of the namespace gcv, and a tool that finds modules by folder
(mypy with mypy_path, jedi or pyright with the three roots as extra paths) follows
gcv.spec.core to spec/gcv/spec/core.py.  Every checkout-relative path that names a moved
file (docs, docstrings, comments, strings, the vectors' origins) is rewritten; a folder
named alone ("spec/") is left, since the folder stays.  The code that builds paths from
parts and the configuration are edited by :data:`EDITS` (each edit's text must still be
there; a merge that changed one is reported, to be made by hand).  The vectors and the
scenarios they quote are left byte for byte (``gcv vectors --check`` stays current).

Run once, after the branches that edit the layers have merged; then delete this file.
Tried on a clone of wt-47 at 2b58136: plain ``mypy`` (no runner) checks 187 files with no
issue, jedi's goto follows gcv.spec.core to spec/gcv/spec/core.py, the fast tier passes,
``gcv vectors --check``, ``gcv normative --check`` and ``gcv schemas --check`` pass, and
the wheel holds the same files.

By hand afterwards:

- ``ruff format gcv spec reference proofs tests`` (7 files), then rewrap the docstring and
  comment lines ``ruff check`` reports too long (58: the moved paths are 9 to 14 characters
  longer);
- docs/layout.md's first paragraph and the CHANGELOG: the folders are the import path
  (``<layer>/gcv/<layer>``), ``package_dir`` still tells setuptools, mypy needs no runner
  (``tests/typecheck.py`` is gone), and an editor is given the three roots as extra paths
  (for example ``[tool.pyright] extraPaths = ["spec", "reference", "proofs"]``, or
  jedi-language-server's ``workspace.extraPaths``);
- the vectors' origins still name ``spec/scenarios/<name>.json``: renaming them is a change
  of the suite's data (its manifest), for the vectors' owner (``gcv/conformance/cases/
  traces.py``, ``scenario_maps.py``, ``generate.py``'s descriptions, then ``gcv vectors``).
"""

import re
import subprocess
from pathlib import Path

LAYERS = ("spec", "reference", "proofs")
THIS = "docs/layout-move.py"
VECTORS = ("spec/gcv/spec/vectors/", "spec/gcv/spec/scenarios/")
"""The suite's files (data, hashed in its manifest) and the scenarios its cases quote: left
as they are, so the vectors stay byte for byte."""
KEPT = ("gcv/conformance/", "tests/conformance/test_vectors.py")
"""Where ``spec/scenarios/...`` is the origin a vector records, not a path to follow: the
vectors keep naming their scenario so (rewriting it is a change of the suite's data, for the
vectors' owner to make with ``gcv vectors``)."""
TEXT = {
    ".py",
    ".md",
    ".json",
    ".toml",
    ".yml",
    ".yaml",
    ".sh",
    ".c",
    ".pyi",
    ".txt",
    ".html",
    ".js",
    ".cfg",
    ".out",
    "",
}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def main() -> None:
    if git("status", "--porcelain").strip():
        raise SystemExit("the tree has uncommitted changes")
    heads: dict[str, set[str]] = {}
    for layer in LAYERS:
        heads[layer] = set()
        for name in git("ls-files", "-z", layer).split("\0"):
            if not name:
                continue
            rest = name[len(layer) + 1 :]
            heads[layer].add(rest.split("/")[0])
            target = Path(layer, "gcv", layer, rest)
            target.parent.mkdir(parents=True, exist_ok=True)
            git("mv", name, str(target))
        for folder in sorted(Path(layer).rglob("*"), reverse=True):  # what git mv left empty
            if folder.is_dir() and not any(folder.iterdir()) and "gcv" not in folder.parts:
                folder.rmdir()
    git("rm", "-q", "tests/typecheck.py")  # plain mypy checks the package by folder now
    # a path token: the layer's name (alone, or after ../ in a relative link), a slash, then
    # a name the layer held at its top, or a glob of such names
    pattern = re.compile(r"(?:(?<![\w./:-])|(?<=\.\./))(spec|reference|proofs)/([\w.*<>-]+)")

    def known(layer: str, first: str) -> bool:
        if first in heads[layer]:
            return True
        if "*" not in first:
            return False
        glob = re.escape(first).replace(r"\*", ".*")
        return any(re.fullmatch(glob, head) for head in heads[layer])

    def moved(match: re.Match[str], kept: bool) -> str:
        layer, head = match.group(1), match.group(2)
        if kept and layer == "spec" and head == "scenarios":
            return match.group(0)
        if known(layer, head.split("/")[0]):
            return f"{layer}/gcv/{layer}/{head}"
        return match.group(0)

    for name in git("ls-files", "-z").split("\0"):
        path = Path(name)
        skipped = name.startswith(VECTORS) or path.suffix not in TEXT or name == THIS
        if not name or skipped or path.is_symlink() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        kept = name.startswith(KEPT)
        made = pattern.sub(lambda match, kept=kept: moved(match, kept), text)
        if made != text:
            path.write_text(made, encoding="utf-8")


# -- the edits that build paths from parts, and the configuration ---------------------------

EDITS: tuple[tuple[str, str, str], ...] = (
    (
        "setup.py",
        "(``package_dir``), so that the distribution holds one import package, ``gcv``, and a\n"
        "user's own ``spec`` or ``reference`` cannot shadow a layer (docs/layout.md).  Each "
        "folder's\n``__init__.py`` refuses to be imported under its bare name, so one file is "
        "never two\nmodules.",
        "(``package_dir``: ``spec/gcv/spec`` is ``gcv.spec``, and so on), so that the\n"
        "distribution holds one import package, ``gcv``, and a user's own ``spec`` or\n"
        "``reference`` cannot shadow a layer (docs/layout.md).  Each top-level folder is a\n"
        "source root holding its layer's portion of ``gcv``: the folder is the import path,\n"
        "so tools that find modules by folder follow it.",
    ),
    (
        "setup.py",
        '"""The folders mapped into ``gcv``: ``spec/`` is ``gcv.spec``, and so on."""',
        '"""The top-level folders, each holding ``gcv/<layer>``."""',
    ),
    (
        "setup.py",
        'found = find_namespace_packages(where=layer, exclude=["__pycache__", "*.__pycache__"])',
        "found = find_namespace_packages(\n"
        '        where=f"{layer}/gcv/{layer}", exclude=["__pycache__", "*.__pycache__"]\n    )',
    ),
    (
        "setup.py",
        'package_dir={f"gcv.{layer}": layer for layer in LAYERS},',
        'package_dir={f"gcv.{layer}": f"{layer}/gcv/{layer}" for layer in LAYERS},',
    ),
    (
        "setup.py",
        'load("gcv.reference", root / "reference" / "__init__.py", package=True)',
        'layer = root / "reference" / "gcv" / "reference"\n'
        'load("gcv.reference", layer / "__init__.py", package=True)',
    ),
    (
        "gcv/__init__.py",
        "import importlib\nfrom typing import TYPE_CHECKING\n",
        "import importlib\nimport pkgutil\nfrom typing import TYPE_CHECKING\n",
    ),
    (
        "gcv/__init__.py",
        "if TYPE_CHECKING:\n    __version__: str\n",
        "if TYPE_CHECKING:\n    __version__: str\n\n"
        "# The layers' portions, spec/gcv, reference/gcv and proofs/gcv, when their folders are\n"
        "# on the path (the tests' pythonpath; the wheel puts everything in one folder).\n"
        "__path__ = pkgutil.extend_path(__path__, __name__)\n",
    ),
    (
        "tests/test_walk_kernel.py",
        '(ROOT / "reference" / "_walk.c")',
        '(ROOT / "reference" / "gcv" / "reference" / "_walk.c")',
    ),
    (
        "tests/test_expected_values.py",
        'folder = ROOT / "spec" / "scenarios"',
        'folder = ROOT / "spec" / "gcv" / "spec" / "scenarios"',
    ),
    (
        "gcv/normative.py",
        'Path("spec") / "normative.md"',
        'Path("spec", "gcv", "spec", "normative.md")',
    ),
    (
        "gcv/schemas.py",
        'Path("spec") / "trace.schema.json"',
        'Path("spec", "gcv", "spec", "trace.schema.json")',
    ),
    (
        "gcv/schemas.py",
        'Path("spec") / "protocol" / "request.schema.json"',
        'Path("spec", "gcv", "spec", "protocol", "request.schema.json")',
    ),
    (
        "tests/benchmarks/bench_epistemic_bits.py",
        '/ "spec" / "scenarios" /',
        '/ "spec" / "gcv" / "spec" / "scenarios" /',
    ),
    (
        "tests/conformance/test_bundle.py",
        'parents[2] / "spec"\n',
        'parents[2] / "spec" / "gcv" / "spec"\n',
    ),
    (
        "tests/epistemic/test_formula_grammar.py",
        '/ "spec" / "protocol" / "formulas.md"',
        '/ "spec" / "gcv" / "spec" / "protocol" / "formulas.md"',
    ),
    (
        "tests/test_ci.py",
        'ROOT / "spec" / "vectors", kept',
        'ROOT / "spec" / "gcv" / "spec" / "vectors", kept',
    ),
    (
        "tests/test_ci.py",
        'ROOT / "spec" / "vectors", kept',
        'ROOT / "spec" / "gcv" / "spec" / "vectors", kept',
    ),
    (
        "tests/test_layers.py",
        'LAYER_FOLDERS = {f"gcv.{folder}": ROOT / folder for folder in ("spec", "reference", '
        '"proofs")}',
        'LAYER_FOLDERS = {f"gcv.{f}": ROOT / f / "gcv" / f for f in ("spec", "reference", '
        '"proofs")}',
    ),
    (
        "tests/test_layers.py",
        'f"import gcv.{layer}; import {layer}"',
        'f"import gcv.{layer}; import {layer}.gcv.{layer}"',
    ),
    (
        "tests/test_layers.py",
        'f"ImportError: import gcv.{layer}, not {layer}: {layer}/ is installed as gcv.{layer}"',
        'f"ImportError: import gcv.{layer}, not {layer}.gcv.{layer}: "\n'
        '        f"{layer}/ is installed as gcv.{layer}"',
    ),
    (
        "tests/test_paper.py",
        '*(ROOT / "spec").glob("*.md")',
        '*(ROOT / "spec" / "gcv" / "spec").glob("*.md")',
    ),
    (
        "tests/test_release.py",
        '(ROOT / "spec" / "vectors" / "manifest.json")',
        '(ROOT / "spec" / "gcv" / "spec" / "vectors" / "manifest.json")',
    ),
    (
        "tests/test_release.py",
        'shipped = ROOT / "spec" / "vectors"',
        'shipped = ROOT / "spec" / "gcv" / "spec" / "vectors"',
    ),
    (
        "tests/test_transition.py",
        '/ "spec" / "normative.md"',
        '/ "spec" / "gcv" / "spec" / "normative.md"',
    ),
    (
        "tests/mutation.py",
        '    layer = source.split("/", 1)[0]\n'
        '    return f"gcv/{source}" if layer in LAYERS else source',
        '    layer = source.split("/", 1)[0]\n'
        '    inside = layer in LAYERS and source.startswith(f"{layer}/gcv/")\n'
        '    return source.removeprefix(f"{layer}/") if inside else source',
    ),
    (
        "tests/mutation.py",
        "        copy = root / installed_path(layer)\n"
        "        shutil.rmtree(copy, ignore_errors=True)\n"
        '        shutil.copytree(root / layer, copy, ignore=shutil.ignore_patterns("__pycache__"))',
        '        copy = root / "gcv" / layer\n'
        "        shutil.rmtree(copy, ignore_errors=True)\n"
        '        shutil.copytree(\n            root / layer / "gcv" / layer, copy, '
        'ignore=shutil.ignore_patterns("__pycache__")\n        )',
    ),
    (
        "tests/test_mutation_runner.py",
        "        (tmp_path / layer).mkdir()\n"
        '        (tmp_path / layer / "__init__.py").write_text(f"# {layer}\\n")',
        '        (tmp_path / layer / "gcv" / layer).mkdir(parents=True)\n'
        '        (tmp_path / layer / "gcv" / layer / "__init__.py").write_text(f"# {layer}\\n")',
    ),
    ("pyproject.toml", 'pythonpath = ["."]', 'pythonpath = [".", "spec", "reference", "proofs"]'),
    (
        ".ci/run",
        "# mypy --strict -p gcv over the package laid out as it installs (mypy cannot follow\n"
        "# setup.py's mapping of spec/, reference/ and proofs/ into gcv from the checkout).\n"
        ".venv/bin/python -m tests.typecheck",
        "# mypy --strict over gcv, its layers found by folder (pyproject.toml's [tool.mypy]).\n"
        ".venv/bin/python -m mypy",
    ),
    (
        "pyproject.toml",
        '[tool.mypy]\nstrict = true\npython_version = "3.11"\n',
        '[tool.mypy]\nstrict = true\npython_version = "3.11"\n'
        "# Each top-level folder holds its layer's portion of gcv (spec/gcv/spec, ...): plain\n"
        "# `mypy` checks the whole package by folder, with no runner.\n"
        'mypy_path = ["spec", "reference", "proofs"]\n'
        'packages = ["gcv", "gcv.spec", "gcv.reference", "gcv.proofs"]\n',
    ),
)
"""(file, text, replacement), applied in order after the paths are rewritten; each text must
be there (a merge that changed it is reported, to be edited by hand)."""


def edit() -> None:
    for name, old, new in EDITS:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        if old not in text:
            raise SystemExit(f"{name}: not found, edit it by hand: {old[:70]!r}")
        path.write_text(text.replace(old, new, 1), encoding="utf-8")


if __name__ == "__main__":
    main()
    edit()
