"""What a message of an issue or pull-request thread settles in a few words.

Two kinds of thread message are short and say all they mean in a handful of words the model,
which reads words, sees too rarely to weigh: a **triage outcome** ("Closing as won't fix",
"Merged, thanks!", "Reverting #4412; it broke ARM", "マージしました", "Lo cierro", "已合并"; a close
said without the word, "Duplicate of #12", and the notices GitHub writes for a revert or a moved
issue, "Reverts owner/repo#188", "This issue was moved to owner/repo#28") is a
decision, and a **+1, me too or ping** ("+1", "same here", "any update?", "我也是", "同じく")
is chitchat (docs/labels.md, Part 1: decision, chitchat). Both are the guide's own examples.

Only a conversation turn is read this way (a unit with no kind: a thread message, a turn of a
chat export): a person's prompt has its own evidence (`core.picks`) and an agent's reply never
decides. The outcome must stand at a sentence start, followed by a reason word or the end of
the sentence, so "closing the file handle" and a coverage bot's "Merging #123 into main
will…" do not count; a long text counts only when its first line says it (a long report with
"merged" somewhere in it is a report), and a +1 only when it opens a short text ("me too" and
then a report with the details is context).

A bare **approval** is a decision too: the whole message approves and says nothing more ("LGTM",
"looks good to me, thanks", "CR 👍", "特に問題ありません", "没问题，可以合并", "sieht gut aus");
"LGTM, but rename `x`" is a review, and the model decides it.

And a message may say only that the work is done: a maintainer's bare **"fixed", "done" or "should
be fine now"** ("Fixed in 2.3.", "修正しました", "düzeltildi", "исправлено") reports a state, which
is context (docs/labels.md, Part 1: "Mixed turns"); the model, which reads a handful of words,
takes it for chitchat or a review. Only a whole message counts: the word, at most what fixed it
or where ("in 2.3", "by #812", "now"), a thanks, punctuation; anything more is left to the
model, and a close said with it ("Fixed, closing") is the triage outcome's.

A short message that tells how the software behaves ("Works fine on Fedora 40.", "Same on
Pixel 7", "编译这一步报错了", "исправил ссылку в README", "Working again after the update, thx!") is a status,
which the guide calls context, not chitchat (docs/labels.md, Part 1: context, "status updates,
descriptions of the current state"; chitchat is "social or content-free"). The model, which reads
a handful of words and a thanks, takes it for chitchat; `tells_state` leaves it every class but
chitchat. A +1 ("same problem", "me too") stays chitchat: it is asked first.

A CI bot's message that opens on a build's verdict ("Build succeeded! [Build … completed](…)",
"All checks have passed") is a review (Part 1: review, CI reports; "a CI bot saying 'all checks
passed' → review"); the model, which reads a link and a handful of words, calls it context.

A short message that only tells a failure as it is seen ("Crashes at launch", "Il salvataggio non funziona",
"not able to log in on mobile") is a bug report, context or code (`core.prompt_shapes.reports_failure`):
the model, which met "doesn't work" mostly in review remarks, reads a review. It is asked after
the outcome, the +1, the approval and the "fixed", and before the status.

These are core patterns, not rules of a pack: a pack's rules are features of the learned
model, whose shipped weights must be what training on the shipped corpus gives.
"""

from __future__ import annotations

from turnlens.core.cjk import text_words
from turnlens.core.prebuilt import IGNORECASE, MULTILINE, compile_re

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    import re
    from typing import Final

# the longest text (in words, CJK counted as the learned features count it) in which an
# outcome or a +1 anywhere settles the class; the same bound as a person's stated choice
OUTCOME_MAX_WORDS: Final = 60
# and characters: a text longer than this is not short whatever its words (60 words of prose
# are about 400)
SHORT_CHARS: Final = 1000

