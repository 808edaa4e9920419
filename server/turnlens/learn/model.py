"""A trained linear model, loaded from a compact file and scored in pure Python.

Each class has a bias and one weight per feature. Pooling says what a present
feature is worth: `mean` (the shipped fastText-style models: a weighted mean over
the features the model knows, a rule or shape feature counting `dense_weight`
times an n-gram) or `sqrt` (logistic regression:
n-grams 1/√n, n = how many the text has; rule and shape features 1). The file is
a short JSON header, the vocabulary (NUL-separated keys in index order) and the
weights (float32, class-major), so loading is a split and a copy of the weights' bytes:
a few milliseconds, on first use.
"""

from __future__ import annotations

import math
import sys
from _operator import itemgetter  # operator.itemgetter, without operator.py

TYPE_CHECKING = False  # neither `typing` nor `json` (nor the `re` they import) on the one-shot path
if TYPE_CHECKING:
    from array import array
    from collections.abc import Iterable, Sequence
    from typing import Any, NamedTuple

    # one class's weights: an `array("f")`, or (a loaded file's) a writable float32 memoryview
    Column = array[float] | memoryview[float]

    from turnlens.learn.features import Features
else:
    from turnlens.core.record import NamedTuple

MAGIC = b"TURNLENS-MODEL-1\n"
KINDS = ("c", "w", "b", "d")
KIND_NAMES = {"c": "characters", "w": "word", "b": "words", "d": "signal"}
PACKAGED = {"classes": "classes.tlm", "labels": "labels.tlm"}


class ModelError(ValueError):
    """A model file that cannot be used; the message says why."""


class ModelMissing(ModelError):
    """A model file that is not there (a warning, where a file that is there but bad is an error)."""


class Contribution(NamedTuple):
    """One feature's push toward a class: its kind, key and signed weight (in logit units).

    Named tuples, not dataclasses, here and in `features`: a one-shot `turnlens classify`
    would spend more importing `dataclasses` and generating methods than scoring the text."""

    kind: str
    key: str
    weight: float

    def label(self) -> str:
        """How a person reads the feature: `"lgtm"` (word), `"ship it"` (words), `‹lgt›`
        (characters), `rule decision.words` or `shape words≤3`."""
        if self.kind == "d":
            kind, _, name = self.key.partition(":")
            if kind == "r":
                return f"rule {name}"
            if kind == "top":
                return f"rules' answer {name}"
            if kind == "score":
                return f"rule score {name}"
            return f"shape {name}"
        shown = self.key.replace("\n", "⏎").replace("\t", "⇥")
        return f"‹{shown}›" if self.kind == "c" else f'"{shown}"'

    def to_json(self) -> dict[str, object]:
        return {"feature": self.label(), "kind": KIND_NAMES[self.kind], "weight": round(self.weight, 3)}


class Prediction(NamedTuple):
    label: str
    confidence: float
    probabilities: dict[str, float]


class KeyBlob(NamedTuple):
    """A model file's vocabulary as it is stored, NUL-separated keys in index order and the
    count of each kind: a loaded model splits it into 20,000 strings only when something asks
    for them by kind (the pure-Python scorer, an explanation); the compiled scorer reads it
    whole, and a one-shot run never makes them."""

    text: str
    counts: dict[str, int]

    def split(self) -> dict[str, list[str]]:
        flat = self.text.split("\0") if self.text else []
        keys: dict[str, list[str]] = {}
        start = 0
        for kind in KINDS:
            keys[kind] = flat[start : start + self.counts[kind]]
            start += self.counts[kind]
        return keys

    def last(self, n: int) -> list[str]:
        """The last `n` keys (the dense kind's), without splitting the rest."""
        return self.text.rsplit("\0", n)[-n:] if n else []


