"""Every built-in Python `re` pattern of TurnLens, and adversarial inputs for each.

A pattern is found where it lives: compiled `re.Pattern` objects in module globals (also inside
tuples, lists, dicts and frozensets there) and in class bodies of every `turnlens` module, the
rule patterns of the packaged packs (`default`, `reference`, the router's labels) compiled as the
engine compiles them, and the router's keyword pattern built from its packaged defaults.

Inputs come from the pattern's own parse tree (`re._parser`): for every repeat in it, the shortest
text that reaches the repeat, then its body pumped many times, then a tail that fails (nothing, a
NUL, a newline, `x`); plus long runs of every character the pattern touches after every literal
run of it (an unclosed opener followed by what could continue it), and every literal run repeated.
Those are the shapes that make a backtracking matcher super-linear: nested or adjacent
quantifiers over the same characters, a lazy body that can cross its own terminator, and a
search retried at each of many openers.

`overruns` runs each input under a CPU-time alarm; `python redos.py BUDGET [NAME]` prints them.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Iterator
from itertools import islice
from typing import Any

try:  # Python 3.11+
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

PUMP_CHARS = 20_000  # length of a pumped run; every built-in pattern takes under 0.1 s CPU on it
MAX_RUNS = 12  # literal runs per pattern used as openers
TAILS = ("", "\x00", "x")
REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)}

_CATEGORY_SAMPLE = {
    C.CATEGORY_DIGIT: "1",
    C.CATEGORY_NOT_DIGIT: "a",
    C.CATEGORY_SPACE: " ",
    C.CATEGORY_NOT_SPACE: "a",
    C.CATEGORY_WORD: "a",
    C.CATEGORY_NOT_WORD: " ",
    C.CATEGORY_LINEBREAK: "\n",
    C.CATEGORY_NOT_LINEBREAK: "a",
}
_CATEGORY_EXTRA = {C.CATEGORY_SPACE: " \t\n", C.CATEGORY_WORD: "a_1", C.CATEGORY_NOT_WORD: " -.:#"}


# -- finding the patterns ---------------------------------------------------------------------


def _patterns_in(value: Any, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield value
    elif depth < 2 and isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1)


def module_patterns() -> dict[str, re.Pattern[str]]:
    """`module.NAME` (or `module.Class.NAME`) -> pattern, for every importable turnlens module."""
    import turnlens

    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(turnlens.__path__, "turnlens."):
        if info.name.endswith(".__main__"):  # runs the CLI when imported
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception:  # an optional extra (ray, pyarrow) that is not installed
            continue
        for name, value in vars(module).items():
            for k, pattern in enumerate(_patterns_in(value)):
                found.setdefault(f"{info.name}.{name}[{k}]", pattern)
            if isinstance(value, type) and value.__module__ == info.name:
                for attr, member in vars(value).items():
                    for k, pattern in enumerate(_patterns_in(member)):
                        found.setdefault(f"{info.name}.{name}.{attr}[{k}]", pattern)
    return found


def packaged_patterns() -> dict[str, re.Pattern[str]]:
    """Rule patterns from the packaged TOML packs, compiled with the flags the engine uses."""
    from turnlens.core.rules import BUILTIN_PACKS, builtin_pack, packaged_pack
    from turnlens.router import resolve
    from turnlens.router.settings import DEFAULT

    packs = [(f"pack:{name}", builtin_pack(name)) for name in BUILTIN_PACKS]
    packs.append(("pack:router-labels", packaged_pack("turnlens.router.packs", "labels.toml")))
    found: dict[str, re.Pattern[str]] = {}
    for label, pack in packs:
        for rule in pack.rules:
            if rule.pattern is None or rule.engine == "re2":
                continue
            flags = (re.IGNORECASE if rule.ignore_case else 0) | re.MULTILINE
            found[f"{label}:{rule.id}"] = re.compile(rule.pattern, flags)
    keywords = resolve._keyword_regex(DEFAULT.keywords)
    if keywords is not None:
        found["router.resolve._keyword_regex(defaults)"] = keywords[0]
    return found


def all_patterns() -> dict[str, re.Pattern[str]]:
    return {**module_patterns(), **packaged_patterns()}


# -- making inputs ----------------------------------------------------------------------------


def _class_chars(items: list[tuple[Any, Any]]) -> tuple[str, str]:
    """(chars matched by an IN class, a char it does not match)."""
    negate = any(op is C.NEGATE for op, _ in items)
    chars: list[str] = []
    for op, av in items:
        if op is C.LITERAL:
            chars.append(chr(av))
        elif op is C.RANGE:
            lo, hi = av
            chars.extend({chr(lo), chr(hi), chr((lo + hi) // 2)})
        elif op is C.CATEGORY:
            chars.extend(_CATEGORY_EXTRA.get(av, _CATEGORY_SAMPLE.get(av, "a")))
    if negate:
        outside = [ch for ch in "a x1-#*_<>!\t" if ch not in chars]
        return ("".join(outside) or "\x01", chars[0] if chars else "\x00")
    return ("".join(chars) or "a", "\x00")


def sample(seq: Any, *, pump: bool = False) -> str:
    """The shortest text matching `seq` (one round of each repeat when `pump`)."""
    out: list[str] = []
    for op, av in seq:
        if op is C.LITERAL:
            out.append(chr(av))
        elif op is C.NOT_LITERAL:
            out.append("a" if chr(av) != "a" else "b")
        elif op is C.ANY:
            out.append("a")
        elif op is C.IN:
            out.append(_class_chars(av)[0][0])
        elif op in REPEATS:
            lo, _hi, body = av
            out.append(sample(body) * max(lo, 1 if pump else 0))
        elif op is C.SUBPATTERN:
            out.append(sample(av[-1], pump=pump))
        elif op is C.ATOMIC_GROUP:
            out.append(sample(av, pump=pump))
        elif op is C.BRANCH:
            out.append(sample(av[1][0], pump=pump))
        elif op is C.AT and av is C.AT_BEGINNING_LINE and out and not "".join(out).endswith("\n"):
            out.append("\n")
        # assertions, anchors and group references add nothing
    return "".join(out)


def _chars_of(seq: Any, into: set[str]) -> None:
    for op, av in seq:
        if op is C.LITERAL:
            into.add(chr(av))
        elif op is C.IN:
            into.update(_class_chars(av)[0])
        elif op is C.NOT_LITERAL or op is C.ANY:
            into.add("a")
        elif op in REPEATS:
            _chars_of(av[2], into)
        elif op is C.SUBPATTERN:
            _chars_of(av[-1], into)
        elif op is C.ATOMIC_GROUP:
            _chars_of(av, into)
        elif op is C.BRANCH:
            for branch in av[1]:
                _chars_of(branch, into)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            _chars_of(av[1], into)


def _literal_runs(seq: Any, into: list[str]) -> None:
    run: list[str] = []
    for op, av in seq:
        if op is C.LITERAL:
            run.append(chr(av))
            continue
        if len(run) > 1:
            into.append("".join(run))
        run = []
        if op in REPEATS:
            _literal_runs(av[2], into)
        elif op is C.SUBPATTERN:
            _literal_runs(av[-1], into)
        elif op is C.BRANCH:
            for branch in av[1]:
                _literal_runs(branch, into)
    if len(run) > 1:
        into.append("".join(run))


def _pump_points(seq: Any, prefix: str, into: list[tuple[str, str]]) -> None:
    """(text that reaches a repeat, one round of its body) for every repeat of `seq`."""
    acc = prefix
    for op, av in seq:
        if op in REPEATS:
            body = av[2]
            into.append((acc, sample(body, pump=True) or "a"))
            for alt in _branches(body):
                into.append((acc, alt))
            _pump_points(body, acc, into)
        elif op is C.SUBPATTERN:
            _pump_points(av[-1], acc, into)
        elif op is C.ATOMIC_GROUP:
            _pump_points(av, acc, into)
        elif op is C.BRANCH:
            for branch in av[1]:
                _pump_points(branch, acc, into)
        acc += sample([(op, av)])


def _branches(body: Any) -> list[str]:
    """One sample per alternative of a repeated group (`(?:a|b)*`): each can be pumped alone."""
    if len(body) == 1 and body[0][0] is C.SUBPATTERN:
        body = body[0][1][-1]
    if len(body) == 1 and body[0][0] is C.BRANCH:
        return [sample(branch, pump=True) for branch in body[0][1][1] if sample(branch, pump=True)]
    return []


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit]


def _class_chars_of(seq: Any, into: set[str]) -> None:
    """Characters of the classes (`[...]`, `\\s`, `.`, `[^x]`) in `seq`: what a long run is made of."""
    for op, av in seq:
        if op is C.IN:
            into.update(_class_chars(av)[0])
        elif op is C.NOT_LITERAL or op is C.ANY:
            into.add("a")
        elif op is C.LITERAL and chr(av) in " \t":
            into.add(chr(av))
        elif op in REPEATS:
            _class_chars_of(av[2], into)
        elif op is C.SUBPATTERN:
            _class_chars_of(av[-1], into)
        elif op is C.ATOMIC_GROUP:
            _class_chars_of(av, into)
        elif op is C.BRANCH:
            for branch in av[1]:
                _class_chars_of(branch, into)


def inputs(pattern: re.Pattern[str]) -> Iterator[tuple[str, str]]:
    """(description, text) pairs that stress `pattern`."""
    seq = list(P.parse(pattern.pattern, pattern.flags))
    chars: set[str] = set()
    _chars_of(seq, chars)
    class_chars: set[str] = set()
    _class_chars_of(seq, class_chars)
    runs: list[str] = []
    _literal_runs(seq, runs)
    points: list[tuple[str, str]] = []
    _pump_points(seq, "", points)
    seen: set[str] = set()

    def emit(what: str, text: str) -> Iterator[tuple[str, str]]:
        if text not in seen:
            seen.add(text)
            yield what, text

    for ch in sorted(chars):  # long runs of each character it touches
        yield from emit(f"run of {ch!r}", ch * PUMP_CHARS + "\x00")
    distinct = list(dict.fromkeys(runs))
    if len(distinct) > MAX_RUNS:  # words of one alternation behave alike: a spread of them will do
        distinct = [distinct[k * len(distinct) // MAX_RUNS] for k in range(MAX_RUNS)]
    for run in distinct:  # unclosed openers, repeated prefixes
        yield from emit(f"repeated {run!r}", _fit(run * (PUMP_CHARS // len(run) + 1), 2 * PUMP_CHARS))
        for ch in sorted(class_chars):
            yield from emit(f"{run!r} then a run of {ch!r}", run + ch * PUMP_CHARS + "\x00")
    for prefix, body in points:  # each repeat reached, then pumped, then a failing tail
        count = max(PUMP_CHARS // max(len(body), 1), 1)
        if len(body) > 4:  # an exponential blow-up shows with few rounds; keep the text short
            count = min(count, 64)
        for tail in TAILS:
            yield from emit(f"{prefix!r} + {body!r} x {count} + {tail!r}", prefix + body * count + tail)
        if prefix:  # the same opener many times, never closed
            yield from emit(
                f"{prefix!r} repeated", _fit(prefix * (PUMP_CHARS // len(prefix) + 1), PUMP_CHARS)
            )


# -- running under a CPU budget ---------------------------------------------------------------


class _OverBudget(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _OverBudget


def overruns(budget: float, only: str | None = None) -> tuple[list[str], int, int, tuple[float, str]]:
    """Runs `search`, `fullmatch` and `finditer` of every pattern on each of its inputs.

    Each input gets `budget` seconds of CPU time (ITIMER_PROF: time the process spends running,
    so a busy machine does not make it fail); `re` checks for signals while it matches, so an
    input that overruns is stopped and reported instead of hanging the run. Main thread only.
    Returns (overruns, patterns, inputs run, (most CPU seconds one input took, which)).
    """
    import signal
    import time

    patterns = all_patterns()
    failures: list[str] = []
    count = 0
    slowest = (0.0, "")
    previous = signal.signal(signal.SIGPROF, _alarm)
    try:
        for name, pattern in sorted(patterns.items()):
            if only is not None and only not in name:
                continue
            for what, text in inputs(pattern):
                started = time.process_time()
                try:
                    signal.setitimer(signal.ITIMER_PROF, budget)
                    pattern.search(text)
                    pattern.fullmatch(text)
                    for _ in islice(pattern.finditer(text), 1000):
                        pass
                except _OverBudget:
                    failures.append(f"{name} {pattern.pattern!r}: over {budget} s CPU on {what}")
                    break  # one overrun per pattern is enough to report it
                finally:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                used = time.process_time() - started
                if used > slowest[0]:
                    slowest = (used, f"{name} on {what}")
                count += 1
    finally:
        signal.signal(signal.SIGPROF, previous)
    return failures, len(patterns), count, slowest


if __name__ == "__main__":
    found, n_patterns, n_inputs, worst = overruns(
        float(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None
    )
    sys.stdout.write("\n".join(found) + "\n")
    sys.stdout.write(f"{len(found)} overruns; {n_patterns} patterns, {n_inputs} inputs; slowest {worst}\n")
