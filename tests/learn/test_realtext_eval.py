"""scripts/realtext_eval.py on a tiny cache of its own: refs joined to text by id, hashes
checked, both engines measured side by side, unit kinds and unrouted prompts counted."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

TURNS = [
    ("t1", "Approved. Merge it once CI is green.", "decision", "en", None),
    ("t2", "```python\ndef add(a, b):\n    return a + b\n```", "code", "en", None),
    ("t3", "gracias!", "chitchat", "es", None),
    ("t4", "好的，谢谢", "chitchat", "zh", None),
]
UNITS = [
    ("u1", 'Bash: {"command": "du -sh node_modules"}', "code", "en", "tool_call"),
    ("u2", "thanks!", "context", "en", "tool_result"),
]
PROMPTS = [
    ("p1", "add a --dry-run flag to the sync command", "coding", "en", None),
    ("p2", "thanks, that worked!", "chat", "en", None),
    ("p3", "why does the nightly export time out since Monday? look at the logs", "analysis", "en", None),
]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("realtext_eval", REPO / "scripts" / "realtext_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["realtext_eval"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _write(folder: Path, name: str, rows: list[dict[str, object]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    (folder / name).write_text(body, encoding="utf-8")


@pytest.fixture
def realtext(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, Path, Path]:
    """A cache with three sets and refs for them; one cached text is changed after hashing
    and one ref has no cached text."""
    mod = _script()
    cache, refs = tmp_path / "cache", tmp_path / "refs"
    for name, rows in (("dev-turns", TURNS), ("units", UNITS), ("dev-prompts", PROMPTS)):
        cached = [
            {"id": i, "text": t, "label": lab, "lang": lang, **({"kind": k} if k else {})}
            for i, t, lab, lang, k in rows
        ]
        _write(cache, f"{name}.jsonl", cached)
        ref_rows = [
            {"id": i, "label": lab, "lang": lang, "sha256": mod.sha256(t), **({"kind": k} if k else {})}
            for i, t, lab, lang, k in rows
        ]
        _write(refs, f"{name}.refs.jsonl", ref_rows)
    # t3's text changes after its ref was made; t5 has a ref and no text
    turns = (cache / "dev-turns.jsonl").read_text(encoding="utf-8").replace("gracias!", "gracias!!")
    (cache / "dev-turns.jsonl").write_text(turns, encoding="utf-8")
    with (refs / "dev-turns.refs.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "t5", "label": "spec", "sha256": "0" * 64}) + "\n")
    monkeypatch.setenv("TURNLENS_REALTEXT_CACHE", str(cache))
    return mod, cache, refs


def test_the_cache_folder_comes_from_the_environment(realtext: tuple[ModuleType, Path, Path]) -> None:
    mod, cache, _ = realtext
    assert mod.cache_dir() == cache


def test_refs_are_joined_by_id_and_hash_checked(realtext: tuple[ModuleType, Path, Path]) -> None:
    mod, cache, refs = realtext
    loaded = mod.load_set("dev-turns", refs, cache)
    assert [it.id for it in loaded.items] == ["t1", "t2", "t4"]
    assert loaded.changed == ["t3"] and loaded.missing == ["t5"]


def test_turns_are_measured_by_both_engines(
    realtext: tuple[ModuleType, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    mod, _, refs = realtext
    assert mod.main(["dev-turns", "--refs", str(refs), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["dev-turns"]
    assert out["rows"] == 3 and out["changed"] == ["t3"] and out["missing"] == ["t5"]
    model, rules = out["engines"]
    assert model["engine"].startswith("model") and rules["engine"].startswith("rules")
    for result in (model, rules):
        assert result["n"] == 3
        assert set(result["per_class"]) == {"decision", "spec", "code", "review", "context", "chitchat"}
        assert set(result["languages"]) == {"en", "zh"}
        assert sum(sum(row.values()) for row in result["confusion"].values()) == 3
        assert 0.0 <= result["ece"] <= 1.0 and 0.0 <= result["macro_f1"] <= 1.0
        # what a compaction keeps word for word, read off the confusion table: one decision
        frozen, table, keep = result["frozen"], result["confusion"], ("decision", "spec")
        kept = sum(row.get(c, 0) for row in table.values() for c in keep)
        both = sum(table.get(g, {}).get(c, 0) for g in keep for c in keep)
        assert frozen["n"] == 1 and frozen["kept"] == kept
        assert frozen["recall"] == both and frozen["precision"] == (both / kept if kept else 0.0)
    # the rules engine is always sure: its confidence is 1, so its ECE is its error rate
    assert rules["ece"] == pytest.approx(1 - rules["accuracy"])


def test_unit_kinds_are_evidence_and_reported(
    realtext: tuple[ModuleType, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    mod, _, refs = realtext
    assert mod.main(["units", "--refs", str(refs), "--json", "--misses"]) == 0
    model = json.loads(capsys.readouterr().out)["units"]["engines"][0]
    assert set(model["kinds"]) == {"tool_call", "tool_result"}
    # a shell command is code; a tool result is never chitchat, whatever its words
    assert model["kinds"]["tool_call"]["accuracy"] == 1.0
    assert all(m["got"] != "chitchat" for m in model["misses"])


def test_crossfit_leaves_out_units_whose_kind_limits_the_classes(
    realtext: tuple[ModuleType, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # a tool call and a tool result: their probabilities follow the kind, so nothing is left to
    # calibrate on, and the answer says so rather than failing
    mod, _, refs = realtext
    assert mod.main(["units", "--refs", str(refs), "--crossfit"]) == 0
    assert json.loads(capsys.readouterr().out) == {}


def test_prompts_report_phases_and_unrouted_work(
    realtext: tuple[ModuleType, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    mod, _, refs = realtext
    assert mod.main(["dev-prompts", "--refs", str(refs)]) == 0
    text = capsys.readouterr().out
    assert "phase level (what sets the effort)" in text
    assert "route level (the phase the router gives; a chat prompt and no route agree)" in text
    assert "non-chat prompts with no route:" in text and "of 2 (" in text
    assert "model (labeler)" in text and "rules (label pack)" in text
    assert "kept word for word" not in text  # router labels have no frozen class


def test_the_route_level_counts_what_the_router_gives() -> None:
    # a short chat prompt and a slash command get no route, as a chat prompt should: right at
    # the route level; a short request gets none too, and is wrong there (the labeler's own
    # label may still be right at the phase level)
    mod = _script()
    items = [
        mod.Item("a", "ok", "chat", "en"),
        mod.Item("b", "/compact", "chat", "en"),
        mod.Item("c", "fix it", "coding", "en"),
    ]
    model = mod.measure_prompts(items)[0]
    assert model["route_phase_accuracy"] == pytest.approx(2 / 3)
    assert model["no_route"]["n"] == 1 and model["no_route"]["items"][0]["source"] == "short"
    assert "route_phase_accuracy" not in mod.measure_prompts(items)[1]  # the label rules: no routes


def test_make_refs_writes_hashes_and_no_text(realtext: tuple[ModuleType, Path, Path], tmp_path: Path) -> None:
    mod, _, _ = realtext
    out = tmp_path / "made"
    assert mod.main(["units", "--refs", str(out), "--make-refs"]) == 0
    rows = [json.loads(line) for line in (out / "units.refs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["u1", "u2"]
    assert all("text" not in r and len(r["sha256"]) == 64 for r in rows)
    assert rows[0]["kind"] == "tool_call"


def test_a_set_without_refs_is_a_usage_error(realtext: tuple[ModuleType, Path, Path], tmp_path: Path) -> None:
    mod, _, _ = realtext
    assert mod.main(["dev-turns", "--refs", str(tmp_path / "none")]) == 2


def test_the_repository_refs_name_labels_and_hashes_only() -> None:
    """The refs the script reads by default: every row has an id, a known label and a hash,
    and no text (the texts are third-party and stay in the local cache)."""
    mod = _script()
    names = sorted(p.name.removesuffix(".refs.jsonl") for p in mod.REFS.glob("*.refs.jsonl"))
    assert set(mod.SETS) <= set(names)
    labels = {"decision", "spec", "code", "review", "context", "chitchat"}
    labels |= {"design", "analysis", "coding", "bookkeeping", "chat"}
    for name in names:
        rows = mod._jsonl(mod.REFS / f"{name}.refs.jsonl")
        assert rows and len({r["id"] for r in rows}) == len(rows)
        for r in rows:
            assert r["label"] in labels and len(r["sha256"]) == 64 and "text" not in r
            assert r.get("label2") is None or r["label2"] in labels
    # the threads' dev set carries a second reader's label on every row
    assert all(r.get("label2") for r in mod._jsonl(mod.REFS / "dev-threads.refs.jsonl"))


def test_a_second_readers_labels_give_the_rows_both_agree_on(
    realtext: tuple[ModuleType, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    mod, _, refs = realtext
    rows = mod._jsonl(refs / "dev-turns.refs.jsonl")
    second = {"t1": "decision", "t2": "context", "t4": "chitchat"}
    _write(refs, "dev-turns.refs.jsonl", [{**r, "label2": second.get(r["id"], "spec")} for r in rows])
    assert mod.main(["dev-turns", "--refs", str(refs), "--json"]) == 0
    model = json.loads(capsys.readouterr().out)["dev-turns"]["engines"][0]
    # t1 and t4 agree, t2 does not (t3 and t5 have no text)
    assert model["n_second_reader"] == 3 and model["n_agreed"] == 2
    assert model["readers_agree"] == pytest.approx(2 / 3)
    wrong = {m["id"] for m in model["misses"]}
    assert model["accuracy_agreed"] == pytest.approx(sum(i not in wrong for i in ("t1", "t4")) / 2)
    assert mod.main(["dev-turns", "--refs", str(refs)]) == 0
    assert "two readers agree on 66.7% of 3; on those 2:" in capsys.readouterr().out


def test_the_agents_kind_temperature_is_fitted_on_its_units_and_crossfitted() -> None:
    # replies and thinking the model gets right but says it is unsure of: the fitted further
    # temperature sharpens them (under 1), each fold's is fitted without it, and the model
    # given is left as it was; units of other kinds are counted but not fitted on
    from turnlens.learn.model import Model, packaged_model

    mod = _script()
    texts = [
        ("I ran the tests again and they pass; the flaky one was a timing issue in the fixture.", "context"),
        (
            "Looking at the parser now: the tokenizer drops the trailing newline before the last rule.",
            "context",
        ),
        ("The config is read once at start-up, then cached for the whole session.", "context"),
        (
            "Here is how the sync works: it lists the remote files, then downloads the changed ones.",
            "context",
        ),
        ("I checked the logs: the job failed because the token had expired overnight.", "context"),
        ("The importer assumes one schema per tenant, which is why the migration stops there.", "context"),
    ]
    items = [
        mod.Item(f"r{i}", t, lab, "en", kind="assistant-text" if i % 2 else "thinking")
        for i, (t, lab) in enumerate(texts)
    ]
    items.append(mod.Item("c1", 'Bash: {"command": "ls"}', "code", "en", kind="tool_call"))
    model = Model.from_bytes(packaged_model("classes").to_bytes())
    model.kind_temperatures = {"reply": 1.7}
    found = mod.fit_kind_temperature(items, model, folds=3)
    assert model.kind_temperatures == {"reply": 1.7}
    assert found["n"] == 6 and found["kinds"] == ["reply", "thinking"] and len(found["per_fold"]) == 3
    assert 0.2 <= found["temperature"] < 1.0 and all(t < 1.0 for t in found["per_fold"])
    assert found["crossfit"]["accuracy"] == found["without"]["accuracy"]
    assert found["crossfit"]["mean_confidence"] > found["without"]["mean_confidence"]
    assert found["all_units"]["n"] == 7


def test_each_group_of_kinds_gets_its_own_temperature() -> None:
    # an agent's replies and a person's prompts are fitted apart, each group only where the
    # sets hold units of it; writing keeps the temperature of a group not fitted
    from turnlens.learn.model import Model, packaged_model

    mod = _script()
    replies = [
        mod.Item(
            "r0",
            "I ran the tests again and they pass; the flaky one was a timing issue.",
            "context",
            "en",
            kind="assistant-text",
        ),
        mod.Item(
            "r1",
            "The config is read once at start-up, then cached for the session.",
            "context",
            "en",
            kind="thinking",
        ),
    ]
    prompts = [
        mod.Item(
            "p0",
            "Let's go with option B and keep the old endpoint until June.",
            "decision",
            "en",
            kind="user-text",
        ),
        mod.Item(
            "p1",
            "The endpoint must return 404 for an unknown id and never 500.",
            "spec",
            "en",
            kind="user-text",
        ),
        mod.Item(
            "p2", "Add a unit test for the empty cart and run the suite.", "context", "en", kind="user-text"
        ),
    ]
    model = Model.from_bytes(packaged_model("classes").to_bytes())
    model.kind_temperatures = {"reply": 0.5, "thinking": 0.5}
    found = mod.fit_kind_temperatures(prompts, model)
    assert [g["kinds"] for g in found] == [["prompt"]] and found[0]["n"] == 3
    assert model.kind_temperatures == {"reply": 0.5, "thinking": 0.5}
    merged = mod.with_kind_temperatures(model, found)
    assert merged["reply"] == merged["thinking"] == 0.5
    assert merged.get("prompt", 1.0) == found[0]["temperature"]
    both = mod.fit_kind_temperatures(replies + prompts, model)
    assert [g["kinds"] for g in both] == [["reply", "thinking"], ["prompt"]]
    assert [g["n"] for g in both] == [2, 3]
    one = [{"kinds": ["reply", "thinking"], "temperature": 1.0}]
    assert mod.with_kind_temperatures(model, one) == {}


# thread messages written for the temperature tests (a report, a merge, a nit, a +1, background)
THREAD_MESSAGES = (
    ("Crash on startup on my old tablet since the last update.", "context"),
    ("Thanks, merged!", "decision"),
    ("nit: this could be a dict comprehension", "review"),
    ("+1, same here on 2.3", "chitchat"),
    ("The importer assumes one schema per tenant, so the migration stops there.", "context"),
)


def test_a_conversation_turn_is_a_group_of_its_own_kept_under_its_name() -> None:
    # thread messages (rows with no kind) are fitted apart from the units of a kind, and the
    # fitted value is written under CONVERSATION, leaving the other kinds' temperatures as they were
    from turnlens.learn.model import CONVERSATION, Model, packaged_model

    mod = _script()
    threads = [mod.Item(f"t{i}", text, label, "en") for i, (text, label) in enumerate(THREAD_MESSAGES[:4])]
    prompts = [mod.Item("p0", "Add a unit test for the empty cart.", "context", "en", kind="user-text")]
    model = Model.from_bytes(packaged_model("classes").to_bytes())
    model.kind_temperatures = {"reply": 0.5, "prompt": 0.9}
    found = mod.fit_kind_temperatures(threads + prompts, model)
    assert [g["kinds"] for g in found] == [["prompt"], [CONVERSATION]]
    assert [g["n"] for g in found] == [1, 4]
    assert model.kind_temperatures == {"reply": 0.5, "prompt": 0.9}
    merged = mod.with_kind_temperatures(model, found[1:])
    assert merged["reply"] == 0.5 and merged["prompt"] == 0.9
    assert merged.get(CONVERSATION, 1.0) == found[1]["temperature"]
    model.kind_temperatures = merged
    assert model.kind_temperature(None) == found[1]["temperature"]


def test_each_set_may_be_a_fold_answered_by_the_fit_on_the_others() -> None:
    # --by-set: the rows of each set make one fold, answered with the temperature fitted on
    # the other sets' rows; every row is answered once and the figures come per set
    from turnlens.learn.model import Model, packaged_model

    mod = _script()
    rows = [mod.Item(f"m{i}", text, label, "en") for i, (text, label) in enumerate(THREAD_MESSAGES)]
    first, second = rows[:3], rows[3:]
    model = Model.from_bytes(packaged_model("classes").to_bytes())
    found = mod.fit_kind_temperature(first + second, model, kinds=(None,), fold_of=[0, 0, 0, 1, 1])
    assert [f["fold"] for f in found["folds"]] == [0, 1] and [f["n"] for f in found["folds"]] == [3, 2]
    assert found["per_fold"] == [f["temperature"] for f in found["folds"]]
    alone = mod.fit_kind_temperature(second, model, kinds=(None,), folds=1)
    assert found["folds"][0]["temperature"] == alone["temperature"]  # fold 0 is answered by set 1's fit
    assert found["n"] == 5 and found["all_units"]["n"] == 5


def test_crossfit_pools_a_turns_encoder_engine_with_the_classes_model() -> None:
    # with classes-encoder files (`--encoder DIR`, loaded with the classes model as partner),
    # turns get the pooled design too: the engine and the classes model each calibrated on the
    # other folds, then pooled as for prompts
    from array import array

    from tests.learn.test_encoder import StandIn
    from turnlens.learn import encoder as enc
    from turnlens.learn.dataset import CLASS_LABELS
    from turnlens.learn.model import packaged_model

    mod = _script()
    cols = [array("f", [(j + 1) * ((i % 5) - 2) / 50 for i in range(enc.DIM)]) for j in range(6)]
    engine = enc.EncoderScorer(
        packaged_model("classes"),
        enc.Projection(CLASS_LABELS, cols, {}),
        StandIn(),
        partner=packaged_model("classes"),
    )
    texts = [
        ("Approved, merge once CI is green.", "decision"),
        ("The endpoint must return 404 for an unknown id.", "spec"),
        ("Traceback (most recent call last):\n  File 'a.py', line 3", "code"),
        ("nit: this name is misleading, and the test misses the empty case", "review"),
        ("The cache is rebuilt every night from the export.", "context"),
        ("thanks a lot!", "chitchat"),
    ] * 2
    items = [mod.Item(f"t{i}", t, lab, "en") for i, (t, lab) in enumerate(texts)]
    out = mod.crossfit([("dev-turns", items)], {"encoder-classes": engine}, folds=3, penalty=0.3)
    designs = out["classes"]
    assert set(designs) == {"raw", "temperature", "temperature+offsets", "pooled"}
    assert all(d["n"] == len(items) and 0.0 <= d["accuracy"] <= 1.0 for d in designs.values())
    # without the engine, no pooled design
    assert "pooled" not in mod.crossfit([("dev-turns", items)], {}, folds=3, penalty=0.3)["classes"]


def test_prompts_report_what_the_compaction_guard_keeps() -> None:
    # a person's prompts (kind `user-text`): the guard keeps the frozen ones and those in doubt,
    # so it keeps at least what the class alone keeps; the rules have nothing in doubt, and a
    # set without prompts has no such figure
    from turnlens.agents.guard import guarded_class
    from turnlens.classifier import classify_unit

    mod = _script()
    texts = [
        ("Decision: we drop Python 3.9 support in the next release.", "decision"),
        ("Tidy the imports and run the linter.", "context"),
        ("The endpoint must return 404 for an unknown id and never 500.", "spec"),
        ("thanks, that worked!", "chitchat"),
    ]
    items = [mod.Item(f"p{i}", t, lab, "en", kind="user-text") for i, (t, lab) in enumerate(texts)]
    model, rules = mod.measure_turns(items)
    guarded = model["guarded"]
    want = [guarded_class(classify_unit(t, "prompt"), "user", "prompt") for t, _ in texts]
    assert guarded["kept"] == sum(g is not None for g in want) >= model["frozen"]["kept"]
    assert guarded["in_doubt"] == sum(g is not None and g.endswith("?") for g in want)
    assert guarded["n"] == model["frozen"]["n"] == 2
    assert guarded["recall"] >= model["frozen"]["recall"]
    assert "guarded" not in rules
    units = [mod.Item("u", 'Bash: {"command": "ls"}', "code", "en", kind="tool_call")]
    assert "guarded" not in mod.measure_turns(units)[0]


def test_turns_measured_with_a_prompt_engine_answer_its_prompts_only() -> None:
    # `--encoder DIR` with classes-encoder files: a second engine row, where that engine (as the
    # agent hooks use it with $TURNLENS_LABELER=encoder) answers a person's prompts and the model
    # everything else; the guard is measured for it too
    from array import array

    from tests.learn.test_encoder import StandIn
    from turnlens.learn import encoder as enc
    from turnlens.learn.dataset import CLASS_LABELS
    from turnlens.learn.model import packaged_model

    mod = _script()
    # a projection that pushes every text hard toward spec: what it answers is the engine's
    cols = [array("f", [40.0 if j == 1 else 0.0] * enc.DIM) for j in range(6)]
    engine = enc.EncoderScorer(packaged_model("classes"), enc.Projection(CLASS_LABELS, cols, {}), StandIn())
    items = [
        mod.Item("p1", "thanks, that works now", "chitchat", "en", kind="user-text"),
        mod.Item("p2", "ok go on with the second step", "decision", "en", kind="user-text"),
        mod.Item(
            "r1", "Done: the tests pass and the branch is pushed.", "context", "en", kind="assistant-text"
        ),
    ]
    rows = mod.measure_turns(items, encoder=engine)
    assert [r["engine"] for r in rows] == [
        "model (default)",
        "encoder engine (a person's prompts) + model",
        "rules (reference)",
    ]

    def answers(row: dict[str, Any]) -> dict[str, str]:
        wrong = {m["id"]: m["got"] for m in row["misses"]}
        return {it.id: wrong.get(it.id, it.label) for it in items}

    plain, with_engine = answers(rows[0]), answers(rows[1])
    assert with_engine["p1"] == with_engine["p2"] == "spec"  # the prompts: the engine's answer
    assert plain["p1"] != "spec" and with_engine["r1"] == plain["r1"]  # the reply: the model's
    assert rows[1]["guarded"]["kept"] == 2  # both prompts frozen (specs)


def test_a_specstory_part_is_measured_as_the_markdown_reader_reads_it() -> None:
    """A collector's `assistant-text` part of a SpecStory export is measured as the views read
    it: a `Tool use: **…**` part is a tool call, the `_****_` line over it is not its text;
    other sources and prose keep their kind and text."""
    m = _script()
    plan = "Tool use: **todo_write**\n\n## Todo List\n\n- [ ] write the importer\n- [ ] test it"
    src = "github.com/ana/shop .specstory/history/2025-06-01_plan.md @abc (turn 3, part 2)"
    assert m.as_read("assistant-text", plan, src) == ("tool_call", plan)
    assert m.as_read("assistant-text", "_****_\n\n" + plan, src) == ("tool_call", plan)
    assert m.as_read("assistant-text", "_****_\n\nNow the importer:", src) == ("reply", "Now the importer:")
    aider = "github.com/ana/shop .aider.chat.history.md"
    assert m.as_read("assistant-text", plan, aider) == ("assistant-text", plan)
    assert m.as_read("tool-result", plan, src) == ("tool-result", plan)
