"""The embedded labeler: a learned model over the label pack's rule firings and n-grams.

Offline, deterministic and explainable: every label comes with its probability,
the features that pushed it and the rules that fired (with the text they fired
on), so a user can see why a prompt got its effort. It always answers one of
the five labels; the rules alone (`use_model=False`) are kept for comparison.

A person's request is never `chat` (docs/labels.md, Part 2: chat is greetings, thanks,
acknowledgements *with no task*): the model reads few words in a short request ("help me with
this", "看一下这个报错", "ayúdame con el login") and calls it chat, which gives work no route. A
prompt that asks for something (`core.prompt_shapes.asks`: a few words, not opening on a
greeting, a thanks or an acknowledgement) takes the most probable of the labels that route,
unless the guide calls it chat: a bare pick or go-ahead (`core.picks.bare_pick`; said in a few
clauses, "let's do both, one at a time", `said_go_ahead`; a resume alone, "ok, keep going",
`said_resume`), a standing rule with no task of its own (`core.prompt_shapes.standing_rule`), a
question to the agent about itself ("what model is this?": `core.prompt_shapes.about_the_agent`),
or a report that something is done or works now, with no request (`core.outcomes.reports_done`,
and in a person's words, `core.prompt_shapes.tells_done`).

A symptom told in a few words with no change asked for ("still not working after the update", "o
botão de salvar não funciona") is analysis (Part 2: the agent must find out why first), which the
model's words outweigh: they met such words in requests for code. Where the label pack's
`analysis.symptom` fired or the prompt tells a failure as it is seen
(`core.prompt_shapes.tells_failure`: "keeps crashing", "ainda trava", "闪退"), no coding rule fired,
and the prompt is a plain report
(`core.prompt_shapes.plain_report`: no "fix it", no requirement such as "it should …", no error
pasted, a line or two), the labeler answers analysis (or chat, when the model finds that likelier).

Seven more cases the guide settles and the model's words do not (Part 2):
- A bare go-ahead or pick ("yeah lets do it.", "お願いします。", "1) B 2) A") is chat: the route was
  set when the work was asked. The model, which met "do it" in requests, says coding. So is a
  question to the agent about itself that the model reads as work ("can you run commands?", "do
  you use bash?": `core.prompt_shapes.about_the_agent`; Part 2's "can you see images?"), and a
  standing rule with no task of its own ("Please always reply in Portuguese.": one sentence,
  `core.prompt_shapes.rule_alone`), and a report that something is done or works now, with no
  request ("the build works now", "I removed the old config file", "部署完成", "Всё готово, я
  включил биллинг": `core.prompt_shapes.tells_done`, each clause a state told, a social word or a
  resume, at most 160 characters); the model met "works", "removed" and "完成" in requests.
- What comes next asked ("what's next?", "接下来该做什么", "뭐부터 하면 돼?":
  `core.prompt_shapes.asks_next_step`, at most 400 characters) is design: the next steps are a
  plan. The model, which met "what" and "how" in questions, says analysis.
- A question about the work with no change asked for ("the login form only supports email?",
  "この設定は本番でも有効？", "this only supports one line?") is analysis: the agent explains. Where the model
  says coding or bookkeeping (or design, where none of the pack's design rules fired and no
  options are asked for, `core.prompt_shapes.asks_for_options`: "is a local server needed
  to start this game?", "サブエージェントをスキルに置き換えたら、設定はどうなるの？"), no coding rule
  fired, the prompt is a plain report, it ends as a
  question, asks one in words with no mark ("how can I test the model with this dataset",
  "后端如何启动": `core.prompt_shapes.asks_in_words`) or one of the pack's question rules fired,
  and it is no request phrased as a question
  ("can you add …?", "帮我…", "してもらっていい？": `core.prompt_shapes.polite_request`), the labeler
  answers analysis: no change asked rules out coding and bookkeeping, and a question about the work
  asks for work, so it is not chat. (The likelier of analysis and design routed status questions,
  "did you rebuild everything?", to plan; the likelier of analysis and chat left six more that
  ask for work with no route.)
- A plan asked for ("write a detailed plan in TODO.md", "create an implementation plan", "制定一个
  迁移方案") is design: the deliverable is the plan, not the code
  (`core.prompt_shapes.asks_for_plan`: a verb of making, then a plan, a roadmap, a design document,
  an architecture or a spec to be written, "write a PRD for the export", "요구사항 문서를 작성해 줘";
  a plan or a spec only named, "follow the plan", "make it match the spec", is not asked for).
  Where the model says coding, the labeler answers design (or chat, when the model finds that
  likelier).
- A run asked for with no change ("run the benchmark script", "execute the failing test",
  "请运行一下所有测试": the pack's `bookkeeping.run` fired, no coding rule did, a plain report) is
  bookkeeping where the model says coding: Part 2's "run a command".
- A document to write ("add an installation section to README.md", "update the docs",
  "把readme全部翻译成中文": `core.prompt_shapes.writes_document`, a README, docs, a guide or a
  Markdown file named with no word of a mechanical change, and no mechanical rule of the pack fired)
  is coding where the model says bookkeeping: Part 2's "writing, updating, condensing or
  translating a document → coding". The model met "README" and "docs" in changelog lines and moves.
- An error pasted with no request (`core.prompt_shapes.pasted_error`) is coding when it is a build,
  compile or type error that names the place to change (`core.prompt_shapes.build_error`:
  "app.ts:14:9 - error TS2322", "Cannot find module"), and analysis when it is a failure at run
  time ("Error: connect ECONNREFUSED", a traceback), whatever the model says, chat included.

The guide's evidence also meets a request the model called chat, once it has taken the likeliest
label that routes ("看一下这个报错": look at this error, a symptom told, so analysis).

Each answer the guide's evidence gives states how often such answers were right on real prompts
(`[evidence]` in the router's `defaults.toml`, fitted by `scripts/fit_evidence.py`), not the
model's probability renormalised over the labels the rule allows, which says 100 % where a rule
allows one label and about half of the question rule's answers are right.
"""

