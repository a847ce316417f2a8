"""``gcv figures [--out DIR] [--check]``: the pictures in docs/pictures.md, made by ``gcv draw``.

Each figure is one ``gcv draw`` command, written twice into ``--out`` (in a source
checkout, ``docs/figures/`` by default; an installed copy never writes inside the
package, so it needs ``--out``):
its DOT source (``NAME.dot``) and its SVG (``NAME.svg``, laid out by Graphviz's ``dot``
or graphviz-pure: :mod:`gcv.layout`).  ``--check`` draws them again and fails when a
committed figure is stale: the DOT must be the same text, and the SVG must show the same
records and links with the same classes (its coordinates may differ with the layout
program).  Without a layout program it says what to install and exits 2.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from gcv import draw
from gcv.errors import Unsupported
from gcv.hints import source_checkout
from gcv.layout import MISSING, find_layout_program
from gcv.options import EXIT_BAD_INPUT

__all__ = ["FIGURES", "main", "stale_figures", "svg_signature", "write_figures"]

FIGURES: dict[str, list[str]] = {
    "phase2-T13-affected-o5": ["phase2-debugging", "--at", "13", "--highlight", "affected:o5"],
    "phase3-affected-a3": ["phase3-deliberation", "--highlight", "affected:a3"],
    # B.1's M_0 to M_3: before any turn, after the father (T1), after the round of "I don't
    # know" (T2), and after the three Resolves (the trace gives each its own turn, T3 to T5).
    "muddy-M0": ["phase1-muddy-children", "--at", "0", "--model"],
    "muddy-M1": ["phase1-muddy-children", "--at", "1", "--model"],
    "muddy-M2": ["phase1-muddy-children", "--at", "2", "--model"],
    "muddy-M3": ["phase1-muddy-children", "--at", "5", "--model"],
}
"""Each figure's name and its ``gcv draw`` arguments (before ``--format``)."""

_CHECKOUT = source_checkout()
FOLDER = None if _CHECKOUT is None else _CHECKOUT / "docs" / "figures"
"""docs/figures in the source checkout; None for an installed copy."""
_SVG = "{http://www.w3.org/2000/svg}"


def write_figures(folder: Path) -> None:
    """Draw every figure into ``folder`` (its DOT and its SVG).

    Raises
    ------
    Unsupported
        A figure could not be drawn (``gcv draw`` has printed why).
    """
    folder.mkdir(parents=True, exist_ok=True)
    for name, words in FIGURES.items():
        for form in ("dot", "svg"):
            code = draw.main([*words, "--format", form, "-o", str(folder / f"{name}.{form}")])
            if code != 0:  # gcv draw has said why on stderr
                raise Unsupported(f"gcv draw {' '.join(words)} --format {form} exited {code}")


def svg_signature(path: Path, texts: bool = False) -> list[tuple[str, ...]]:
    """The (title, class) of each drawn node and edge: what the SVG shows, not where;
    with ``texts``, each one's text lines and fill colours too."""
    shown = []
    for group in ET.parse(path).getroot().iter(f"{_SVG}g"):
        title = group.find(f"{_SVG}title")
        if title is not None and group.get("class", "graph") != "graph":
            seen: tuple[str, ...] = (title.text or "", group.get("class", ""))
            if texts:
                lines = tuple(t.text or "" for t in group.iter(f"{_SVG}text"))
                fills = tuple(sorted({e.get("fill", "") for e in group.iter()} - {""}))
                seen += ("\n".join(lines), ",".join(fills))
            shown.append(seen)
    return sorted(shown)


def stale_figures(folder: Path) -> list[str]:
    """The files of ``folder`` that differ from a fresh drawing (missing ones included)."""
    stale = []
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch)
        write_figures(fresh)
        for name in FIGURES:
            dot, svg = folder / f"{name}.dot", folder / f"{name}.svg"
            if not dot.is_file() or dot.read_text("utf-8") != (fresh / dot.name).read_text("utf-8"):
                stale.append(dot.name)
            if not svg.is_file() or svg_signature(svg) != svg_signature(fresh / svg.name):
                stale.append(svg.name)
    return stale


def main(argv: list[str]) -> int:
    """See ``gcv figures --help``."""
    parser = argparse.ArgumentParser(prog="gcv figures", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="fail if a figure in the folder is stale"
    )
    parser.add_argument(
        "--out",
        "--folder",
        dest="folder",
        type=Path,
        default=FOLDER,
        help="the figures' folder (default in a source checkout: docs/figures)",
    )
    args = parser.parse_args(argv)
    if args.folder is None:
        print("gcv figures: outside a source checkout, name the folder: --out DIR", file=sys.stderr)
        return EXIT_BAD_INPUT
    if find_layout_program() is None:
        print(f"gcv figures: {MISSING}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if not args.check:
            write_figures(args.folder)
            print(f"wrote {len(FIGURES)} figures (DOT and SVG) to {args.folder}")
            return 0
        stale = stale_figures(args.folder)
    except Unsupported:
        return EXIT_BAD_INPUT
    for file in stale:
        print(f"{args.folder / file} is stale: run `gcv figures --out {args.folder}`")
    return 1 if stale else 0
