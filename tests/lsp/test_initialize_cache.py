"""lsp/initialize.json: what the server answers to `initialize` before pygls is imported
(lsp/handshake.py), generated from the real server, and the table of InitializeParams' types
the early path checks a request against.

Regenerate after changing the server's features or upgrading pygls / lsprotocol:
    python -m tests.lsp.test_initialize_cache

The table: a type is a list, its first item the kind — `*` any JSON, `0` null, `b` bool,
`i` int, `f` number, `s` string, `=` a literal value, `e` one of the enum's values, `l` a list
of a type, `m` an object of a type's values, `|` any of the types that follow, `c` an
lsprotocol class by name; a class is its fields by their JSON names and the required ones.
"""

from __future__ import annotations

import collections.abc
import copy
import enum
import json
import random
import types as pytypes
import typing
from pathlib import Path
from typing import Any

import attrs
import pytest
import pytest_lsp
from lsprotocol import types

from turnlens.lsp import handshake

CACHE = Path(__file__).resolve().parents[2] / "server" / "turnlens" / "lsp" / "initialize.json"
# the initialize params editors sent, as pytest-lsp recorded them
CLIENTS = sorted((Path(pytest_lsp.__file__).parent / "clients").glob("*.json"))


def _camel(name: str) -> str:
    """lsprotocol's field name → JSON name (as its converter renames them)."""
    name = name[:-1] if name.endswith("_") else name
    first, *rest = name.split("_")
    return first + "".join(p.title() for p in rest)


def type_table() -> dict[str, Any]:
    """InitializeParams and every class under it, as the table's kinds."""
    classes: dict[str, Any] = {}

    def spec(tp: Any) -> list[Any]:
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if tp is Any or tp is object:
            return ["*"]
        if tp is type(None):
            return ["0"]
        for kind, base in (("b", bool), ("i", int), ("f", float), ("s", str)):
            if tp is base:
                return [kind]
        if origin in (typing.Union, pytypes.UnionType):
            return ["|", *(spec(a) for a in args)]
        if origin is typing.Literal:
            return ["|", *(["=", a] for a in args)] if len(args) > 1 else ["=", args[0]]
        if origin in (list, collections.abc.Sequence):
            return ["l", spec(args[0])]
        if origin in (dict, collections.abc.Mapping) and args[0] is str:
            return ["m", spec(args[1])]
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return ["e", *(m.value for m in tp)]
        if isinstance(tp, type) and attrs.has(tp):
            add(tp)
            return ["c", tp.__name__]
        raise TypeError(f"no kind for {tp!r}")

    def add(cls: type) -> None:
        if cls.__name__ in classes:
            return
        entry: dict[str, Any] = {"fields": {}, "required": []}
        classes[cls.__name__] = entry
        attrs.resolve_types(cls, vars(types))
        for field in attrs.fields(cls):
            name = _camel(field.name)
            entry["fields"][name] = spec(field.type)
            if field.default is attrs.NOTHING:
                entry["required"].append(name)

    add(types.InitializeParams)
    return dict(sorted(classes.items()))


