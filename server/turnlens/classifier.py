"""classify(): one answer for a prompt or turn from pins, user rules, the model and the rules.

Two engines decide. With the `default` pack (and packs extending it) a learned
model does, the pack's rule firings being among its features; with `reference`
(or any pack without a model) the additive rule scores do, exactly as SE-029.
A pin (`<!-- turnlens: class=X -->`) beats both, and a user rule that fires
beats the model: people's own corrections always win.

This module sits above both the rules (`core`) and the model (`learn`): neither
knows of the other, and everything that wants a class (the pipeline, the router's
views, the CLI) asks here.
"""

from __future__ import annotations

# functools.partial, without functools.py (and the `collections` it imports)
from _functools import partial  # type: ignore[import-not-found]
from _weakref import ref as weak_ref  # weakref.ref, without importing weakref.py

from turnlens.core.classes import task_class
from turnlens.core.classify import (
    UNSURE_BELOW,
    Classification,
    classify_rules_many,
    from_score,
    of_class,
    score_many,
)
from turnlens.core.engine import Score, score
from turnlens.core.reasoning import kind_of_text
from turnlens.core.rules import RulePack, builtin_pack

TYPE_CHECKING = False  # `typing` stays off the one-shot path (see core/record.py)
if TYPE_CHECKING:
    import weakref
    from collections.abc import Iterable, Sequence
    from typing import Any

    from turnlens.learn.model import Contribution, Model, Prediction
    from turnlens.learn.phrases import Phrase
    from turnlens.learn.scorer import Scorer

__all__ = [
    "Classification",
    "classify",
    "classify_many",
    "classify_unit",
    "from_model",
    "model_of",
    "user_decision",
]


def model_of(pack: RulePack) -> Model | None:
    """The loaded model that decides for `pack`, or None (the rules decide)."""
    m = pack.model
    if m is None:
        return None
    if isinstance(m, str):
        from turnlens.learn.model import packaged_model

        return packaged_model(m)
    return m  # type: ignore[return-value]


# by the pack's identity (hashing a pack walks every rule), held weakly: the ids of its user rules
_USER_RULES: dict[int, tuple[weakref.ref[RulePack], frozenset[str]]] = {}


def user_rules(pack: RulePack) -> frozenset[str]:
    """The ids whose rule (the first of that id, as `RulePack.rule` finds it) is the user's own,
    not one of TurnLens's built-in ones: worked out once per pack, not once per signal."""
    key = id(pack)
    entry = _USER_RULES.get(key)
    if entry is None or entry[0]() is not pack:
        first: dict[str, Any] = {}
        for rule in pack.rules:
            first.setdefault(rule.id, rule)
        mine = frozenset(rid for rid, rule in first.items() if not rule.source.startswith("<builtin:"))
        if len(_USER_RULES) > 64:
            _USER_RULES.clear()
        entry = _USER_RULES[key] = (weak_ref(pack, partial(_forget, key)), mine)
    return entry[1]


def _forget(key: int, ref: weakref.ref[RulePack]) -> None:
    entry = _USER_RULES.get(key)
    if entry is not None and entry[0] is ref:
        del _USER_RULES[key]


def user_decision(result: Score, pack: RulePack) -> tuple[str, tuple[str, ...]] | None:
    """The class that the user's own rules (not TurnLens's built-in ones) vote for, if any fired."""
    mine = user_rules(pack)
    if not mine:
        return None
    votes: dict[str, int] = {}
    fired: list[str] = []
    for s in result.signals:
        if s.rule not in mine:
            continue
        votes[s.category] = votes.get(s.category, 0) + s.weight
        fired.append(s.rule)
    if not votes:
        return None
    top = max(votes.values())
    if top <= 0:
        return None
    for name in pack.categories:  # ties: the stricter class
        if votes.get(name) == top:
            return name, tuple(fired)
    return None  # pragma: no cover


