"""A person's bare pick or go-ahead, typed to an agent: the whole prompt is the choice.

In a session the agent proposes and asks; the person decides in the next prompt, and often
with a word: an option ("B", "opção A", "方案二", "Q1: A, Q2: C", a full-width "Ｂ" or "２" as a
CJK input method types it), a go-ahead ("yes do it", "go ahead", "please do", "dale", "vas-y",
"mach das", "执行", "是的", "進めてください", "sim, pode começar", "네 진행하자",
"d'accord, ça me convient", "承認します", "حسنا ابدأ في التنفيذ", a terminal's "y") or a no-go ("no",
"nein", "否", "n").
The guide counts short decisions ("ok ship it", "Vale, vamos con la opción B"); read alone,
such a prompt has too few words for the model, which takes it for chitchat. Only a prompt that is nothing but the pick
or the go-ahead (and a please, a thanks, punctuation) is matched: a plain "ok", "thanks" or
"continue" acknowledges or resumes and decides nothing, and anything longer is left to the
model.

One longer shape is a decision too: an answer word that says yes to what the agent asked,
then what to do ("yes, turn it on", "sure, push it", "sí, hazlo con la B", "是的，
按这个改"), or a go-ahead or a no said first and then what to do ("do it, and add a flag for it",
"No. Start with the plan in PLAN.md"). It is the guide's "sounds good, let's do that" said with
the directive. Only the words that answer a question open it (yes, sure, sí, sim, oui, ja, да,
是的, はい, 네; do it, go ahead, proceed or no before a stop): an "ok" or a "great" as often opens a
new request or a report, and a statement after the yes ("yes, it works now") reports and decides
nothing.

And a prompt may say the choice in words before what to do (`stated_choice`): it opens on the
option picked ("Option B, and keep the old flag"), takes what the agent proposed ("as you
suggested"), says a choice was made ("I've decided to…", "let's go with…", "pick #2 first"),
picks an option with a verb of choosing ("let's try option one", "我要方案 B", "方法Bで進めてください"),
or keeps things as they are ("leave it as is", "保持现状"). Only in the head of a prompt of up
to 60 words: further in, or in a long brief, the choice is part of a spec.

A go-ahead is also said in a few clauses with no task of their own (`said_go_ahead`): every
option taken ("let's do both, one at a time", "全部やって"), the agent let go on without asking
("go ahead, don't ask me again", "faz tudo sem perguntar"), what it proposed taken ("apply the
recommended one"), in an order ("one at a time"), with the work resumed. Each clause is one of
those, a pick, an ok or a thanks, and one at least lets the agent do what it proposed: a resume
alone ("ok, keep going", "继续完成剩下的") decides nothing. One naming the work ("fix all of them",
"do it and add the tests") is a task, left to the model. Part 2 calls such a prompt chat (the
route was set when the work was asked); Part 1 a decision.
"""

from __future__ import annotations

from turnlens.core.cjk import text_words
from turnlens.core.prebuilt import IGNORECASE, compile_re

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator
    from typing import Final

# the longest text read as a bare pick or go-ahead (code points, trimmed)
PICK_MAX: Final = 48

