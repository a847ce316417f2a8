"""Stopping a run on SIGTERM or SIGINT, whatever is running when the signal comes.

While :func:`stopped_by_signals` lasts, the first SIGTERM or SIGINT raises
:class:`Interrupted` in the main thread, wherever it is.  Code the run calls may catch it
without meaning to: Hypothesis, between examples or while shrinking, has been seen to go on
after it (a fuzzing run then ignored later signals).  So the signal is remembered, and every
:func:`checkpoint` the runner passes (each request to the implementation, each fuzzing
example and step, each case) raises it again, until the runner's own handler takes it
(:func:`cleaning_up`); from then on further signals are ignored, so the reports are
written whole.

:func:`event` marks a point of the run.  A test may register a listener (:data:`LISTENERS`)
to send a signal at a point of its choosing, with no clock involved.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

__all__ = [
    "LISTENERS",
    "Interrupted",
    "checkpoint",
    "cleaning_up",
    "event",
    "stopped_by_signals",
]

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Interrupted(BaseException):
    """The runner was sent SIGTERM or SIGINT (a ``BaseException``, as ``KeyboardInterrupt``
    is, so that no ``except Exception`` on the way, Hypothesis's included, takes it for a
    failure)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _State:
    """The signal received, if any, and whether the runner is already stopping."""

    signum: int | None = None
    cleaning = False


_STATE = _State()

LISTENERS: list[Callable[[str], None]] = []
"""Called with the name of each :func:`event` (tests: a signal sent at a chosen point)."""


def event(name: str) -> None:
    """Mark a point of the run: tell the listeners, then :func:`checkpoint`."""
    for listener in LISTENERS:
        listener(name)
    checkpoint()


def checkpoint() -> None:
    """Raise :class:`Interrupted` again if a signal came and the runner is not yet stopping
    (its first raise may have been caught on the way)."""
    if _STATE.signum is not None and not _STATE.cleaning:
        raise Interrupted(_STATE.signum)


def cleaning_up() -> None:
    """The runner has taken the signal: further ones are ignored while it ends the
    implementation and writes its reports."""
    _STATE.cleaning = True


def _stop(signum: int, frame: object) -> None:
    if _STATE.cleaning:
        return
    if _STATE.signum is None:
        _STATE.signum = signum
    raise Interrupted(_STATE.signum)


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGTERM and SIGINT raise :class:`Interrupted` in the main thread while the context
    lasts (elsewhere, nothing is installed); the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _STATE.signum, _STATE.cleaning = None, False
    previous = {name: signal.signal(name, _stop) for name in SIGNALS}
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(name, handler)
        _STATE.signum, _STATE.cleaning = None, False
