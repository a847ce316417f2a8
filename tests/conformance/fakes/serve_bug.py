"""``python -O tests/conformance/fakes/serve_bug.py WHAT``: ``gcv serve`` with one paper rule
broken (:data:`.paper_bugs.PAPER_BUGS`'s engine ``WHAT``), run as a third-party engine runs:
without our contracts (``-O``), speaking gcv-conform/1 on standard input and output."""

from __future__ import annotations

import sys
from pathlib import Path


def main(what: str) -> int:
    """Serve the engine ``what`` until standard input closes."""
    # The sibling modules, imported as pytest imports them: from the repository's root.
    sys.path.append(str(Path(__file__).parents[3]))
    from gcv.conformance import server
    from tests.conformance.fakes.paper_bugs import PAPER_BUGS

    with PAPER_BUGS[what].patch():
        return server.main([])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
