"""Rules and rule packs: the data the scoring engine runs on.

Packs are TOML so that people can read, diff and extend them without writing
Python. Everything is validated here, at load, so the engine never meets a bad
rule: a broken built-in pack raises :class:`RulePackError`; a broken user rule
is reported with its name and skipped.
"""

from __future__ import annotations

from _collections_abc import Mapping  # collections.abc's, without the `collections` package

from turnlens.core.data import parse_toml, read_packaged
from turnlens.core.prebuilt import compile_re

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, NamedTuple
else:
    from turnlens.core.record import NamedTuple

BUILTIN_PACKS = ("default", "reference")
# Built-in packs whose class is decided by a learned model (see turnlens.learn).
MODEL_OF_PACK = {"default": "classes"}
_ID = compile_re(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$")
_RULE_KEYS = {
    "id",
    "category",
    "class",
    "label",
    "weight",
    "pattern",
    "ignore_case",
    "min_words",
    "max_words",
    "min_lines",
    "max_lines",
    "description",
    "enabled",
}
MAX_PATTERN_LENGTH = 2000


class RulePackError(ValueError):
    """A pack or rule that cannot be used; the message names the file and rule."""


# Named tuples and a plain class rather than dataclasses: importing `dataclasses` and
# generating their methods costs a one-shot `turnlens classify` more than its scoring.


class Rule(NamedTuple):
    """One additive signal: when it matches, its category gains `weight`, once."""

    id: str
    category: str
    weight: int
    description: str = ""
    pattern: str | None = None
    ignore_case: bool = False
    min_words: int | None = None
    max_words: int | None = None
    min_lines: int | None = None
    max_lines: int | None = None
    source: str = ""
    # "re" for TurnLens's own reviewed packs; "re2" (linear time, no backtracking)
    # for patterns that come from users' files and settings.
    engine: str = "re"


class Fallback(NamedTuple):
    """What to answer when no category scores above zero."""

    short: str
    long: str
    max_short_words: int


class RulePack:
    """An ordered set of categories (tie order, strictest first) and their rules.

    Immutable; equal when everything but `warnings` and `model` is equal. `model` is the
    learned model that decides the class, the rules' firings being its features: "classes"
    (the packaged one) for `default` and the packs that extend it, a loaded
    `turnlens.learn.model.Model` (a user's `--model`), or None (the rules decide).
    """

    # __weakref__: the engine's cache of compiled matchers lets go of a pack nobody holds
    __slots__ = (
        "__weakref__",
        "categories",
        "description",
        "fallback",
        "model",
        "name",
        "rules",
        "source",
        "warnings",
    )

    name: str
    categories: tuple[str, ...]
    rules: tuple[Rule, ...]
    fallback: Fallback | None
    description: str
    source: str
    warnings: tuple[str, ...]
    model: object | None

    def __init__(
        self,
        name: str,
        categories: tuple[str, ...],
        rules: tuple[Rule, ...],
        fallback: Fallback | None = None,
        description: str = "",
        source: str = "",
        warnings: tuple[str, ...] = (),
        model: object | None = None,
    ) -> None:
        values = (name, categories, rules, fallback, description, source, warnings, model)
        for key, value in zip(_PACK_FIELDS, values, strict=True):
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"RulePack is immutable (cannot set {key!r})")

    def _key(self) -> tuple[object, ...]:
        return (self.name, self.categories, self.rules, self.fallback, self.description, self.source)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, RulePack)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"RulePack(name={self.name!r}, categories={self.categories!r}, rules=<{len(self.rules)} rules>)"
        )

    def __reduce__(self) -> tuple[type[RulePack], tuple[object, ...]]:
        # pickled for `turnlens check` workers; rebuilt through __init__
        return (RulePack, tuple(getattr(self, key) for key in _PACK_FIELDS))

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)


_PACK_FIELDS = ("name", "categories", "rules", "fallback", "description", "source", "warnings", "model")


def _with_model(pack: RulePack, model: object | None) -> RulePack:
    values = {key: getattr(pack, key) for key in _PACK_FIELDS}
    values["model"] = model
    return RulePack(**values)


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


def _show(value: object) -> str:
    return _clip(repr(value))


def _err(source: str, rule_id: str | None, problem: str) -> RulePackError:
    where = f"{source}: rule '{rule_id}'" if rule_id else source
    return RulePackError(f"{where}: {problem}")