TRIAGE_WHY: Final = "a thread message that says a triage outcome (closing as, merged, reverting): decision"
ME_TOO_WHY: Final = "a thread message that is a +1, a me too or a ping for news: chitchat"
DONE_WHY: Final = "a thread message that only says it is fixed or done reports a state: context"
APPROVAL_WHY: Final = "a thread message that is a bare approval (LGTM, looks good, CR 👍): decision"
CI_WHY: Final = (
    "a thread message that opens on a CI build's verdict (Build succeeded, all checks passed): review"
)
STATE_WHY: Final = "a short thread message that tells how the software behaves is a status: not chitchat"
# the classes a status may take: any but chitchat
STATE_CLASSES: Final = ("decision", "spec", "code", "review", "context")
# the longest message read for a state told (characters, trimmed)
STATE_MAX: Final = 200

# a sentence start: the line's start (after a bullet or an emoji) or after a full stop
_START = r"(?:^[^\w\n]{0,3}|[.!;][ \t]+)"
_WHO = r"(?:(?:i'?m|i am|i'?ll|i will|we'?re|we are|we'?ll|we will|so|ok|okay)[ \t]+)?"
_GERUND_AFTER = (
    r"(?:[ \t]*(?:[.!,:;—–]|$)|[ \t]+(?:as|since|because|due|for now|now|in favou?r|per|after|this|"
    r"it|the (?:issue|pr|pull request|ticket|thread|discussion))\b)"
)
_DONE_AFTER = (
    r"(?:[ \t]*(?:[.!,:;—–]|$)|[ \t]+(?:as|since|because|due|via|in|into|with|manually|now|thanks|"
    r"this|it|the|some|your|per|after)\b)"
)
_TRIAGE = "|".join(
    (
        rf"{_START}{_WHO}(?:closing|reopening|re-opening|merging|reverting){_GERUND_AFTER}",
        rf"{_START}(?:reverting|reopening)[ \t]+#\d",
        # "Merging https://…/pull/57", "Merging #88"
        rf"{_START}{_WHO}merging[ \t]+(?:https?://[^\s]++|#\d++)(?=[ \t]*+(?:[.!,:;—–]|$))",
        # "OK. This issue can be closed now.", "it should be closed now" (said of the thread), "se puede cerrar"
        rf"{_START}(?:this|it)[ \t]+(?:issue[ \t]+|pr[ \t]+)?(?:can|could|should|may)[ \t]+(?:now[ \t]+)?be[ \t]+closed"
        r"(?=[ \t]*+(?:[.!,:;—–)]|$|now\b|as\b|since\b|because\b))",
        r"(?<!no[ \t])\bse[ \t]+puede[ \t]+cerrar(?=[ \t]*+(?:[.!,:;—–)]|$))",
        rf"{_START}(?:merged|closed|reverted|reopened){_DONE_AFTER}",
        # "Thanks, merged!" (one optional run of stops: two runs of blanks around it would
        # let the match split a long blank run every way)
        r",[ \t]*(?:merged|closed|reverted)[ \t]*(?:[.!]+[ \t]*)?$",
        rf"{_START}(?:marking|tagging|labell?ing|flagging)[ \t]+(?:(?:this|it)[ \t]+)?as\b",
        # the guide's "Won't fix. The old behaviour is documented…" (a decline said as the label)
        rf"{_START}(?:won['’]?t|will[ \t]+not)[ \t]+fix\b|\bwontfix\b",
        # "I'm going to close this", "we'll go ahead and close it"
        r"\b(?:going[ \t]+to|gonna|go[ \t]+ahead[ \t]+and)[ \t]+close[ \t]+(?:this|it|the[ \t]+(?:issue|pr|ticket))\b",
        # es, pt, fr, de: I close it
        r"\b(?:lo|la|los|las)[ \t]+cierro\b|\bcierro[ \t]+(?:este|esta|el|la)\b",
        r"\bcerrando[ \t]+(?:este|esta|el|la|por)\b",
        r"\bfechando[ \t]+(?:esta|este|essa|esse|a|o|issue|por)\b"
        r"|\bfecho[ \t]+(?:esta|este|essa|esse|a[ \t]+issue)\b",
        r"\bje[ \t]+(?:la|le)[ \t]+ferme\b|\bje[ \t]+ferme(?=[ \t]*(?:[.,!:;—–]|$))"
        r"|\bje[ \t]+ferme[ \t]+(?:l['’]issue|le ticket|cette issue|ce ticket|la pr|cette pr)\b"
        r"|\bje[ \t]+(?:confirme[ \t]+et[ \t]+)?cl[ôo]ture\b",
        r"\bich[ \t]+schlie(?:ß|ss)e[ \t]+(?:das|dieses|diesen|den|hier)\b",
        # it, nl, ru: I close it
        # (a program, a window or an app is closed too: the thread's issue must be named, or the
        # verb end its clause)
        r"\b(?:la|lo)[ \t]+chiudo\b|\bchiudo[ \t]+(?:questa|questo|la|il)[ \t]+(?:issue|segnalazione|pr|ticket)\b",
        r"\b(?:(?:ik|we)[ \t]+sluit(?:en)?|sluit[ \t]+(?:ik|we))[ \t]+(?:de|dit|deze|het)[ \t]+"
        r"(?:issue|ticket|pr|pull request|melding)\b",
        r"\bзакрыва(?:ю|ем)(?=[ \t]*(?:[.,!:;—–]|$))|\bзакро(?:ю|ем)(?=[ \t]*(?:[.,!:;—–]|$))"
        r"|\bзакрыва(?:ю|ем)[ \t]+(?:issue|ишью|тикет|задачу|вопрос)\b",
        # a close said without the word: a duplicate named ("Duplicate of #12", "dupe of
        # https://…/issues/40", "Duplicado de #918", "重复 #3"), a revert opened by GitHub ("Reverts
        # owner/repo#188"), an issue moved by GitHub ("This issue was moved to owner/repo#28")
        # (possessive: the blanks around "of" and a colon must not be split every way)
        rf"{_START}(?:duplicate|dupe?)(?:[ \t]++of)?+[ \t]*+:?[ \t]*+(?:#\d|https?://|[\w.-]+/[\w.-]+#\d)",
        rf"{_START}reverts[ \t]+(?:[\w.-]+/[\w.-]+)?#\d",
        rf"{_START}this[ \t]+(?:issue|pull[ \t]+request)[ \t]+was[ \t]+moved[ \t]+to\b",
        r"\b(?:duplicado|duplicada|doublon|duplikat)[ \t]+(?:de|von)[ \t]+(?:#\d|https?://)"
        r"|\bдубликат[ \t]+(?:#\d|https?://)|重复(?:于|的)?[ \t]*(?:#\d|https?://)|重複[ \t]*(?:#\d|https?://)",
        # ru: I close the pull request
        r"\bзакрыва(?:ю|ем)[ \t]+(?:pr|пр|пул+[ \t-]?реквест|pull[ \t]+request)(?=[ \t]*(?:[.,!:;—–]|$))",
        # zh, ja, ko: merged, closing, (I) will merge
        r"已(?:经)?合并|合并了|先[关關](?:闭|閉|了)|[关關][闭閉](?:这个|這個|此)?(?:issue|问题|問題|帖子|pr)",
        r"マージしま(?:す|した)|マージいたしま|マージさせていただきま|クローズ(?:いた)?しま(?:す|した)|クローズさせていただきま",
        r"머지(?:했|합니다|하겠|할게)|병합(?:했습니다|합니다|하겠습니다|됐습니다|되었습니다)",
    )
)
_ME_TOO = (
    # anchored, and a bounded run of @mentions: a long run of them then no +1 stays linear
    r"\A[^\w\n]{0,3}(?:@[\w.-]+[ \t,:]*){0,8}(?:(?:\+1|me too|me as well|same here|"
    r"same (?:issue|problem|error) here|yo también|a mí también|eu também|moi aussi|ich auch|"
    r"any (?:update|updates|news|progress)|is there any (?:update|progress|news)|alguna novedad|"
    r"alguma novidade|des nouvelles|ping[ \t]+@[\w.-]+|"
    r"same (?:problem|issue)s?|mismo problema|me pasa lo mismo|mesmo problema|m[êe]me probl[èe]me|"
    r"(?:i['’]?m having|i am having|i['’]?m getting|i have|i get|i got|(?:i )?need) the same "
    r"(?:problem|issue|error|bug|thing|feature)s?|"
    r"gleiches problem|selbes problem|stesso problema|такая же проблема|та же (?:самая )?проблема|у меня тоже|"
    r"aynı sorun)(?:[^\w]|$)|"
    r"我(?:的)?也是|我也(?:有|遇到|碰到|碰见|一样)|同问|有(?:什么)?进展|进展如何|同样的问题|一样的问题|"
    r"同じく|私も(?:です|同じ)|同じ問題|저도요|저도 같은)"
)

