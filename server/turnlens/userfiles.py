"""Finding and reading users' rule files (`--rules PATH`, `.turnlens.toml`).

This is the I/O the core leaves to its callers: the CLI and the language server
read files here and hand text to `turnlens.core.rules.parse_pack`.
"""

from __future__ import annotations

from pathlib import Path

from turnlens.core.rules import RulePack, builtin_pack, parse_pack

PROJECT_FILE = ".turnlens.toml"
MAX_RULES_FILE = 1_000_000


def find_project_rules(start: Path) -> Path | None:
    """The nearest `.turnlens.toml` in `start` or a folder above it."""
    try:
        here = start.resolve()
    except OSError:
        return None
    for folder in (here, *here.parents):
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def _names_a_base(text: str) -> bool:
    """Whether the file says `[pack] extends = "…"` itself (a TOML error is left to the parser)."""
    import tomllib

    try:
        meta = tomllib.loads(text).get("pack")
    except tomllib.TOMLDecodeError:
        return False
    return isinstance(meta, dict) and "extends" in meta


def load_rules_file(path: Path, base: RulePack | None = None) -> RulePack:
    """A user rules file extends `default` (or the pack its `[pack] extends` names).

    Bad rules are skipped and listed in `pack.warnings`; a file that is not
    TOML at all raises RulePackError naming it.
    """
    from turnlens.core.rules import RulePackError

    try:
        data = path.read_bytes()[: MAX_RULES_FILE + 1]
    except OSError as exc:
        raise RulePackError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_RULES_FILE:
        raise RulePackError(f"{path}: larger than {MAX_RULES_FILE} bytes")
    text = data.decode("utf-8", errors="replace")
    if _names_a_base(text):
        base = None  # the file's own `[pack] extends` wins over the caller's default
    elif base is None:
        base = builtin_pack("default")
    return parse_pack(text, str(path), base=base, strict=False, user=True)
