"""A griffe extension for the API reference: doctests in a docstring's body are code.

numpydoc reads the examples of an ``Examples`` section as code, but many docstrings here
(the spec's, above all) show a doctest in their body, as CPython's do; rendered as Markdown
its output (``['ab', 'ac']``) would read as a link.  This fences each run of doctest
lines before the first numpydoc section as Python console code, and escapes the paper's
star (Dep*, Affected*, X_k*), which Markdown would read as emphasis.  It changes only what
the site shows; the doctests run from the source as written.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_SECTION = re.compile(r"^\s*-{3,}\s*$")
_STAR = re.compile(r"(?<=[A-Za-z_])\*")


def fence_doctests(text: str) -> str:
    """``text`` with each doctest run of its body (before a numpydoc section) fenced."""
    lines = text.splitlines()
    end = next((k - 1 for k, line in enumerate(lines) if k and _SECTION.match(line)), len(lines))
    fenced: list[str] = []
    inside = False
    for line in lines[:end]:
        starts = line.lstrip().startswith(">>>")
        if starts and not inside:
            fenced.append("```pycon")
            inside = True
        elif inside and not line.strip():
            fenced.append("```")
            inside = False
        fenced.append(line if inside else _STAR.sub(r"\\*", line))
    if inside:
        fenced.append("```")
    rest, code = [], False
    for k, line in enumerate(lines[end:], start=end):
        if k + 1 < len(lines) and _SECTION.match(lines[k + 1]):
            code = line.strip() == "Examples"  # numpydoc reads its lines as code
        rest.append(line if code else _STAR.sub(r"\\*", line))
    return "\n".join(fenced + rest)


class FenceDoctests(griffe.Extension):
    """Fence the doctests of every docstring's body (:func:`fence_doctests`)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring as the site shows it."""
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
