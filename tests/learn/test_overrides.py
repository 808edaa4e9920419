"""People's own corrections win over the model: pins and user rules."""

from __future__ import annotations

from pathlib import Path

from turnlens.api import classify_unit, split_units
from turnlens.classifier import classify
from turnlens.core.rules import builtin_pack, parse_pack, rules_only
from turnlens.userfiles import load_rules_file

USER_RULES = """
[[rule]]
id = "team.zebra"
class = "code"
weight = 2
pattern = "zebra"
"""
TEXT = "the zebra crossing near the old mill needs new paint before the school year starts"


def test_a_pin_wins_over_the_model() -> None:
    text = "<!-- turnlens: class=spec -->\nthanks a lot, have a nice weekend!"
    unit = split_units(text)[0]
    result = classify_unit(unit)
    assert (result.task_class, result.pinned, result.engine, result.confidence) == (
        "spec",
        True,
        "rules",
        1.0,
    )
    assert classify("thanks a lot, have a nice weekend!").engine == "model"


def test_a_user_rule_that_fires_wins_over_the_model(tmp_path: Path) -> None:
    path = tmp_path / ".turnlens.toml"
    path.write_text(USER_RULES, encoding="utf-8")
    pack = load_rules_file(path)
    assert pack.model is not None  # it extends `default`, whose class the model decides
    before = classify(TEXT)
    assert before.engine == "model" and before.task_class != "code"
    result = classify(TEXT, pack, explain=True)
    assert (result.task_class, result.engine, result.overridden_by) == ("code", "rules", ("team.zebra",))
    assert result.to_json()["user_rules"] == ["team.zebra"]
    other = classify("thanks a lot, have a nice weekend!", pack)
    assert other.engine == "model" and other.overridden_by == ()


def test_a_user_rule_with_a_negative_weight_does_not_decide() -> None:
    pack = parse_pack(
        USER_RULES.replace("weight = 2", "weight = -2"), "neg.toml", base=builtin_pack("default")
    )
    assert classify(TEXT, pack).engine == "model"


def test_reference_and_rules_only_packs_are_decided_by_the_rules() -> None:
    for pack in (builtin_pack("reference"), rules_only(builtin_pack("default"))):
        result = classify("APPROVED — ship it", pack)
        assert (result.engine, result.confidence, result.probabilities) == ("rules", 1.0, None)
