"""Progress on standard error for the commands that take more than a couple of seconds.

A bar (tqdm) is drawn only when standard error is a terminal and ``--quiet``
was not given; otherwise nothing at all is written, so pipes, logs and CI
output read as before.  Library callers get no bar unless they ask for one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

__all__ = ["add_quiet_argument", "progress"]

T = TypeVar("T")


def progress(
    items: Iterable[T],
    description: str,
    *,
    total: int | None = None,
    quiet: bool = True,
    status: Callable[[], str] | None = None,
) -> Iterator[T]:
    """Yield ``items``, drawing a bar on stderr when it is a terminal and not ``quiet``.

    The bar is cleared when the loop ends, so only the command's own output stays.
    ``status``, if given, is shown after the count once each item has been handled (the
    findings so far, say).

    Examples
    --------
    >>> list(progress(range(3), "counting"))  # quiet by default: nothing on stderr
    [0, 1, 2]
    """
    if quiet:  # nothing to draw: not even tqdm is loaded
        yield from items
        return
    from tqdm import tqdm

    # disable=None is tqdm's own test: no bar unless the stream is a terminal.
    bar = tqdm(
        items,
        desc=description,
        total=total,
        file=sys.stderr,
        disable=None,
        leave=False,
        dynamic_ncols=True,
    )
    for item in bar:
        yield item
        if status is not None:
            bar.set_postfix_str(status())


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--quiet`` option of a command that shows progress."""
    parser.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (shown only on a terminal)"
    )