class Model:
    """Weights and vocabulary of one task (`classes` or `labels`)."""

    def __init__(
        self,
        *,
        task: str,
        classes: tuple[str, ...],
        pack: str,
        keys: dict[str, list[str]] | KeyBlob,
        weights: Sequence[Column],
        bias: list[float],
        meta: dict[str, Any] | None = None,
        pooling: str = "sqrt",
        dense_weight: float = 1.0,
        temperature: float = 1.0,
        offsets: list[float] | None = None,
        kind_temperatures: dict[str, float] | None = None,
    ) -> None:
        self.dense_weight = dense_weight
        if not (0.05 <= temperature <= 20.0) or math.isnan(temperature):
            raise ModelError(f"temperature {temperature!r} out of range")
        # confidence calibration: probabilities are softmax(logits / temperature), fitted on
        # real text after training (the answer never changes, only how sure it says it is)
        self.temperature = temperature
        # per-class offsets added after the temperature: how much more common each class is
        # in real text than in the balanced corpus (fitted with the temperature)
        self.offsets = list(offsets) if offsets else [0.0] * len(classes)
        if len(self.offsets) != len(classes) or not all(
            math.isfinite(b) and abs(b) < 50 for b in self.offsets
        ):
            raise ModelError("offsets do not match the classes")
        # a further temperature for the units of a kind (an agent's reply, its thinking, a
        # person's prompt) and for a conversation turn (`CONVERSATION`): each is right more or
        # less often than it says on real text, so its probabilities are sharpened (or
        # flattened) after the kind's evidence renormalised them (`restrict`); the answer stays
        self.kind_temperatures = dict(kind_temperatures or {})
        if len(self.kind_temperatures) > MAX_KIND_TEMPERATURES or not all(
            _kind_name(k) and _temperature(t) for k, t in self.kind_temperatures.items()
        ):
            raise ModelError("`kind_temperatures` is not a temperature per unit kind")
        if pooling not in ("sqrt", "mean"):
            raise ModelError(f"unknown pooling {pooling!r}")
        self.pooling = pooling
        self.task = task
        self.classes = classes
        self.pack = pack
        self.meta = meta or {}
        self.bias = list(bias)
        self.weights = list(weights)
        if isinstance(keys, KeyBlob):
            self._key_blob: KeyBlob | None = keys
            self._key_lists: dict[str, list[str]] | None = None
            counts = dict(keys.counts)
            dense = keys.last(counts["d"])
        else:
            self._key_blob, self._key_lists = None, keys
            counts = {kind: len(keys.get(kind, [])) for kind in KINDS}
            dense = keys.get("d", [])
        offset = sum(counts.values())
        self.size = offset
        self._dense_vocab = dict(zip(dense, range(offset - len(dense), offset), strict=True))
        self._vocab: dict[str, dict[str, int]] | None = None
        if len(weights) != len(classes) or any(len(w) != offset for w in weights):
            raise ModelError("weights do not match the vocabulary and classes")
        self._name: list[tuple[str, str]] | None = None
        # the `turnlens.learn.scorer.Scorer` that answers for these weights, made on first use
        self._scorer: object | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (for worker processes) with its weights as arrays (a loaded file's are
        memoryviews, which do not pickle) and without its scorer, made again on first use."""
        from array import array

        state = self.__dict__.copy()
        state["weights"] = [array("f", column.tobytes()) for column in self.weights]
        state["_scorer"] = None
        return state

    @property
    def _keys(self) -> dict[str, list[str]]:
        """The keys of each kind, in index order (split from the file's blob on first use)."""
        if self._key_lists is None:
            assert self._key_blob is not None
            self._key_lists = self._key_blob.split()
        return self._key_lists

    def __repr__(self) -> str:
        return f"Model(task={self.task!r}, classes={len(self.classes)}, features={self.size})"

    @property
    def vocab(self) -> dict[str, dict[str, int]]:
        """Index of each key, by kind: made on first use (the compiled scorer has its own table,
        so a one-shot run it answers never builds these 20,000-entry dicts)."""
        if self._vocab is None:
            vocab: dict[str, dict[str, int]] = {}
            offset = 0
            for kind in KINDS:
                names = self._keys.get(kind, [])
                vocab[kind] = dict(zip(names, range(offset, offset + len(names)), strict=True))
                offset += len(names)
            self._vocab = vocab
        return self._vocab

    # -- scoring ---------------------------------------------------------------------------

    def _indices(self, features: Features) -> tuple[list[int], list[int]]:
        """Vocabulary indices of the text's n-grams and of its dense features."""
        grams: list[int] = []
        for kind, keys in (("c", features.chars), ("w", features.words), ("b", features.bigrams)):
            grams.extend([i for i in map(self.vocab[kind].get, keys) if i is not None])
        return grams, self.dense_indices(features.dense)

    @staticmethod
    def _sum(getter: Any, n: int, column: Column) -> float:
        if n == 0:
            return 0.0
        if n == 1:
            return float(getter(column))
        return math.fsum(getter(column)) if n > 4000 else float(sum(getter(column)))

    def _scales(self, n_present: int, n_grams: int, n_dense: int) -> tuple[float, float]:
        """What one present n-gram and one present dense feature are worth (`n_present`: the
        text's n-grams in the vocabulary, `n_grams`: all its distinct n-grams)."""
        if self.pooling == "mean":
            m = n_present + self.dense_weight * n_dense
            return (1.0 / m, self.dense_weight / m) if m else (0.0, 0.0)
        return (1.0 / math.sqrt(n_grams) if n_grams else 0.0), 1.0

    def logits(self, features: Features) -> list[float]:
        """The reference linear pass (`turnlens.learn.scorer.PythonScorer`)."""
        grams, dense = self._indices(features)
        g = itemgetter(*grams) if grams else None
        sums = [self._sum(g, len(grams), column) for column in self.weights]
        return self.combine(sums, len(grams), features.n_grams, dense)

    def combine(
        self, gram_sums: Sequence[float], n_present: int, n_grams: int, dense: list[int]
    ) -> list[float]:
        """Each class's logit from its summed n-gram weights (`gram_sums`, over the `n_present`
        vocabulary n-grams of a text with `n_grams` in all) and the dense features' indices:
        the one place where pooling is applied, whichever implementation summed the n-grams."""
        gram_scale, dense_scale = self._scales(n_present, n_grams, len(dense))
        d = itemgetter(*dense) if dense else None
        n = len(dense)
        return [
            bias + gram_scale * gram_sum + dense_scale * self._sum(d, n, column)
            for bias, gram_sum, column in zip(self.bias, gram_sums, self.weights, strict=True)
        ]

    def dense_indices(self, keys: Iterable[str]) -> list[int]:
        """Vocabulary indices of the dense features present (in their order)."""
        vocab = self._dense_vocab
        return [vocab[k] for k in keys if k in vocab]

    def predict(self, features: Features) -> Prediction:
        return self.prediction(self.logits(features))

    def prediction(self, logits: list[float]) -> Prediction:
        """The softmax of `logits` and its most probable class."""
        top = max(logits)
        t = self.temperature
        logits = [(v - top) / t + b for v, b in zip(logits, self.offsets, strict=True)]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        probs = {c: e / total for c, e in zip(self.classes, exps, strict=True)}
        # ties (never in practice) go to the class listed first: the stricter one
        best = max(range(len(self.classes)), key=lambda i: (logits[i], -i))
        return Prediction(self.classes[best], probs[self.classes[best]], probs)

    @staticmethod
    def restrict(prediction: Prediction, allowed: tuple[str, ...]) -> Prediction:
        """The most probable of the `allowed` classes, its probability renormalised over them
        (a session unit's kind rules the others out)."""
        probs = {c: p for c, p in prediction.probabilities.items() if c in allowed}
        total = sum(probs.values())
        if not probs or total <= 0:
            return prediction
        probs = {c: p / total for c, p in probs.items()}
        # ties go to the class listed first in the model (the stricter one)
        best = max(probs, key=lambda c: (probs[c], -list(prediction.probabilities).index(c)))
        full = {c: probs.get(c, 0.0) for c in prediction.probabilities}
        return Prediction(best, probs[best], full)

    def kind_temperature(self, kind: str | None) -> float:
        """The further temperature of a unit of `kind` (1.0: none; see `kind_temperatures`); a
        conversation turn (no kind: a thread message, a chat export's turn) has its own, under
        `CONVERSATION`."""
        return self.kind_temperatures.get(temperature_key(kind), 1.0)

    @staticmethod
    def at_temperature(prediction: Prediction, temperature: float) -> Prediction:
        """The same answer with its probabilities at a further `temperature` (a power of them,
        renormalised): how sure it is changes, the class does not."""
        if temperature == 1.0:
            return prediction
        power = 1.0 / temperature
        probs = {c: p**power if p > 0 else 0.0 for c, p in prediction.probabilities.items()}
        total = sum(probs.values())
        if total <= 0 or not math.isfinite(total):
            return prediction
        probs = {c: p / total for c, p in probs.items()}
        return Prediction(prediction.label, probs.get(prediction.label, 0.0), probs)

    # -- explanations ----------------------------------------------------------------------

    def _names(self) -> list[tuple[str, str]]:
        if self._name is None:
            self._name = [(kind, key) for kind in KINDS for key in self._keys.get(kind, [])]
        return self._name

    def contributions(self, features: Features, label: str) -> list[Contribution]:
        """Every present feature's push toward `label` against the average class, strongest first.

        A feature's weight for a class minus its mean weight over all classes is what it adds
        to that class's log-odds against the others (softmax ignores a shift common to all).
        """
        k = self.classes.index(label)
        grams, dense = self._indices(features)
        gram_scale, dense_scale = self._scales(len(grams), features.n_grams, len(dense))
        names = self._names()
        n_classes = len(self.classes)
        out: list[Contribution] = []
        for indices, value in ((grams, gram_scale), (dense, dense_scale)):
            for i in indices:
                mean = sum(w[i] for w in self.weights) / n_classes
                kind, key = names[i]
                out.append(Contribution(kind, key, value * (self.weights[k][i] - mean)))
        out.sort(key=lambda c: (-c.weight, c.kind, c.key))
        return out

    def top_contributions(self, features: Features, label: str, each: int = 5) -> list[Contribution]:
        """The strongest pushes toward `label`: the top n-grams and the top rule and shape
        signals (each kind has its own scale, so one would hide the other), strongest first."""
        pushes = [c for c in self.contributions(features, label) if c.weight > 0]
        grams = [c for c in pushes if c.kind != "d"][:each]
        signals = [c for c in pushes if c.kind == "d"][:each]
        return sorted(grams + signals, key=lambda c: (-c.weight, c.kind, c.key))

    def feature_weight(self, key: str, label: str) -> float | None:
        """The centred weight of a dense feature (`r:<rule id>`) for `label`, if the model has it."""
        i = self._dense_vocab.get(key)
        if i is None:
            return None
        mean = sum(w[i] for w in self.weights) / len(self.classes)
        return self.weights[self.classes.index(label)][i] - mean

    # -- files -----------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        header = {
            "task": self.task,
            "classes": list(self.classes),
            "pack": self.pack,
            "bias": self.bias,
            "counts": {kind: len(self._keys.get(kind, [])) for kind in KINDS},
            "meta": self.meta,
            "pooling": self.pooling,
            "dense_weight": self.dense_weight,
        }
        if self.temperature != 1.0:
            header["temperature"] = self.temperature
        if any(self.offsets):
            header["offsets"] = self.offsets
        if self.kind_temperatures:
            header["kind_temperatures"] = dict(sorted(self.kind_temperatures.items()))
        import json

        head = json.dumps(header, ensure_ascii=False, sort_keys=True).encode("utf-8")
        keys = "\0".join(key for kind in KINDS for key in self._keys.get(kind, [])).encode("utf-8")
        from array import array

        weights = array("f")
        for column in self.weights:
            weights.frombytes(column.tobytes())
        if sys.byteorder != "little":  # pragma: no cover - files are little-endian everywhere
            weights.byteswap()
        return (
            b"".join([MAGIC, len(head).to_bytes(4, "little"), head, len(keys).to_bytes(4, "little"), keys])
            + weights.tobytes()
        )

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<model>") -> Model:
        """Parse a model file; raises ModelError naming `source` when it is not one.

        Everything in the file is checked before it is used: a header of at most
        MAX_HEADER bytes nested at most MAX_HEADER_DEPTH deep, a task and classes TurnLens
        knows, counts and lengths that match, at most MAX_FEATURES features, and finite
        weights and biases of at most MAX_WEIGHT (NaN or Infinity would reach every answer
        and break JSON-RPC)."""
        try:
            if not data.startswith(MAGIC):
                raise ModelError("not a TurnLens model file")
            pos = len(MAGIC)
            n = int.from_bytes(data[pos : pos + 4], "little")
            if n > MAX_HEADER:
                raise ModelError(f"a header of {n:,} bytes (at most {MAX_HEADER:,})")
            header = _header(data[pos + 4 : pos + 4 + n].decode("utf-8"))
            pos += 4 + n
            n = int.from_bytes(data[pos : pos + 4], "little")
            blob = data[pos + 4 : pos + 4 + n].decode("utf-8")
            pos += 4 + n
            task = header.get("task")
            known = known_classes(task) if isinstance(task, str) else None
            if known is None or not isinstance(task, str):
                raise ModelError(f"unknown task {_shown(task)} (known: {', '.join(PACKAGED)})")
            classes = _classes(header.get("classes"), task, known)
            counts = header.get("counts")
            if not isinstance(counts, dict) or not all(_count(counts.get(kind)) for kind in KINDS):
                raise ModelError("`counts` is not a count per feature kind")
            size = sum(int(counts[kind]) for kind in KINDS)
            if size > MAX_FEATURES:
                raise ModelError(f"{size:,} features (at most {MAX_FEATURES:,})")
            if size != (blob.count("\0") + 1 if blob else 0):
                raise ModelError("the vocabulary does not match its counts")
            keys = KeyBlob(blob, {kind: int(counts[kind]) for kind in KINDS})
            if len(data) - pos != 4 * size * len(classes):
                raise ModelError("the weights do not match the vocabulary")
            weights = _float32s(data, pos)
            if weights and not _bounded(weights):
                raise ModelError(f"weights that are not finite numbers of at most {MAX_WEIGHT:g}")
            bias = header.get("bias")
            if not isinstance(bias, list) or len(bias) != len(classes) or not _bounded(bias):
                raise ModelError("`bias` is not one finite number per class")
            dense_weight = header.get("dense_weight", 1.0)
            if not _number(dense_weight) or not 0 < dense_weight <= MAX_WEIGHT:
                raise ModelError(f"`dense_weight` is not a number above 0 and at most {MAX_WEIGHT:g}")
            meta = header.get("meta", {})
            pack = header.get("pack")
            if not isinstance(meta, dict) or not isinstance(pack, str):
                raise ModelError("`meta` is not an object or `pack` not a name")
            columns = [weights[k * size : (k + 1) * size] for k in range(len(classes))]
            return cls(
                task=task,
                classes=classes,
                pack=pack,
                keys=keys,
                weights=columns,
                bias=[float(b) for b in bias],
                meta=meta,
                pooling=str(header.get("pooling", "sqrt")),
                dense_weight=float(dense_weight),
                temperature=float(header.get("temperature", 1.0)),
                offsets=[float(b) for b in header.get("offsets", [])] or None,
                kind_temperatures=_kind_temperatures(header.get("kind_temperatures", {})),
            )
        except ModelError as exc:
            raise ModelError(f"{source}: {exc}") from None
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError, OverflowError) as exc:
            raise ModelError(f"{source}: not a valid TurnLens model file ({type(exc).__name__})") from None