def _int_field(raw: Mapping[str, Any], key: str, source: str, rid: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _err(source, rid, f"{key} must be a whole number ≥ 0, got {_show(value)}")
    return value


def _check_re2(pattern: str, ignore_case: bool, source: str, rid: str) -> None:
    """A user pattern must run on RE2 and be cheap enough there (see core/safe_re.py)."""
    from turnlens.core.safe_re import PatternError, SafePattern, cost_problem

    try:
        SafePattern(pattern, ignore_case=ignore_case)
    except PatternError as exc:
        raise _err(
            source,
            rid,
            f"pattern is not allowed in user rules: {exc} (user patterns use RE2 syntax, which runs in "
            "linear time: no backreferences or lookaround)",
        ) from None
    problem = cost_problem(pattern, ignore_case=ignore_case, wrapped="(?m)" + pattern)
    if problem is not None:
        raise _err(source, rid, f"pattern is too costly to run: {problem}")


def parse_rule(
    raw: Mapping[str, Any],
    categories: Iterable[str],
    source: str,
    *,
    user: bool = False,
    check_patterns: bool = True,
) -> Rule:
    """Validate one `[[rule]]` table; raises RulePackError naming the rule."""
    rid = raw.get("id")
    if not isinstance(rid, str) or not _ID.match(rid):
        raise _err(source, None, f"a rule needs an id (letters, digits, . _ : -), got {_show(rid)}")
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise _err(source, rid, f"unknown key(s) {_clip(', '.join(unknown))}")
    category = raw.get("category", raw.get("class", raw.get("label")))
    allowed = tuple(categories)
    if category not in allowed:
        raise _err(source, rid, f"unknown class {_show(category)} (expected one of: {', '.join(allowed)})")
    weight = raw.get("weight")
    if isinstance(weight, bool) or not isinstance(weight, int) or not -100 <= weight <= 100:
        raise _err(source, rid, f"weight must be a whole number from -100 to 100, got {_show(weight)}")
    pattern = raw.get("pattern")
    ignore_case = raw.get("ignore_case", False)
    if not isinstance(ignore_case, bool):
        raise _err(source, rid, f"ignore_case must be true or false, got {_show(ignore_case)}")
    if pattern is not None:
        if not isinstance(pattern, str) or not pattern:
            raise _err(source, rid, "pattern must be a non-empty string")
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise _err(source, rid, f"pattern is longer than {MAX_PATTERN_LENGTH} characters")
        if user:
            from turnlens.core.safe_re import MAX_GROUP_DEPTH, group_depth

            # before any parser sees it: Python's and the literal finder recurse per group
            if group_depth(pattern) > MAX_GROUP_DEPTH:
                raise _err(source, rid, f"pattern nests groups more than {MAX_GROUP_DEPTH} deep")
        if check_patterns:
            import re

            try:
                re.compile(pattern, re.IGNORECASE if ignore_case else 0)
            except re.error as exc:
                raise _err(source, rid, f"pattern does not compile: {exc}") from None
            except (OverflowError, RecursionError, ValueError) as exc:
                raise _err(source, rid, f"pattern does not compile: {exc}") from None
        if user:
            _check_re2(pattern, ignore_case, source, rid)
    if not isinstance(raw.get("enabled", True), bool):
        raise _err(source, rid, f"enabled must be true or false, got {_show(raw['enabled'])}")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise _err(source, rid, "description must be a string")
    rule = Rule(  # positionally: id, category, weight, description, pattern, ignore_case, bounds…
        rid,
        str(category),
        weight,
        description,
        pattern,
        ignore_case,
        _int_field(raw, "min_words", source, rid),
        _int_field(raw, "max_words", source, rid),
        _int_field(raw, "min_lines", source, rid),
        _int_field(raw, "max_lines", source, rid),
        source,
        "re2" if user and pattern is not None else "re",
    )
    if pattern is None and all(
        v is None for v in (rule.min_words, rule.max_words, rule.min_lines, rule.max_lines)
    ):
        raise _err(source, rid, "a rule needs a pattern or a word/line bound")
    return rule


def _parse_toml(text: str, source: str) -> dict[str, Any]:
    try:
        return parse_toml(text.removeprefix("\ufeff"))  # a byte-order mark is not content
    except ValueError as exc:  # tomllib.TOMLDecodeError
        raise _err(source, None, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise _err(source, None, "not usable: tables or arrays nest too deep") from None


def _parse_fallback(meta: Mapping[str, Any], categories: tuple[str, ...], source: str) -> Fallback | None:
    raw = meta.get("fallback")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise _err(source, None, "[pack] fallback must be a table {short, long, max_short_words}")
    short, long, words = raw.get("short"), raw.get("long"), raw.get("max_short_words")
    if short not in categories or long not in categories:
        raise _err(source, None, "[pack] fallback short/long must name categories of the pack")
    if isinstance(words, bool) or not isinstance(words, int) or words < 0:
        raise _err(source, None, "[pack] fallback max_short_words must be a whole number ≥ 0")
    return Fallback(short=str(short), long=str(long), max_short_words=words)


def parse_pack(
    text: str,
    source: str,
    *,
    base: RulePack | None = None,
    strict: bool = True,
    user: bool = False,
    check_patterns: bool = True,
) -> RulePack:
    """Build a pack from TOML text.

    With a `base`, rules extend it: a rule with the id of a base rule replaces
    it, `enabled = false` removes it. With `strict=False` (user files) a bad
    rule is skipped and named in `pack.warnings` instead of failing the load;
    `user=True` runs the file's patterns on the linear-time RE2 engine.
    """
    data = _parse_toml(text, source)
    meta = data.get("pack", {})
    if not isinstance(meta, Mapping):
        raise _err(source, None, "[pack] must be a table")
    unknown_top = sorted(set(data) - {"pack", "rule"})
    if unknown_top:
        raise _err(
            source, None, f"unknown table(s) {_clip(', '.join(unknown_top))} (expected [pack] and [[rule]])"
        )
    if base is None and isinstance(meta.get("extends"), str):
        try:
            base = builtin_pack(meta["extends"])
        except RulePackError as exc:
            raise _err(source, None, f"[pack] extends: {exc}") from None
    for key in ("name", "description", "extends"):
        if key in meta and not isinstance(meta[key], str):
            raise _err(source, None, f"[pack] {key} must be a string, got {_show(meta[key])}")
    if base is not None:
        categories = base.categories
        if "categories" in meta and (
            not isinstance(meta["categories"], list) or tuple(meta["categories"]) != categories
        ):
            raise _err(source, None, "an extending pack cannot change the categories")
    else:
        cats = meta.get("categories")
        if not isinstance(cats, list) or not cats or not all(isinstance(c, str) for c in cats):
            raise _err(source, None, "[pack] categories must be a non-empty list of names")
        if len(set(cats)) != len(cats):
            raise _err(source, None, "[pack] categories has duplicates")
        categories = tuple(cats)
    raw_rules = data.get("rule", [])
    if not isinstance(raw_rules, list):
        raise _err(source, None, "rules must be written as [[rule]] tables")
    rules: dict[str, Rule] = {r.id: r for r in base.rules} if base else {}
    warnings = list(base.warnings) if base else []
    seen: set[str] = set()
    for raw in raw_rules:
        try:
            if not isinstance(raw, Mapping):
                raise _err(source, None, "each [[rule]] must be a table")
            rid = raw.get("id")
            if isinstance(rid, str) and rid in seen:
                raise _err(source, rid, "duplicate rule id in this file")
            if raw.get("enabled", True) is False and isinstance(rid, str):
                seen.add(rid)
                rules.pop(rid, None)
                continue
            rule = parse_rule(raw, categories, source, user=user, check_patterns=check_patterns)
        except RulePackError as exc:
            if strict:
                raise
            warnings.append(str(exc))
            continue
        seen.add(rule.id)
        rules[rule.id] = rule
    fallback = _parse_fallback(meta, categories, source) if "fallback" in meta else None
    if fallback is None and base is not None:
        fallback = base.fallback
    name = meta.get("name", base.name if base else source)
    return RulePack(
        name=str(name),
        categories=categories,
        rules=tuple(rules.values()),
        fallback=fallback,
        description=str(meta.get("description", base.description if base else "")),
        source=source,
        warnings=tuple(warnings),
        model=base.model if base is not None else None,
    )


def _read_packaged(package: str, filename: str) -> str:
    return read_packaged(package, filename)


_BUILTIN: dict[str, RulePack] = {}


def builtin_pack(name: str) -> RulePack:
    """One of the packs shipped with TurnLens (`default`, `reference`), parsed once."""
    pack = _BUILTIN.get(name)
    if pack is None:
        pack = _BUILTIN[name] = _load_builtin(name)
    return pack


def _load_builtin(name: str) -> RulePack:
    if name not in BUILTIN_PACKS:
        raise RulePackError(f"unknown rule pack {name!r} (built-in packs: {', '.join(BUILTIN_PACKS)})")
    text = _read_packaged("turnlens.core.packs", f"{name}.toml")
    # TurnLens's own patterns are compiled by its tests (test_builtin_patterns_compile);
    # compiling each one here only to throw it away would double a short run's start-up.
    pack = parse_pack(text, f"<builtin:{name}.toml>", check_patterns=False)
    model = MODEL_OF_PACK.get(name)
    return _with_model(pack, model) if model else pack


def rules_only(pack: RulePack) -> RulePack:
    """The same pack with its rules deciding the class (no model): what the rules alone say."""
    return _with_model(pack, None) if pack.model is not None else pack


def with_model(pack: RulePack, model: object) -> RulePack:
    """The pack with `model` (a loaded `Model`) deciding the class."""
    return _with_model(pack, model)


_PACKAGED: dict[tuple[str, str], RulePack] = {}


def packaged_pack(package: str, filename: str) -> RulePack:
    """A pack shipped inside another TurnLens package (e.g. the router's labels), parsed once."""
    pack = _PACKAGED.get((package, filename))
    if pack is None:
        text = _read_packaged(package, filename)
        pack = parse_pack(text, f"<builtin:{filename}>", check_patterns=False)
        _PACKAGED[package, filename] = pack
    return pack
