"""The optional compiled scorer; everything else is in pyproject.toml.

`turnlens.learn._scorer` is built when a C compiler is at hand and skipped (with a
warning) when not: the pure-Python scorer gives the same answers. Set
TURNLENS_PURE_PYTHON=1 to build without it on purpose (tests/learn/test_scorer.py
installs that way to check the fallback).
"""

import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildScorer(build_ext):
    """The kernel's arithmetic must round as Python's does: no fused multiply-add (GCC and
    Clang would contract `a + b * c` on targets that have one, aarch64 among them)."""

    def build_extensions(self) -> None:
        if self.compiler.compiler_type != "msvc":
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, "-ffp-contract=off"]
        super().build_extensions()


pure = os.environ.get("TURNLENS_PURE_PYTHON", "") not in ("", "0")
ext_modules = (
    []
    if pure
    else [
        Extension(
            "turnlens.learn._scorer",
            ["server/turnlens/learn/_scorer.c"],
            optional=True,
        )
    ]
)
setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildScorer})