# an option named by its letter or number: alone ("B", "2."), after a word for "option" in
# the languages the guide covers, or before 案 ("A案"); or answers to several questions
_OPTION = (
    r"(?:[A-Ea-e1-9][.)]?"
    r"|(?:option|opci[oó]n|op[cç][aã]o|opzione|variante|choix|choice|plan|方案|选项|选择|选|方法|案|オプション|선택|옵션)"
    r"[ \t]*+(?:[A-Ea-e1-9]|[一二三四五])"
    r"|[A-Ea-e1-9][ \t]*+案"
    r"|(?:Q?[1-9][ \t]*+[:：.)-][ \t]*+[A-Ea-e1-9][ \t]*+[,，;；]?[ \t]*+){2,9})"
)
# a go-ahead: an answer that lets the agent do what it proposed
_GO = (
    r"(?:yes|yeah|yep|yup|sure|ok|okay|alright|fine|sounds good|looks good|perfect|great|好的?|行吧?|嗯|はい"
    r"|s[ií]|sim|oui|d['’]accord|ja|да|是的|네|응~*+|حسنا|حسناً|نعم|تمام)?"
    r"[ \t,，、،.!]*+"
    r"(?:yes(?: please)?|yeah|yep|yup|y"
    r"|(?:please[ \t]+)?(?:do it(?: for me)?|go ahead|go for it|proceed|let['’]?s do it|let['’]?s go|ship it|make it so"
    r"|approved|lgtm)"
    r"|(?:please[ \t]+)?proceed[ \t]+(?:with|to)[ \t]+(?:the|your|this|that)[ \t]+plan"
    r"|(?:please|pls|plz)[ \t]+do(?:[ \t]+(?:it|that|so))?"
    r"|s[ií](?:,? (?:hazlo|adelante|dale|procede))?|dale|adelante|hazlo(?:[ \t]+t[uú])?|procede|de acuerdo,? adelante"
    r"|sim|pode(?: fazer| seguir| prosseguir| ir| iniciar| come[cç]ar| continuar)?|manda ver|fa[cç]a|prossiga|bora"
    r"|vai fundo"
    r"|oui|vas-?y|allez-?y|fais-le|c['’]est parti|d['’]accord,? vas-?y|[çc]a me convient|(?:c['’]est )?ok pour moi"
    r"|ja(?: bitte)?|mach(?: das| es)?|leg los|los geht['’]?s|einverstanden"
    r"|s[iì],? procedi|procedi|fallo|vai pure"
    r"|да|давай|делай|согласен|согласна"
    r"|执行(?:修改|吧)?|开始吧|开始|同意|可以(?:执行|开始|实现|动手)?(?:一下)?了?|就这样|就这么办|没问题|按这个来|照做|是的?|对的?|没错"
    r"|你看着(?:来|办)|你(?:来)?决定|听你的"
    r"|はい|お願いします|それでお願いします|進めてください|進めて|実行してください|実行して|問題ないです|大丈夫です|承認します"
    r"|네|응|좋아|그래|진행하자|진행해(?:주세요|줘)?|해줘|해주세요|승인(?:합니다|해요|할게요)"
    r"|موافق|تابع|نفذ|(?:إ|ا)بدأ(?:[ \t]+(?:في|ب)[ \t]*+التنفيذ)?|قم[ \t]+بالتنفيذ"
    # a no-go declines what was proposed: a decision too
    r"|no(?:pe)?(?:,? thanks)?|no,? don['’]?t|don['’]?t|n|n[aã]o|non|nein|нет|不要|不用|不需要|否|不是|いいえ|아니(?:요|오)?)"
)
_POLITE = (
    r"(?:[ \t,]*+(?:please|pls|thanks|thank you|por favor|gracias|obrigad[oa]|merci|s'il te pla[iî]t"
    r"|bitte|danke|grazie|пожалуйста|спасибо|谢谢|吧|でお願いします|お願いします|주세요))?"
)
_BARE = rf"\A[ \t]*+(?:{_OPTION}|{_GO}){_POLITE}[ \t]*+[.!。！~]*+[ \t]*+[\U0001F300-\U0001FAFF\u2705\u2714\u2764]*+[ \t]*+\Z"
# an answer word that says yes, then the directive (`answered_go_ahead`)
# (words as the learned features count them: two CJK characters make one: `core.cjk`)
GO_AHEAD_MAX_WORDS: Final = 14
# (a bare "si" is also "if" in Spanish and French: only with a comma or a stop after it)
# (a Latin or Cyrillic yes is a whole word: "yesterday", "simplify", "jaja" and "japan" are not)
_YES = (
    r"(?:(?:yes|yeah|yep|yup|sure|sí|sim|oui|ja|да)(?![\w'’-])|si(?=[ \t]*+[,，.!])|是的|对的|はい|네"
    # a go-ahead or a no said first, then a stop ("Do it, and add a flag", "No. Start implementing")
    r"|(?:do[ \t]++it|go[ \t]++ahead|(?:ok(?:ay)?[ \t]*+[,.—–-]++[ \t]*+)?proceed)(?=[ \t]*+[,，.!—–-])|no(?=[ \t]*+[.!]))"
)
# what opens a statement rather than a directive: it reports, it does not decide
_STATEMENT = (
    r"(?:(?:it|it['’]s|its|that|that['’]s|this|i|i['’]m|i['’]ve|we|we['’]re|the|there|they|you"
    r"|es|est[aá]|eso|isso|c['’]est|[çc]a|das|es ist|это)\b|这|那|我)"
)
_GO_AHEAD = rf"\A[ \t]*+{_YES}[ \t]*+[,，、.!！:;—–-]*+[ \t]*+(?!{_STATEMENT})\w"
# an option named by a word for "option" and its letter, number or numeral (`stated_choice`)
_NAMED = (
    r"(?:option|opci[oó]n|op[cç][aã]o|opzione|variante|вариант\w*+|方案|选项|方法|オプション|옵션)[ \t]*+"
    r"(?:[A-E1-9](?![A-Za-z0-9])|one|two|three|[一二三四五])"
)
# a choice said in words (`stated_choice`), looked for in the head of the prompt
STATED_MAX_WORDS: Final = 60
STATED_HEAD: Final = 300
_STATED = (
    # opens on the option picked, named by a word for "option" (a bare letter is `_BARE`'s)
    r"\A[ \t]*+(?:option|opci[oó]n|op[cç][aã]o|opzione|variante|вариант|方案|选项|方法|オプション|옵션)"
    r"[ \t]*+(?:[A-E1-9](?![A-Za-z0-9])|[一二三四五])"
    r"|\A[ \t]*+[A-E1-9][ \t]*+案"
    # the option picked after a verb of choosing ("let's try option one", "我要方案 B"), or before
    # the particle that takes it ("方法Aで", "方案B吧")
    r"|\b(?:try|use|take|want|prefer|pick|choose|go[ \t]+with|do|implement|proceed[ \t]+with)[ \t]++(?:the[ \t]++)?"
    + _NAMED
    + r"|(?:我要|我选|选|采用|切到|改用|换成)[ \t]*+"
    + _NAMED
    + r"|"
    + _NAMED
    + r"[ \t]*+(?:で|にし|を採用|を使|로|으로|吧|就行|可以)"
    # takes what the agent proposed
    r"|\bas you (?:suggested|proposed|recommended)\b|\b(?:como|seg[uú]n) (?:sugeriste|sugieres|sugeriu|sugere"
    r"|propusiste|propones|propuseste|recomendaste|recomiendas)\b|\bcomme tu (?:l['’]as )?(?:sugg[ée]r[ée]|propos[ée])\b|\bwie (?:du )?vorgeschlagen\b"
    r"|按你(?:说|建议|推荐)的|就按(?:你的|这个)方案|提案(?:通り|どおり)"
    # says a choice was made
    r"|\bi(?:['’]ve|[ \t]+have)?[ \t]+decided\b|\bi[ \t]*+(?:am|['’]m)[ \t]+going[ \t]+with\b"
    r"|\b(?:let['’]?s|we(?:['’]ll|[ \t]+will)?|i(?:['’]ll|[ \t]+will)?)[ \t]+(?:go|stick)[ \t]+with\b"
    r"|\bstick[ \t]+with\b|\b(?:decid[ií]|he decidido|decidimos|decidi|resolvi|j['’]ai d[ée]cid[ée]"
    r"|ich habe (?:mich )?entschieden|я решил|я решила|ho deciso)\b|\b(?:me quedo|fico|остановимся) (?:con|com|на)\b"
    r"|\b(?:work[ \t]+on|start[ \t]+with|go[ \t]+with|proceed[ \t]+(?:with|to)|pick|choose)[ \t]+"
    r"(?:option[ \t]*+|number[ \t]*+|\#[ \t]*+|no\.[ \t]*+)(?:[A-E]\b|[0-9])"
    r"|我决定|就用这个|決めました|にします[。！!]?[ \t]*+\Z"
    # keeps things as they are
    r"|保持现状|维持现状|\b(?:keep|leave)[ \t]+it[ \t]+as[ \t]+(?:it[ \t]+)?is\b|\bd[ée]jalo (?:as[ií]|como est[aá])\b"
)
# a go-ahead said in clauses (`said_go_ahead`): the longest prompt read
SAID_MAX: Final = 100
# every option or step taken, or what the agent proposed ("do all three", "both of them", "the
# recommended one", "这两个都做", "全部", "둘 다", "делай всё", "faça tudo")
_SAID_ALL = (
    r"(?:(?:let['’]?s|please|pls|just|you[ \t]++can|go[ \t]++ahead[ \t]++and)[ \t]++)?"
    r"(?:(?:do|tackle|take|apply|go[ \t]++(?:ahead[ \t]++)?with|proceed[ \t]++with|start[ \t]++with)[ \t]++)?"
    r"(?:all(?:[ \t]++(?:of[ \t]++(?:them|these|those|it)|two|three|four|five|[2-5]))?|both(?:[ \t]++of[ \t]++them)?"
    r"|everything|each[ \t]++of[ \t]++them|the[ \t]++(?:recommended|suggested|proposed)(?:[ \t]++(?:one|option|fix|fixes|changes|plan))?"
    r"|(?:what|whatever)[ \t]++you[ \t]++(?:recommend|suggest)|(?:the[ \t]++)?(?:next|remaining)[ \t]++steps?)"
    r"|(?:这|那)?(?:两个|几个|三个)?都(?:做|要|执行)|全部(?:都)?(?:做|执行)?|(?:全部|両方)(?:やって|お願い)?"
    r"|(?:모두|전부|둘[ \t]*+다)|필요해?[ \t]*+보이는[ \t]*+(?:건|것은)[ \t]*+다"
    r"|(?:делай|сделай)[ \t]++(?:вс[её]|оба)|оба|обе"
    r"|(?:pode[ \t]++)?(?:fa[çz]a|fazer|faz)[ \t]++(?:tudo|todas?|todos?|as[ \t]++altera[çc][õo]es)|(?:haz|hacer)[ \t]++(?:todo|todos|ambos)"
    # (a bare "todo" is also the English word, and a bare "всё" also "that's it": with a verb only)
    r"|ambos|tudo"
)
# the order to take them in ("one at a time", "from the top", "按顺序", "順番に", "하나씩")
_SAID_ORDER = (
    r"(?:in[ \t]++order|one[ \t]++(?:at[ \t]++a[ \t]++time|by[ \t]++one)|step[ \t]++by[ \t]++step"
    r"|(?:starting[ \t]++)?(?:from|with)[ \t]++the[ \t]++(?:top|first(?:[ \t]++one)?)|first"
    r"|一个一个(?:来|做)?|按顺序(?:来|做)?|順番に|하나씩|по[ \t]++порядку|по[ \t]++одному|em[ \t]++ordem|uno[ \t]++por[ \t]++uno|en[ \t]++orden)"
)
# the agent let go on without asking ("don't ask me", "without stopping", "sem perguntar", "别问我")
_SAID_UNASKED = (
    r"(?:(?:do[ \t]++not|don['’]?t|dont|never|no)[ \t]++(?:need[ \t]++to[ \t]++)?(?:ask|stop)(?:[ \t]++me)?"
    r"(?:[ \t]++(?:again|anymore|(?:for|about)[ \t]++\w++))?"
    r"|(?:you[ \t]++)?(?:do|continue|work)[ \t]++(?:it[ \t]++)?(?:continuously|autonomously)"
    r"|without[ \t]++(?:asking|stopping|interruption|confirmation)(?:[ \t]++me)?"
    r"|n[aã]o[ \t]++(?:fique[ \t]++)?(?:me[ \t]++)?pergunt\w*+|sem[ \t]++(?:me[ \t]++)?perguntar|sin[ \t]++preguntar(?:me)?"
    r"|no[ \t]++me[ \t]++preguntes|не[ \t]++спрашива\w*+|без[ \t]++вопросов|(?:别|不要|不用)(?:再)?问我?|聞かずに|확인[ \t]*+없이"
    r"|묻지[ \t]*+말고|물어보지[ \t]*+말고)"
)
# the work resumed ("keep going", "the rest", "proceed to the next step", "so you can continue",
# "继续完成剩下的", "続けてください", "делай дальше", "продолжай работу"), with at most what is resumed
_SAID_RESUME = (
    r"(?:(?:please[ \t]++)?(?:continue|keep[ \t]++going|carry[ \t]++on|go[ \t]++on|(?:with[ \t]++)?the[ \t]++rest"
    r"|proceed(?:[ \t]++(?:to|with)[ \t]++the[ \t]++(?:plan|next[ \t]++steps?))?"
    r"|(?:so[ \t]++)?you[ \t]++can[ \t]++(?:continue|proceed|start[ \t]++fresh))"
    r"|继续(?:做|完成)?|剩下的|続けて(?:ください)?|계속\w*+(?:[ \t]*+진행해\w*+)?|продолжа\w*+(?:[ \t]++\w++)?"
    r"|(?:делай[ \t]++)?дальше|continua\w*+|contin[uú]a|prossiga|sigue|weiter(?:machen)?|lanjut(?:kan|in|ing)?|teruskan"
    r"|(?:다음[ \t]*+)?단계[ \t]*+진행(?:합니다|해\w*+))"
    # what is resumed: the plan, the rest, what was cut off ("continue the plan", "continua o plano", Indonesian "yang terputus")
    r"(?:[ \t]++(?:the[ \t]++(?:plan|rest)|o[ \t]++plano|el[ \t]++plan|where[ \t]++you[ \t]++(?:left[ \t]++off|stopped)"
    r"|(?:yg|yang)[ \t]++terputus|from[ \t]++where[ \t]++(?:you|it)[ \t]++stopped))?"
)
# the go-ahead words a clause may say with them ("do it", "make it so", "做吧", "진행해줘")
_SAID_GO = (
    r"(?:do[ \t]++it|go[ \t]++ahead|let['’]?s[ \t]++(?:do[ \t]++it|go)|go[ \t]++for[ \t]++it|make[ \t]++it[ \t]++so"
    r"|(?:pode[ \t]++)?(?:fa[çz]a|fazer)|hazlo|делай|сделай|진행해\w*+|やって(?:ください)?|做吧|做|执行|실행해\w*+)"
)
# a yes, an ok or praise opening a clause ("ok do it", "хорошо, продолжай", "好的，继续")
_SAID_LEAD = (
    r"(?:(?:ok|okay|sure|yes|yeah|great|perfect|good|nice|cool|отлично|хорошо|ладно|好的|好|行|嗯|はい|네|응|좋아"
    r"|sim|s[ií]|[óo]timo|perfeito|genial|vale|你|您|but|но)[ \t,，、]*+)?"
)
_SAID_ONE = rf"(?:{_SAID_ALL}|{_SAID_ORDER}|{_SAID_UNASKED}|{_SAID_RESUME}|{_SAID_GO})"
_SAID_CLAUSE = (
    rf"\A{_SAID_LEAD}{_SAID_ONE}(?:[ \t]*+{_SAID_ONE})*+"
    r"(?:[ \t]++(?:please|pls|por[ \t]++favor|пожалуйста)|吧|了|ください|주세요)?\Z"
)
# a clause that only resumes (no option, no go-ahead): Part 1's "continue", which decides nothing
_SAID_RESUME_ONLY = rf"\A{_SAID_LEAD}{_SAID_RESUME}(?:[ \t]*+{_SAID_RESUME})*+(?:[ \t]++(?:please|pls)|吧|了|ください|주세요)?\Z"
# a clause that is a bare yes or ok: allowed, but no go-ahead of its own
_SAID_YES = (
    r"\A(?:ok|okay|sure|yes|yeah|好的?|はい|네|응|sim|s[ií]|да|cool|great|perfect|отлично|хорошо|thanks|thank[ \t]++you)"
    r"(?:[ \t]++(?:great|perfect|cool|good|nice|thanks|thank[ \t]++you))?\Z"
)
# where a prompt splits into clauses (`clauses`): a stop, a comma, a dash or a run of spaces
# between words, and "and" in the guide's languages ("but" stays: it opens a clause)
_CLAUSE_SPLIT = r"[\n.,;!，。！、；~…]++|[ \t]++[-—–][ \t]++|[ \t]{2,}+|[ \t]++(?:and|et|e|y|und|и)[ \t]++"
# full-width ASCII (U+FF01…U+FF5E) to ASCII, and the ideographic space to a space
_HALF_WIDTH: Final = {**{c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}, 0x3000: 0x20}
# compiled when a person's prompt first asks (a few ms): a session with none never pays for it
_compiled: list[re.Pattern[str]] = []
# why, for the views
PICK_WHY: Final = "a person's bare pick, go-ahead or no-go decides what the agent proposed: decision"
GO_AHEAD_WHY: Final = "a person's yes, then what to do, decides what the agent proposed: decision"
SAID_WHY: Final = (
    "a person's go-ahead said in clauses (every option, no asking, what was proposed) decides what"
    " the agent proposed: decision"
)
STATED_WHY: Final = (
    "a person's prompt that says the choice made (the option, what was proposed, as it is): decision"
)