# Bounds of a model file's contents (see `Model.from_bytes`)
MAX_HEADER = 1_000_000
MAX_HEADER_DEPTH = 16
MAX_FEATURES = 500_000
MAX_WEIGHT = 1e6
MAX_KIND_TEMPERATURES = 16
# the name a conversation turn's further temperature is kept under: a unit with no kind (a
# thread message, a chat export's turn) is what the base temperature was first fitted on, and
# real threads keep being answered less sure than they are right (docs/labels.md, Calibration)
CONVERSATION = "conversation"


def temperature_key(kind: str | None) -> str:
    """The name a unit kind's further temperature is kept under in `kind_temperatures`."""
    return kind if kind is not None else CONVERSATION


_KIND_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_")
_CLASS_NAME = 40


_KNOWN_CLASSES: dict[str, tuple[str, ...]] = {}


def known_classes(task: object) -> tuple[str, ...] | None:
    """The classes a model of `task` may name: those of the model shipped for it (read from its
    header alone); None for a task TurnLens does not have."""
    if task not in PACKAGED:
        return None
    found = _KNOWN_CLASSES.get(str(task))
    if found is None:
        with open(_packaged_file(PACKAGED[str(task)]), "rb") as handle:
            start = handle.read(len(MAGIC) + 4)
            head = handle.read(int.from_bytes(start[len(MAGIC) :], "little"))
        header = _header(head.decode("utf-8"))
        found = _KNOWN_CLASSES[str(task)] = tuple(str(c) for c in header["classes"])
    return found


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _CLASS_NAME else text[: _CLASS_NAME - 1] + "…"


