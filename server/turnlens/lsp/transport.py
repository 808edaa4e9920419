"""Reading the client's messages from stdin on the event loop itself.

pygls reads stdin in a worker thread, one `readline` or `read` per call, each handed back to
the event loop: a message takes three trips between the thread and the loop. While the model
refines a long document in slices on the loop, each trip waits for a slice to end, so a
request would wait three slices. Here stdin is a non-blocking pipe that the loop's selector
watches: whatever has arrived is parsed at the next turn of the loop, whole messages at once.
Where that cannot be (Windows, stdin a regular file), pygls's own reader serves.

What the process read before the server was built (the first message, answered early by
`handshake`, and whatever followed it) is read first, in order.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import TYPE_CHECKING, Any, BinaryIO

from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from turnlens.lsp.handshake import Handshake

log = logging.getLogger("turnlens")


class PipeReader:
    """pygls's reader interface over an asyncio stream: `b""` at the end, as pygls expects."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream
        self._between = True  # no message begun: the next line is a new message's first

    async def readline(self) -> bytes:
        if self._between:
            # one turn of the loop before each message, as pygls's reader thread gave: what
            # the previous message started (didOpen's handler, a task) takes its first step
            # before the next message (a didChange of that document) is handled
            self._between = False
            await asyncio.sleep(0)
        try:
            return await self.stream.readline()
        except ValueError:  # a header line over the limit: no client sends one
            raise ConnectionError("a header line longer than 1 MiB") from None

    async def readexactly(self, n: int) -> bytes:
        self._between = True
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as exc:  # the client left mid-message
            return exc.partial if len(exc.partial) == n else b""


class PrefixedReader:
    """A reader that gives `prefix` before what `reader` reads (pygls's thread reader)."""

    def __init__(self, prefix: bytes, reader: Any) -> None:
        self.prefix = prefix
        self.reader = reader

    async def readline(self) -> bytes:
        if not self.prefix:
            line: bytes = await self.reader.readline()
            return line
        head, newline, rest = self.prefix.partition(b"\n")
        self.prefix = rest
        if newline:
            return head + newline
        tail: bytes = await self.reader.readline()
        return head + tail

    async def readexactly(self, n: int) -> bytes:
        head, self.prefix = self.prefix[:n], self.prefix[n:]
        if len(head) == n:
            return head
        tail: bytes = await self.reader.readexactly(n - len(head))
        return head + tail if len(tail) == n - len(head) else b""


async def _pipe_reader(stdin: BinaryIO, prefix: bytes = b"") -> PipeReader | None:
    """A reader of `stdin` that the loop watches, when it can, else None; `prefix` first."""
    if sys.platform == "win32":
        return None
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=1 << 20)
    if prefix:
        stream.feed_data(prefix)  # before the pipe is watched: nothing can come ahead of it
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
    except (OSError, ValueError) as exc:  # a regular file, or a stream without a descriptor
        log.debug("stdin is read by a thread (%s)", exc)
        return None
    return PipeReader(stream)


async def _serve(
    server: LanguageServer,
    stdin: BinaryIO,
    stdout: BinaryIO,
    stop: threading.Event,
    handshake: Handshake | None,
) -> None:
    server.protocol.set_writer(StdoutWriter(stdout))
    prefix = b""
    if handshake is not None:
        prefix = handshake.consumed
        if handshake.answer is not None:
            server.protocol.early_answer = handshake.answer  # type: ignore[attr-defined]
    reader: Any = await _pipe_reader(stdin, prefix)
    if reader is None:
        reader = StdinAsyncReader(stdin, server.thread_pool)
        if prefix:
            reader = PrefixedReader(prefix, reader)
    await run_async(
        stop_event=stop,
        reader=reader,
        protocol=server.protocol,
        logger=logging.getLogger("pygls.server"),
        error_handler=server.report_server_error,
    )


def serve_stdio(
    server: LanguageServer,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    handshake: Handshake | None = None,
) -> None:
    """What `LanguageServer.start_io` does, with the loop reading stdin (see above), after
    what `handshake` read."""
    stop = threading.Event()
    server._stop_event = stop
    try:
        asyncio.run(_serve(server, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer, stop, handshake))
    except BrokenPipeError:
        log.error("the connection to the client is lost: shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
