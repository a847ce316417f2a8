"""docs/index.md lists every page of docs/ with what it is for, and only pages that exist."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
# Data beside the pages they belong to (their figures and measurements), not pages.
NOT_PAGES = {".json", ".png"}


def test_the_index_lists_every_page_and_no_other() -> None:
    index = (DOCS / "index.md").read_text("utf-8")
    listed = re.findall(r"^\| \[([^\]]+)\]\(\1\) \| \S", index, flags=re.MULTILINE)
    pages = {
        p.name
        for p in DOCS.iterdir()
        if p.is_file() and p.suffix not in NOT_PAGES and p.name != "index.md"
    }
    assert sorted(listed) == sorted(pages)
