"""Rule packs as data: validation errors, user files, RE2, extends / override / disable, discovery."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from turnlens.classifier import classify
from turnlens.core.engine import score, score_plain
from turnlens.core.rules import RulePackError, builtin_pack, parse_pack
from turnlens.userfiles import PROJECT_FILE, find_project_rules, load_rules_file

REFERENCE = builtin_pack("reference")
GOOD = 'id = "my.rule"\ncategory = "review"\nweight = 2\npattern = "LGTM"'


def one_rule(body: str) -> str:
    return "[[rule]]\n" + textwrap.dedent(body).strip() + "\n"


# ─── validation: errors name the file, the rule and the problem ──────────────


@pytest.mark.parametrize(
    ("body", "rule_id", "problem"),
    [
        (
            'id = "r.class"\ncategory = "banter"\nweight = 1\npattern = "x"',
            "r.class",
            "unknown class 'banter'",
        ),
        ('id = "r.weight"\ncategory = "code"\nweight = "3"\npattern = "x"', "r.weight", "weight must be"),
        ('id = "r.big"\ncategory = "code"\nweight = 101\npattern = "x"', "r.big", "weight must be"),
        ('id = "r.bool"\ncategory = "code"\nweight = true\npattern = "x"', "r.bool", "weight must be"),
        (
            'id = "r.regex"\ncategory = "code"\nweight = 1\npattern = "(unclosed"',
            "r.regex",
            "does not compile",
        ),
        (
            'id = "r.key"\ncategory = "code"\nweight = 1\npattern = "x"\ncolour = "red"',
            "r.key",
            "unknown key",
        ),
        ('id = "r.none"\ncategory = "code"\nweight = 1', "r.none", "needs a pattern or a word/line bound"),
        (
            'id = "r.ic"\ncategory = "code"\nweight = 1\npattern = "x"\nignore_case = "yes"',
            "r.ic",
            "ignore_case",
        ),
        ('id = "r.min"\ncategory = "code"\nweight = 1\nmin_words = -1', "r.min", "min_words"),
        ('id = "r.on"\ncategory = "code"\nweight = 1\npattern = "x"\nenabled = "no"', "r.on", "enabled"),
        ('id = "r.empty"\ncategory = "code"\nweight = 1\npattern = ""', "r.empty", "non-empty"),
    ],
)
def test_bad_rule_is_an_error_naming_file_rule_and_problem(body: str, rule_id: str, problem: str) -> None:
    with pytest.raises(RulePackError) as info:
        parse_pack(one_rule(body), "packs/mine.toml", base=REFERENCE)
    message = str(info.value)
    assert message.startswith(f"packs/mine.toml: rule '{rule_id}': ")
    assert problem in message


def test_missing_id_names_the_file() -> None:
    with pytest.raises(RulePackError, match=r"^packs/mine\.toml: a rule needs an id"):
        parse_pack(
            one_rule('category = "code"\nweight = 1\npattern = "x"'), "packs/mine.toml", base=REFERENCE
        )


def test_duplicate_id_in_one_file() -> None:
    text = one_rule(GOOD) + "\n" + one_rule(GOOD)
    with pytest.raises(RulePackError, match=r"^packs/mine\.toml: rule 'my\.rule': duplicate rule id"):
        parse_pack(text, "packs/mine.toml", base=REFERENCE)


def test_not_toml_and_unknown_tables_are_errors() -> None:
    with pytest.raises(RulePackError, match=r"^x\.toml: not valid TOML"):
        parse_pack("[[rule]\nid=", "x.toml", base=REFERENCE)
    with pytest.raises(RulePackError, match=r"unknown table\(s\) rules"):
        parse_pack("[[rules]]\nid = 'a'", "x.toml", base=REFERENCE)


def test_a_pack_of_its_own_needs_categories() -> None:
    with pytest.raises(RulePackError, match="categories must be a non-empty list"):
        parse_pack(one_rule(GOOD), "x.toml")


def test_unknown_extends_names_the_file() -> None:
    with pytest.raises(RulePackError, match=r"^x\.toml: \[pack\] extends: unknown rule pack 'nope'"):
        parse_pack('[pack]\nextends = "nope"\n', "x.toml")


def test_builtin_packs_load_and_unknown_name_fails() -> None:
    assert {builtin_pack(n).name for n in ("default", "reference")} == {"default", "reference"}
    with pytest.raises(RulePackError, match="unknown rule pack 'fancy'"):
        builtin_pack("fancy")


# ─── user rules: skipped with a warning, RE2 only ────────────────────────────


def test_user_file_skips_a_bad_rule_with_a_warning_naming_it() -> None:
    text = (
        one_rule(GOOD) + "\n" + one_rule('id = "bad.one"\ncategory = "nonsense"\nweight = 1\npattern = "x"')
    )
    pack = parse_pack(text, "/home/me/.turnlens.toml", base=builtin_pack("default"), strict=False, user=True)
    assert pack.rule("my.rule") is not None and pack.rule("bad.one") is None
    assert len(pack.warnings) == 1
    assert "/home/me/.turnlens.toml: rule 'bad.one': unknown class 'nonsense'" in pack.warnings[0]


def test_catastrophic_pattern_is_accepted_for_users_and_runs_on_re2() -> None:
    body = 'id = "user.nested"\ncategory = "review"\nweight = 5\npattern = "(a+)+$"'
    pack = parse_pack(one_rule(body), "u.toml", base=REFERENCE, strict=False, user=True)
    rule = pack.rule("user.nested")
    assert rule is not None and rule.engine == "re2" and not pack.warnings
    # 40 a's then a mismatch: exponential on a backtracking engine, instant on RE2.
    evil = "a" * 40 + "!"
    assert score(evil, pack).scores["review"] == 0
    assert score_plain(evil, pack.rules, pack.categories)["review"] == 0
    assert score("aaaa", pack).scores["review"] == 5


def test_builtin_rules_stay_on_python_re() -> None:
    assert {r.engine for r in builtin_pack("default").rules} == {"re"}


@pytest.mark.parametrize("pattern", [r"(a)\\1", r"foo(?=bar)", r"(?<!x)y"])
def test_backreferences_and_lookaround_are_rejected_in_user_rules(pattern: str) -> None:
    body = f'id = "user.backref"\ncategory = "review"\nweight = 1\npattern = "{pattern}"'
    pack = parse_pack(one_rule(body), "u.toml", base=REFERENCE, strict=False, user=True)
    assert pack.rule("user.backref") is None
    (warning,) = pack.warnings
    assert "u.toml: rule 'user.backref': pattern is not allowed in user rules" in warning
    assert "RE2" in warning and "no backreferences or lookaround" in warning
    with pytest.raises(RulePackError, match="not allowed in user rules"):
        parse_pack(one_rule(body), "u.toml", base=REFERENCE, strict=True, user=True)


def test_backreference_is_fine_in_a_reviewed_builtin_style_pack() -> None:
    body = 'id = "dup.word"\ncategory = "review"\nweight = 1\npattern = "\\\\b(\\\\w+) \\\\1\\\\b"'
    pack = parse_pack(one_rule(body), "p.toml", base=REFERENCE)
    assert score("the the cat", pack).scores["review"] == 1


# ─── extends, override by id, enabled = false ────────────────────────────────


def test_extends_override_and_disable() -> None:
    text = textwrap.dedent(
        """
        [pack]
        extends = "reference"
        name = "mine"

        [[rule]]
        id = "chitchat.short"        # override: short texts count less
        category = "chitchat"
        weight = 1
        max_words = 8

        [[rule]]
        id = "decision.caps"         # disable
        enabled = false

        [[rule]]
        id = "review.zebra"          # add
        category = "review"
        weight = 4
        pattern = "zebra"
        """
    )
    pack = parse_pack(text, "mine.toml", strict=False, user=True)
    assert pack.name == "mine" and pack.categories == REFERENCE.categories
    assert pack.fallback == REFERENCE.fallback
    short = pack.rule("chitchat.short")
    assert short is not None and short.weight == 1 and short.source == "mine.toml"
    assert pack.rule("decision.caps") is None
    assert len(pack.rules) == len(REFERENCE.rules)  # one removed, one added
    result = classify("BLOCKED zebra", pack)
    assert result.scores == {"decision": 0, "spec": 0, "code": 0, "review": 4, "context": 0, "chitchat": 1}


def test_extending_pack_cannot_change_categories() -> None:
    with pytest.raises(RulePackError, match="cannot change the categories"):
        parse_pack('[pack]\nextends = "default"\ncategories = ["a", "b"]\n', "x.toml")


def test_disabling_an_unknown_rule_is_harmless() -> None:
    pack = parse_pack(one_rule('id = "no.such"\nenabled = false'), "x.toml", base=REFERENCE)
    assert pack.rules == REFERENCE.rules


# ─── user files and .turnlens.toml discovery ─────────────────────────────────


def test_rules_file_extends_default_unless_it_says_otherwise(tmp_path: Path) -> None:
    plain = tmp_path / "plain.toml"
    plain.write_text(one_rule(GOOD), encoding="utf-8")
    pack = load_rules_file(plain)
    assert pack.name == "default" and pack.rule("decision.imperative") is not None
    assert pack.rule("my.rule") is not None and pack.rule("my.rule").engine == "re2"  # type: ignore[union-attr]
    ref = tmp_path / "ref.toml"
    ref.write_text('[pack]\nextends = "reference"\n\n' + one_rule(GOOD), encoding="utf-8")
    assert load_rules_file(ref).rule("decision.imperative") is None


def test_the_word_extends_in_a_description_does_not_break_loading(tmp_path: Path) -> None:
    path = tmp_path / "r.toml"
    path.write_text(one_rule(GOOD + '\ndescription = "extends the review words"'), encoding="utf-8")
    assert load_rules_file(path).rule("my.rule") is not None


def test_unreadable_and_non_toml_rules_files(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="cannot read"):
        load_rules_file(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_bytes(b"[[rule]\n\xff\xfe")
    with pytest.raises(RulePackError, match=r"broken\.toml: not valid TOML"):
        load_rules_file(broken)


def test_project_file_is_found_upward_from_the_input(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    before = find_project_rules(deep)
    assert before is None or tmp_path not in before.parents  # nothing of ours yet
    top = tmp_path / PROJECT_FILE
    top.write_text(one_rule(GOOD), encoding="utf-8")
    assert find_project_rules(deep) == top
    nearer = tmp_path / "a" / PROJECT_FILE
    nearer.write_text(one_rule(GOOD), encoding="utf-8")
    assert find_project_rules(deep) == nearer
    assert find_project_rules(tmp_path) == top
