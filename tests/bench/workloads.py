"""Deterministic workloads for the benchmark suite (and the fast-vs-plain agreement test).

Everything here is generated from a fixed seed, so two runs on two machines score
exactly the same text:

- `prompts_2kb()`: a handful of ~2 KB prompts of mixed kinds (one per turn kind);
- `transcript(size)`: `---TURN---`-separated turns of mixed classes — prose, code fences,
  diffs, tracebacks, reviews, specs, decisions, short acks — about 5 % of them non-ASCII
  (Spanish accents, CJK, emoji), until `size` UTF-8 bytes are reached;
- `write_archive(folder, total)`: a folder of transcript files (a transcript archive) for
  `turnlens check`, made by sampling turns from a pool (fast enough for 200 MB).

    python tests/bench/workloads.py 500000 > /tmp/t.md    # look at one
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

SEED = 6_2025
SEPARATOR = "---TURN---"
NON_ASCII_SHARE = 0.05

_WORDS = (
    "the a of to and in for on with that this we it is be as by from at or not can should will "
    "importer worker queue retry handler request response cache index table column migration "
    "schema invoice payment refund customer account session token user service client server "
    "module function method class field value record batch file folder path config setting flag "
    "test suite case fixture build release deploy branch commit review change patch version "
    "timeout latency error failure warning log metric trace span event message channel topic "
    "parser lexer token buffer stream reader writer encoder decoder format layout render view "
    "model router label phase effort budget ratio turn prompt transcript document unit scorer "
    "rule pack weight score class signal pattern engine thread process pool core memory disk "
    "network socket endpoint api key secret limit quota window backoff jitter lock mutex "
    "update insert delete select join group order filter map reduce sort merge split "
    "after before when while because so but then also only still already again maybe "
    "fast slow large small new old first last next previous current empty full stale fresh "
    "handle parse load save read write send receive open close start stop check validate"
)
WORDS = tuple(_WORDS.split())

VERBS = ("add", "fix", "remove", "rename", "move", "split", "merge", "cache", "retry", "parse", "validate")
LANGS = ("python", "ts", "go", "bash", "sql", "rust")
EXCEPTIONS = ("ValueError", "KeyError", "TypeError", "RuntimeError", "IntegrityError", "TimeoutError")

SHORT_ACKS = (
    "thanks!",
    "ok",
    "ok.",
    "cool",
    "perfect, thanks",
    "nice",
    "thank you",
    "sounds good",
    "got it",
    "hmm",
    "hi there",
    "hello, quick one",
    "bye for now",
    "sure, go on",
    "makes sense",
    "de nada",
    "gracias",
    "bien",
    "yes",
    "no",
    "one sec",
    "continue",
)

DECISIONS = (
    "APPROVED — ship it.",
    "LGTM, merge it.",
    "Decision: we go with the {w} {w} and drop the {w} {w}.",
    "Let's go with option B: {s}",
    "Approved. Merge after the {w} {w} passes.",
    "go ahead with the {w} {w}",
    "No. We keep the {w} {w} as it is; {s}",
    "We decided to {v} the {w} {w} first.",
    "BLOCKED until the {w} {w} is fixed.",
    "Final call: {s}",
)

# Non-ASCII turns: Spanish with accents, CJK, emoji.
SPANISH = (
    "Revisé la función {i} y creo que el índice está mal; ¿podemos añadir una migración?",
    "La sesión caducó otra vez después de la actualización — ¿qué opciones tenemos?",
    "Aprobado: súbelo cuando pasen las pruebas de integración. ¡Gracias!",
    "Decidimos mantener el diseño actual; la compresión se aplicará después.",
    "El módulo {i} falla con caracteres acentuados: «niño», «camión», «pingüino».",
    "Necesitamos más información sobre el error en producción, por favor.",
)
CJK = (
    "请检查这个函数的返回值。我们需要在发布前修复它。",
    "このテストは失敗しています。修正をお願いします。",
    "日志里有很多超时错误，可能是连接池太小了。",
    "設定ファイルの読み込みが遅いので、キャッシュを追加しましょう。",
    "이 변경 사항을 검토해 주세요. 테스트는 모두 통과했습니다.",
)
EMOJI = ("🙂", "🚀", "👍", "🔥", "✅", "❌", "🤔", "🎉", "⚠️", "🐛")

KINDS: tuple[tuple[str, float], ...] = (
    ("prose", 0.20),
    ("code", 0.14),
    ("diff", 0.10),
    ("traceback", 0.08),
    ("review", 0.10),
    ("spec", 0.08),
    ("decision", 0.08),
    ("ack", 0.22),
)
_KIND_NAMES = tuple(k for k, _ in KINDS)
_KIND_WEIGHTS = tuple(w for _, w in KINDS)


class _Gen:
    """One seeded source of turns."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # -- small pieces ---------------------------------------------------------------
    def word(self) -> str:
        return self.rng.choice(WORDS)

    def ident(self) -> str:
        r = self.rng
        return f"{r.choice(WORDS)}_{r.choice(WORDS)}" if r.random() < 0.7 else r.choice(WORDS)

    def sentence(self, lo: int = 6, hi: int = 18) -> str:
        r = self.rng
        words = r.choices(WORDS, k=r.randint(lo, hi))
        if r.random() < 0.3:
            words[r.randrange(len(words))] = f"`{self.ident()}()`"
        text = " ".join(words)
        return text[0].upper() + text[1:] + r.choice(".....?!")

    def paragraph(self, lo: int = 2, hi: int = 6) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(lo, hi)))

    def fill(self, template: str) -> str:
        out = template
        while "{w}" in out:
            out = out.replace("{w}", self.word(), 1)
        while "{i}" in out:
            out = out.replace("{i}", self.ident(), 1)
        while "{v}" in out:
            out = out.replace("{v}", self.rng.choice(VERBS), 1)
        while "{s}" in out:
            out = out.replace("{s}", self.sentence(), 1)
        return out

    def path(self) -> str:
        r = self.rng
        return f"src/{r.choice(WORDS)}/{self.ident()}.{r.choice(('py', 'ts', 'go'))}"

    # -- turn kinds -------------------------------------------------------------------
    def prose(self) -> str:
        r = self.rng
        parts = []
        if r.random() < 0.5:
            parts.append(f"{'#' * r.randint(1, 3)} {self.sentence(2, 5).rstrip('.?!')}")
        for _ in range(r.randint(1, 4)):
            parts.append(self.paragraph())
            if r.random() < 0.4:
                parts.append("\n".join(f"- {self.sentence(4, 10)}" for _ in range(r.randint(2, 6))))
        return "\n\n".join(parts)

    def code_lines(self, n: int) -> list[str]:
        r = self.rng
        lines = [f"def {self.ident()}({self.ident()}, {self.ident()}):"]
        for _ in range(n):
            indent = "    " * r.randint(1, 3)
            lines.append(
                indent
                + r.choice(
                    (
                        f"{self.ident()} = {self.ident()}({self.ident()})",
                        f"if {self.ident()} is None:",
                        f"return {self.ident()}",
                        f"for {self.word()} in {self.ident()}:",
                        f"{self.ident()}.append({self.ident()})",
                        f"log.info('{self.word()} %s', {self.ident()})",
                        f"# {self.sentence(3, 8)}",
                    )
                )
            )
        return lines

    def code(self) -> str:
        r = self.rng
        lang = r.choice(LANGS)
        body = "\n".join(self.code_lines(r.randint(4, 40)))
        lead = self.sentence() + "\n\n" if r.random() < 0.6 else ""
        tail = "\n\n" + self.sentence() if r.random() < 0.3 else ""
        return f"{lead}```{lang}\n{body}\n```{tail}"

    def diff(self) -> str:
        r = self.rng
        out = []
        for _ in range(r.randint(1, 3)):
            p = self.path()
            a = r.randint(1, 400)
            out += [
                f"diff --git a/{p} b/{p}",
                f"index {r.getrandbits(28):07x}..{r.getrandbits(28):07x} 100644",
                f"--- a/{p}",
                f"+++ b/{p}",
            ]
            for _ in range(r.randint(1, 3)):
                body = self.code_lines(r.randint(3, 14))
                out.append(f"@@ -{a},{len(body)} +{a},{len(body) + 1} @@ def {self.ident()}():")
                for line in body:
                    out.append(r.choice(" -+  ") + line)
                a += r.randint(20, 80)
        return "\n".join(out)

    def traceback(self) -> str:
        r = self.rng
        out = [self.sentence() + "\n", "Traceback (most recent call last):"]
        for _ in range(r.randint(2, 9)):
            out.append(f'  File "/srv/app/{self.path()}", line {r.randint(1, 900)}, in {self.ident()}')
            out.append(f"    {self.ident()} = {self.ident()}({self.ident()})")
        out.append(f"{r.choice(EXCEPTIONS)}: {self.sentence(3, 9)}")
        return "\n".join(out)

    def review(self) -> str:
        r = self.rng
        out = []
        if r.random() < 0.5:
            out.append(f"## Review of {self.path()}\n")
        for _ in range(r.randint(2, 7)):
            out.append(
                r.choice(
                    (
                        f"G{r.randint(1, 9)} {self.word()} {r.choice(('PASS', 'FAIL', 'WARN'))}: "
                        f"{r.randint(0, 300)}/{r.randint(300, 400)} suites",
                        f"- {r.choice(('nit', 'blocking', 'suggestion'))}: {self.sentence()}",
                        f"Review finding: {self.sentence()}",
                        f"WARN: {self.sentence(4, 10)}",
                        f"score: {r.randint(1, 10)}/10",
                        f"The auditor noted: {self.sentence()}",
                    )
                )
            )
        out.append(f"VERDICT: {r.choice(('PASS', 'FAIL', 'changes requested'))}")
        return "\n".join(out)

    def spec(self) -> str:
        r = self.rng
        n = r.randint(10, 999)
        out = [
            "---",
            f"spec_id: SPEC-{n}",
            f"status: {r.choice(('draft', 'accepted', 'review'))}",
            f"origin: PBI-{r.randint(100, 9999)}",
            "---",
            f"# SPEC-{n}: {self.sentence(3, 6).rstrip('.?!')}",
            "",
            self.paragraph(1, 3),
            "",
            "## Acceptance criteria",
        ]
        for i in range(1, r.randint(3, 9)):
            out.append(f"- AC-{i:02d}: {self.sentence()}")
        return "\n".join(out)

    def decision(self) -> str:
        return self.fill(self.rng.choice(DECISIONS))

    def ack(self) -> str:
        return self.rng.choice(SHORT_ACKS)

    def non_ascii(self) -> str:
        r = self.rng
        parts = []
        for _ in range(r.randint(1, 5)):
            pick = r.random()
            if pick < 0.45:
                parts.append(self.fill(r.choice(SPANISH)))
            elif pick < 0.8:
                parts.append(r.choice(CJK))
            else:
                parts.append(self.sentence() + " " + r.choice(EMOJI))
        if r.random() < 0.5:
            parts.append(r.choice(EMOJI) * r.randint(1, 3))
        return "\n".join(parts) if r.random() < 0.5 else " ".join(parts)

    def turn(self) -> tuple[str, str]:
        """(kind, text) of one turn."""
        r = self.rng
        if r.random() < NON_ASCII_SHARE:
            return "non-ascii", self.non_ascii()
        kind = r.choices(_KIND_NAMES, weights=_KIND_WEIGHTS)[0]
        maker: Callable[[], str] = getattr(self, kind)
        return kind, maker()