from __future__ import annotations

from turnlens.core.classify import decide
from turnlens.core.engine import Signal, score
from turnlens.core.prebuilt import compile_re
from turnlens.core.record import Record
from turnlens.core.rules import RulePack
from turnlens.learn.infer import label_pack
from turnlens.router.vocabulary import DEFAULTS

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    from typing import Final

    from turnlens.core.engine import Score
    from turnlens.learn.model import Contribution, Model, Prediction
    from turnlens.learn.phrases import Phrase
    from turnlens.learn.scorer import Scorer

__all__ = ["Labeling", "asks_for_work", "label_pack", "label_text", "strip_directive"]

# A leading `/route <word>` is an instruction to the router, not part of the request.
_DIRECTIVE = compile_re(r"\A[ \t\r\n]*/route[ \t]+\S+[ \t]*")
# the labels that say a prompt asks for no work: those the vocabulary gives no phase (chat)
_NO_TASK = frozenset(label for label, phase in DEFAULTS.labels.items() if phase is None)
# why a request's label is not one of them, for the explanation
REQUEST_WHY = "a person's request asks for work: not chat"
# the label pack's rule that tells a symptom (see the module), the label a plain report of one
# takes, the label whose rules ask for a change, and why, for the explanation
SYMPTOM_RULE = "analysis.symptom"
_FIND_OUT = "analysis"
_CHANGE_CODE = "coding"
SYMPTOM_WHY = "a symptom told, no change asked: its cause comes first"
# the pack's rules that ask a question about the work, and why such a question is analysis
QUESTION_RULES = frozenset(
    {
        "analysis.why",
        "analysis.explain",
        "analysis.investigate",
        "analysis.cause",
        "analysis.measure",
        "analysis.yes-no",
        "analysis.wh-question",
    }
)
_APPLY = "bookkeeping"
QUESTION_WHY = "a question about the work, no change asked: the agent explains"
# the label of a plan asked for, and why
_PLAN = "design"
PLAN_WHY = "a plan asked for: the plan is the deliverable, not the code"
PICK_WHY = "a go-ahead with no task of its own: the route was set when the work was asked"
ABOUT_WHY = "a question to the agent about itself asks for no work: no route"
STANDING_WHY = "a standing rule with no task of its own sets no route"
NEXT_WHY = "what comes next asked: the next steps are a plan"
DONE_WHY = "a report that something is done or works now, with no request: no route"
EXAMINE_WHY = "a reading or a check asked, no change: an investigation"
BUILD_WHY = "a build error pasted with no request: the fix is the work"
# the pack's rule that asks to run something, and why such a request with no change is bookkeeping
RUN_RULE = "bookkeeping.run"
RUN_WHY = "a run asked for, no change: the agent runs it"
RUNTIME_WHY = "a failure at run time pasted with no request: its cause comes first"
# the pack's rule that names a document, and why writing one is coding, not bookkeeping
DOC_RULE = "bookkeeping.docs"
DOC_WHY = "a document to write or change: the writing is the work, not a mechanical change"
# each answer from the guide's evidence by its name in `defaults.toml`'s [evidence], which says how
# sure such an answer is: how often it was right on real text (the model's renormalised confidence
# said 100 % for answers about half of which were right)
EVIDENCE_NAMES: Final = {
    REQUEST_WHY: "request",
    PICK_WHY: "pick",
    ABOUT_WHY: "about",
    STANDING_WHY: "rule",
    NEXT_WHY: "next",
    DONE_WHY: "done",
    EXAMINE_WHY: "examine",
    BUILD_WHY: "build",
    RUNTIME_WHY: "runtime",
    PLAN_WHY: "plan",
    SYMPTOM_WHY: "symptom",
    QUESTION_WHY: "question",
    RUN_WHY: "run",
    DOC_WHY: "document",
}
# the pack's chat score that says chat in words of its own: a greeting, a thanks or small talk
# weighs 2 or more, where `chat.few-words` (a few plain words, which a short request is too) weighs 1
OWN_CHAT_WORDS = 2


