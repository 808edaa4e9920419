"""The optional compiled scorer; everything else is in pyproject.toml.

`turnlens.learn._scorer` is built when a C compiler is at hand and skipped (with a
warning) when not: the pure-Python scorer gives the same answers. Set
TURNLENS_PURE_PYTHON=1 to build without it on purpose (tests/learn/test_scorer.py
installs that way to check the fallback).
"""

import os

from setuptools import Extension, setup

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
setup(ext_modules=ext_modules)
