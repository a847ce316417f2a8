"""``gcv mcp``'s standard input and output, read and written by the event loop itself.

The SDK's ``stdio_server`` reads each line in a worker thread, writes and flushes each
answer in two more, and passes every message through a task and a memory stream on each
side: three thread hand-offs and about eight more event-loop iterations a call, which
cost the server more CPU than everything the SDK does above the transport (docs/agents.md,
"What a call costs").  Here the loop's own pipe transports carry the lines: a request is
read and parsed in the task that asks for it, an answer is written by the task that
produced it.  The framing is the SDK's: one JSON-RPC message a line, parsed by the SDK's
``jsonrpc_message_adapter`` as its transport parses it (UTF-8, an undecodable byte
replaced, a line that is not a message handed on as an error), written as its transport
writes it; above it everything is the SDK's (``Server.run``, its dispatcher, its runner).

As the SDK's transport does, while serving, descriptors 0 and 1 point at the null device
and standard error, so a stray read or print cannot touch the wire; both are restored on
exit.  When standard input or output is not a pipe, a socket or a terminal (a regular
file, say), or on Windows, the SDK's own transport serves instead.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

__all__ = ["is_pipe_or_terminal", "stdio_streams"]

# A line is as long as the client makes it, as with the SDK's transport: the arguments'
# own bound (gcv.agent.tools.MAX_ARGUMENT_BYTES) answers an oversized call with an error.
_NO_LINE_BOUND = sys.maxsize // 4


def is_pipe_or_terminal(fd: int) -> bool:
    """Whether descriptor ``fd`` is one the event loop can read or write as a pipe."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class _Requests:
    """The read side (the SDK's ``ReadStream``): each line, parsed as a JSON-RPC message."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def receive(self) -> SessionMessage | Exception:
        line = await self._reader.readline()
        if not line:
            raise anyio.EndOfStream
        try:
            message = types.jsonrpc_message_adapter.validate_json(
                line.decode("utf-8", errors="replace"), by_name=False
            )
        except Exception as error:  # not a message: the dispatcher logs it and reads on
            return error
        return SessionMessage(message)

    def __aiter__(self) -> _Requests:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        pass  # the transport is closed by stdio_streams, after the answers are written

    async def __aenter__(self) -> _Requests:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Pipe(asyncio.Protocol):
    """The write side's flow control: a writer waits while the pipe's buffer is full."""

    def __init__(self) -> None:
        self._writable = asyncio.Event()
        self._writable.set()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self._writable.set()
        if not self.closed.done():
            self.closed.set_result(None)

    async def writable(self) -> None:
        await self._writable.wait()


class _Answers:
    """The write side (the SDK's ``WriteStream``): each message on a line, as the SDK writes it."""

    def __init__(self, transport: asyncio.WriteTransport, pipe: _Pipe) -> None:
        self._transport = transport
        self._pipe = pipe

    async def send(self, item: SessionMessage, /) -> None:
        if self._pipe.closed.done():  # the client has gone: the dispatcher drops the answer
            raise anyio.BrokenResourceError
        line = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        self._transport.write(line.encode() + b"\n")
        await self._pipe.writable()

    async def aclose(self) -> None:
        self._transport.close()
        await self._pipe.closed  # what was written has reached the pipe, or the client left

    async def __aenter__(self) -> _Answers:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


@contextmanager
def _claimed(fd: int, stand_in: Callable[[], int]) -> Iterator[int]:
    """A private descriptor of the wire on ``fd``, while ``fd`` points at ``stand_in()``."""
    wire = os.dup(fd)
    try:
        replacement = stand_in()
        try:
            os.dup2(replacement, fd)
        finally:
            os.close(replacement)
        try:
            yield wire
        finally:
            os.set_blocking(wire, True)  # the loop made it non-blocking; fd shares the flag
            os.dup2(wire, fd)
    finally:
        os.close(wire)


@asynccontextmanager
async def _loop_streams() -> AsyncIterator[tuple[_Requests, _Answers]]:
    loop = asyncio.get_running_loop()
    with (
        _claimed(0, lambda: os.open(os.devnull, os.O_RDONLY)) as wire_in,
        _claimed(1, lambda: os.dup(2)) as wire_out,
        open(wire_in, "rb", closefd=False) as requests_pipe,
        open(wire_out, "wb", closefd=False) as answers_pipe,
    ):
        reader = asyncio.StreamReader(limit=_NO_LINE_BOUND)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), requests_pipe
        )
        try:
            answers = _Answers(*await loop.connect_write_pipe(_Pipe, answers_pipe))
            try:
                yield _Requests(reader), answers
            finally:
                await answers.aclose()
        finally:
            read_transport.close()
            await asyncio.sleep(0)  # the transport lets go of the pipe on the next iteration


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """The read and write streams ``Server.run`` serves over standard input and output."""
    if sys.platform != "win32" and is_pipe_or_terminal(0) and is_pipe_or_terminal(1):
        async with _loop_streams() as streams:
            yield streams
    else:
        async with stdio_server() as streams:
            yield streams