class Labeling(Record):
    """What the labeler said: a label (the rules alone: None when no rule fired), the rule
    scores, the evidence, and the model's confidence. (A frozen record, as a frozen dataclass.)"""

    _fields = (
        "label",
        "scores",
        "signals",
        "confidence",
        "engine",
        "features",
        "probabilities",
        "phrases",
        "evidence",
    )
    __slots__ = _fields
    label: str | None
    scores: dict[str, int]
    signals: tuple[Signal, ...]
    confidence: float
    engine: str
    features: tuple[Contribution, ...]
    probabilities: dict[str, float] | None
    # the words of the prompt that pushed the label (model engine, when explained)
    phrases: tuple[Phrase, ...]
    # what the prompt's shape ruled out, and why (`REQUEST_WHY`), or None
    evidence: str | None

    def __init__(
        self,
        label: str | None,
        scores: dict[str, int],
        signals: tuple[Signal, ...],
        confidence: float = 1.0,
        engine: str = "rules",
        features: tuple[Contribution, ...] = (),
        probabilities: dict[str, float] | None = None,
        phrases: tuple[Phrase, ...] = (),
        evidence: str | None = None,
    ) -> None:
        values = (label, scores, signals, confidence, engine, features, probabilities, phrases, evidence)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    def explain(self) -> str:
        """`coding 87% ("add a flag", coding.verb "add")` (model: the prompt's words that pushed
        it, then the rules that fired for it) or
        `design 6 (design.tradeoffs "trade-offs", design.verb "propose")` (rules)."""
        if self.engine == "model":
            parts = [f'"{p.text}"' for p in self.phrases[:3]]
            parts += [f'{s.rule} "{s.text}"' for s in self.signals if s.text and s.category == self.label][:2]
            if not parts:  # no words of its own pushed it: name the strongest signals
                parts = [c.label() for c in self.features if c.kind == "d"][:2]
            if self.evidence is not None:
                parts.insert(0, self.evidence)
            return f"{self.label} {self.confidence:.0%}" + (f" ({', '.join(parts)})" if parts else "")
        if self.label is None:
            return "no label rule fired"
        fired = [s for s in self.signals if s.category == self.label]
        parts = [f'{s.rule} "{s.text}"' if s.text else s.rule for s in fired]
        return f"{self.label} {self.scores[self.label]} ({', '.join(parts)})"


def strip_directive(text: str) -> str:
    return _DIRECTIVE.sub("", text, count=1)


