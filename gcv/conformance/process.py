"""An implementation under test: a subprocess spoken to in JSON lines, with a watchdog.

:class:`Implementation` starts the command, performs the handshake, and sends
one request at a time, waiting at most the per-request timeout for the
response line.  Every way the process can misbehave is a typed
:class:`Fault` (it hung, it exited, it wrote something that is not a
response), after which the process is killed; :meth:`Implementation.restart`
brings up a fresh one.  Standard error is collected by a thread so that a
chatty implementation cannot block on a full pipe, and handed out per case.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from gcv.conformance.protocol import PROTOCOL, response_problem
from gcv.conformance.stopping import checkpoint
from gcv.conformance.vectors import SUITE_VERSION
from gcv.jsoninput import parse_json
from gcv.reference.errors import GcvError

__all__ = [
    "IDLE_SECONDS",
    "STDERR_KEEP",
    "Crashed",
    "DeadlinePassed",
    "Fault",
    "Garbage",
    "Handshake",
    "Implementation",
    "Refused",
    "TimedOut",
]

MAX_RESPONSE_BYTES = 8 * 1024 * 1024
"""A response line longer than this is refused (``garbage``) once that much is read: the
largest answer the suite expects is about 15 KB (W_t of Phase 2's full model, 2^15 worlds,
would be about 3 MB), and parsing a line costs the runner about ten times its length in
memory, so a huge answer, valid or not, never costs it more."""
IDLE_SECONDS = 0.1
"""A wait for a response this long is idle time, in which the runner does its own work."""
STDERR_KEEP = 64 * 1024
"""Bytes of standard error kept per case, half from its start and half from its end:
enough to show, not enough to flood a report or the runner's memory."""


class Fault(Exception):
    """The implementation misbehaved at the process level; it has been killed."""

    kind = "fault"


class TimedOut(Fault):
    """No response line within the timeout."""

    kind = "timeout"


class DeadlinePassed(Fault):
    """The run's deadline passed while waiting for a response (not the implementation's
    fault: a wait the per-request timeout would have allowed was cut short)."""

    kind = "deadline"


class Crashed(Fault):
    """The process exited (or closed its standard output) before answering."""

    kind = "crash"


class Garbage(Fault):
    """A line came back that is not a valid response to the request."""

    kind = "garbage"


class Refused(Fault):
    """The implementation refused the handshake (it does not speak this protocol version)."""

    kind = "refused"


@dataclass(frozen=True, slots=True)
class Handshake:
    """What the implementation said about itself."""

    name: str
    version: str
    features: frozenset[str]
    raw: Mapping[str, Any]


class _LineReader:
    """Lines from a pipe, read in the calling thread with a deadline (POSIX ``select``).

    Reading in the caller rather than in a helper thread keeps each round trip free of
    thread hand-offs, which cost milliseconds when the runner is busy validating.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.scanned = 0  # the first ``scanned`` bytes of the buffer hold no newline
        self.ended = False

    def line(self, timeout: float, on_idle: Callable[[], None] | None = None) -> bytes | None:
        """The next line (with its newline), ``None`` at the end of the stream.

        Raises ``TimeoutError`` when no whole line arrives within ``timeout`` seconds; a
        line longer than the limit is returned as it stands, to be refused.  ``on_idle``
        is called once if nothing arrives for ``IDLE_SECONDS``.
        """
        deadline = time.monotonic() + timeout
        while True:
            # Each byte is searched once and the buffer grows in place, so a long line
            # costs time linear in its length.
            cut = self.buffer.find(b"\n", self.scanned)
            if cut >= 0 or len(self.buffer) > MAX_RESPONSE_BYTES:
                end = cut + 1 if cut >= 0 else len(self.buffer)
                line = bytes(self.buffer[:end])
                del self.buffer[:end]
                self.scanned = 0
                return line
            self.scanned = len(self.buffer)
            if self.ended:
                line = bytes(self.buffer)
                self.buffer.clear()
                self.scanned = 0
                return line or None
            remaining = deadline - time.monotonic()
            if on_idle is not None and remaining > IDLE_SECONDS:
                if not select.select([self.fd], [], [], IDLE_SECONDS)[0]:
                    on_idle()
                on_idle = None
                continue
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 16)
            self.ended = not chunk
            self.buffer += chunk


class _StderrKept:
    """What a process wrote to standard error since it was last taken: the first and the
    last ``STDERR_KEEP // 2`` bytes, and how many bytes in between were dropped."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = STDERR_KEEP // 2 - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        excess = len(self.tail) - STDERR_KEEP // 2
        if excess > 0:
            self.dropped += excess
            del self.tail[:excess]

    def take(self) -> str:
        head, tail = self.head.decode(errors="replace"), self.tail.decode(errors="replace")
        gap = f"\n... ({self.dropped} bytes dropped) ...\n" if self.dropped else ""
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0
        return head + gap + tail


