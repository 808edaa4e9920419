"""Where neither the rules nor the model has evidence, the rules' fallback answers (SE-029's
catch-all for a longer text), still marked unsure; everywhere else the model's answer stands."""

from __future__ import annotations

from turnlens.classifier import classify, classify_many, no_evidence, seed_answer
from turnlens.core.engine import score
from turnlens.core.rules import builtin_pack
from turnlens.learn.model import Prediction

PACK = builtin_pack("default")
PROBS = {"decision": 0.1, "spec": 0.1, "code": 0.05, "review": 0.05, "context": 0.3, "chitchat": 0.4}
UNSURE = Prediction("chitchat", 0.4, PROBS)
PLAIN = "The second screen only shows up for people who signed up before the redesign of last spring\n"


def test_the_seed_answer_is_the_long_fallback_only_when_no_rule_scored() -> None:
    assert seed_answer(score(PLAIN, PACK), PACK) == "context"
    assert seed_answer(score("APPROVED — ship it\n", PACK), PACK) is None  # a rule scored
    assert seed_answer(score("hmm ok\n", PACK), PACK) is None  # short: left to the model


def test_an_unsure_answer_without_evidence_becomes_the_seeds_with_its_own_probability() -> None:
    got = no_evidence(UNSURE, "context", None)
    assert got.label == "context" and got.confidence == 0.3 and got.probabilities == PROBS
    # sure answers, answers that already agree, no seed, or a kind that rules the seed out: kept
    assert no_evidence(Prediction("chitchat", 0.6, PROBS), "context", None).label == "chitchat"
    assert no_evidence(Prediction("context", 0.3, PROBS), "context", None).confidence == 0.3
    assert no_evidence(UNSURE, None, None) is UNSURE
    assert no_evidence(UNSURE, "context", ("spec", "code")) is UNSURE


def test_both_roads_answer_alike_and_stay_marked_unsure() -> None:
    text = "This is a longer explanation about something that has no particular keywords matching any class pattern at all here\n"
    one = classify(text, PACK)
    many = classify_many([text, PLAIN], PACK)
    assert one.task_class == "context" and one.unsure and one.shown_class() == "context?"
    assert many[0] == one
    assert classify(PLAIN, PACK) == many[1]
