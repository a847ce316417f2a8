"""The ``gcv`` command line.

The command line is the composition root: with the other tools directly under
:mod:`gcv` (the conformance kit, the paper registry) it is where the layers
``gcv.reference``, ``gcv.spec`` and ``gcv.proofs`` meet.  Subcommands owned by a
spec module or by the proof suite are imported lazily, so ``gcv replay`` never
loads Z3 or the audits.

Exit codes: 0 success (every expectation holds; the record is grounded);
1 an expectation failed or the record is ungrounded; 2 bad input.  A reader that
closes standard output early (``gcv session append ... | head -1``) changes
neither: the command runs to its end, what it would have printed is discarded,
and the exit code is the command's own (:func:`_output_whose_reader_may_leave`).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from gcv.delegated import DELEGATED, delegate
from gcv.options import EXIT_BAD_INPUT
from gcv.reference.errors import GcvError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["main"]


class _PipeEnd(io.FileIO):
    """A file descriptor written to until its reader leaves, then a sink.

    The one place ``gcv`` meets EPIPE: a write to a pipe whose reader has closed it is
    counted as written and the rest is discarded, so that no command stops half way
    (a ``session append`` with its turns still unread, say) because nobody reads it.
    """

    closed_by_reader = False

    def write(self, data: ReadableBuffer) -> int:
        """Write ``data``, or discard it once the reader has left; its size either way."""
        if not self.closed_by_reader:
            try:
                return super().write(data)
            except BrokenPipeError:
                self.closed_by_reader = True
        return memoryview(data).nbytes


def _past_its_reader(stream: TextIO) -> TextIO:
    """``stream`` (a standard stream on a file descriptor) rebuilt on a :class:`_PipeEnd`."""
    if stream is not sys.__stdout__ and stream is not sys.__stderr__:
        return stream  # redirected in this process (a test's capture): no pipe to lose
    try:
        descriptor = stream.fileno()
        stream.flush()
    except (OSError, ValueError):  # closed already, or no descriptor
        return stream
    buffered = io.BufferedWriter(_PipeEnd(descriptor, "w", closefd=False))
    return io.TextIOWrapper(
        buffered,
        encoding=stream.encoding,
        errors="backslashreplace",
        line_buffering=stream.line_buffering,
    )


@contextmanager
def _output_whose_reader_may_leave() -> Iterator[None]:
    """Standard output and error on :class:`_PipeEnd`s for the command's run; restored after."""
    originals = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _past_its_reader(sys.stdout), _past_its_reader(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = originals


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gcv`` with ``argv`` (default: ``sys.argv[1:]``) and return its exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    for stream in (sys.stdout, sys.stderr):
        # What the terminal cannot encode is printed escaped (\xe9), not raised mid-report.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    with _output_whose_reader_may_leave():
        try:
            if words and words[0] in DELEGATED:  # the module parses its own options
                module, help_text = DELEGATED[words[0]]
                return delegate(module, words[1:], f"gcv {words[0]}: {help_text}")
            from gcv.commands import build_parser  # the engine, only for its own commands

            args = build_parser().parse_args(words)
            code: int = args.run(args)
        except GcvError as error:
            print(f"gcv: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":
    raise SystemExit(main())
