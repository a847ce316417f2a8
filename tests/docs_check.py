"""What the documents name must exist, and the figures they quote must be their files'.

    .venv/bin/python -m tests.docs_check            # list every stale name and figure
    .venv/bin/python -m tests.docs_check --write    # rewrite the quoted figures from their files

The documents checked are README.md, docs/*.md and CHANGELOG.md's latest section
(:func:`documents`), and the Markdown of a vectors bundle (``gcv vectors --export``), whose
paths are the bundle's (:func:`bundle_problems`).  In each:

- a path in backquotes or a relative link must exist: a path from the top of the checkout
  (``gcv/trace.py``, ``spec/gcv/spec/vectors/``), a link from the document's folder, or the end of
  a path of the package (``closure.py``, ``conformance/session.py``); a name that no longer
  exists is struck through (``~~`predicates.py`~~``), and a changelog's names of what moved
  *from* somewhere or *is gone* are not followed;
- a dotted name under ``gcv.`` must import (a module, or an object in one);
- a ``gcv`` command must be a command (``gcv session show``: ``session`` and ``show``),
  and ``python -m M`` a module of the checkout.

A figure is quoted between two comments naming its file and a JSON pointer into it, with
an optional format (Python's mini-language):
``<!-- fig spec/gcv/spec/vectors/manifest.json#/cases -->173<!-- /fig -->`` or
``<!-- fig docs/store-performance.json#/rows/2/reopen :.2f -->0.67<!-- /fig -->`` (a pointer
in its URI form: a space is ``%20``).
The comments do not show where Markdown is rendered.  Each file is one that a command
regenerates (``gcv vectors``, a benchmark's ``--write``), so a figure goes stale only when
its file changes, and ``--write`` brings every document back in line.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from gcv.paper import _imports as paper_imports

ROOT = Path(__file__).resolve().parents[1]


_FIGURE = re.compile(
    r"<!-- fig (?P<file>[^#\s]+)#(?P<pointer>\S*)(?: :(?P<spec>\S+))? -->"
    r"(?P<value>.*?)<!-- /fig -->"
)
_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_FOLDERS = ("gcv", "spec", "reference", "proofs", "tests", "docs", ".ci", ".github")
_TOP = (
    "gcv/",
    "spec/",
    "reference/",
    "proofs/",
    "tests/",
    "docs/",
    ".ci/",
    ".github/",
)
_TOP_FILES = ("setup.py", "pyproject.toml", "action.yml", "CHANGELOG.md", "README.md")
_SUFFIXES = (
    ".py",
    ".md",
    ".json",
    ".c",
    ".pyi",
    ".sh",
    ".yml",
    ".yaml",
    ".toml",
    ".html",
    ".js",
    ".tsv",
    ".png",
)


def documents() -> list[Path]:
    """Every document checked."""
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def checked_text(path: Path) -> str:
    """The part of ``path`` that is checked: CHANGELOG.md's latest section, else all."""
    text = path.read_text("utf-8")
    if path.name == "CHANGELOG.md":
        sections = re.split(r"^## ", text, flags=re.M)
        return "## " + sections[1] if len(sections) > 1 else text
    return text


@dataclass(frozen=True)
class Figure:
    """One quoted figure: its file, JSON pointer and format, and the text quoted."""

    file: str
    pointer: str
    spec: str
    quoted: str

    def value(self) -> str:
        """The figure as its file has it now, formatted."""
        data: Any = _json(self.file)
        for step in self.pointer.split("/")[1:]:
            step = unquote(step).replace("~1", "/").replace("~0", "~")
            data = data[int(step)] if isinstance(data, list) else data[step]
        return format(data, self.spec)


@cache
def _json(file: str) -> Any:
    return json.loads((ROOT / file).read_text("utf-8"))


def figures(text: str) -> Iterator[Figure]:
    """Every figure quoted in ``text``."""
    for match in _FIGURE.finditer(text):
        yield Figure(match["file"], match["pointer"], match["spec"] or "", match["value"])


def stale_figures(text: str) -> list[str]:
    """Each figure of ``text`` that is not what its file says, or whose file cannot say."""
    stale = []
    for figure in figures(text):
        try:
            now = figure.value()
        except (OSError, KeyError, IndexError, ValueError, TypeError) as error:
            stale.append(f"{figure.file}#{figure.pointer}: unreadable ({error!r})")
            continue
        if now != figure.quoted:
            stale.append(f"{figure.file}#{figure.pointer}: quoted {figure.quoted}, file {now}")
    return stale


def rewrite_figures(text: str) -> str:
    """``text`` with every figure quoted as its file has it now."""

    def fresh(match: re.Match[str]) -> str:
        figure = Figure(match["file"], match["pointer"], match["spec"] or "", match["value"])
        return match[0].replace(f"-->{figure.quoted}<!--", f"-->{figure.value()}<!--")

    return _FIGURE.sub(fresh, text)


@cache
def _path_ends(root: Path) -> frozenset[str]:
    """Every end of every path under ``root`` (``a/b.py``: ``b.py`` and ``a/b.py``); in the
    checkout, of the package, its tests and docs."""
    folders = [root / f for f in _FOLDERS] if root == ROOT else [root]
    ends = set()
    for folder in folders:
        for path in folder.rglob("*"):
            if "__pycache__" not in path.parts:
                parts = path.relative_to(root).parts
                ends |= {"/".join(parts[k:]) for k in range(len(parts))}
    return frozenset(ends)


