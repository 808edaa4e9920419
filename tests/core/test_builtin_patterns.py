"""Built-in packs skip the compile check at run time (start-up speed); it happens here instead."""

import pytest

from turnlens.core.data import read_packaged
from turnlens.core.rules import BUILTIN_PACKS, builtin_pack, parse_pack

PACKS = [("turnlens.core.packs", f"{name}.toml") for name in BUILTIN_PACKS] + [
    ("turnlens.router.packs", "labels.toml")
]


@pytest.mark.parametrize(("package", "filename"), PACKS)
def test_builtin_patterns_compile(package: str, filename: str) -> None:
    text = read_packaged(package, filename)
    base = builtin_pack("reference") if "extends" in text and filename != "reference.toml" else None
    pack = parse_pack(text, filename, base=base, check_patterns=True)
    assert pack.rules and not pack.warnings