def from_model(
    text: str,
    result: Score,
    model: Model,
    *,
    explain: bool = False,
    top: int = 8,
    allowed: tuple[str, ...] | None = None,
    seed: str | None = None,
    kind: str | None = None,
    request: bool = False,
) -> Classification:
    """The model's answer (among the `allowed` classes, when a unit's `kind` limits them, at
    the kind's own temperature); with `explain`, the features that pushed it and each rule's
    weight. `seed`: the rules' own fallback answer when no rule scored (`no_evidence`).
    `request`: a person's request that says no choice (`no_choice`)."""
    from turnlens.learn.scorer import scorer_for

    scorer = scorer_for(model)
    contributions: tuple[Contribution, ...] = ()
    rule_weights: dict[str, float] | None = None
    found: tuple[Phrase, ...] = ()
    if explain:
        # each fired rule's push on this text, in the same units as the features, and the
        # stretches of the text that pushed the answer
        prediction, (contributions, rule_weights, found) = scorer.predict_explained(
            text, result, each=top // 2
        )
    else:
        prediction = scorer.predict(text, result)
    label = prediction.label
    if allowed is not None:  # always: the ruled-out classes' share belongs to the allowed ones
        prediction = model.restrict(prediction, allowed)
    prediction = no_evidence(prediction, seed, allowed)
    # the kind's own calibration (an agent's reply, its thinking: whatever kinds the model names)
    prediction = model.at_temperature(prediction, model.kind_temperature(kind))
    if request:
        prediction = no_choice(prediction)
    if explain and prediction.label != label:  # explain the class given, not the one ruled out
        contributions, rule_weights, found = scorer.explain(text, result, prediction.label, each=top // 2)
    return of_class(
        task_class(prediction.label).name,
        result,
        confidence=prediction.confidence,
        engine="model",
        probabilities=prediction.probabilities,
        features=contributions,
        rule_weights=rule_weights,
        phrases=found,
    )


def seed_answer(result: Score, pack: RulePack) -> str | None:
    """What the rules alone answer for a longer text none of them scored: the pack's fallback
    for long texts (SE-029: context, the catch-all), else None. Short texts are left to the
    model: the short fallback (chitchat) was wrong on real turns more often than the model."""
    fb = pack.fallback
    if fb is None or result.words <= fb.max_short_words or max(result.scores.values(), default=0) > 0:
        return None
    return fb.long


def no_evidence(prediction: Prediction, seed: str | None, allowed: tuple[str, ...] | None) -> Prediction:
    """Where no rule scored and the model is unsure too (under UNSURE_BELOW), the rules'
    fallback (`seed`) answers, with the model's own probability for it, so that views still
    mark it unsure: neither side has evidence, and the catch-all is the seed's answer there.
    It costs about a point on the real dev turns (docs/labels.md, fourth pass) and keeps the
    seed's behaviour examples, which are its specification."""
    if seed is None or prediction.confidence >= UNSURE_BELOW or prediction.label == seed:
        return prediction
    if seed not in prediction.probabilities or (allowed is not None and seed not in allowed):
        return prediction
    from turnlens.learn.model import Prediction

    return Prediction(seed, prediction.probabilities[seed], prediction.probabilities)


def no_choice(prediction: Prediction) -> Prediction:
    """A person's request that says no choice is no decision (docs/labels.md, Part 1: a request
    is a decision "when it makes a choice"; `core.prompt_shapes.asks_without_choice`): where the
    model, at its kind's temperature, answers decision, the most probable of the request's other
    classes answers, as sure as such answers were right on the real dev sets (`NO_CHOICE_SURE`);
    the rest goes to the other classes as the model shared it, so the decision stays next, and
    the compaction guard still keeps a prompt that may be one (`agents.guard.in_doubt`)."""
    if prediction.label != "decision":
        return prediction
    from turnlens.core.prompt_shapes import NO_CHOICE_CLASSES, NO_CHOICE_SURE
    from turnlens.learn.model import Prediction

    probs = prediction.probabilities
    order = list(probs)
    others = [c for c in NO_CHOICE_CLASSES if c in probs]
    if not others:
        return prediction
    best = max(others, key=lambda c: (probs[c], -order.index(c)))
    # the rest goes to the other classes as the model shared it: the decision keeps the most
    rest = sum(p for c, p in probs.items() if c != best)
    if rest <= 0:
        return prediction
    share = (1.0 - NO_CHOICE_SURE) / rest
    full = {c: NO_CHOICE_SURE if c == best else p * share for c, p in probs.items()}
    return Prediction(best, NO_CHOICE_SURE, full)


def _kind_limits(kind: str, text: str, call: str | None) -> tuple[tuple[str, ...] | None, bool]:
    """The classes a unit of `kind` may take, and whether it is a person's request that says no
    choice (`no_choice` then answers for a decision): what `classify` and `classify_many` ask."""
    from turnlens.core.kinds import kind_evidence
    from turnlens.core.prompt_shapes import REQUEST_WHY

    allowed, why = kind_evidence(kind, text, call)
    return allowed, why == REQUEST_WHY


def classify(
    text: str,
    pack: RulePack | None = None,
    *,
    explain: bool = False,
    pin: str | None = None,
    kind: str | None = None,
    call: str | None = None,
) -> Classification:
    """Classify one prompt or turn. `pin` forces the class (an inline override); `kind` is a
    session unit's kind (tool_call, tool_result, thinking…), which limits the classes the
    model may answer (turnlens.core.kinds), with `call`, a tool result's call (`Unit.call`);
    the rules engines read the text alone."""
    pack = pack or builtin_pack("default")
    result = score(text, pack, explain=explain)
    model = model_of(pack) if pin is None else None
    if model is None:
        return from_score(result, pack, pin=pin)
    user = user_decision(result, pack)
    if user is not None:
        name, fired = user
        return of_class(name, result, overridden_by=fired)
    kind = kind if kind is not None else turn_kind(text, model)
    allowed = None
    request = False
    if kind is not None:
        allowed, request = _kind_limits(kind, text, call)
    elif model.task == "classes":  # a conversation turn: its own words may settle its class
        from turnlens.core.outcomes import turn_classes

        allowed = turn_classes(text)
    return from_model(
        text,
        result,
        model,
        explain=explain,
        allowed=allowed,
        seed=seed_answer(result, pack),
        kind=kind,
        request=request,
    )


def turn_kind(text: str, model: Model) -> str | None:
    """The kind of a text read without one, as its top shows it (`core.reasoning.kind_of_text`: a
    turn that opens with an agent's reasoning is its thinking), for a model of the task classes
    (a unit's kind limits those, not the router's labels)."""
    return kind_of_text(text) if model.task == "classes" else None


def classify_unit(
    text: str, kind: str | None, pack: RulePack | None = None, **options: Any
) -> Classification:
    """A session unit's class, its kind as evidence (see `classify`)."""
    return classify(text, pack, kind=kind, **options)


def classify_many(
    texts: Iterable[str],
    pack: RulePack | None = None,
    pins: Sequence[str | None] | None = None,
    kinds: Sequence[str | None] | None = None,
    passes: Sequence[Score] | None = None,
    scorer: Scorer | None = None,
    calls: Sequence[str | None] | None = None,
) -> list[Classification]:
    """`[classify(t, pack, pin=p) for t, p in zip(texts, pins)]`, the same answers, for the turns
    of a transcript: a pack without a model shares the rules' answers between texts that fire
    the same rules (`core.classify.classify_rules_many`); with a model only the rule pass is
    shared (`core.classify.score_many`), and the model reads each distinct text once.
    `passes`: the texts' rule passes with `pack` (unexplained), when the caller has them.
    `scorer`: a ready engine of the same classes that answers in place of the pack's model
    (the optional encoder engine for a person's prompts: `turnlens.learn.encoder`), its
    texts read in one batch; its own model's kind temperatures apply. `calls`: each tool
    result's call (`Unit.call`, or None), evidence with its kind."""
    pack = pack or builtin_pack("default")
    texts = list(texts)
    if kinds is not None and len(kinds) != len(texts):
        raise ValueError("classify_many: one kind (or None) per text")
    if calls is not None and len(calls) != len(texts):
        raise ValueError("classify_many: one call (or None) per text")
    if pack.model is None:  # the rules read the text alone
        return classify_rules_many(texts, pack, pins)
    if pins is not None and len(pins) != len(texts):
        raise ValueError("classify_many: one pin (or None) per text")
    model = model_of(pack)
    if model is None:  # pragma: no cover - a pack's model is a name or a Model
        return classify_rules_many(texts, pack, pins)
    from turnlens.learn.scorer import scorer_for

    if passes is None:
        passes = score_many(texts, pack)
    elif len(passes) != len(texts):
        raise ValueError("classify_many: one rule pass per text")
    predict = scorer_for(model).predict
    if scorer is not None:
        if scorer.model.classes != model.classes:
            raise ValueError("classify_many: the scorer's classes are not the pack model's")
        free = [i for i in range(len(texts)) if not pins or pins[i] is None]
        predict = _batched(scorer, [texts[i] for i in free], [passes[i] for i in free])
        model = scorer.model
    users = bool(user_rules(pack))
    classes_model = model.task == "classes"
    from turnlens.core.outcomes import turn_classes

    seen: dict[tuple[str, str | None, str | None], Classification] = {}
    out: list[Classification] = []
    new = tuple.__new__
    for i, (text, result) in enumerate(zip(texts, passes, strict=True)):
        pin = pins[i] if pins else None
        kind = kinds[i] if kinds else None
        if kind is None and pin is None and classes_model:
            kind = kind_of_text(text)
        call = calls[i] if calls and kind == "tool_result" else None
        if pin is not None:
            out.append(classify(text, pack, pin=pin, kind=kind))
            continue
        a = seen.get((text, kind, call))
        if a is not None:  # the same text of the same kind, the same answer (its own scores dict)
            out.append(new(Classification, (*a[:6], a[6].copy(), *a[7:])))
            continue
        user = user_decision(result, pack) if users else None
        if user is not None:
            answer = of_class(user[0], result, overridden_by=user[1])
        else:
            prediction = predict(text, result)
            allowed = None
            request = False
            if kind is not None:
                allowed, request = _kind_limits(kind, text, call)
            elif classes_model:  # a conversation turn: its own words may settle its class
                allowed = turn_classes(text)
            if allowed is not None:
                prediction = model.restrict(prediction, allowed)
            if prediction.confidence < UNSURE_BELOW:
                prediction = no_evidence(prediction, seed_answer(result, pack), allowed)
            # the kind's own calibration (whatever kinds the model names; 1.0 for the others)
            prediction = model.at_temperature(prediction, model.kind_temperature(kind))
            if request:
                prediction = no_choice(prediction)
            answer = _model_answer(prediction, result)
        seen[(text, kind, call)] = answer
        out.append(answer)
    return out


def _batched(scorer: Scorer, texts: list[str], passes: Sequence[Score]) -> Any:
    """`scorer.predict` for these texts, their predictions made in one `predict_many` call
    (an encoder reads a batch far faster than one text at a time) the first time one is asked;
    a text not among them is predicted alone."""
    done: dict[str, Prediction] = {}

    def predict(text: str, result: Score) -> Prediction:
        if not done:
            firsts = {t: r for t, r in zip(texts, passes, strict=True)}
            done.update(zip(firsts, scorer.predict_many(list(firsts), list(firsts.values())), strict=True))
        found = done.get(text)
        return found if found is not None else scorer.predict(text, result)

    return predict


def _model_answer(prediction: Prediction, result: Score) -> Classification:
    """`from_model`'s answer without an explanation, made positionally (a transcript makes
    thousands): the model's class with the rule pass's counts, scores and signals."""
    tc = task_class(prediction.label)
    return Classification(
        tc.name,
        tc.max_ratio,
        tc.frozen,
        tc.verdict,
        result.words,
        result.lines,
        result.scores,
        result.signals,
        False,
        prediction.confidence,
        "model",
        prediction.probabilities,
    )
