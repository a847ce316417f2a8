"""The registry's numbered items (gcv/claims.py) against those extracted from the papers' text.

The text is not in the repository: the test reads it from ``$GCV_PAPERS``, else from
``../shared/seeds`` beside the checkout (where CI puts a copy of ``shared/``), and is skipped,
saying so, where neither exists (an installed wheel has no checkout).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gcv.claims import CITED_ONLY, NUMBERED
from gcv.paper_items import extract_items

CHECKOUT = Path(__file__).resolve().parents[1]
PAPERS = Path(os.environ.get("GCV_PAPERS", CHECKOUT.parent / "shared" / "seeds"))
FILES = {"core": "000_*.txt", "gossip": "003_*.txt", "lineage": "004_*.txt"}


def _text(paper: str) -> str:
    found = sorted(PAPERS.glob(FILES[paper]))
    if not found:
        pytest.skip(f"the papers' text is not at {PAPERS} (set GCV_PAPERS)")
    return found[0].read_text(encoding="utf-8")


@pytest.mark.parametrize("paper", sorted(FILES))
def test_the_registry_lists_every_numbered_item_of_the_text(paper: str) -> None:
    extracted = set(extract_items(_text(paper)))
    registered = {item for item in NUMBERED[paper] if not item.startswith("(")}
    cited = set(CITED_ONLY.get(paper, {}))
    assert extracted - cited == registered, (
        sorted(extracted - cited - registered),
        sorted(registered - extracted),
    )
    assert cited <= extracted, sorted(cited - extracted)
