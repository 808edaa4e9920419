"""The imports follow the layers of docs/architecture.md.

Every `import` in the package is read with `ast` — at module level and inside functions
(the lazy imports that keep start-up fast are still dependencies); only imports under
`if TYPE_CHECKING:` are left out, since they never run. A cycle between the layers, or a
lower layer reaching up into a view, fails here with the modules that do it.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

import turnlens

ROOT = Path(turnlens.__file__).parent

# From the bottom up: each layer may import its own modules and those of the layers below.
LAYERS = ("core", "learn", "classifier", "router", "userfiles", "pipeline")
VIEWS = ("lsp", "cli", "batch", "report", "agents", "api")
# Third-party packages the scorers never touch: no editor protocol, no network.
NOT_IN_CORE = ("pygls", "lsprotocol", "httpx")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runs(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """False for an import under `if TYPE_CHECKING:` (it is never executed)."""
    child = node
    while child in parents:
        parent = parents[child]
        if isinstance(parent, ast.If) and child in parent.body:
            test = parent.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                return False
        child = parent
    return True


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    return _imports_of(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")


def _imports_of(text: str, module: str, is_package: bool) -> Iterator[tuple[str, int]]:
    """The absolute names a module imports (relative imports resolved), with their lines."""
    tree = ast.parse(text, module)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    here = module.split(".")
    package = here if is_package else here[:-1]
    for node in ast.walk(tree):
        if not _runs(node, parents):
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            yield base, node.lineno
            for alias in node.names:  # `from turnlens.core import classify`: a module too
                yield f"{base}.{alias.name}", node.lineno


def _part(name: str) -> str | None:
    """The layer or view a `turnlens.…` name belongs to (its first component)."""
    parts = name.split(".")
    if parts[0] != "turnlens" or len(parts) < 2:
        return None
    return parts[1]


def _edges() -> dict[tuple[str, str], list[str]]:
    """(from part, to part) → where: every import from one part of the package into another."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        source = _part(_module_name(path))
        if source is None:
            continue
        for name, line in _imports(path):
            target = _part(name)
            if (
                target is None
                or target == source
                or (not (ROOT / target).exists() and not (ROOT / f"{target}.py").exists())
            ):
                continue
            edges.setdefault((source, target), []).append(f"{path.relative_to(ROOT)}:{line} → {name}")
    return edges


def _cycle(nodes: tuple[str, ...], edges: dict[tuple[str, str], list[str]]) -> list[str] | None:
    """One cycle among `nodes` (as a path that returns to its start), or None."""
    graph = {n: sorted(t for (s, t) in edges if s == n and t in nodes) for n in nodes}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in nodes:
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_layers_exist() -> None:
    """The test reads the real package: a renamed layer must be renamed here too."""
    for name in (*LAYERS, *VIEWS):
        assert (ROOT / name).is_dir() or (ROOT / f"{name}.py").is_file(), name


def test_no_import_cycle_between_the_layers() -> None:
    edges = _edges()
    cycle = _cycle(LAYERS, edges)
    if cycle is not None:
        where = [w for a, b in itertools.pairwise(cycle) for w in edges[(a, b)][:3]]
        raise AssertionError(f"import cycle {' → '.join(cycle)}:\n" + "\n".join(where))


def test_layers_import_only_downwards() -> None:
    """A layer imports the layers below it, never one above nor a view."""
    upward = []
    for (source, target), where in _edges().items():
        if source not in LAYERS:
            continue
        if target in VIEWS or (target in LAYERS and LAYERS.index(target) > LAYERS.index(source)):
            upward += where
    assert not upward, "imports that climb a layer:\n" + "\n".join(upward)


def test_core_and_pipeline_never_import_a_view() -> None:
    bad = [
        w
        for (source, target), where in _edges().items()
        for w in where
        if source in ("core", "pipeline") and target in ("lsp", "cli", "batch")
    ]
    assert not bad, "\n".join(bad)


def test_the_scorers_never_import_an_editor_or_network_client() -> None:
    bad = []
    for part in ("core", "learn", "classifier"):
        paths = (
            [ROOT / f"{part}.py"] if (ROOT / f"{part}.py").exists() else sorted((ROOT / part).rglob("*.py"))
        )
        for path in paths:
            for name, line in _imports(path):
                if name.split(".")[0] in NOT_IN_CORE:
                    bad.append(f"{path.relative_to(ROOT)}:{line} → {name}")
    assert not bad, "\n".join(bad)


def test_the_walk_sees_lazy_imports() -> None:
    """The checks above could pass by reading nothing: a function-level import and a relative
    one are found, a TYPE_CHECKING one is not."""
    assert "turnlens.core.engine" in {name for name, _ in _imports(ROOT / "core" / "classify.py")}
    text = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from turnlens.lsp import server\n"
        "def f():\n    from turnlens.cli import main\n    from . import rules\n"
    )
    found = {name for name, _ in _imports_of(text, "turnlens.core.probe", False)}
    assert "turnlens.cli.main" in found and "turnlens.core.rules" in found
    assert not any(n.startswith("turnlens.lsp") for n in found)


def test_the_cycle_finder_finds_one() -> None:
    edges = {("a", "b"): ["x"], ("b", "c"): ["y"], ("c", "a"): ["z"]}
    assert _cycle(("a", "b", "c"), edges) == ["a", "b", "c", "a"]
    assert _cycle(("a", "b", "c"), {("a", "b"): ["x"], ("b", "c"): ["y"]}) is None