def turns(seed: int = SEED) -> Iterator[tuple[str, str]]:
    """An endless, deterministic stream of (kind, turn text)."""
    gen = _Gen(seed)
    while True:
        yield gen.turn()


@dataclass(frozen=True)
class Workload:
    """A generated document and what is in it."""

    name: str
    text: str
    nbytes: int
    kinds: dict[str, int]

    @property
    def nturns(self) -> int:
        return sum(self.kinds.values())

    def describe(self) -> str:
        mix = ", ".join(f"{k} {v}" for k, v in sorted(self.kinds.items(), key=lambda kv: -kv[1]))
        return f"{self.name}: {self.nbytes:,} bytes, {self.nturns:,} turns ({mix})"


def _join(parts: list[str]) -> str:
    return f"\n{SEPARATOR}\n".join(parts) + "\n"


@lru_cache(maxsize=16)
def transcript_workload(size: int, seed: int = SEED) -> Workload:
    """`---TURN---`-separated turns until at least `size` UTF-8 bytes."""
    parts: list[str] = []
    kinds: Counter[str] = Counter()
    total = 0
    sep = len(SEPARATOR) + 2
    for kind, text in turns(seed):
        if total >= size:
            break
        parts.append(text)
        kinds[kind] += 1
        total += len(text.encode("utf-8")) + sep
    text = _join(parts)
    return Workload(f"transcript {_human(size)}", text, len(text.encode("utf-8")), dict(kinds))


