"""Progress goes to standard error only when it is a terminal, and never with ``--quiet``.

The end-to-end checks run ``gcv prove`` on one obligation with its stderr on a real
pseudo-terminal (``pty``), on a pipe, and on the terminal with ``--quiet``.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from gcv.progress import progress

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PROVE_ONE = ["prove", "--only", "lemma-2.2"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "quiet", "drawn"),
    [(_Terminal(), False, True), (_Terminal(), True, False), (io.StringIO(), False, False)],
)
def test_a_bar_is_drawn_only_on_a_terminal_and_not_quiet(
    stream: io.StringIO, quiet: bool, drawn: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stderr", stream)
    assert list(progress(range(4), "counting", quiet=quiet)) == [0, 1, 2, 3]
    assert ("counting" in stream.getvalue()) is drawn
    assert drawn or stream.getvalue() == ""


def _gcv(words: list[str], terminal: bool) -> tuple[int, str, str]:
    """Run gcv with stderr on a pseudo-terminal (or a pipe); return code, stdout, stderr."""
    command = [sys.executable, "-m", "gcv.cli", *words]
    if not terminal:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr
    controller, device = pty.openpty()
    # A terminal of 80 columns: a fresh pseudo-terminal has none, and tqdm draws to the width.
    fcntl.ioctl(device, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    with subprocess.Popen(
        command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=device
    ) as process:
        os.close(device)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        out = process.stdout.read().decode() if process.stdout else ""
        code = process.wait()
    os.close(controller)
    return code, out, b"".join(chunks).decode(errors="replace")


@pytest.mark.slow
def test_gcv_prove_shows_progress_on_a_terminal_only() -> None:
    on_terminal = _gcv(PROVE_ONE, terminal=True)
    on_pipe = _gcv(PROVE_ONE, terminal=False)
    quiet = _gcv([*PROVE_ONE, "--quiet"], terminal=True)
    assert on_terminal[0] == on_pipe[0] == quiet[0] == 0
    assert "obligations" in on_terminal[2] and "1/1" in on_terminal[2]
    assert on_pipe[2] == "" and quiet[2] == ""
    reports = {re.sub(r"\d+\.\d+", "S", run[1]) for run in (on_terminal, on_pipe, quiet)}
    assert len(reports) == 1, "the report itself is the same, but for its timings"