def _looks_like_a_path(token: str) -> bool:
    if any(c in token for c in " <>*{}$|?[]=,:'\"()…") or token.startswith(("-", "/", "~")):
        return False
    return token.startswith(_TOP) or token in _TOP_FILES or token.endswith(_SUFFIXES)


def _path_exists(token: str, folder: Path, root: Path) -> bool:
    """From the top, from the document's folder, or the end of a path under the top or of
    the checkout (``closure.py``, ``conformance/session.py``, ``core/queries.json``): a
    bundle's documents also name the reference's own files."""
    bare = token.split("#")[0].rstrip("/")
    if (root / bare).exists() or (folder / bare).exists():
        return True
    return bare in _path_ends(root) or bare in _path_ends(ROOT)


def _imports(dotted: str) -> bool:
    """Whether ``dotted`` names an object that imports, as ``gcv paper`` asks it of the
    claims (one that needs an extra not installed counts)."""
    return paper_imports(dotted)


@cache
def _commands() -> dict[str, frozenset[str]]:
    """Each ``gcv`` command, with its own subcommands (``session``'s, ``audit``'s)."""
    from gcv import commands, delegated, session_cli

    known = {name: frozenset[str]() for name in delegated.DELEGATED}
    known |= {
        "replay": frozenset(),
        "verify": frozenset(),
        "affected": frozenset(),
        "scenarios": frozenset(),
        "audit": frozenset(commands._AUDITS),
    }
    sessions = session_cli._parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    known["session"] = frozenset(sessions)
    return known


def _command_problem(words: list[str]) -> str | None:
    if len(words) < 2 or not re.fullmatch(r"[a-z][a-z-]*", words[1]):
        return None  # "gcv" alone, or gcv --version, gcv -h
    known = _commands()
    if words[1] not in known:
        return f"gcv {words[1]}: no such command"
    below = known[words[1]]
    if below and len(words) > 2 and re.fullmatch(r"[a-z]+", words[2]) and words[2] not in below:
        return f"gcv {words[1]} {words[2]}: no such command"
    return None


_GONE_BEFORE = re.compile(r"(?:from|replaces|instead of)\s(?:(?!\sto\s|\.\s)[^;])*$")
_GONE_AFTER = re.compile(r"^(?:\s*\([^)]*\))?\s*(?:is|are) gone")


def _went_away(prose: str, start: int, end: int) -> bool:
    """Whether a changelog names the name at ``prose[start:end]`` as one that went away:
    moved or replaced *from* it (before any *to*), or it *is gone*."""
    return bool(
        _GONE_BEFORE.search(prose[max(0, start - 160) : start])
        or _GONE_AFTER.search(prose[end : end + 200])
    )


def stale_names(text: str, folder: Path, root: Path = ROOT, changelog: bool = False) -> list[str]:
    """Each path, module or command ``text`` names that does not exist (in a changelog,
    not the names its sentences say went away)."""
    stale = []
    prose = _FENCE.sub("", text)
    for match in _CODE.finditer(prose):
        if prose[max(0, match.start() - 2) : match.start()] == "~~":
            continue  # struck through: a name that no longer exists, said as such
        if changelog and _went_away(prose, match.start(), match.end()):
            continue
        token = match[1].strip()
        words = token.split()
        if words[:1] == ["gcv"]:
            problem = _command_problem(words)
            stale += [problem] if problem else []
        elif words[:2] == ["python", "-m"] and len(words) > 2:
            module = words[2]
            if module.startswith(("tests", "gcv")) and not _imports(module):
                stale.append(f"python -m {module}: no such module")
        elif re.fullmatch(r"gcv(\.[A-Za-z_]\w*)+", token):
            if not _imports(token):
                stale.append(f"{token}: does not import")
        elif _looks_like_a_path(token) and not _path_exists(token, folder, root):
            stale.append(f"{token}: no such file")
    for target in _LINK.findall(prose):
        if target.startswith(("http:", "https:", "mailto:", "#")):
            continue
        if not _path_exists(target, folder, root):
            stale.append(f"link {target}: no such file")
    return stale


def problems(paths: Iterable[Path] | None = None) -> list[str]:
    """Every stale name and figure of the documents, ``document: problem`` each."""
    found = []
    for path in documents() if paths is None else paths:
        text = checked_text(path)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        changelog = path.name == "CHANGELOG.md"
        found += [f"{shown}: {p}" for p in stale_names(text, path.parent, ROOT, changelog)]
        found += [f"{shown}: {p}" for p in stale_figures(text)]
    return found


def bundle_problems(bundle: Path) -> list[str]:
    """Every stale name of the Markdown of the bundle exported into ``bundle``."""
    return [
        f"bundle {path.relative_to(bundle)}: {problem}"
        for path in sorted(bundle.rglob("*.md"))
        for problem in stale_names(path.read_text("utf-8"), path.parent, bundle)
    ]


def main(argv: list[str] | None = None) -> int:
    """Check (exit 1 on a stale name or figure), or ``--write`` the figures afresh."""
    parser = argparse.ArgumentParser(prog="python -m tests.docs_check", description=__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite the quoted figures")
    args = parser.parse_args(argv)
    if args.write:
        for path in documents():
            text = path.read_text("utf-8")
            fresh = rewrite_figures(text)
            if fresh != text:
                path.write_text(fresh, "utf-8")
                print(f"rewrote the figures of {path.relative_to(ROOT)}")
    found = problems()
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