def _header(text: str) -> dict[str, Any]:
    """The JSON header, an object nested at most MAX_HEADER_DEPTH deep (a shipped model's comes
    parsed from the one-shot bundle, see `turnlens.core.data`, so a one-shot run needs no `json`)."""
    from turnlens.core.data import bundled

    headers = bundled("headers")
    known = headers.get(text) if headers is not None else None
    if isinstance(known, dict):
        import marshal

        copy: dict[str, Any] = marshal.loads(marshal.dumps(known))  # a deep copy, as a fresh parse
        return copy
    import json

    try:
        header = json.loads(text)
    except RecursionError:
        raise ModelError(f"a header nested deeper than {MAX_HEADER_DEPTH} levels") from None
    if not isinstance(header, dict):
        raise ModelError("the header is not an object")
    stack: list[tuple[Any, int]] = [(header, 0)]
    while stack:
        value, depth = stack.pop()
        items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if items is None:
            continue
        if depth >= MAX_HEADER_DEPTH:
            raise ModelError(f"a header nested deeper than {MAX_HEADER_DEPTH} levels")
        stack.extend((item, depth + 1) for item in items)
    return header


def _classes(raw: object, task: str, known: tuple[str, ...]) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(raw) < 2 or len(set(map(repr, raw))) != len(raw):
        raise ModelError("`classes` is not a list of two or more different names")
    for name in raw:
        if name not in known:
            raise ModelError(f"unknown {task} class {_shown(name)} (known: {', '.join(known)})")
    return tuple(raw)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_FEATURES


