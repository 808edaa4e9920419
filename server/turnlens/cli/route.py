"""`turnlens route`: the reasoning effort a router gives a prompt (owned by the router work)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("route", help="the reasoning effort a router gives a prompt (not ready yet)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
