"""Literal pre-checks for regular expressions.

Most rules can only match where some literal string occurs (`Traceback`,
`SPEC-`, a fence of backticks). Checking `literal in text` runs at memory speed
in C, so the engine skips the regex entirely for most rules on most texts. The
extraction is conservative: when in doubt it returns None and the regex runs.
"""

from __future__ import annotations

from turnlens.core.data import bundled, read_packaged

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    from typing import Any

_MAX_ALTERNATIVES = 32


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two candidate sets: longer shortest literal, then fewer."""
    if a is None:
        return b
    if b is None:
        return a
    ka = (min(map(len, a)), -len(a))
    kb = (min(map(len, b)), -len(b))
    return a if ka >= kb else b


def _seq(items: Any) -> frozenset[str] | None:
    """A set of strings one of which every match of the sequence contains."""
    from re import _constants as _c  # type: ignore[attr-defined]

    repeats = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
    best: frozenset[str] | None = None
    run: list[str] = []

    def flush() -> None:
        nonlocal best
        if run:
            best = _better(best, frozenset({"".join(run)}))
            run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if op is _c.SUBPATTERN:
            inner = _seq(av[3])
            # a group that is exactly a literal keeps the run going
            if inner is not None and len(inner) == 1 and _is_pure_literal(av[3]):
                run.append(next(iter(inner)))
                continue
            flush()
            best = _better(best, inner)
            continue
        flush()
        if op is _c.BRANCH:
            alts = [_seq(branch) for branch in av[1]]
            if all(a is not None for a in alts):
                union = frozenset().union(*[a for a in alts if a is not None])
                if len(union) <= _MAX_ALTERNATIVES:
                    best = _better(best, union)
        elif op in repeats and av[0] >= 1:
            best = _better(best, _seq(av[2]))
        elif op is getattr(_c, "ATOMIC_GROUP", None):
            best = _better(best, _seq(av))
    flush()
    if best is not None and any(not s for s in best):
        return None
    return best


def fold(text: str) -> str:
    """Case-fold for literal pre-checks, so that every match `re` finds ignoring case survives.

    `str.casefold` groups letters as `re`'s IGNORECASE does except for the Turkish
    i's: `re` matches `İ` and `ı` as `i`, while casefold gives `i̇` (two code points)
    and `ı`. Literals and texts must both go through this one function.
    """
    if "İ" in text:
        text = text.replace("İ", "i")
    folded = text.casefold()
    return folded.replace("ı", "i") if "ı" in folded else folded


def _is_pure_literal(items: Any) -> bool:
    from re import _constants as _c  # type: ignore[attr-defined]

    return all(op is _c.LITERAL for op, _ in items)


Literals = tuple[tuple[str, ...], bool] | None
_KNOWN: dict[str, Literals] | None = None


def cache_key(pattern: str, ignore_case: bool) -> str:
    return f"{'i' if ignore_case else '-'}:{pattern}"


def _known() -> dict[str, Literals]:
    """The pre-checks of TurnLens's own packs, worked out ahead (packs/literals.json):
    parsing every pattern costs more than a short prompt takes to classify."""
    global _KNOWN
    if _KNOWN is None:
        _KNOWN = bundled("literals")  # the one-shot bundle, as below and read without `json`
        if _KNOWN is not None:
            return _KNOWN
        import json

        try:
            raw = json.loads(read_packaged("turnlens.core.packs", "literals.json"))
            _KNOWN = {k: (tuple(v[0]), bool(v[1])) if v else None for k, v in raw["patterns"].items()}
        except (OSError, ValueError, KeyError, TypeError):
            _KNOWN = {}
    return _KNOWN


def required_literals(pattern: str, ignore_case: bool) -> Literals:
    """Literals one of which every match contains, and whether to compare case-folded.

    Returns None when no useful set can be proven (the regex then always runs).
    """
    key = cache_key(pattern, ignore_case)
    known = _known()
    if key in known:
        return known[key]
    return extract_literals(pattern, ignore_case)


def extract_literals(pattern: str, ignore_case: bool) -> Literals:
    """`required_literals` worked out from the pattern's parse tree."""
    import re
    from re import _parser as _p  # type: ignore[attr-defined]

    try:
        parsed = _p.parse(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error:
        return None
    flags = parsed.state.flags
    if flags & (re.VERBOSE):
        return None
    found = _seq(parsed)
    if not found:
        return None
    folded = ignore_case or bool(flags & re.IGNORECASE) or _has_inline_flags(parsed)
    lits = tuple(sorted({fold(s) if folded else s for s in found}, key=lambda s: (len(s), s)))
    return lits, folded


def _has_inline_flags(items: Any) -> bool:
    from re import _constants as _c  # type: ignore[attr-defined]

    repeats = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
    for op, av in items:
        if op is _c.SUBPATTERN:
            if av[1] or av[2] or _has_inline_flags(av[3]):
                return True
        elif op is _c.BRANCH:
            if any(_has_inline_flags(b) for b in av[1]):
                return True
        elif op in repeats and _has_inline_flags(av[2]):
            return True
    return False