def label_text(
    text: str,
    pack: RulePack | None = None,
    *,
    explain: bool = True,
    model: Model | None = None,
    use_model: bool = True,
    scorer: Scorer | None = None,
) -> Labeling:
    """Label a prompt (or its sample) with the model (`model`, else the packaged one) or with
    `scorer` (the optional encoder engine: `turnlens.learn.encoder`); with `use_model=False`,
    with the rules alone (ties go to the label listed first)."""
    pack = pack or label_pack()
    body = strip_directive(text)
    result = score(body, pack, explain=explain)
    if not use_model:
        return Labeling(decide(result, pack), result.scores, result.signals)
    from turnlens.core.prompt_shapes import pasted_error
    from turnlens.learn.model import packaged_model
    from turnlens.learn.scorer import scorer_for

    if scorer is None:
        scorer = scorer_for(model or packaged_model("labels"))
    pushes: tuple[Contribution, ...] = ()
    found: tuple[Phrase, ...] = ()
    if explain:
        prediction, (pushes, _, found) = scorer.predict_explained(body, result, each=3, phrases=3)
    else:
        prediction = scorer.predict(body, result)
    evidence = None
    said = prediction
    # the pack's own chat words keep the chat answer
    said_chat = result.scores.get(prediction.label, 0) >= OWN_CHAT_WORDS
    if prediction.label in _NO_TASK and not said_chat and asks_for_work(body):
        from turnlens.learn.model import Model

        work = tuple(label for label in prediction.probabilities if label not in _NO_TASK)
        prediction, evidence = Model.restrict(prediction, work), REQUEST_WHY
        guided, why = _guide_evidence(body, result, prediction)
        if why is not None:
            prediction, evidence = guided, why
    elif prediction.label not in _NO_TASK or pasted_error(body):
        prediction, evidence = _guide_evidence(body, result, prediction)
    if evidence is not None:
        prediction = _stated(prediction, said, evidence)
    return Labeling(
        prediction.label,
        result.scores,
        result.signals,
        confidence=prediction.confidence,
        engine="model",
        features=pushes,
        probabilities=prediction.probabilities,
        phrases=found,
        evidence=evidence,
    )


def _stated(prediction: Prediction, said: Prediction, evidence: str) -> Prediction:
    """The guide's answer with the confidence `defaults.toml` gives its evidence; the rest of the
    probability goes to the other labels as the model (`said`) shared it, none of them above the
    answer (what one would take over it goes to the others)."""
    from turnlens.learn.model import Prediction
    from turnlens.router.vocabulary import evidence_floor, vocabulary

    pct = vocabulary().evidence.get(EVIDENCE_NAMES.get(evidence, ""))
    labels = list(said.probabilities)
    if pct is None or len(labels) < 2 or pct < evidence_floor(len(labels)):
        return prediction  # (validated data has none such: the answer could not stay first)
    sure = pct / 100
    rest = 1.0 - sure
    shares = {c: said.probabilities[c] + 1e-9 for c in labels if c != prediction.label}
    full = {prediction.label: sure}
    while shares:
        total = sum(shares.values())
        over = [c for c, p in shares.items() if rest * p / total > sure]
        if not over:
            full.update({c: rest * p / total for c, p in shares.items()})
            break
        for c in over:
            full[c] = sure
            rest -= sure
            del shares[c]
    return Prediction(prediction.label, sure, {c: full.get(c, 0.0) for c in labels})


