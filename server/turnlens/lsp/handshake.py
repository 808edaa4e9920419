"""The answer to `initialize`, before pygls and lsprotocol are imported.

Importing `lsprotocol.types` (~560 attrs classes) is most of the server's start-up. An editor
waits for the `initialize` answer before it sends anything else, so the server reads the first
message here with the standard library (and pygls's `uris`, which needs no more) and answers
it from packaged data (`initialize.json`, generated from the real server:
tests/lsp/test_initialize_cache.py), then builds the full server while the client sends
`initialized` and opens documents; those wait in the pipe and are read in order.

The full server then handles the very same `initialize` message, so its state (client
capabilities, position encoding, workspace folders, settings) is what it always was; only its
answer is not sent again (`TurnLensProtocol` compares it with the one sent here). Whatever this
module is not sure pygls would accept and answer alike — headers out of the usual form, JSON
that does not parse, params that do not match lsprotocol's types exactly (`initialize.json`
lists them), values pygls would convert rather than take — is handed over unanswered: the full
server then reads and answers it as it always did, errors included.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

# An initialize message is a few KB; more than this is left to the full server.
MAX_HEADER_BYTES = 8 * 1024
MAX_BODY_BYTES = 4 * 1024 * 1024
# ints the checker takes without a doubt: lsprotocol's integer and uinteger ranges overlap here
INT_LOW, INT_HIGH = 0, 2**31 - 1
CONTENT_TYPE = "application/vscode-jsonrpc; charset=utf-8"
_DATA: dict[str, Any] | None = None

Spec = list[Any]


class Handshake:
    """What was read from stdin before the full server (handed to its reader first), and the
    answer sent to `initialize`, if one was."""

    __slots__ = ("answer", "consumed")

    def __init__(self, consumed: bytes, answer: dict[str, Any] | None) -> None:
        self.consumed = consumed
        self.answer = answer


def data() -> dict[str, Any]:
    """The packaged capabilities and the table of InitializeParams' types."""
    global _DATA
    if _DATA is None:
        path = os.path.join(os.path.dirname(__file__), "initialize.json")
        with open(path, encoding="utf-8") as handle:
            loaded: dict[str, Any] = json.load(handle)
        _DATA = loaded
    return _DATA


# -- reading the first message ------------------------------------------------------------------


def read_first(fd: int) -> tuple[bytes, bytes | None]:
    """(every byte read, the first message's body) from `fd`; the body is None when the headers
    are not `Content-Length: N` (optionally `Content-Type: ...`) and a blank line, when it is
    too long, or when the input ends first."""
    buf = bytearray()
    while b"\r\n\r\n" not in buf:
        if len(buf) > MAX_HEADER_BYTES or not _more(fd, buf):
            return bytes(buf), None
    head, _, _ = bytes(buf).partition(b"\r\n\r\n")
    length = _content_length(head)
    if length is None or length > MAX_BODY_BYTES:
        return bytes(buf), None
    start = len(head) + 4
    while len(buf) < start + length:
        if not _more(fd, buf):
            return bytes(buf), None
    return bytes(buf), bytes(buf[start : start + length])


def _more(fd: int, buf: bytearray) -> bool:
    try:
        chunk = os.read(fd, 65536)
    except InterruptedError:
        return True
    except OSError:
        return False
    buf += chunk
    return bool(chunk)


def _content_length(head: bytes) -> int | None:
    """N from headers pygls reads the same way: the first line exactly `Content-Length: N`,
    then at most a Content-Type line (pygls skips it; we ask that it names no other charset)."""
    lines = head.split(b"\r\n")
    first = lines[0]
    prefix = b"Content-Length: "
    if not first.startswith(prefix) or not first[len(prefix) :].isdigit() or b"\n" in head:
        return None
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or name.strip().lower() != b"content-type":
            return None
        charset = value.lower().partition(b"charset=")[2].strip()
        if charset not in (b"", b"utf-8", b"utf8"):
            return None
    length = int(first[len(prefix) :])
    return length if length > 0 else None


# -- deciding whether to answer ---------------------------------------------------------------