def _patterns() -> list[re.Pattern[str]]:
    """The bare pick's, the go-ahead's, the stated choice's and the go-ahead said in clauses'
    patterns, compiled the first time they are asked."""
    if not _compiled:
        _compiled[:] = [
            compile_re(_BARE, IGNORECASE),
            compile_re(_GO_AHEAD, IGNORECASE),
            compile_re(_STATED, IGNORECASE),
            compile_re(_SAID_CLAUSE, IGNORECASE),
            compile_re(_SAID_RESUME_ONLY, IGNORECASE),
            compile_re(_SAID_YES, IGNORECASE),
            compile_re(_CLAUSE_SPLIT, IGNORECASE),
        ]
    return _compiled


def bare_pick(text: str) -> bool:
    """Whether a person's prompt is only a pick among options or a go-ahead (see the module)."""
    body = text.strip()
    if not 0 < len(body) <= PICK_MAX or "\n" in body:
        return False
    # full-width letters and digits, as a CJK input method types them ("Ｂ", "２"), are the
    # letters and digits
    return _patterns()[0].match(body.translate(_HALF_WIDTH)) is not None


def answered_go_ahead(text: str) -> bool:
    """Whether a person's prompt says yes and then what to do, in one short line with no
    question (see the module): "yes, turn it on", "sure, push it"."""
    body = text.strip()
    # a cheap bound first: a line this long has more words than a go-ahead
    if "\n" in body or "?" in body or "？" in body or len(body) > GO_AHEAD_MAX_WORDS * 12:
        return False
    if _patterns()[1].match(body) is None:
        return False
    return 2 <= text_words(len(body.split()), body) <= GO_AHEAD_MAX_WORDS