def transcript(size: int, seed: int = SEED) -> str:
    return transcript_workload(size, seed).text


def prompt_2kb(kind: str, seed: int = SEED, size: int = 2048) -> str:
    """A ~2 KB prompt made of turns of one kind (padded with prose), cut at a line end."""
    gen = _Gen(seed + sum(map(ord, kind)))
    maker: Callable[[], str] = getattr(gen, kind)
    parts: list[str] = []
    total = 0
    while total < size:
        piece = maker() if not parts or kind != "ack" else gen.prose()
        parts.append(piece)
        total += len(piece.encode("utf-8")) + 2
    text = "\n\n".join(parts)
    data = text.encode("utf-8")[:size].decode("utf-8", errors="ignore")
    cut = data.rfind("\n")
    return data[:cut] if cut > size // 2 else data


@lru_cache(maxsize=4)
def prompts_2kb(seed: int = SEED) -> tuple[str, ...]:
    """One ~2 KB prompt per turn kind (the mix a router sees)."""
    return tuple(
        prompt_2kb(kind, seed)
        for kind in ("prose", "code", "diff", "traceback", "review", "spec", "decision", "non_ascii")
    )


def write_archive(folder: Path, total: int, seed: int = SEED) -> tuple[int, int]:
    """A transcript archive of about `total` bytes in `folder`: files of 0.2–2 MB, each a random
    sample of a ~4 MB pool of generated turns. Returns (files, bytes)."""
    rng = random.Random(seed)
    pool = transcript(4_000_000, seed + 1).split(f"\n{SEPARATOR}\n")
    folder.mkdir(parents=True, exist_ok=True)
    written = files = 0
    while written < total:
        want = min(rng.randint(200_000, 2_000_000), max(10_000, total - written))
        parts: list[str] = []
        size = 0
        while size < want:
            turn = pool[rng.randrange(len(pool))]
            parts.append(turn)
            size += len(turn) + len(SEPARATOR) + 2
        data = _join(parts).encode("utf-8")
        sub = folder / f"{files // 50:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"session-{files:04d}.md").write_bytes(data)
        written += len(data)
        files += 1
    return files, written


def _human(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:g} MB"
    if n >= 1_000:
        return f"{n / 1_000:g} KB"
    return f"{n} B"


if __name__ == "__main__":
    wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    w = transcript_workload(wanted)
    print(w.describe(), file=sys.stderr)
    sys.stdout.write(w.text)