def pygls_session(
    messages: list[dict[str, Any]], early: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """What the real server (pygls and TurnLens's handlers, in-process) sends back for
    `messages`, each read as the server's reader reads one; `early`: the answer the process
    gave to initialize before the server was built."""
    from turnlens.lsp.server import build_server

    server = build_server()
    sent = bytearray()

    class Out:
        def write(self, data: bytes) -> None:
            sent.extend(data)

        def close(self) -> None:
            pass

    protocol = server.protocol
    protocol.set_writer(Out())
    protocol.early_answer = early  # type: ignore[attr-defined]
    for message in messages:
        try:
            parsed = json.loads(json.dumps(message).encode(), object_hook=protocol.structure_message)
            protocol.handle_message(parsed)
        except Exception:  # as the reader loop: logged, the next message read
            pass
    out = []
    data = bytes(sent)
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        length = int(head.split(b"\r\n")[0].split(b":")[1])
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def pygls_answer(params: Any, msg_id: Any = 1) -> dict[str, Any] | None:
    """pygls's answer to one initialize request, or None when it sent none."""
    message = {"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": params}
    answers = [m for m in pygls_session([message]) if m.get("id") == msg_id and "method" not in m]
    return answers[0] if answers else None


def expected() -> dict[str, Any]:
    answer = pygls_answer({"capabilities": {}})
    assert answer is not None and "result" in answer
    capabilities = answer["result"]["capabilities"]
    capabilities.pop("positionEncoding")  # the client's to choose (handshake.capabilities_for)
    return {
        "about": "the initialize answer and InitializeParams' types; see tests/lsp/test_initialize_cache.py",
        "serverInfo": {"name": answer["result"]["serverInfo"]["name"]},
        "capabilities": capabilities,
        "types": type_table(),
    }


def render() -> str:
    return json.dumps(expected(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def test_cache_is_up_to_date() -> None:
    assert CACHE.read_text(encoding="utf-8") == render(), "run: python -m tests.lsp.test_initialize_cache"


def _recorded(path: Path, **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {"processId": 4242, **params, **extra}


def _params(client: str, **extra: Any) -> dict[str, Any]:
    """The recorded params of `client` (its first recorded version)."""
    return _recorded(next(p for p in CLIENTS if p.stem.startswith(client.replace("-", "_") + "_v")), **extra)


# recorded clients whose params pygls reads only by leniency: the full server answers them
LEFT_TO_PYGLS = {"neovim_v0.9.1": "textDocument.callHierarchy is a list, not an object"}
ROOT = {"rootUri": "file:///work/project", "workspaceFolders": [{"uri": "file:///work/project", "name": "p"}]}


def _variants() -> list[dict[str, Any]]:
    """Initialize params as editors send them, and with what changes the answer."""
    out = [{"capabilities": {}}, {"processId": None, "capabilities": {}, "rootUri": None}]
    for path in CLIENTS:
        if path.stem in LEFT_TO_PYGLS:
            continue
        out.append(_recorded(path, **ROOT))
        out.append(_recorded(path, rootPath="/work/project", initializationOptions={"debounceMs": 0}))
    vscode = _params("visual-studio-code", **ROOT)
    for encodings in (["utf-8"], ["utf-32", "utf-8"], ["utf-16"], [], None):
        v = copy.deepcopy(vscode)
        v["capabilities"]["general"] = {"positionEncodings": encodings}
        out.append(v)
    for will_save in (True, False, None):
        v = copy.deepcopy(vscode)
        sync = v["capabilities"]["textDocument"]["synchronization"]
        sync["willSave"] = sync["willSaveWaitUntil"] = will_save
        out.append(v)
    v = copy.deepcopy(vscode)
    v["capabilities"]["notebookDocument"] = {"synchronization": {"dynamicRegistration": True}}
    v["capabilities"]["textDocument"]["rename"] = {"prepareSupport": True}
    v["capabilities"]["workspace"]["fileOperations"] = {"didCreate": True, "willRename": True}
    out.append(v)
    return out


@pytest.mark.parametrize("params", _variants())
def test_early_answer_is_pyglss(params: dict[str, Any]) -> None:
    """The early answer is pygls's, equal as JSON, for what editors send (pytest-lsp's recorded
    clients) and for each client capability pygls's answer depends on."""
    message = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": params}
    early = handshake.answer_for(json.dumps(message).encode())
    assert early is not None, "an editor's initialize should take the early path"
    assert early == pygls_answer(params, 7)


@pytest.mark.parametrize("name", sorted(LEFT_TO_PYGLS))
def test_lenient_reads_are_left_to_pygls(name: str) -> None:
    params = _recorded(next(p for p in CLIENTS if p.stem == name), **ROOT)
    message = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": params}
    assert handshake.answer_for(json.dumps(message).encode()) is None
    answer = pygls_answer(params, 7)
    assert answer is not None and "result" in answer  # pygls takes it: the full server answers


def _mutations(value: Any, rng: random.Random) -> Any:
    """`value` with one node somewhere replaced by a value of another JSON kind."""
    value = copy.deepcopy(value)
    spots: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            spots.append((node, key))
            walk(child)

    walk(value)
    node, key = rng.choice(spots)
    node[key] = rng.choice(
        [None, True, 0, -1, 2**40, 1.5, "", "utf-8", "x", [], ["x"], [1], {}, {"jsonrpc": "2.0"}, {"a": 1}]
    )
    return value


def test_early_answer_never_differs_from_pyglss() -> None:
    """Whatever the early path answers, pygls answers alike (and what it leaves, pygls answers
    its own way: an error, or a success the early path was not sure of)."""
    rng = random.Random(26)
    options = {
        "settings": {
            "debounceMs": 0,
            "turnSeparator": "^---TURN---$",
            "exclude": ["**/*.log"],
            "router": {"backend": "rules", "efforts": {"plan": "high"}},
        },
        "userSettings": {"router": {"backend": "openai", "endpoint": "http://127.0.0.1:9"}},
    }
    bases = [
        _params("visual-studio-code", initializationOptions=options, **ROOT),
        _params("neovim", initializationOptions=options, **ROOT),
    ]
    answered = refused = 0
    for i in range(400):
        params = _mutations(bases[i % 2], rng)
        message = {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": params}
        early = handshake.answer_for(json.dumps(message).encode())
        if early is None:
            refused += 1
            continue
        answered += 1
        assert early == pygls_answer(params, 3), params
    assert answered > 50 and refused > 50  # both sides were exercised
    for _ in range(100):  # any JSON is taken as initializationOptions: TurnLens's handler copes
        params = {"capabilities": {}, "initializationOptions": _mutations(options, rng)}
        message = {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": params}
        early = handshake.answer_for(json.dumps(message).encode())
        if early is not None:  # refused only when a `jsonrpc` key was put in
            assert early == pygls_answer(params, 4), params


def test_the_servers_own_answer_is_compared_not_sent(caplog: pytest.LogCaptureFixture) -> None:
    params = _params("visual-studio-code", **ROOT)
    message = {"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": params}
    early = handshake.answer_for(json.dumps(message).encode())
    assert early is not None
    shutdown = {"jsonrpc": "2.0", "id": 6, "method": "shutdown"}
    sent = pygls_session([message, shutdown], early)
    assert [m["id"] for m in sent if "id" in m] == [6]  # initialize's was not sent twice
    assert "answered at start" not in caplog.text
    # were the early answer ever to differ, the log says so
    wrong = copy.deepcopy(early)
    wrong["result"]["capabilities"]["hoverProvider"] = False
    sent = pygls_session([message, shutdown], wrong)
    assert [m["id"] for m in sent if "id" in m] == [6]
    assert "answered at start otherwise than the server answers it" in caplog.text


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"[]",
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": []}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": "7"}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}',
        b'{"jsonrpc": "1.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}',
        b'{"jsonrpc": "2.0", "id": true, "method": "initialize", "params": {"capabilities": {}}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, '
        b'"initializationOptions": {"x": {"jsonrpc": "2.0"}}}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, '
        b'"rootUri": "file://[bad/x"}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "trace": "loud"}}',
        b"[" * 100_000,
    ],
)
def test_what_the_early_path_leaves_to_pygls(body: bytes) -> None:
    assert handshake.answer_for(body) is None


if __name__ == "__main__":
    CACHE.write_text(render(), encoding="utf-8")
    print(f"wrote {CACHE}")