def answer_for(body: bytes) -> dict[str, Any] | None:
    """The response to an `initialize` request that pygls would accept and answer alike, or
    None (the full server answers it)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    msg_id = message.get("id")
    is_int = type(msg_id) is int and INT_LOW <= msg_id <= INT_HIGH
    if message.get("method") != "initialize" or not (is_int or type(msg_id) is str):
        return None
    params = message.get("params")
    others = [v for k, v in message.items() if k not in ("jsonrpc", "id", "method", "params")]
    try:
        if not _matches(params, ["c", "InitializeParams"], data()["types"]):
            return None
        if not _no_message_inside(others):
            return None
    except RecursionError:
        return None
    if not isinstance(params, dict) or not _paths_usable(params):
        return None
    result = {"capabilities": capabilities_for(params["capabilities"]), "serverInfo": server_info()}
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def server_info() -> dict[str, str]:
    from turnlens import __version__

    return {"name": str(data()["serverInfo"]["name"]), "version": __version__}


def capabilities_for(client: Mapping[str, Any]) -> dict[str, Any]:
    """The server's capabilities for these client capabilities: the packaged ones (computed by
    pygls for a client that states nothing) with the parts pygls derives from the client."""
    caps: dict[str, Any] = json.loads(json.dumps(data()["capabilities"]))
    general = client.get("general") or {}
    offered = general.get("positionEncodings")
    encoding = "utf-16"
    for kind in offered or ():
        if kind in ("utf-8", "utf-16", "utf-32"):
            encoding = kind
            break
    caps["positionEncoding"] = encoding
    # pygls answers `willSave: false` to a client that states willSave at all (TurnLens
    # registers neither handler), and leaves it out otherwise; the same for willSaveWaitUntil
    sync = (client.get("textDocument") or {}).get("synchronization") or {}
    for key in ("willSave", "willSaveWaitUntil"):
        if sync.get(key) is not None:
            caps["textDocumentSync"][key] = False
    return caps


def _paths_usable(params: Mapping[str, Any]) -> bool:
    """pygls turns rootUri (or rootPath) into a path when it makes its workspace: a URI or
    path that fails there would fail its initialize, so it is left to it."""
    from pygls.uris import from_fs_path, to_fs_path, uri_scheme

    try:
        root_uri = params.get("rootUri")
        if root_uri is None and params.get("rootPath") is not None:
            root_uri = from_fs_path(params["rootPath"])
        if root_uri is not None:
            uri_scheme(root_uri)
            to_fs_path(root_uri)
    except Exception:
        return False
    return True


def _matches(value: Any, spec: Spec, types: Mapping[str, Any]) -> bool:
    """True when `value` is, exactly, a JSON value of the lsprotocol type `spec` describes
    (see tests/lsp/test_initialize_cache.py for the table's form): what cattrs would convert
    (a number for a string, a string for a list) or refuse is False. No object anywhere may
    hold a `jsonrpc` key: pygls would read that object as a message of its own."""
    kind = spec[0]
    if kind == "*":
        return _no_message_inside(value)
    if kind == "0":
        return value is None
    if kind == "b":
        return type(value) is bool
    if kind == "i":
        return type(value) is int and INT_LOW <= value <= INT_HIGH
    if kind == "f":
        return type(value) in (int, float)
    if kind == "s":
        return type(value) is str
    if kind == "=":
        return type(value) is type(spec[1]) and value == spec[1]
    if kind == "e":
        return any(type(value) is type(v) and value == v for v in spec[1:])
    if kind == "l":
        return type(value) is list and all(_matches(v, spec[1], types) for v in value)
    if kind == "m":
        return (
            type(value) is dict
            and "jsonrpc" not in value
            and all(_matches(v, spec[1], types) for v in value.values())
        )
    if kind == "|":
        return any(_matches(value, alt, types) for alt in spec[1:])
    if kind == "c":
        if type(value) is not dict or "jsonrpc" in value:
            return False
        cls = types[spec[1]]
        fields: dict[str, Spec] = cls["fields"]
        if any(name not in value for name in cls["required"]):
            return False
        return all(
            _matches(v, fields[k], types) if k in fields else _no_message_inside(v) for k, v in value.items()
        )
    return False  # a kind this version does not know: leave it to the full server


def _no_message_inside(value: Any) -> bool:
    if type(value) is dict:
        return "jsonrpc" not in value and all(_no_message_inside(v) for v in value.values())
    if type(value) is list:
        return all(_no_message_inside(v) for v in value)
    return True


# -- the start --------------------------------------------------------------------------------


def answer_initialize(fd_in: int, fd_out: int) -> Handshake:
    """Read the first message from `fd_in`; answer it on `fd_out` when it is an initialize
    request this module is sure of. Everything read is handed on."""
    consumed, body = read_first(fd_in)
    try:
        answer = answer_for(body) if body is not None else None
    except Exception:  # a speed-up only: whatever goes wrong here, the full server answers
        answer = None
    if answer is None:
        return Handshake(consumed, None)
    payload = json.dumps(answer).encode("utf-8")
    header = f"Content-Length: {len(payload)}\r\nContent-Type: {CONTENT_TYPE}\r\n\r\n"
    try:
        _write_all(fd_out, header.encode("ascii") + payload)
    except OSError:  # the client closed our output: the full server finds it so, and exits
        return Handshake(consumed, None)
    return Handshake(consumed, answer)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
