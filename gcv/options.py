"""Command-line option types: a bad value is refused by the parser, before any work.

Each function here is an ``argparse`` ``type=``: it returns the parsed value or
raises :class:`argparse.ArgumentTypeError`, which the parser turns into exit 2
and one line on standard error (:class:`OptionParser`).  A report path is
checked for writability when the options are parsed, so a run is never lost to
a folder that does not exist.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import NoReturn

import icontract

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
"""The exit codes every ``gcv`` command shares: success, a check failed, bad input."""

DB_VARIABLE = "GCV_DB"
"""The environment variable naming the session store a command's ``--db`` defaults to."""


def default_db() -> str | None:
    """The store named by ``$GCV_DB`` (None when unset or empty): the default of ``--db`` for
    the commands that read or write a session (``gcv session``, the queries, the pictures).

    ``gcv serve --db`` keeps its own default, in memory: a variable left set must not make a
    conformance run write into someone's store.
    """
    return os.environ.get(DB_VARIABLE) or None


__all__ = [
    "DB_VARIABLE",
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_OK",
    "OptionParser",
    "at_least",
    "default_db",
    "one_of",
    "seconds",
    "writable_path",
]


class OptionParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line: ``PROG: error: MESSAGE``, exit 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` on one line and exit 2 (argparse also prints the usage)."""
        self.exit(2, f"{self.prog}: error: {message}\n")


@icontract.require(lambda low, high: low <= high)
def at_least(low: int, high: int = 10**9) -> Callable[[str], int]:
    """The option type of an integer in ``[low, high]``.

    >>> at_least(1)("3")
    3
    >>> at_least(1)("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 0 is not an integer in [1, 1000000000]
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text[:40]} is not an integer in [{low}, {high}]")
        return value

    return parse


@icontract.require(lambda names: len(names) > 0)
def one_of(names: Collection[str], what: str) -> Callable[[str], str]:
    """The option type of one of ``names`` (a prompt version, say), never a path.

    >>> one_of(["v1"], "prompt version")("../../etc")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '../../etc' is not a prompt version (one of: v1)
    """

    def parse(text: str) -> str:
        if text not in names:
            listed = ", ".join(sorted(names))
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a {what} (one of: {listed})")
        return text

    return parse


def seconds(text: str) -> float:
    """The option type of a duration: a finite number of seconds, more than 0, at most a day.

    >>> seconds("2.5")
    2.5
    >>> seconds("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: nan is not a duration in seconds (0 < s <= 86400)
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 86_400):
        raise argparse.ArgumentTypeError(
            f"{text[:40]} is not a duration in seconds (0 < s <= 86400)"
        )
    return value


def writable_path(text: str) -> str:
    """The option type of a report file: ``-`` (standard output) or a writable file path.

    The folder must exist and be writable, and the path must not be a folder.

    >>> writable_path("/no/such/report.xml")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: /no/such/report.xml: the folder /no/such does not exist
    """
    if text == "-":
        return text
    path = Path(text)
    folder = path.parent
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a folder, not a file")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: the folder {folder} does not exist")
    if not os.access(path if path.exists() else folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot be written")
    return text
