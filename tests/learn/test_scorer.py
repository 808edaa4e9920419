"""The scorer seam: every question to a model goes through `scorer_for(model)`."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnlens.classifier import classify, classify_many
from turnlens.core.engine import Score, normalize_newlines, score
from turnlens.core.rules import RulePack, builtin_pack
from turnlens.learn import features as F
from turnlens.learn import native
from turnlens.learn.dataset import parse_corpus
from turnlens.learn.features import Features, dense_features, region
from turnlens.learn.model import Model, Prediction, packaged_model
from turnlens.learn.scorer import Explanation, PythonScorer, Scorer, features, scorer_for
from turnlens.learn.train import featurize_rows
from turnlens.pipeline.formats.turns import split_units
from turnlens.router.labeler import label_pack, label_text
from turnlens.userfiles import read_shipped_corpus

REPO = Path(__file__).resolve().parents[2]

TEXTS = [
    "thanks, that fixed it!",
    "Refactor the parser so that it streams tokens instead of reading the whole file.\n\n"
    "```python\ndef parse(f):\n    return f.read()\n```",
    "why does the build fail on windows?",
    "合并这个分支之前请先跑一遍测试。",
]


class Recording:
    """A scorer that answers with the reference and remembers what it was asked."""

    implementation = "recording"

    def __init__(self, model: Model) -> None:
        self.inner = PythonScorer(model)
        self.calls: list[str] = []

    @property
    def model(self) -> Model:
        return self.inner.model

    def predict(self, text: str, rules: Score) -> Prediction:
        self.calls.append("predict")
        return self.inner.predict(text, rules)

    def predict_many(self, texts: Sequence[str], rules: Sequence[Score]) -> list[Prediction]:
        self.calls.append("predict_many")
        return self.inner.predict_many(texts, rules)

    def explain(self, text: str, rules: Score, label: str, each: int = 4, phrases: int = 5) -> Explanation:
        self.calls.append("explain")
        return self.inner.explain(text, rules, label, each, phrases)

    def predict_explained(
        self, text: str, rules: Score, each: int = 4, phrases: int = 5
    ) -> tuple[Prediction, Explanation]:
        self.calls.append("predict_explained")
        return self.inner.predict_explained(text, rules, each, phrases)


@pytest.fixture
def recording(request: pytest.FixtureRequest) -> Iterator[Recording]:
    model = packaged_model(request.param)
    before = model._scorer
    rec = Recording(model)
    model._scorer = rec
    yield rec
    model._scorer = before


def test_the_reference_is_a_scorer_and_is_kept_per_model() -> None:
    model = packaged_model("classes")
    s: Scorer = PythonScorer(model)
    assert s.model is model
    assert scorer_for(model) is scorer_for(model)
    assert scorer_for(model).model is model


@pytest.mark.parametrize("recording", ["classes"], indirect=True)
def test_classify_and_its_explanation_go_through_the_scorer(recording: Recording) -> None:
    pack = builtin_pack("default")
    plain = classify(TEXTS[1], pack)
    explained = classify(TEXTS[1], pack, explain=True)
    assert recording.calls == ["predict", "predict_explained"]
    assert plain.task_class == explained.task_class and plain.confidence == explained.confidence
    assert explained.features and all(c.weight > 0 for c in explained.features)
    assert explained.rule_weights is not None
    assert set(explained.rule_weights) <= {s.rule for s in explained.signals}


@pytest.mark.parametrize("recording", ["labels"], indirect=True)
def test_the_labeler_goes_through_the_scorer(recording: Recording) -> None:
    quiet = label_text(TEXTS[1], explain=False)
    loud = label_text(TEXTS[1], explain=True)
    assert recording.calls == ["predict", "predict_explained"]
    assert quiet.label == loud.label and loud.features


@pytest.mark.parametrize("task", ["classes", "labels"])
def test_training_rows_are_the_features_the_scorer_reads(task: str) -> None:
    from turnlens.learn.dataset import Row

    rows = [Row(id=f"r{i}", text=t, label="x") for i, t in enumerate(TEXTS)]
    pack = builtin_pack("default") if task == "classes" else label_pack()
    assert featurize_rows(rows, task) == [features(t, score(t, pack)) for t in TEXTS]


@pytest.mark.parametrize("task", ["classes", "labels"])
def test_predict_many_and_explain_agree_with_predict(task: str) -> None:
    model = packaged_model(task)
    pack = builtin_pack("default") if task == "classes" else label_pack()
    s = PythonScorer(model)
    rules = [score(t, pack) for t in TEXTS]
    one = [s.predict(t, r) for t, r in zip(TEXTS, rules, strict=True)]
    assert s.predict_many(TEXTS, rules) == one
    for t, r, p in zip(TEXTS, rules, one, strict=True):
        prediction, why = s.predict_explained(t, r, each=3)
        assert prediction == p
        assert why == s.explain(t, r, p.label, each=3)
        assert len([c for c in why.top if c.kind == "d"]) <= 3
    with pytest.raises(ValueError):
        s.predict_many(TEXTS, rules[:1])


# -- every implementation against today's scorer ------------------------------------------------
#
# "Today's scorer" is the linear pass the models were shipped with, kept here verbatim as
# the reference. The comparisons read the weights of whatever model is packaged (a retrain
# changes the weights, never the test) and hold any implementation to the same answers: the
# same label, and probabilities equal to 1e-12 (a float sum's last bits depend on its order,
# which in the reference follows the per-process string hash; on the shipped models every
# probability has come out bit-identical).


def todays_logits(model: Model, feats: Features) -> list[float]:
    """The pure-Python pass as it was before the scorer seam (pooling and sums)."""
    grams: list[int] = []
    for kind, keys in (("c", feats.chars), ("w", feats.words), ("b", feats.bigrams)):
        grams.extend([i for i in map(model.vocab[kind].get, keys) if i is not None])
    dense = [model.vocab["d"][k] for k in feats.dense if k in model.vocab["d"]]
    if model.pooling == "mean":
        m = len(grams) + model.dense_weight * len(dense)
        gram_scale, dense_scale = (1.0 / m, model.dense_weight / m) if m else (0.0, 0.0)
    else:
        gram_scale = 1.0 / math.sqrt(feats.n_grams) if feats.n_grams else 0.0
        dense_scale = 1.0

    def total(idx: list[int], column: Sequence[float]) -> float:
        if not idx:
            return 0.0
        values = [column[i] for i in idx]
        return math.fsum(values) if len(values) > 4000 else float(sum(values))

    return [
        bias + gram_scale * total(grams, column) + dense_scale * total(dense, column)
        for bias, column in zip(model.bias, model.weights, strict=True)
    ]


def todays_prediction(model: Model, feats: Features) -> tuple[str, dict[str, float]]:
    """Today's softmax, with the model's calibration (temperature, then one offset per class)."""
    logits = todays_logits(model, feats)
    top = max(logits)
    logits = [(v - top) / model.temperature + b for v, b in zip(logits, model.offsets, strict=True)]
    top = max(logits)
    exps = [math.exp(v - top) for v in logits]
    probs = {c: e / sum(exps) for c, e in zip(model.classes, exps, strict=True)}
    best = max(range(len(model.classes)), key=lambda i: (logits[i], -i))
    return model.classes[best], probs


def pack_of(task: str) -> RulePack:
    return builtin_pack("default") if task == "classes" else label_pack()


@lru_cache(maxsize=2)
def corpus_texts(task: str) -> tuple[str, ...]:
    rows, problems = parse_corpus(read_shipped_corpus(task), task, "<shipped>")
    assert not problems
    return tuple(r.text for r in rows)


@lru_cache(maxsize=1)
def transcript_texts() -> tuple[str, ...]:
    """The turns of the benchmark transcripts (tests/bench/workloads.py, 500 KB and 5 MB)."""
    from tests.bench import workloads

    out: list[str] = []
    for size in (500_000, 5_000_000):
        out.extend(u.text for u in split_units(workloads.transcript_workload(size).text))
    return tuple(out)


def implementations(model: Model) -> list[Scorer]:
    out: list[Scorer] = [PythonScorer(model)]
    if native.serves(model):
        out.append(native.NativeScorer(model))
    return out


def kernel_sums_then_python(scorer: native.NativeScorer, text: str, rules: Score) -> Prediction:
    """The compiled scorer as it was before the kernel answered whole predictions: the kernel's
    n-gram sums, then the dense features, pooling and softmax in Python. The kernel's own
    `predict` makes the same operations in the same order, so it must agree to the last bit."""
    model = scorer.model
    text = normalize_newlines(text)
    sums, present = scorer._kernel.grams(region(text))
    dense = dense_features(text, [s.rule for s in rules.signals], rules.words, rules.lines, rules.scores)
    return model.prediction(model.combine(sums, present, present, model.dense_indices(dense)))


def assert_same(model: Model, texts: Sequence[str], pack: RulePack) -> int:
    """Every implementation answers `texts` as today's scorer does; returns how many compared.
    The compiled one also answers exactly as its n-gram sums with Python's pooling do."""
    scorers = implementations(model)
    rules = [score(t, pack) for t in texts]
    answers = [s.predict_many(texts, rules) for s in scorers]
    for i, (text, r) in enumerate(zip(texts, rules, strict=True)):
        label, probs = todays_prediction(model, features(text, r))
        for s, got in zip(scorers, answers, strict=True):
            where = f"{s.implementation} on text {i}: {text[:60]!r}"
            assert got[i].label == label, where
            assert got[i].confidence == pytest.approx(probs[label], abs=1e-12), where
            for c in model.classes:
                assert got[i].probabilities[c] == pytest.approx(probs[c], abs=1e-12), where
            assert s.predict(text, r) == got[i], where
            if isinstance(s, native.NativeScorer):
                assert got[i] == kernel_sums_then_python(s, text, r), where
    return len(texts)