# a bare "fixed", "done", "should be fine now": the whole message, after @mentions at most
# what may come before a whole-message signal (a bullet or an emoji, @mentions) and after it (a
# thanks, stops, an emoji; possessive: the runs of blanks and stops around a thanks must not be
# split every way)
_WHOLE_LEAD = r"\A[^\w\n]{0,3}(?:@[\w.-]+[ \t,:]*){0,4}"
# a thanks, in the guide's languages
_THANKS = r"thanks|thank you|thx|谢谢|ありがとうございます|감사합니다|merci|gracias|obrigad[oa]|danke|спасибо|grazie"
_WHOLE_TAIL = (
    rf"(?:[ \t]*+[,.!。！、]*+[ \t]*+(?:{_THANKS})?)?+[ \t]*+[.!。！~]*+[ \t]*+"
    r"[\U0001F300-\U0001FAFF\u2705\u2714]*+[ \t]*+\Z"
)
# an ok or a thanks before a whole-message "fixed" ("Obrigada! Resolvido.", "Merci ! Résolu.")
_THANKS_LEAD = rf"(?:(?:ok(?:ay)?|好的|{_THANKS})[ \t]*+[,.!，。！、]*+[ \t]*+){{0,2}}+"
_DONE = (
    _WHOLE_LEAD + _THANKS_LEAD + r"(?:"
    r"(?:(?:it|this|that)(?:['’]s|[ \t]+is|[ \t]+has[ \t]+been|[ \t]+was|[ \t]+should[ \t]+be)[ \t]+)?"
    r"(?:(?:j[aá]|ya)[ \t]+est[aá][ \t]+|already[ \t]+)?"
    r"(?:fixed|done|resolved|solved|(?:should[ \t]+be[ \t]+)?(?:fine|fixed|ok|working)[ \t]+now"
    r"|works[ \t]+now|corrig[ée]e?|r[ée]gl[ée]|r[ée]solu|arreglado|solucionado|resuelto|corregido"
    r"|corrigido|resolvido|behoben|erledigt|gel[öo]st|gefixt|исправлено|исправил[аи]?|починил[аи]?"
    r"|решено|risolto|sistemato|corretto|opgelost|d[üu]zeltildi|[çc][öo]z[üu]ld[üu]|naprawione|poprawione)"
    r"(?:[ \t]+(?:in|on|by|via|with|en|em|par|dans|con|mit|durch|в|nel)[ \t]+[^\s]{1,40}(?:[ \t]+[^\s]{1,20})?)?"
    r"(?:[ \t]++now)?+"
    r"|(?:问题)?已(?:经)?(?:修复|修正|解决|完成)|修复了|(?:问题)?解决了|修正(?:しました|済み)|対応しました|直しました"
    r"|[^\s]{1,20}?で修正(?:しました|済み)?"
    r"|解決しました|수정(?:했습니다|완료)|해결(?:했습니다|됐습니다))" + _WHOLE_TAIL
)
# a bare approval: the whole message, after @mentions at most, then a thanks and an emoji
_APPROVAL = (
    _WHOLE_LEAD + r"(?:"
    r"lgtm|sgtm|r\+|approved?|ship it|good to (?:go|merge)|ok to merge|(?:looks|seems) (?:good|fine|great)"
    r"(?: to me)?(?: now)?|(?:cr|code review)[ \t]*(?:👍|✅|ok|done|passed)"
    r"|(?:me )?parece bien|se ve bien|aprobado|aprovado|parece bom|pode (?:mergear|fazer o merge)"
    r"|[çc]a me (?:va|para[iî]t bien)|c['’]est bon pour moi|approuv[ée]|sieht gut aus|freigegeben|genehmigt"
    r"|выглядит хорошо|одобряю|можно мержить|mi sembra (?:ok|buono)|approvato"
    r"|(?:没有?问题|看起来不错|同意合并)(?:[,，、 ]*(?:可以)?合并(?:吧)?)?|可以合并(?:了)?"
    r"|(?:特に)?問題(?:ありません|ないです|なさそうです|なし)(?:[。、 ]*(?:マージ|承認)(?:します|お願いします))?"
    r"|承認します|승인합니다|문제 ?없습니다)" + _WHOLE_TAIL
)
# a CI build's verdict, as a CI bot opens its message ("Build succeeded! [Build mylib pr12 completed](…)",
# ":white_check_mark: [Build mylib 2.0.41 completed](…)", "All checks have passed", "❌ Build failed");
# a person's "Build failed:" and a pasted error, or "tests are green on my fork", are not a bot's
_CI_VERDICT = (
    r"\A[^\w\n]{0,3}(?::[a-z_]+:[ \t]*)?(?:\*\*)?(?:build|ci|pipeline|all[ \t]+checks)(?:\*\*)?[ \t]+"
    r"(?:succeeded|passed|completed|green|have[ \t]+passed|are[ \t]+green)\b"
    r"|\A[^\w\n]{0,3}(?::[a-z_]+:[ \t]*)?\[build[ \t][^\]\n]{1,80}[ \t](?:completed|succeeded|failed)\]\(https?://"
    r"|\A(?:❌|:x:|🔴|:red_circle:)[ \t]*(?:\*\*)?(?:build|ci|pipeline)(?:\*\*)?[ \t]+failed\b"
)
# how the software behaves: it works, fails, errs or crashes, is fixed, the same problem somewhere
# (a Latin word must end there: "workspace" and "errorless" are words; "work" alone is praise)
_STATE = (
    r"\b(?:works|working|worked|fixed|resolved|solved|same[ \t]++(?:problem|issue|error|on)"
    r"|still[ \t]++(?:happens|broken|failing|there)|not[ \t]++an[ \t]++issue|error|crash\w*+|fails?|failed)\b"
    r"|\b(?:funciona\w*+|resuelto|solucionado|r[ée]solu|funktioniert|behoben|работает|исправил\w*+"
    r"|заработал\w*+|çözüldü)\b"
    r"|解决|出错|报错|不能|失效|好了|可以了|直った|動きました|解決"
)
# the longest message read as a bare "fixed" or a bare approval (characters, trimmed)
DONE_MAX: Final = 80