def stated_choice(text: str) -> bool:
    """Whether a person's prompt says, in its head, the choice made (see the module):
    "Option B, and keep the flag", "I've decided to drop it", "let's go with the queue"."""
    body = text.strip()
    if not body:
        return False
    head = body[:STATED_HEAD]
    if _patterns()[2].search(head) is None:
        return False
    return text_words(len(body.split()), body) <= STATED_MAX_WORDS


def clauses(text: str) -> Iterator[str]:
    """The clauses of a short prompt (split at stops, commas, dashes and "and"), trimmed of
    blanks, quotes, brackets and emphasis; empty ones skipped. `said_go_ahead`, `said_resume`
    and `core.prompt_shapes.tells_done` read a prompt so."""
    for clause in _patterns()[6].split(text):
        part = clause.strip(" \t:()\"'*")
        if part:
            yield part


def resumes(clause: str) -> bool:
    """Whether a clause only resumes the work ("ok, keep going", "继续完成剩下的"): no option, no
    go-ahead of its own."""
    return _patterns()[4].match(clause) is not None


def said_go_ahead(text: str) -> bool:
    """Whether a person's prompt is a go-ahead said in clauses with no task of its own (see the
    module): "let's do all three, one at a time", "sure, and don't ask me again". A prompt that
    only resumes ("ok, keep going") is not one: it decides nothing (Part 1; `said_resume`)."""
    body = text.strip()
    if not 0 < len(body) <= SAID_MAX or "?" in body or "？" in body:
        return False
    clause_re, yes_re = _patterns()[3], _patterns()[5]
    go = False
    for part in clauses(body):
        if yes_re.match(part):
            continue
        if clause_re.match(part):
            go = go or not resumes(part)
        elif bare_pick(part):
            go = True
        else:
            return False
    return go


def said_resume(text: str) -> bool:
    """Whether a person's prompt only resumes the work, in a few clauses with no task of their
    own ("ok, keep going", "continue the plan", "继续完成剩下的", "lanjutkan yang terputus"). Part 2
    calls it chat (the route was set when the work was asked); Part 1 no decision (see
    `said_go_ahead`)."""
    body = text.strip()
    if not 0 < len(body) <= SAID_MAX or "?" in body or "？" in body:
        return False
    yes_re = _patterns()[5]
    resumed = False
    for part in clauses(body):
        if yes_re.match(part):
            continue
        if not resumes(part):
            return False
        resumed = True
    return resumed


def goes_ahead(text: str) -> bool:
    """Whether a person's prompt lets the agent go on with no task of its own: a bare pick or
    go-ahead, one said in clauses, or a resume alone (Part 2: chat, the route was set when the
    work was asked)."""
    return bare_pick(text) or said_go_ahead(text) or said_resume(text)