def _guide_evidence(body: str, result: Score, prediction: Prediction) -> tuple[Prediction, str | None]:
    """The model's routing answer, or the answer the guide gives (see the module), with why: a
    go-ahead, a question to the agent about itself or a standing rule alone is chat, what comes
    next asked is design, a pasted error is coding (a build error) or analysis (a failure at run
    time), a plan asked for is design, a document to write is coding, a symptom told or a
    question asked with no change is analysis, a run asked for with no change is bookkeeping."""
    from turnlens.core.picks import goes_ahead
    from turnlens.learn.model import Model

    if goes_ahead(body):
        return Model.restrict(prediction, tuple(_NO_TASK)), PICK_WHY
    from turnlens.core.prompt_shapes import (
        ABOUT_ALONE_MAX,
        about_the_agent,
        asks_next_step,
        build_error,
        pasted_error,
        rule_alone,
        tells_done,
    )

    # a question to the agent about itself, a standing rule alone or a report that something is
    # done, which the model read as work ("can you run commands?", "Please always reply in
    # Portuguese.", "the build works now"): short prompts only
    if prediction.label not in _NO_TASK:
        if len(body.strip()) <= ABOUT_ALONE_MAX and about_the_agent(body):
            return Model.restrict(prediction, tuple(_NO_TASK)), ABOUT_WHY
        if rule_alone(body):
            return Model.restrict(prediction, tuple(_NO_TASK)), STANDING_WHY
        if tells_done(body):
            return Model.restrict(prediction, tuple(_NO_TASK)), DONE_WHY

    if pasted_error(body):
        if build_error(body):
            return Model.restrict(prediction, (_CHANGE_CODE,)), BUILD_WHY
        return Model.restrict(prediction, (_FIND_OUT,)), RUNTIME_WHY
    if prediction.label not in _NO_TASK and asks_next_step(body):
        return Model.restrict(prediction, (_PLAN,)), NEXT_WHY
    if prediction.label == _FIND_OUT:
        return prediction, None
    from turnlens.core.prompt_shapes import (
        asks_for_options,
        asks_for_plan,
        asks_in_words,
        asks_to_examine,
        ends_question,
        plain_report,
        polite_request,
        tells_failure,
        writes_document,
    )

    if prediction.label == _CHANGE_CODE and asks_for_plan(body):
        allowed = tuple(c for c in prediction.probabilities if c == _PLAN or c in _NO_TASK)
        return Model.restrict(prediction, allowed), PLAN_WHY
    # a reading or a check asked for, no change asked and no coding rule fired ("read the docs")
    if (
        prediction.label in (_CHANGE_CODE, _APPLY)
        and not result.scores.get(_CHANGE_CODE)
        and asks_to_examine(body)
    ):
        return Model.restrict(prediction, (_FIND_OUT,)), EXAMINE_WHY
    # a document to write, and no mechanical rule of the pack fired (its own word for a document,
    # "update the docs", is no mechanical change; its others are)
    if (
        prediction.label == _APPLY
        and writes_document(body)
        and all(s.category != _APPLY or s.rule == DOC_RULE for s in result.signals)
    ):
        return Model.restrict(prediction, (_CHANGE_CODE,)), DOC_WHY
    # the cheap tests first: most prompts fire a coding rule or are longer than a plain report
    if result.scores.get(_CHANGE_CODE) or not plain_report(body):
        return prediction, None
    fired = {s.rule for s in result.signals}
    if SYMPTOM_RULE in fired or tells_failure(body):
        allowed = tuple(c for c in prediction.probabilities if c == _FIND_OUT or c in _NO_TASK)
        return Model.restrict(prediction, allowed), SYMPTOM_WHY
    # design only where none of the pack's design rules fired ("how should we structure …?" is
    # one) and no options are asked for ("is there some other way to do this?")
    asks_about_work = prediction.label in (_CHANGE_CODE, _APPLY) or (
        prediction.label == _PLAN and not result.scores.get(_PLAN) and not asks_for_options(body)
    )
    if (
        asks_about_work
        and (not QUESTION_RULES.isdisjoint(fired) or ends_question(body) or asks_in_words(body))
        and not polite_request(body)
    ):
        # the agent explains: not a change, and not chat (a question about the work asks for work)
        allowed = tuple(c for c in prediction.probabilities if c == _FIND_OUT)
        return Model.restrict(prediction, allowed), QUESTION_WHY
    if prediction.label == _CHANGE_CODE and RUN_RULE in fired:
        # nothing to change: the agent runs what it was asked to run
        return Model.restrict(prediction, (_APPLY,)), RUN_WHY
    return prediction, None


def asks_for_work(text: str) -> bool:
    """Whether a prompt is a person's request for work (see the module): it asks, and is not
    one of the prompts Part 2 calls chat (a bare pick or go-ahead, a standing rule with no task,
    a question to the agent about itself, a report that something is done)."""
    from turnlens.core.outcomes import reports_done
    from turnlens.core.picks import goes_ahead
    from turnlens.core.prompt_shapes import about_the_agent, asks, standing_rule, tells_done

    if not asks(text):
        return False
    return not (
        goes_ahead(text)
        or standing_rule(text)
        or about_the_agent(text)
        or reports_done(text)
        or tells_done(text)
    )
