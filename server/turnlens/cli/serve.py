"""`turnlens serve`: the language server, over stdio or TCP."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from turnlens.cli.common import UsageError

if TYPE_CHECKING:
    from turnlens.lsp.handshake import Handshake


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the language server (stdio by default)")
    p.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead")
    p.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="logging level for stderr and --log-file (default WARNING); the editor receives "
        "INFO and up as window/logMessage",
    )
    p.add_argument("--log-file", metavar="FILE", help="also append logs to FILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    host = port = None
    if args.tcp:
        host, _, port_text = args.tcp.rpartition(":")
        if not host or not port_text.isdigit():
            raise UsageError(f"turnlens serve: --tcp wants HOST:PORT, got {args.tcp!r}")
        port = int(port_text)
    at_terminal = host is None and sys.stdin.isatty()
    if at_terminal:
        sys.stderr.write(
            "turnlens serve speaks the Language Server Protocol on stdin/stdout: start it from an "
            "editor (docs/editors/), or use `turnlens check FILE` or `turnlens classify --input FILE` "
            "here. Ctrl-D quits.\n"
        )
        sys.stderr.flush()
    _return_large_blocks()
    # an editor waits for the answer to `initialize` before anything else: give it before the
    # imports below, which are most of the start-up (see lsp/handshake.py)
    handshake = _early_handshake() if host is None and not at_terminal else None
    # Importing lsprotocol and pygls makes ~600 classes and a million objects; the cyclic
    # garbage collector would walk them all again and again meanwhile (a fifth of the start-up
    # time). run_server freezes what the imports made and turns collection back on.
    import gc

    gc.disable()
    from turnlens.lsp.run import run_server

    code = run_server(
        host=host, port=port, log_level=args.log_level, log_file=args.log_file, handshake=handshake
    )
    # an editor that leaves without `shutdown` is an error (LSP: exit 1); a person at a
    # terminal who presses Ctrl-D has simply quit
    return 0 if at_terminal else code


MMAP_THRESHOLD = 4 << 20


def _early_handshake() -> Handshake | None:
    """Read (and, when sure, answer) the first message now, where stdin is a pipe or a socket
    that the server's event loop will watch; elsewhere the server reads everything itself."""
    import os
    import stat

    if os.name != "posix" or sys.platform in ("emscripten", "wasi"):
        return None
    try:
        fd_in, fd_out = sys.stdin.fileno(), sys.stdout.fileno()
        mode = os.fstat(fd_in).st_mode
    except (OSError, ValueError, AttributeError):
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    from turnlens.lsp.handshake import answer_initialize

    sys.stdout.flush()
    return answer_initialize(fd_in, fd_out)


def _return_large_blocks() -> None:
    """On glibc, give every block of 4 MB or more its own mapping, returned to the system when
    freed. An edit of a 5 MB document replaces a 20 MB string (4 bytes a character once it
    holds an emoji); by default glibc raises its mapping threshold after the first such free
    and serves the next ones from the heap, which then keeps 30-50 MB more after a few edits.
    The price: the pages of each new document string are mapped afresh (about 20 ms of an
    edit of a 5 MB document on a 2-core machine)."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, MMAP_THRESHOLD)  # M_MMAP_THRESHOLD (also stops its dynamic raising)
    except (OSError, AttributeError):  # not glibc: its allocator's own policy stands
        pass