def test_the_compiled_scorer_is_used_where_it_is_built() -> None:
    model = packaged_model("classes")
    expected = "native" if native.serves(model) else "python"
    assert scorer_for(model).implementation == expected


@pytest.mark.slow
@pytest.mark.parametrize("task", ["classes", "labels"])
def test_every_scorer_answers_the_whole_corpus_as_today(task: str) -> None:
    assert assert_same(packaged_model(task), corpus_texts(task), pack_of(task)) > 5000


@pytest.mark.slow
def test_every_scorer_answers_the_benchmark_transcripts_as_today() -> None:
    texts = transcript_texts()
    assert assert_same(packaged_model("classes"), texts, pack_of("classes")) > 8000
    # and classify_many's batch path (the rule pass shared by key) gives classify's answers
    pack = builtin_pack("default")
    sample = list(texts[:1500])
    assert classify_many(sample, pack) == [classify(t, pack) for t in sample]


def test_a_retrained_model_is_scored_the_same_by_every_implementation() -> None:
    """Weights other than the shipped ones (a model trained here, on a slice of the corpus)."""
    pytest.importorskip("numpy")
    rows, _ = parse_corpus(read_shipped_corpus("classes"), "classes", "<shipped>")
    from turnlens.learn.train import Settings, train

    model = train(rows[::7], "classes", Settings(epochs=2, max_features=4000))
    assert_same(model, corpus_texts("classes")[1::13], pack_of("classes"))
    # a square-root pooled model (`lr`) is the reference's alone: the kernel does not count
    # the n-grams outside the vocabulary that pooling divides by
    lr = train(rows[::11], "classes", Settings(design="lr", iterations=20, max_features=3000))
    assert not native.serves(lr) and scorer_for(lr).implementation == "python"
    assert_same(lr, corpus_texts("classes")[::29], pack_of("classes"))