def _float32s(data: bytes, pos: int) -> Column:
    """The little-endian float32 weights from `pos` on, writable: a memoryview of a copy (the
    `array` module would import `collections.abc`, a one-shot run's millisecond), or on a
    big-endian machine an array."""
    if sys.byteorder == "little":
        return memoryview(bytearray(memoryview(data)[pos:])).cast("f")
    from array import array  # pragma: no cover

    weights = array("f")  # pragma: no cover
    weights.frombytes(data[pos:])  # pragma: no cover
    weights.byteswap()  # pragma: no cover
    return weights  # pragma: no cover


def _kind_name(name: object) -> bool:
    """A unit kind's name as the session readers write it (`reply`, `tool_call`)."""
    return isinstance(name, str) and 0 < len(name) <= 32 and name[0] != "_" and set(name) <= _KIND_CHARS


def _temperature(value: object) -> bool:
    """A temperature a model file may carry: a number from 0.05 to 20."""
    return _number(value) and 0.05 <= value <= 20.0  # type: ignore[operator]


def _kind_temperatures(value: object) -> dict[str, float]:
    """A header's `kind_temperatures`, checked (the constructor checks the names and bounds)."""
    if not isinstance(value, dict):
        raise ModelError("`kind_temperatures` is not an object")
    if not all(_number(t) for t in value.values()):
        raise ModelError("`kind_temperatures` is not a temperature per unit kind")
    return {str(k): float(t) for k, t in value.items()}


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _bounded(values: Any) -> bool:
    """Every value a finite number of at most MAX_WEIGHT in size (one pass in C for an array:
    the sum, then the extremes; for float32 weights, their bytes)."""
    if isinstance(values, memoryview) and values.format == "f":
        return _bounded_f32(values)
    if "array" in sys.modules and isinstance(values, sys.modules["array"].array):
        if values.typecode == "f":
            return _bounded_f32(values)
        if not math.isfinite(sum(values)):  # any NaN or Infinity makes the sum one of them
            return False
        low: float = min(values)
        high: float = max(values)
        return low >= -MAX_WEIGHT and high <= MAX_WEIGHT
    return all(_number(v) and abs(v) <= MAX_WEIGHT for v in values)


