"""The server process: logging to stderr, a file and the client; memory habits; start-up."""

from __future__ import annotations

import asyncio
import gc
import linecache
import logging
import sys

from lsprotocol import types

from turnlens.core.engine import prefer_memory
from turnlens.lsp.handshake import Handshake
from turnlens.lsp.server import TurnLensServer, build_server

log = logging.getLogger("turnlens")


class ClientLogHandler(logging.Handler):
    """Sends TurnLens's own log records to the client as window/logMessage, where editors
    show them as information (stderr is read as errors by some clients, e.g. Neovim 0.7)."""

    LEVELS = (
        (logging.ERROR, types.MessageType.Error),
        (logging.WARNING, types.MessageType.Warning),
        (logging.INFO, types.MessageType.Info),
        (logging.NOTSET, types.MessageType.Log),
    )

    def __init__(self, server: TurnLensServer, level: int) -> None:
        super().__init__(level)
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None
        self._sending = False

    def emit(self, record: logging.LogRecord) -> None:
        # a record logged while sending one (e.g. "the client closed the server's output")
        # goes to stderr only: sending it would fail the same way, and recurse
        if (
            self._sending
            or getattr(record, "to_client", True) is False
            or self.server.protocol.writer is None
        ):
            return
        self._sending = True
        try:
            self._send(record)
        finally:
            self._sending = False

    def _send(self, record: logging.LogRecord) -> None:
        kind = next(t for lvl, t in self.LEVELS if record.levelno >= lvl)
        params = types.LogMessageParams(type=kind, message=f"TurnLens: {self.format(record)}")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        try:
            if loop is not None:
                self.loop = loop
                self.server.window_log_message(params)
            elif self.loop is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self.server.window_log_message, params)
        except Exception:  # logging must never take the server down
            self.handleError(record)


def run_server(
    host: str | None,
    port: int | None,
    log_level: str = "WARNING",
    log_file: str | None = None,
    handshake: Handshake | None = None,
) -> int:
    """Logs go to stderr at `log_level` (warnings by default), to the client at INFO and up
    (or lower, when asked), and to `log_file` at `log_level`. Over stdio, `handshake` is what
    the process read (and answered) before the server was built."""
    level = logging.getLevelName(log_level)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(level)
    handlers: list[logging.Handler] = [stderr]
    if log_file:
        to_file = logging.FileHandler(log_file, encoding="utf-8")
        to_file.setLevel(level)
        handlers.append(to_file)
    logging.basicConfig(
        level=min(level, logging.INFO), handlers=handlers, format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("pygls").setLevel(max(logging.WARNING, level))
    # Transcripts make many small long-lived objects; collect less often so an edit is not
    # followed by a full collection of all of them. What start-up made (protocol types,
    # modules) lives as long as the process: frozen, the collector never walks it again.
    gc.set_threshold(20_000, 20, 20)
    prefer_memory()
    server = build_server()
    # attrs files the source of each method it generates for lsprotocol's ~560 classes in
    # `linecache` (for tracebacks into them): ~3.5 MB the server never reads
    for name in [n for n in linecache.cache if n.startswith("<attrs generated")]:
        del linecache.cache[name]
    gc.freeze()
    gc.enable()
    to_client = ClientLogHandler(server, min(level, logging.INFO))
    to_client.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(to_client)
    if host is not None and port is not None:
        if port == 0:
            _announce_port(server, host)
        server.start_tcp(host, port)
    else:
        server.start_io(handshake=handshake)
    # LSP: 0 after a shutdown request, 1 when the client left (exit or EOF) without one
    return 0 if getattr(server.protocol, "_shutdown", False) else 1


def _announce_port(server: TurnLensServer, host: str) -> None:
    """With `--tcp HOST:0` the system picks the port: print it (stderr) once it is bound."""
    import threading
    import time

    def wait() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            listener = getattr(server, "_server", None)
            sockets = getattr(listener, "sockets", None) if listener is not None else None
            if sockets:
                bound = sockets[0].getsockname()
                sys.stderr.write(f"turnlens serve: listening on {host}:{bound[1]}\n")
                sys.stderr.flush()
                return
            time.sleep(0.02)

    threading.Thread(target=wait, name="turnlens-port", daemon=True).start()