# text made to reach the tokenizer's and the n-grams' corners: every kind of space Python's
# `re` knows (\x1c-\x1f, NBSP, ideographic space), CJK next to Latin, combining marks,
# digits of other scripts, emoji, underscores, NUL, long runs past MAX_TOKENS
ALPHABET = [
    *"abcxyz ABC_0123456789.,;:!?'\"()[]{}<>#/\\-+=*&%$@`~|^\n\t",
    *["\x1c", "\x1f", "\x0b", "\x0c", "\xa0", "\u3000", "\u2028", "\x00", "\x85"],
    *["合", "并", "回", "滚", "の", "テ", "ス", "ト", "ー", "가", "豈", "\u3040", "\u30ff"],
    *["é", "ß", "İ", "ı", "e\u0301", "٣", "५", "½", "Ⅻ", "😀", "👍🏽", "\U0002070e"],
    *["the ", "fix ", "review ", "lgtm ", "thanks", "def ", "return ", "error: ", "```", "    "],
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ALPHABET), max_size=900).map("".join))
def test_the_kernel_finds_the_vocabulary_n_grams_python_finds(text: str) -> None:
    model = packaged_model("classes")
    if not native.serves(model):
        pytest.skip("the compiled scorer is not built here")
    kernel = native.NativeScorer(model)._kernel
    r = score(text, builtin_pack("default"))
    feats = features(text, r)
    grams = [
        i
        for kind, keys in (("c", feats.chars), ("w", feats.words), ("b", feats.bigrams))
        for i in map(model.vocab[kind].get, keys)
        if i is not None
    ]
    sums, present = kernel.grams(region(normalize_newlines(text)))
    assert present == len(grams)
    for column, got in zip(model.weights, sums, strict=True):
        assert got == pytest.approx(math.fsum(column[i] for i in grams), abs=1e-9)
    assert_same(model, [text], builtin_pack("default"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from([*ALPHABET, "\n", "\n", "// ", "## ", "$ ", ">>> ", "<<<< ", "x;", "{", "?", "! "]),
        max_size=600,
    ).map("".join),
    st.integers(0, 400),
    st.integers(0, 40),
)
def test_the_kernel_makes_the_shape_features_python_makes(text: str, words: int, lines: int) -> None:
    """Shape (length buckets, CJK words, code lines, the last character), rules and votes:
    the kernel's dense features are `dense_features`' in the same order, and its region of an
    ASCII text is `region`'s."""
    model = packaged_model("classes")
    if not native.serves(model):
        pytest.skip("the compiled scorer is not built here")
    s = native.NativeScorer(model)
    text = normalize_newlines(text)
    fired = [k[2:] for k in model._dense_vocab if k.startswith("r:")][: words % 5]
    scores = dict(zip(model.classes, (words % 7, lines % 4, 0, 5, 1, 3), strict=False))
    want = model.dense_indices(dense_features(text, fired, words, lines, scores))
    # the rules as their features' indices, or as signals (tuples whose first field is the rule id)
    rules = [s._rule_index.get(r, -1) for r in fired] if words % 2 else [(r, "x", 1) for r in fired]
    given_region = None if text.isascii() else region(text)
    got = s._kernel.dense(text, given_region, words, lines, rules, s._vote_indices(scores))
    assert got == want
    if text.isascii():
        assert s._kernel.region(text) == region(text)