# from the prebuilt programs (tests/core/test_sre_cache.py lists them): every turn asks them
_TRIAGE_RE = compile_re(_TRIAGE, IGNORECASE | MULTILINE)
_ME_TOO_RE = compile_re(_ME_TOO, IGNORECASE)
_DONE_RE = compile_re(_DONE, IGNORECASE)
_APPROVAL_RE = compile_re(_APPROVAL, IGNORECASE)
_CI_VERDICT_RE = compile_re(_CI_VERDICT, IGNORECASE)
_STATE_RE = compile_re(_STATE, IGNORECASE)


# the head of a text whose first line alone may say an outcome (a long first line, such as a
# minified payload, is not searched past it)
HEAD_CHARS: Final = 300
# a triage outcome holds one of these (lowercased); most turns hold none, and a substring test
# is far cheaper than the pattern
_TRIAGE_WORDS: Final = (
    "closing", "closed", "merging", "merged", "reverting", "reverted", "reopen", "re-open",
    "won't fix", "won’t fix", "wont fix", "wontfix", "will not fix", "to close", "gonna close",
    "and close", "marking", "tagging", "labeling", "labelling", "flagging", "cierro", "cerrando", "fechando",
    "fecho", "ferme", "clôture", "cloture", "chiudo", "sluit", "закрыва", "закро", "be closed", "cerrar",
    "schließe", "schliesse", "合并", "关", "關", "マージ", "クローズ", "머지", "병합",
    "dup", "doublon", "дубликат", "重复", "重複", "reverts", "was moved to",
)  # fmt: skip


