"""From a text to the model's features: the rule pack scores it, the features add n-grams.

The rules that fire are features of the model, so one scoring pass serves both
the SE-029 fields of a classification and the model's input.
"""

from __future__ import annotations

from turnlens.core.engine import Score, score
from turnlens.core.rules import RulePack, builtin_pack, packaged_pack
from turnlens.learn.features import Features
from turnlens.learn.scorer import features

# The label pack is the router's data, but the labels model is trained on its firings: the
# model's layer names it, and the router's labeler takes it from here.
LABELS_PACKAGE = "turnlens.router.packs"
LABELS_FILE = "labels.toml"


def label_pack() -> RulePack:
    """The packaged label pack (parsed and validated once)."""
    return packaged_pack(LABELS_PACKAGE, LABELS_FILE)


def feature_pack(name: str) -> RulePack:
    """The rule pack whose firings a model was trained on (`default` or `labels`)."""
    if name == "labels":
        return label_pack()
    return builtin_pack(name)


def features_from_score(text: str, result: Score) -> Features:
    """The model's features of `text` (`turnlens.learn.scorer.features`, the one definition)."""
    return features(text, result)


def featurize(text: str, pack: RulePack, *, explain: bool = False) -> tuple[Features, Score]:
    result = score(text, pack, explain=explain)
    return features_from_score(text, result), result