# Of a float32, the top byte without the sign orders magnitudes: NaN and Infinity have the
# largest. Each top byte becomes 0 (below MAX_WEIGHT's), 1 (the same: compare the value) or 2.
_LIMIT = memoryview(bytearray(4)).cast("f")
_LIMIT[0] = MAX_WEIGHT
_LIMIT_TOP = _LIMIT.tobytes()[-1 if sys.byteorder == "little" else 0] & 0x7F
_TOP_CLASS = bytes((b & 0x7F > _LIMIT_TOP) * 2 + (b & 0x7F == _LIMIT_TOP) for b in range(256))


def _bounded_f32(values: Column) -> bool:
    """`_bounded` for float32 weights without a Python object per weight (a one-shot run
    loads a model of 150,000 of them): from the top byte of each, in C."""
    if not values:
        return True
    raw = values.tobytes()
    top = raw[3::4] if sys.byteorder == "little" else raw[0::4]
    classes = top.translate(_TOP_CLASS)
    if b"\x02" in classes:
        return False
    at = classes.find(b"\x01")
    while at >= 0:  # a magnitude near MAX_WEIGHT: the value itself decides
        if not abs(values[at]) <= MAX_WEIGHT:
            return False
        at = classes.find(b"\x01", at + 1)
    return True


def _packaged_file(filename: str) -> str:
    import os

    return os.path.join(os.path.dirname(__file__), "models", filename)


def _read_packaged_bytes(filename: str) -> bytes:
    with open(_packaged_file(filename), "rb") as handle:
        return handle.read()


_PACKAGED_MODELS: dict[str, Model] = {}


def packaged_model(task: str) -> Model:
    """The model shipped with TurnLens for `task` (`classes` or `labels`), loaded on first use."""
    model = _PACKAGED_MODELS.get(task)
    if model is None:
        filename = PACKAGED[task]
        model = Model.from_bytes(_read_packaged_bytes(filename), f"<builtin:{filename}>")
        _PACKAGED_MODELS[task] = model
    return model