def _first_line(body: str) -> str:
    return body[:HEAD_CHARS].split("\n", 1)[0]


# the words an ASCII text can hold (`str.isascii` costs nothing: most turns need only these)
_ASCII_TRIAGE_WORDS: Final = tuple(word for word in _TRIAGE_WORDS if word.isascii())


def _may_say_outcome(text: str) -> bool:
    low = text.lower()
    for word in _ASCII_TRIAGE_WORDS if low.isascii() else _TRIAGE_WORDS:  # noqa: SIM110 - a loop, not any(): it runs for every turn
        if word in low:
            return True
    return False


def _short(body: str) -> bool:
    # a cheap bound first: past it, a text has more words than the limit but for a long link
    if len(body) > SHORT_CHARS:
        return False
    return text_words(len(body.split()), body) <= OUTCOME_MAX_WORDS


def triage_outcome(text: str) -> bool:
    """Whether a thread message says a triage outcome (see the module): on its first line, or
    anywhere in a text of at most `OUTCOME_MAX_WORDS` words."""
    body = text.strip()
    if not body:
        return False
    head = body if _short(body) else _first_line(body)
    # the cheap test first, on what the pattern would search
    return _may_say_outcome(head) and _TRIAGE_RE.search(head) is not None


def me_too(text: str) -> bool:
    """Whether a short thread message opens with a +1, a me too or a ping for news."""
    body = text.strip()
    if not body or _ME_TOO_RE.match(_first_line(body)) is None:
        return False
    return _short(body)