def test_a_kernel_whose_shape_features_differ_is_not_used(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A change to `features.shape` that `_scorer.c` does not follow turns the kernel off
    (the samples `native` checks when a scorer is made show it) rather than change answers."""
    if native.kernel_type() is None:
        pytest.skip("the compiled scorer is not built here")
    shipped = packaged_model("classes")
    fresh = Model.from_bytes(shipped.to_bytes())
    original = F.shape
    monkeypatch.setattr(F, "shape", lambda text, words, lines: original(text, words, lines)[1:])
    with caplog.at_level("WARNING", logger="turnlens.learn.scorer"):
        assert scorer_for(fresh).implementation == "python"
    assert "shape features differ" in caplog.text


def test_a_feature_the_kernel_does_not_implement_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from turnlens.learn import features as F

    model = packaged_model("classes")
    monkeypatch.setattr(F, "TOKEN_PATTERN", r"@\w+|" + F.TOKEN_PATTERN)
    assert not native.compatible() and not native.serves(model)
    monkeypatch.setenv("TURNLENS_PURE_PYTHON", "1")
    monkeypatch.setattr(F, "TOKEN_PATTERN", F.token_pattern(F.CJK_RANGES))
    assert native.compatible() and native.kernel_type() is None and not native.serves(model)


def test_the_kernel_rejects_what_is_not_a_model() -> None:
    kernel = native.kernel_type()
    if kernel is None:
        pytest.skip("the compiled scorer is not built here")
    common = {"char_sizes": (3, 4), "max_tokens": 400, "tail_tokens": 100, "cjk": ((0x4E00, 0x9FFF),)}
    with pytest.raises(ValueError):
        kernel(chars=["abc"], words=[], bigrams=[], weights=b"\0" * 6, n_classes=2, **common)
    with pytest.raises(TypeError):
        kernel(chars=[1], words=[], bigrams=[], weights=b"\0" * 8, n_classes=2, **common)
    k = kernel(
        chars=["abc", "abc"], words=["x"], bigrams=["x x"], weights=bytes(4 * 2 * 4), n_classes=2, **common
    )
    assert k.grams("abc x x") == ((0.0, 0.0), 3)  # the repeated key: the later index, once
    with pytest.raises(TypeError):
        k.grams(b"abc")
    with pytest.raises(RuntimeError):  # made without the decision's parameters
        k.predict("abc", None, 1, 1, [], [])
    shape = {
        "word_edges": (1, 3),
        "word_index": (-1, -1, -1),
        "line_edges": (1,),
        "line_index": (-1, -1),
        "code_min_lines": 3,
        "code_rows": 200,
        "code_cuts": (0.5,),
        "code_index": (-1, -1),
        "ends": "?",
        "ends_index": (-1,),
        "word_cjk": ((0x4E00, 0x9FFF),),
    }
    decision = {"temperature": 1.0, "offsets": (0.0, 0.0), "dense_weight": 5.0, "head": 10, "tail": 5}
    words = {"chars": ["abc"], "words": ["x"], "bigrams": [], "weights": bytes(4 * 2 * 3), "n_classes": 2}
    for bad in (
        {"bias": (0.0,)},  # one per class
        {"bias": (0.0, float("nan"))},
        {"bias": (0.0, 0.0), "shape": {**shape, "word_index": (-1, -1)}},  # one per bucket
        {"bias": (0.0, 0.0), "shape": {**shape, "ends_index": (7,)}},  # not a feature
        {"bias": (0.0, 0.0), "shape": {k: v for k, v in shape.items() if k != "code_rows"}},
        {"bias": (0.0, 0.0), "shape": shape, "temperature": 0.0},
    ):
        with pytest.raises(ValueError):
            kernel(**{**common, **words, "shape": shape, **decision, **bad})
    k = kernel(**{**common, **words, "shape": shape, **decision, "bias": (0.5, -0.5)})
    best, probs = k.predict("abc x", None, 2, 1, [-1, 99], [])
    assert best == 0 and probs[0] > probs[1] and math.isclose(sum(probs), 1.0)
    with pytest.raises(ValueError):  # the region of a text that is not ASCII is made in Python
        k.predict("abç", None, 1, 1, [], [])
    with pytest.raises(TypeError):
        k.predict("abc", b"abc", 1, 1, [], [])


def test_the_wheel_builds_check_runs_here() -> None:
    """cibuildwheel's `test-command` (pyproject.toml) is the check every built wheel passes: run
    it where the kernel is built, so that the command itself stays true."""
    import shlex
    import tomllib

    if native.kernel_type() is None:
        pytest.skip("the compiled scorer is not built here")
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["cibuildwheel"]
    argv = shlex.split(config["test-command"])
    assert argv[0] == "python"
    env = {k: v for k, v in os.environ.items() if k != "TURNLENS_PURE_PYTHON"}
    subprocess.run([sys.executable, *argv[1:]], env=env, check=True, timeout=120, capture_output=True)
    # and it would fail on a wheel without the kernel
    failed = subprocess.run(
        [sys.executable, *argv[1:]],
        env={**env, "TURNLENS_PURE_PYTHON": "1"},
        timeout=120,
        capture_output=True,
    )
    assert failed.returncode != 0


@pytest.mark.slow
def test_an_install_without_a_c_compiler_gives_the_same_answers(tmp_path: Path) -> None:
    """`pip install .` where no C compiler works (CC=/bin/false): the wheel is built without
    the extension and its pure-Python scorer gives the compiled scorer's answers."""
    env = {**os.environ, "CC": "/bin/false", "CXX": "/bin/false", "LDSHARED": "/bin/false"}
    env.pop("TURNLENS_PURE_PYTHON", None)
    # a clean copy of what a build reads: no build/ folder or extension left from this checkout
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(
        REPO / "server",
        src / "server",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.egg-info"),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path, src],
        env=env,
        check=True,
        timeout=600,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("turnlens-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert "turnlens/learn/scorer.py" in names
        assert not [n for n in names if "_scorer" in n and not n.endswith(".py")], "no extension"
        zf.extractall(tmp_path / "site")
    texts = list(corpus_texts("classes")[::40]) + list(transcript_texts()[:400])
    script = (
        "import json, sys\n"
        "import turnlens\n"
        "from turnlens.classifier import classify_many\n"
        "from turnlens.core.rules import builtin_pack\n"
        "from turnlens.learn.model import packaged_model\n"
        "from turnlens.learn.scorer import scorer_for\n"
        "texts = json.load(sys.stdin)\n"
        "answers = classify_many(texts, builtin_pack('default'))\n"
        "json.dump({'file': turnlens.__file__,\n"
        "           'implementation': scorer_for(packaged_model('classes')).implementation,\n"
        "           'answers': [[a.task_class, a.probabilities] for a in answers]}, sys.stdout)\n"
    )
    run_env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    run_env.pop("TURNLENS_PURE_PYTHON", None)
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(texts),
        env=run_env,
        check=True,
        timeout=600,
        capture_output=True,
        text=True,
    )
    got = json.loads(done.stdout)
    assert Path(got["file"]).is_relative_to(tmp_path / "site")
    assert got["implementation"] == "python"
    here = classify_many(texts, builtin_pack("default"))
    for (label, probs), mine in zip(got["answers"], here, strict=True):
        assert label == mine.task_class
        assert mine.probabilities is not None
        for c, p in probs.items():
            assert p == pytest.approx(mine.probabilities[c], abs=1e-12)