class Implementation:
    """A running implementation under test.

    Parameters
    ----------
    command:
        The program and its arguments.
    timeout:
        Seconds to wait for each response.
    start_timeout:
        Seconds to wait for the handshake's response (start-up included).
    env, cwd:
        For the subprocess; default: the runner's.

    Notes
    -----
    The process is the leader of its own process group, and killing it kills the group:
    whatever it started is ended with it, even after the leader itself has exited.
    ``deadline`` (a ``time.monotonic()`` value, or ``None``) cuts every wait short.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float = 10.0,
        start_timeout: float = 30.0,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.env = None if env is None else dict(env)
        self.cwd = cwd
        self.handshake: Handshake | None = None
        self.starts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: _LineReader | None = None
        self._stderr = _StderrKept()
        self._stderr_lock = threading.Lock()
        self.deadline: float | None = None
        self.on_idle: Callable[[], None] | None = None
        """Called when a response is slow to come (after ``IDLE_SECONDS``)."""
        self._next_id = 0
        self.last_request: dict[str, Any] | None = None
        """The last request sent, with its id (for reports)."""

    # -- life cycle --------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """Whether the process is running (and has not been killed)."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> Handshake:
        """Start the process and perform the handshake.

        Raises
        ------
        Fault
            The process could not start, or did not answer the handshake properly.
        """
        self.kill()
        self.starts += 1
        try:
            process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                cwd=self.cwd,
                start_new_session=True,  # so a kill reaches the whole process group
            )
        except OSError as error:
            raise Crashed(f"cannot start {self.command[0]!r}: {error}") from None
        self._process = process
        self._stderr = _StderrKept()
        assert process.stdout is not None and process.stderr is not None, "both are pipes"
        self._reader = _LineReader(process.stdout.fileno())
        collector = threading.Thread(
            target=self._collect, args=(process.stderr, self._stderr), daemon=True
        )
        collector.start()
        request = {"cmd": "handshake", "protocol": PROTOCOL, "suite": SUITE_VERSION}
        response = self.request(request, timeout=self.start_timeout)
        if not response["ok"]:
            self.kill()
            refusal = response["error"]
            code, message = refusal.get("code"), refusal.get("message", "")
            raise Refused(f"the handshake was refused: {code} {message}".rstrip())
        result = response["result"]
        self.handshake = Handshake(
            result["name"], result["version"], frozenset(result["features"]), result
        )
        return self.handshake

    def restart(self) -> Handshake:
        """Kill the process if it runs, and start a fresh one."""
        return self.start()

    def kill(self) -> None:
        """Kill the process group (if running) and reap it."""
        process, self._process = self._process, None
        if process is None:
            return
        # The group outlives its leader (a child it started keeps running after it exits),
        # so the group is killed whether or not the leader still runs.  Its id stays the
        # leader's pid while any member is left, so it cannot name another group then.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            if process.poll() is None:
                process.kill()
        process.wait()
        # The stderr collector closes standard error when it reaches the end.
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        """Ask the process to shut down; kill it if it does not within the timeout."""
        if self.alive:
            try:
                self.request({"cmd": "shutdown"}, timeout=min(self.timeout, 2.0))
                assert self._process is not None, "alive"
                self._process.wait(timeout=min(self.timeout, 2.0))
            except (Fault, subprocess.TimeoutExpired):
                pass
        self.kill()

    # -- standard error ----------------------------------------------------------

    def _collect(self, stream: IO[bytes], kept: _StderrKept) -> None:
        # ``kept`` belongs to one process: output of a killed one never reaches the next.
        with stream:
            for chunk in iter(lambda: os.read(stream.fileno(), 4096), b""):
                with self._stderr_lock:
                    kept.add(chunk)

    def take_stderr(self, settle: float = 0.0) -> str:
        """What the implementation wrote to standard error since the last call: at most
        ``STDERR_KEEP`` bytes of it, from its start and its end."""
        if settle:
            time.sleep(settle)  # let the collector catch output written just before a crash
        with self._stderr_lock:
            return self._stderr.take()

    # -- one request -------------------------------------------------------------

    def request(self, body: Mapping[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send ``body`` with a fresh id and return the response, checked against the protocol.

        Raises
        ------
        Fault
            ``TimedOut``, ``Crashed`` or ``Garbage``; the process has then been killed.
        """
        checkpoint()  # a signal caught on the way still stops the run here
        process = self._process
        if process is None or process.poll() is not None:
            raise Crashed("the implementation is not running")
        self._next_id += 1
        request = {"id": self._next_id, **body}
        self.last_request = request
        try:
            return self._round_trip(process, request, timeout)
        except BaseException:
            # Whatever stopped the round trip (a fault, a signal, an error of the runner's
            # own), a response may still be on its way: a process whose answer was not read
            # is not asked again, so no later request can read an earlier one's response.
            self.kill()
            raise

    def _round_trip(
        self, process: subprocess.Popen[bytes], request: dict[str, Any], timeout: float | None
    ) -> dict[str, Any]:
        line = json.dumps(request, separators=(",", ":")) + "\n"
        try:
            assert process.stdin is not None, "a pipe"
            process.stdin.write(line.encode())
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._crashed() from None
        limit = self.timeout if timeout is None else timeout
        cut_short = self.deadline is not None and self.deadline - time.monotonic() < limit
        if self.deadline is not None and cut_short:
            limit = max(self.deadline - time.monotonic(), 0.0)
        assert self._reader is not None, "set when the process started"
        try:
            answer = self._reader.line(limit, self.on_idle)
        except TimeoutError:
            self.kill()
            if cut_short:
                raise DeadlinePassed("the run's deadline passed before a response") from None
            raise TimedOut(f"no response within {limit:g} s") from None
        if answer is None:
            raise self._crashed()
        return self._parse(request, answer)

    def _crashed(self) -> Crashed:
        process = self._process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
        self.kill()
        status = "closed its standard output" if code is None else f"exited with status {code}"
        return Crashed(f"the implementation {status}")

    def _parse(self, request: Mapping[str, Any], line: bytes) -> dict[str, Any]:
        shown = line[:200].decode("utf-8", errors="replace").rstrip("\n")
        if len(line) > MAX_RESPONSE_BYTES:
            self.kill()
            raise Garbage(f"a response line longer than {MAX_RESPONSE_BYTES} bytes: {shown}...")
        try:
            response = parse_json(line, MAX_RESPONSE_BYTES, GcvError, "the response")
        except GcvError as error:  # not JSON, or too deep for the schema check, or a surrogate
            self.kill()
            raise Garbage(f"not JSON within the bounds ({error.detail[:120]}): {shown!r}") from None
        found = response_problem(request, response)
        if found is not None:
            self.kill()
            raise Garbage(f"not a valid response ({found}): {shown}")
        assert isinstance(response, dict), "the schema requires an object"
        return response