def _one_short_line(body: str) -> bool:
    """Whether a stripped message is one line of at most `DONE_MAX` characters: the only kind a
    whole-message signal reads."""
    return 0 < len(body) <= DONE_MAX and "\n" not in body


def _whole(text: str, pattern: re.Pattern[str]) -> bool:
    """Whether a short one-line message is `pattern` and nothing more."""
    body = text.strip()
    return _one_short_line(body) and pattern.match(body) is not None


def reports_done(text: str) -> bool:
    """Whether a thread message only says that something is fixed or done (see the module)."""
    return _whole(text, _DONE_RE)


def approves(text: str) -> bool:
    """Whether a thread message is a bare approval and nothing more (see the module)."""
    return _whole(text, _APPROVAL_RE)


def tells_state(text: str) -> bool:
    """Whether a short thread message tells how the software behaves (see the module)."""
    body = text.strip()
    return 0 < len(body) <= STATE_MAX and _STATE_RE.search(body) is not None


def ci_verdict(text: str) -> bool:
    """Whether a thread message opens on a CI build's verdict, as a CI bot writes it (see the
    module): its first line asks nothing, and it says no merge or close with it ("All checks
    green, merging now." is the triage outcome's, a decision)."""
    body = text.strip()
    if _CI_VERDICT_RE.search(body, 0, HEAD_CHARS) is None:
        return False
    first = _first_line(body)
    return "?" not in first and not _may_say_outcome(first)


def turn_classes(text: str) -> tuple[str, ...] | None:
    """`turn_evidence` without the why: what `classifier` asks of every conversation turn."""
    found = turn_evidence(text)
    return found[0] if found is not None else None


def turn_evidence(text: str) -> tuple[tuple[str, ...], str] | None:
    """The class a conversation turn's own words settle, and why; None where they settle none.
    An outcome wins over a +1 ("+1, merged") and over a bare "fixed" ("Fixed, closing")."""
    if triage_outcome(text):
        return ("decision",), TRIAGE_WHY
    if me_too(text):
        return ("chitchat",), ME_TOO_WHY
    # the whole-message signals: one short line only
    body = text.strip()
    if _one_short_line(body):
        if _APPROVAL_RE.match(body) is not None:
            return ("decision",), APPROVAL_WHY
        if _DONE_RE.match(body) is not None:
            return ("context",), DONE_WHY
    if ci_verdict(body):
        return ("review",), CI_WHY
    if len(body) <= STATE_MAX:
        # a bug report that says only what happened ("Crashes at launch", "Il salvataggio non funziona")
        from turnlens.core.prompt_shapes import FAILURE_CLASSES, FAILURE_WHY, reports_failure

        if reports_failure(body):
            return FAILURE_CLASSES, FAILURE_WHY
    if tells_state(body):
        return STATE_CLASSES, STATE_WHY
    return None
