"""The compiled scorer reads a loaded model's vocabulary whole (the file's NUL-separated keys,
no Python string per key) and gives the answers it gives from the keys as lists; a loaded
model splits its keys only when something asks for them."""

from __future__ import annotations

import pytest

from turnlens.core.engine import score
from turnlens.core.rules import builtin_pack
from turnlens.learn import native
from turnlens.learn.model import Model, packaged_model

pytestmark = pytest.mark.skipif(native.kernel_type() is None, reason="the compiled scorer is not built")

TEXTS = (
    "thanks, that fixed it!",
    "Traceback (most recent call last):\n  File 'x.py', line 3\nValueError: bad value\n",
    "合并这个分支之前请先跑一遍测试！\n한국어 문장입니다",
    "## Spec\n- MUST return 404 when the id is unknown\n- SHOULD log the miss\n" * 20,
)


def _fresh(task: str) -> Model:
    from turnlens.learn.model import PACKAGED, _read_packaged_bytes

    return Model.from_bytes(_read_packaged_bytes(PACKAGED[task]), task)


def _lists_scorer(model: Model) -> native.NativeScorer:
    """A scorer of the same weights whose kernel is given the keys as three lists."""
    in_memory = Model(
        task=model.task,
        classes=model.classes,
        pack=model.pack,
        keys=model._keys,
        weights=model.weights,
        bias=model.bias,
        meta=model.meta,
        pooling=model.pooling,
        dense_weight=model.dense_weight,
        temperature=model.temperature,
        offsets=model.offsets,
    )
    assert in_memory._key_blob is None
    scorer = native.NativeScorer(in_memory)
    scorer._keep = in_memory  # type: ignore[attr-defined]  # the scorer holds its model weakly
    return scorer


@pytest.mark.parametrize("task", ["classes", "labels"])
def test_the_blob_and_the_lists_give_the_same_answers(task: str) -> None:
    model = _fresh(task)
    blob = native.NativeScorer(model)
    assert model._key_lists is None  # the kernel read the blob: no key was split out
    lists = _lists_scorer(model)
    pack = builtin_pack("default")
    for text in TEXTS:
        rules = score(text, pack)
        assert blob.predict(text, rules) == lists.predict(text, rules)


def test_a_loaded_model_splits_its_keys_only_when_asked() -> None:
    model = _fresh("classes")
    assert model._key_lists is None
    shipped = packaged_model("classes")
    assert model._keys == shipped._keys
    assert model._key_lists is not None
    assert model.size == sum(len(v) for v in model._keys.values())
    assert list(model._dense_vocab) == model._keys["d"]


def test_the_kernel_refuses_a_vocabulary_it_cannot_read() -> None:
    kernel = native.kernel_type()
    assert kernel is not None
    common = {"weights": b"\0" * 4 * 2 * 3, "n_classes": 2, "char_sizes": (3,), "max_tokens": 4}
    common.update(tail_tokens=1, cjk=())
    with pytest.raises(ValueError, match="fewer keys"):
        kernel(None, None, None, vocabulary="ab\0cd", counts=(1, 1, 1), **common)
    with pytest.raises(TypeError):  # both forms at once
        kernel(["ab"], [], [], vocabulary="ab", counts=(1, 0, 0), **common)
    with pytest.raises(TypeError):  # neither
        kernel(None, None, None, **common)
    ok = kernel(None, None, None, vocabulary="ab\0cd\0ef\0dense", counts=(1, 1, 1), **common)
    assert ok is not None
