"""The numbered items of a paper's text: definitions, lemmas, propositions, theorems,
corollaries, remarks, examples, tables, figures and algorithms, in order of first mention.

``python -m gcv.paper_items FILE...`` prints each file's items, one a line.  The papers'
text is not shipped (it is not the project's); ``tests/test_paper_items.py`` reads it from
``$GCV_PAPERS`` or from ``../shared/seeds`` beside the checkout, as CI has it, and compares
it with :data:`gcv.claims.NUMBERED`.
"""

from __future__ import annotations

import re
import sys

import icontract

__all__ = ["KINDS", "extract_items", "main"]

KINDS = (
    "Definition",
    "Lemma",
    "Proposition",
    "Theorem",
    "Corollary",
    "Remark",
    "Example",
    "Table",
    "Figure",
    "Algorithm",
)
"""The kinds of numbered item the papers use."""

# "Lemma 2.2", "Definition A.2", "Lemmas 2.2 and 2.3", "Figure 3a" (the figure's panel).
_ITEM = re.compile(
    rf"\b({'|'.join(KINDS)})s?\s*([A-Z]?\.?\d+(?:\.\d+)*)(?:\s*(?:,|and)\s*(\d+(?:\.\d+)*))?"
)


def _plain(text: str) -> str:
    """The text without Markdown escapes and link targets (EPLA's ``Lemma[5\\.2](url)``)."""
    text = re.sub(r"\\([^\w\s])", r"\1", text)
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)


@icontract.ensure(lambda result: len(set(result)) == len(result), "each item once")
def extract_items(text: str) -> tuple[str, ...]:
    """Every numbered item ``text`` mentions, as "Kind number", in order of first mention.

    >>> extract_items("By Lemmas 2.2 and 2.3 (Figure 3a, Definition A.2), Lemma 2.2 holds.")
    ('Lemma 2.2', 'Lemma 2.3', 'Figure 3', 'Definition A.2')
    """
    found: list[str] = []
    for match in _ITEM.finditer(_plain(text)):
        for number in match.group(2, 3):
            if number is None:
                continue
            # "Definition A2" and "Definition A.2" are one item.
            number = re.sub(r"^([A-Z])(\d)", r"\1.\2", number)
            item = f"{match.group(1)} {number}"
            if item not in found:
                found.append(item)
    return tuple(found)


def main(argv: list[str]) -> int:
    """Print the numbered items of each file named; 2 when one cannot be read."""
    for name in argv:
        try:
            with open(name, encoding="utf-8") as file:
                text = file.read()
        except OSError as error:
            print(f"gcv.paper_items: {name}: {error.strerror}", file=sys.stderr)
            return 2
        print("\n".join(f"{name}: {item}" for item in extract_items(text)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
