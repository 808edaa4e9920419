"""What a person's prompt is by its shape: a request of a few words, a list of points, a
standing rule, conditions stated, a commit or push asked for, nothing but command lines, an error
pasted with no request (a build error or a failure at run time), a question to the agent about
itself, a plain report of what is seen (a failure among them), a request phrased politely or as a
question, a question, or a plan asked for.

A person's prompt that asks for something is a request, neither chitchat nor a review, however short
it is.

Typed to an agent, "align the cards to the left", "summarise what this repo does", "где лежит
конфиг" or "这个接口有鉴权吗" say what the agent was asked: read as a turn of its session, such a prompt is
context (docs/labels.md, Part 1: context, "a request typed to an agent"), and a spec, a
decision or code when it says more. The learned model reads few words in them, the way it
reads a "thanks!" or a "hi", and calls them chitchat. Chitchat is social or content-free: a
greeting, a thanks, an acknowledgement, a reaction. Nor is such a prompt a review: a review
judges work done (a PR remark, a CI verdict), and the learned model, which met "please",
"check" and "should" mostly in PR remarks, reads a request as one; the guide names what a
request typed to an agent is (context, or a spec, a decision or code when it says more). So a
person's prompt of at least `ASK_MIN_WORDS` words that opens with none of those words takes
one of those four classes; one that does ("hi, what can you do?", "thanks, that works"), or a
shorter one ("continue", "go on", "fix"), is left to the model.

A person's prompt that lists three points or more ("1. … 2. … 3. …", "- …" lines, "一、…") states
what the agent must do point by point: a summary would lose the points, so it is kept word for
word, as a spec, a decision or code (docs/labels.md, Part 1: context, "a numbered list of such
conditions"); the model answers among those three.

A person's prompt that states two conditions or more the result must meet ("it should only show
once every question is answered, and never before the timer ends", "不要改接口，必须兼容旧数据",
"deve aceitar até 50 MB e nunca executáveis") carries what a summary would lose: a requirement
says what the result must or must not do, so that someone could check it afterwards, and such a
request is a spec, or code where it is mostly a pasted log (docs/labels.md, Part 1: context,
"a request that carries one or more such conditions"). The marks are the words of obligation,
prohibition and limit in the guide's languages ("should", "must", "make sure", "don't", "never",
"only", "by default", "必须", "不要", "べき", "해야", "debe", "nunca", "должен", "только", "muss",
"doit"…), counted in the head of the prompt, whoever they bind: typed to an agent, "we should use
the billing module" and "I should be able to pick a folder" are requirements too. One mark is as
often a wish or a report ("it should be faster", "only the login page is slow") as a
requirement; two are mostly requirements. A prompt that asks a question (a question mark, or a
question word that opens it: "how should I structure the tests") asks and states nothing: the
model decides.

A person's prompt of a few words that asks to commit, push or deploy the work ("commit and push",
"push the commit", "コミットしてプッシュして", "提交并推送", "haz commit y push")
is a request: context, or a spec or code when it says more, and no decision (docs/labels.md,
Part 1, the twenty-first pass's paragraph on a directive to commit, push or deploy). The model
met "merge", "ship" and "push" mostly in approvals and calls it a decision. One that also settles
something is left to the model: it approves ("ok, that's good enough: commit and push", "LGTM"),
says yes, or holds back ("don't push yet", "先不要提交"); so is a longer prompt, and a yes with the
directive said is the go-ahead of `core.picks`, asked before.

A person's prompt that is nothing but shell command lines ("npm start", "cd ~/site" then
"python3 -m http.server 8000", aider's "/run git status") is machine text typed to be run: code,
as a command a person runs in a session is (`kinds.KIND_CLASSES["command"]`). Every line must
open with a program people type at a prompt (after any environment variables: "DEBUG=1 python3
app.py"), or with a word an option follows at once ("open -a Safari", "hugo --minify"), and hold
no sentence ("npm run build says the env file is missing. can you look" asks about a command,
"firebase auth keeps logging me out" tells of one; neither is one).

A person's prompt that is an error or a warning pasted as the tool printed it, with no request
("TypeError: total is undefined", "src/app.ts:14:9 - error TS2322: …", "▲WARNING NG8103: …",
after at most a lead-in such as "I'm getting:" or "报错："), is machine text: code (docs/labels.md,
Part 1: code, "tracebacks and error output"; "a one-line error pasted with no request"). It must
open with what such output opens with (an error or warning word and a colon, a traceback's first
line, `path:line:column`, `npm ERR!`), and neither its first line nor its last may ask ("why?",
"fix it", "怎么办"): with a question or a fix asked for, the model decides.

A person's question to the agent about itself ("what model is this?", "who are you", "what can you
do", "can you see images?", "你会什么？", "何ができる？", "¿qué modelo eres?") asks for no work: the
router's guide calls such a meta question chat (docs/labels.md, Part 2: chat), so the router,
which gives a person's request a route, leaves this one none (`turnlens.router.labeler`). Only its
identity, its model and what it can do or reach count, in the head of the prompt: "which model
should we use for the classifier?" asks about the work.

A person's prompt that tells something in a few words and asks for no change ("the preview still
doesn't show", "la página sigue en blanco", "登录页还是不显示") is a plain report: at most
`REPORT_MAX_LINES` lines and `REPORT_MAX` characters, no error or log pasted in it (those are
settled by their own words: docs/labels.md, Part 2), no fix asked for ("fix it", "arréglalo",
"修复一下", "直して") and no requirement stated ("it should only show on …", "必须"). The router
reads a plain report that tells a symptom (the label pack's `analysis.symptom`, or a failure as it
is seen, `tells_failure`: "keeps crashing", "can't log in", "ainda trava", "闪退") as analysis: its
cause must be found first (`turnlens.router.labeler`).

A person's prompt that sets a standing rule for the rest of the work ("answer in Korean from now
on", "always run the linter before you commit", "以后都用中文回复", "これからは日本語で答えて") binds
every later answer: a compaction that drops it lets the agent break it, so it is kept word for
word, as a spec or, when it picks between options, a decision (docs/labels.md, Part 1: context,
"a standing rule a person gives the agent"). Three marks say so: the language the agent is to
answer or work in, a "from now on" in any of the guide's languages, and a sentence that opens
with "always" or "never" and a verb of the work.

A person's request that says no choice is no decision: Part 1 calls a request typed to an agent
context, "decision when it makes a choice". A choice is said with one thing in place of another
("instead of", "而不是", "ではなく"), a thing to use ("let's use sqlite", "давай использовать fastapi"),
something declined as not needed ("no need to", "不需要", "не нужны"), an approval or a ship, merge
or revert call (`says_choice`); the bare pick, the go-ahead and the stated choice (`core.picks`)
are asked before. Where the model answers decision for such a request (`asks_without_choice`),
the classifier answers the next of its other classes (`turnlens.classifier.no_choice`), as sure as
such answers were right on the real dev sets, and the decision keeps the rest's largest share.

A plain report that tells a failure as it is seen ("Crashes at launch", "Il salvataggio non funziona",
"一存档就闪退"; `reports_failure`) is a bug report, which Part 1 calls context (code when mostly a
paste), never a review; a user story told with it ("As an admin, I want …") is a spec.

The router reads three more shapes with a plain report (`turnlens.router.labeler`): a prompt that
ends as a question and is no request phrased as one ("can you add …?", "could we …?", "帮我…",
"してもらっていい？": `polite_request`) asks about the work, and is analysis; a verb of making
followed by a plan, a roadmap, a design document, an architecture or a spec to be written
(`asks_for_plan`: "write a detailed plan in TODO.md", "制定一个迁移方案", "write the requirements
document", "要件定義書を作って") asks for a plan, and is design; an error pasted with
no request that names the place to change (`build_error`: `app.ts:14:9`, `error TS2322`, "Cannot
find module") is a build error, coding, where a failure at run time is analysis (docs/labels.md,
Part 2). And a prompt that names a document (a README, docs, a guide, a Markdown file) with no
word of a mechanical change around it (a changelog, a commit, a move, a deletion, a run:
`writes_document`) asks for writing, which Part 2 calls coding, not a mechanical change; one that
asks for options, other ways or which is better (`asks_for_options`) asks for a choice to be
weighed, which Part 2 calls design. Three more: a short prompt that asks what comes next
(`asks_next_step`: "what's next?", "接下来该做什么") asks for the next steps, a plan, which is design;
one that asks for the project, its code, files or docs to be read, studied, reviewed or
summarised, or for a check whether something holds, with no change asked anywhere
(`asks_to_examine`: "read all the docs and summarize them", "изучи все файлы в папке docs"), asks
for an investigation, which is analysis; and a standing rule said alone, one sentence with no task
(`rule_alone`: "Please always reply in Portuguese."), sets no route, which Part 2 calls chat; so
does a short report that something is done or works now with no request (`tells_done`: "the build
works now", "部署完成", "Всё готово, я включил биллинг"); the task classes leave it to the model
(measured: as many answers broken as fixed). The long patterns among these (a question to the
agent, a reading, what comes next) are searched only where one of their cue words is in the
text: most prompts hold none.
"""

from __future__ import annotations

from itertools import chain

from turnlens.core.cjk import text_words
from turnlens.core.prebuilt import IGNORECASE, MULTILINE, compile_re

TYPE_CHECKING = False  # neither `typing` nor `re` on the one-shot path (see core/record.py)
if TYPE_CHECKING:
    from typing import Final

# the fewest words (CJK counted as the learned features count it) of a prompt that asks
ASK_MIN_WORDS: Final = 3
# the characters of a prompt whose words are counted
ASK_HEAD: Final = 200
# the characters of a prompt read for a social opening
SOCIAL_HEAD: Final = 40

LIST_WHY: Final = "a person's prompt that lists three points or more is kept word for word"
CONDITIONS_WHY: Final = (
    "a person's prompt that states two conditions or more the result must meet is a spec (code"
    " where it is mostly a paste), kept word for word"
)
COMMIT_WHY: Final = (
    "a person's directive to commit, push or deploy the work is a request: context (or a spec or"
    " code), no decision"
)
# the most words (CJK counted as the learned features count them) of a directive to commit
COMMIT_MAX_WORDS: Final = 12
# the fewest marks of a condition stated, and the characters of a prompt read for them
CONDITION_MIN: Final = 2
CONDITION_HEAD: Final = 4000
COMMANDS_WHY: Final = "a person's prompt that is nothing but shell command lines is code"
ERROR_WHY: Final = "a person's prompt that is an error or a warning pasted with no request is code"
# a plain report: at most this many non-blank lines and characters (trimmed)
REPORT_MAX_LINES: Final = 2
REPORT_MAX: Final = 300
FAILURE_WHY: Final = (
    "a few words that tell a failure as it is seen, with no change asked, are a bug report: context"
    " (code when mostly a paste), not a review"
)
# the classes such a report may take
FAILURE_CLASSES: Final = ("code", "context")
REQUEST_WHY: Final = (
    "a person's request that makes no choice is context, or a spec or code when it says more (a"
    " decision only in doubt), not chitchat or a review"
)
# the classes such a request may take (a decision only in doubt: `NO_CHOICE_CLASSES` answer), and
# those that answer it
REQUEST_CLASSES: Final = ("decision", "spec", "code", "context")
NO_CHOICE_CLASSES: Final = ("spec", "code", "context")
# how sure such an answer is, where the model said decision: how often it was right on the real
# dev sets (128 of 196 on the twenty-four prompt-class sets; docs/labels.md)
NO_CHOICE_SURE: Final = 0.65
ASK_WHY: Final = (
    "a person's prompt of a few words that says what to do or asks about the work is a request:"
    " context, or a spec, a decision or code, not chitchat or a review"
)

# a greeting, thanks, acknowledgement or reaction opening the prompt, in the languages the
# guide covers (a Latin word must end there: "hind", "okapi" and "thanksgiving" are words)
_SOCIAL = (
    r"\A[^\w]{0,3}(?:"
    r"(?:hi|hey|hello|helo|hallo|halo|hiya|howdy|greetings|good (?:morning|afternoon|evening)"
    r"|thanks|thank you|thx|ty|cheers|ok|okay|k|cool|nice|great|awesome|perfect|wow|lol|haha|wtf"
    r"|h+m+|hehe|jeje|jaja|jajaja|jiji"
    r"|really|bye|goodbye|hola|gracias|buenas|buenos d[ií]as|vale|genial|perfecto"
    r"|ol[aá]|oi|obrigad[oa]|valeu|beleza|bom dia|boa tarde|salut|bonjour|bonsoir|merci|coucou"
    r"|super|parfait|moin|servus|danke|guten (?:morgen|tag|abend)|ciao|grazie|buongiorno"
    r"|привет|здравствуй(?:те)?|спасибо|ладно|отлично|круто|merhaba|selam|te[sş]ekk[uü]rler"
    r"|xin ch[aà]o|c[aả]m [oơ]n)(?![\w'’-])"
    # words that open a sentence too ("ha fallado el build", "morning standup notes"): only
    # when a stop follows them
    r"|(?:ha|hah|heh|morning)(?=[ \t]*[,.!…~])"
    r"|你好|您好|谢谢|感谢|多谢|好的|好吧|嗯|哈哈|辛苦|こんにちは|こんばんは|おはよう|ありがと|どうも"
    r"|了解|お疲れ|すごい|안녕|감사|고마워|좋아요|좋네|알겠"
    r")"
)
# the programs a command line typed as a prompt opens with (English words first, such as
# `make`, `go`, `open` or `export`, are left out)
_PROGRAMS = (
    r"npm|npx|yarn|pnpm|pip3?|pipx|uv|uvx|python3?|py|node|cargo|rustc|docker|docker-compose|podman"
    r"|kubectl|helm|git|cd|ls|tree|mkdir|rm|mv|cp|chmod|chown|curl|wget|ssh|scp|brew|apt|apt-get"
    r"|winget|choco|poetry|conda|bun|bunx|deno|terraform|gh|flutter|dotnet|mvn|gradle|java|javac"
    r"|php|composer|ruby|gem|bundle|rails|aider|claude|codex|gemini|ollama|firebase|vercel|netlify"
    r"|supabase|wrangler|heroku|aws|az|gcloud|sudo|pytest|ruff|mypy|eslint|tsc|vite|jest|vitest"
    r"|uvicorn|psql|mysql|sqlite3|ffmpeg|systemctl|setx|bash|sh|zsh|pwsh|powershell|\./[\w./-]+"
)
# a program this list does not name counts when an option follows it at once ("open -a Safari",
# "gemini --help"), and environment variables may come before any ("DEBUG=1 python app.py")
_UNLISTED = r"[a-z][\w.-]*+(?=[ \t]++--?[A-Za-z])"
_ENV_VARS = r"(?:[A-Z_][A-Z0-9_]*+=[^\s]*+[ \t]++)*+"
# one command line: a prompt sign (`$`, aider's `/run`, a `!` shell escape), a program, then
# arguments that are no sentence: no question mark, no full stop followed by more words, and
# no English verb right after the program ("git is broken", "npm keeps failing")
_COMMAND_LINE = (
    r"[ \t]*+(?:\$[ \t]*+|/run[ \t]++|![ \t]*+)?" + _ENV_VARS + r"(?:" + _PROGRAMS + r"|" + _UNLISTED + r")"
    r"(?:[ \t]++(?!(?:is|are|was|were|does|doesn't|did|didn't|isn't|not|seems|keeps|says|fails"
    r"|still|can|should|won't)\b)[^\n?？.]*+(?:\.(?![ \t]+\w)[^\n?？.]*+)*+)?[ \t]*+"
)
_COMMANDS = rf"\A(?:{_COMMAND_LINE}\n(?:[ \t]*+\n)*+)*+{_COMMAND_LINE}\Z"
# words that make a line a sentence about a command, outside its quoted arguments ("cd into
# the folder and run the tests", "firebase auth keeps logging me out")
_SENTENCE_WORDS: Final = frozenset(
    {"the", "a", "an", "and", "then", "into", "please", "my", "your", "this", "that", "it", "so"}
    | {"is", "are", "was", "were", "does", "doesn't", "isn't", "not", "keeps", "fails", "still"}
    | {"me", "why", "how", "what", "when"}
)
# what makes a line a sentence in Chinese, Japanese or Korean, outside its quoted arguments: a
# sentence's punctuation, a hiragana word or a Korean one ("git log 里这个 commit 改了什么，解释一下",
# "mypy かけて直して", "codex 작업 내용 가져오기"); a path or a name in kanji or hanzi alone is an
# argument ("cd 项目")
_CJK_SENTENCE = r"[，。！？；：、]|[ぁ-ゖ]{2}|[가-힣]{2}"
# what opens a pasted error: a lead-in ("I'm getting:", "报错：") at most, then what the tool printed
# first (an error or warning word and a colon, a traceback, `path:line:column`, npm's and the
# bundlers' markers)
_ERROR_LEAD = (
    r"(?i:(?:i['’]?m getting|i get|i got|getting|got|errors?|报错|錯誤|错误|エラー|erro|fehler|ошибка)"
    r"[^\n:：]{0,20}[:：][ \t]*+\n?\s*)?"
)
_ERROR_MARK = (
    r"(?:[A-Za-z_][\w.]*(?:Error|Exception|Warning)|Error|Exception|Warning|WARN(?:ING)?|ERROR|FATAL"
    r"|Uncaught(?:[ \t]\w+)?|error(?:\[\w+\])?|warning)[ \t]*:"
    r"|Traceback \(most recent call last\)|npm ERR!|▲[ \t]*WARNING|✘[ \t]*\[ERROR\]|\[(?:error|warn(?:ing)?)\]"
    r"|\.{0,2}(?:[\w/\\~-]++\.)++\w++:\d++:\d++|Failed to compile|Module not found:|Cannot find module "
)
_ERROR = rf"\A{_ERROR_LEAD}(?:{_ERROR_MARK})"
# a line that asks: a question, or a fix, an explanation or help asked for
_ASKING = (
    r"\b(?:please|pls|can you|could you|fix|why|how|what|help)\b|[?？]|请|帮|怎么|为什么|してください|お願い"
)
# the characters of a prompt read for a pasted error's opening
ERROR_HEAD: Final = 400
# an error or a log pasted anywhere in a prompt: what the output of a tool holds and prose does not
# (a word ending in "Error" and a colon, a traceback's first line, `path:line:column`); literal
# alternatives, so that a search is linear however long the text
_PASTED = (
    r"(?:Error|Exception|Warning|error|warning|ERROR|WARN|FATAL)[ \t]*+:|Traceback \(most recent call last\)"
    r"|npm ERR!|\w:\d++:\d++"
)
# what a build, compile, type or lint error holds and a failure at run time does not: the place to
# change as `file.ext:line:column` or `file.ext(line,column)`, a compiler's error code, a type
# error as a type checker words it ("Type error:", not JavaScript's "TypeError" at run time), a
# syntax error, a name or module not found (a traceback, a refused connection or an HTTP status is
# a failure at run time)
_BUILD_ERROR = (
    r"\.[A-Za-z]\w*+:\d++:\d++|\.[A-Za-z]\w*+\(\d++,\d++\)|\berror[ \t]++(?:TS|CS|C|E)\d{3,5}\b|\bTS\d{4}\b"
    r"|error\[E\d{4}\]|\bType[ \t]error\b|\bSyntax[ \t]?[Ee]rror\b|\b(?:Compile|Compilation|Build)[ \t]?(?:[Ee]rror|[Ff]ailed)\b"
    r"|Failed to compile|Module not found|Cannot find (?:module|name|symbol|namespace)|[Cc]annot find '"
    r"|is not assignable to|not found in (?:this )?scope|unresolved (?:import|reference|external symbol)"
    r"|undefined reference to|\bNG\d{4}\b"
)
# a failure told as it is seen, beyond the label pack's `analysis.symptom` ("keeps crashing", "is stuck
# uploading", "can't log in", "no funcionó", "ainda trava", "ça plante", "闪退", "起動しない", "동작 안 해")
_FAILURE_SEEN = (
    # English
    r"\bkeeps? (crashing|failing|erroring|freezing|hanging|timing out|spinning|reloading)\b"
    r"|\b(is|are|seems?|looks?|still) (broken|stuck|frozen|unresponsive|not responsive|offline|down(?! to\b))\b"
    r"|\b(crash(es|ed)?|freez(es|ed)|hangs|hung) (on|when|after|at|while|every)\b"
    r"|\b(can['’]?t|cannot|unable to) (type|click|log ?in|sign ?in|connect|access|upload|download|save"
    r"|scroll|build|compile|install|reach)\b"
    r"|\bstuck (on|at|in|uploading|loading|forever)\b"
    # Spanish, Portuguese, French, German, Italian, Russian
    r"|\bno (funcion[oóa]|arranca|responde|conecta|abre)\b|\bsigue (en blanco|vac[ií]o|cargando)\b"
    r"|\b(ainda )?(crasha|trava)\b"
    r"|\bn[ãa]o (est[aá] )?(funcionando|online|abrindo|carregando|conecta|responde|roda|inicia)\b"
    r"|\b(ça|ca) (ne )?(marche|fonctionne) (toujours |tjrs |plus )?pas\b|\bplante\b"
    r"|\bne (charge|d[ée]marre|r[ée]pond) (toujours |tjrs |plus )?pas\b"
    r"|\b(st[üu]rzt|h[äa]ngt)\b.{0,40}\bab\b|\bfunktioniert (immer noch |noch )?nicht mehr\b"
    r"|\bnon (parte|risponde|si avvia)\b|\bsi blocca\b"
    r"|\b(падает|вылетает|зависает|не (грузится|отвечает|запускается|собирается))\b"
    # stopped working, does not react, broke, hangs ("бот перестал реагировать", "кнопки не
    # нажимаются", "вкладка сломалась", "висит загрузка", "nie działa", "не працює")
    r"|\bперестал\w*+[ \t]++(?:работать|реагировать|отвечать|грузиться|загружаться|открываться|запускаться)\b"
    r"|\bне[ \t]++(?:(?:нажима|открыва|сохраня|появля|обновля)(?:ется|ются)|(?:реагиру|срабатыва)(?:ет|ют))\b"
    r"|\bсломал(?:ся|ась|ось|ись)\b"
    r"|\b(?:висит|завис(?:ла|ло|ли)?)\b|\bnie[ \t]++dzia[łl]a\b|\bне[ \t]++працю\w*+"
    # Chinese, Japanese, Korean
    r"|不行|运行不了|跑不起来|启动不了|用不了|崩溃|闪退|卡死|卡住|没反应"
    r"|動かない|落ちる|固まる|起動しない|クラッシュ"
    r"|(동작|작동|실행) ?안|안 ?(돼|되|됨|떠|열림)|멈춰|튕겨"
    # what is not seen, said as a state ("the search bar isn't responsive", "无法访问此网站",
    # "接続できない。", "프리뷰가 안보이는데")
    r"|\b(?:isn['’]?t|aren['’]?t|not|no[ \t]++longer)[ \t]++(?:responsive|visible|clickable|working|loading|showing"
    r"|updating|saving|applied|rendered|displayed)\b|\bnothing[ \t]++(?:shows|appears|loads|changes|works)\b"
    r"|无法(?:访问|连接|打开|加载|显示|启动|登录|使用|运行)|不能(?:用|访问|打开|显示|运行)|没法|连不上|访问不了"
    r"|加载不出|显示不了|没有?变化"
    r"|(?:でき|され|見え|動か|開か|起動し)(?:ない|ません)[。！!\s]*+\Z"
    r"|안[ \t]?보이|(?:되지|보이지|나오지|열리지)[ \t]?않(?:음|아|네|는데|습니다|아요)"
    # no response, something broken, an error that shows up ("저장 버튼이 반응이 없어", "한글이 또 깨져",
    # "배포하니까 오류가 뜨네", "エラーが出ます", "…とでます", "ボタンが反応しない")
    r"|(?:응답|반응)이?[ \t]?없|깨져|깨짐|(?:에러|오류)가?[ \t]?(?:뜨|나(?:요|네|는데|와)|발생)"
    r"|(?:エラー|error)(?:が|と)?(?:出|で)(?:ます|る|た|てる|ている)|と(?:出|で)ます|反応(?:しない|がない|しません)"
    r"|表示されない"
    # an error that one hits, gets or sees ("the upload hits a CORS error", "the page returns 500", "the
    # editor is showing type errors", "ошибка приходит от сервера", "出现了错误", "ビルドするとエラーになる")
    r"|\b(?:hits|hitting|gets|getting|got|seeing|throws|throwing|gives|giving|returns|returning|shows|showing)"
    r"(?:[ \t]++\S+){0,3}?[ \t]++(?:errors?|exceptions?|(?:40[134]|50[0234])\b)"
    r"|\b(?:errors?|exceptions?)[ \t]++(?:appears?|shows?[ \t]++up|occurs?|comes?[ \t]++up|pops?[ \t]++up)\b"
    r"|ошибк\w*+[ \t]++(?:приш\w+|приход\w+|вылез\w*|появ\w+|выда\w+)|(?:приходит|выда[её]т|показывает|получаю)[ \t]++ошибк"
    r"|出现了?(?:错误|异常)|エラーに(?:なる|なります|なった)"
    # something that does not work, load, open or show, in the words of the label pack's
    # `analysis.symptom`, which the classes do not read ("doesn't load", "I'm not able to log in",
    # "nothing happens", "non funziona più", "não abre", "не работает", "打不开", "開かない")
    r"|\b(?:doesn['’]?t|does[ \t]++not|didn['’]?t|won['’]?t|still[ \t]++not)[ \t]++(?:work|load|open|start|show|appear"
    r"|render|display|run)\b|\bnot[ \t]++able[ \t]++to[ \t]++(?:log[ \t]?in|sign[ \t]?in|open|connect|access|see|use|install|save)\b"
    r"|\bnothing[ \t]++happens\b|\b(?:error|problem|issue|bug)s?[ \t]++(?:persists?|remains?)\b"
    r"|\bn[ãa]o[ \t]++(?:funciona|aparece|carrega|abre|mostra)\b|\brien[ \t]++ne[ \t]++se[ \t]++passe\b"
    r"|\b(?:funktioniert|geht|l[äa]dt)[ \t]++(?:immer[ \t]++noch[ \t]++|noch[ \t]++)?nicht\b"
    r"|\bnon[ \t]++(?:funziona|compare|si[ \t]++vede|si[ \t]++apre|carica)\b"
    r"|\bне[ \t]++(?:работа(?:ет|ют)|отобража\w*+|появляется|загружается|открывается)|\bничего[ \t]++не[ \t]++происходит\b"
    r"|不显示|没有?显示|没有?出现|不工作|打不开|显示不出|不生效|没有?生效|反映されない|開かない|작동하지[ \t]?않"
)
# the cue words (lower case): one of them is in every text `_FAILURE_SEEN` finds, so a text that
# holds none is not searched (the pattern is long, and every short thread message is asked)
_FAILURE_CUE_WORDS: Final = (
    "keep broken stuck frozen respons offline down crash freez hang hung can't can’t cant cannot "
    "unable not n't n’t doesnt didnt wont isnt arent longer nothing error exception 40 50 persist remain sigue trava não nao "
    "marche fonctionne plante charge marre pond stürzt sturzt hängt hangt funktioniert geht lädt "
    "ladt blocca rien dzia пада вылета завис не перестал сломал висит працю ошибк "
    "不 崩溃 闪退 卡 没 无法 出现 ない ません 落ち 固ま クラッシュ エラー ます 안 않 멈춰 튕겨 없 깨 에러 오류"
)
# (and the words the pattern reads only before a space or a tab: "no" is in "know", "non" in "none")
_FAILURE_CUES: Final = (*_FAILURE_CUE_WORDS.split(), "no ", "no\t", "non ", "non\t")
# a change asked for in words, or a requirement stated, in the guide's languages: what makes a
# report a request (a Latin word must end there: "prefix", "fixture" and "mustard" are words;
# the Chinese and Japanese verbs of changing and mending, 改 and 修, are enough alone: "改好",
# "修复", "修正して")
_CHANGE = (
    r"\b(?:fix|fixes|fixed|fixing|repair|arr[eé]gl\w*|corr[ií]g\w*|corr[ií]j\w*|conserta\w*|cons[eé]rt\w*"
    r"|r[ée]pare[rz]?|behebe\w*|korrigiere\w*|repariere\w*|исправ\w*|почин\w*|correggi\w*|ripara\w*|sửa"
    r"|should|shouldn['’]?t|must|mustn['’]?t|shall|has to|have to|need to|needs to|debe|deben|deber[ií]a\w*|deve|devem|deveria\w*|doit|doivent"
    r"|soll\w*|muss\w*|должн\w*|dovrebbe)\b"
    r"|[修改补補]|应该|應該|必须|必須|直して|直す|べき|고쳐|수정|해야"
)
# a request phrased as a question or politely, in the guide's languages: "can you add …?", "could we
# add …?" (we: the agent and the person, as in "let's"; "how can we …?" asks a question), "would it
# be possible to …", "please", "帮我", "请", "把 … 改成", "してください", "してもらっていい？", "해줘",
# "puedes", "você pode", "peux-tu", "kannst du", "можешь"; such a question asks for work
_POLITE = (
    r"\b(?:can|could|would|will)[ \t]++(?:you|u|yu)\b"
    r"|(?<!how )(?<!what )(?<!else )(?<!where )(?<!which )(?<!why )(?<!when )\b(?:can|could|shall)[ \t]++we\b"
    r"|\b(?:would|is)[ \t]++it[ \t]++(?:be[ \t]++)?possible\b"
    r"|\b(?:please|pls|plz)\b|\blet['’]?s\b|\bhelp[ \t]++me\b|\b(?:i|we)[ \t]++(?:want|need|would[ \t]++like)\b"
    r"|\b(?:puedes|podr[ií]as|pod[eé]s)\b|\b(?:voc[eê]|vc)[ \t]++(?:pode|poderia|consegue)\b|\bpeux[ \t-]tu\b"
    r"|\bpouvez[ \t-]vous\b|\b(?:kannst|k[öo]nntest)[ \t]++du\b|\bk[öo]nnen[ \t]++sie\b|\bможе(?:шь|те)\b"
    r"|\bpuoi\b|\bpotresti\b"
    r"|帮我|幫我|帮忙|幫忙|请|請|给我|給我|麻烦|麻煩|把"
    r"|してください|して下さい|してほしい|して欲しい|してくれ|もらっ|いただ|お願い"
    r"|해\s?줘|해\s?주세요|주세요|주실|줄래|줄 ?수"
)
# a question asked in words, with no question mark: a question word opens it, after an "ok," or a
# "so" or two at most ("how can I test the model with this dataset", "what are the main genres here",
# "como faço para liberar o arquivo", "что с файлом upload_screen"; "how about …" and "do the
# rest" ask for work, "what I mean is …" explains), or, in Chinese, Japanese and Korean, a question
# word anywhere or a question's particle at the end ("后端如何启动", "dll做了什么事情",
# "どうやって切り替える", "실행 예시 뭐야"); "怎么让 … 居中" asks how to make something, a request
_QUESTION_WORDS = (
    r"\A\W{0,3}(?:(?:ok|okay|so|and|but|then|hmm|also|now)[, \t]++){0,2}"
    r"(?:what(?![ \t]++i[ \t]++mean)|what['’]?s|how(?![ \t]++about)|why|where|which|who|is|are|does"
    r"|do[ \t]++(?:you|we|i|they|these|those)|can[ \t]++i|could[ \t]++i|should[ \t]++(?:i|we)"
    r"|qu[eé]|c[oó]mo|d[oó]nde|cu[aá]l(?:es)?|cu[aá]ndo|por[ \t]++qu[eé]|para[ \t]++qu[eé]|hay(?![ \t]++que)"
    r"|o[ \t]++que|onde|qual|quais|pra[ \t]++que|comment|pourquoi|où|quel\w*|est-ce|wie|wo|warum|welche\w*"
    r"|что|как|где|почему|зачем|какой|какая|какие|cosa|dove|perch[eé]|quale"
    r"|come(?![ \t]++(?:up|back|on|in|over)\b))\b"
    r"|什么|甚麼|(?:怎么|怎麼|如何)(?![让讓使])|为什么|為什麼|为啥|哪|[吗嗎呢么]\W*+\Z"
    r"|なに|どう(?![ぞも])|どこ|なぜ|どれ|(?<![なほ])どの|いつ(?![もか])|何[がをの]|かな?[。\s]*+\Z"
    r"|뭐|무엇|어떻게|왜|어디|언제|무슨|(?:까|니|나요|냐)\W*+\Z"
)
# what may follow a question's mark at the end of a prompt: blanks, closing quotes and brackets
_AFTER_QUESTION: Final = " \t\r\n\"'”’)）」』"
# a plan asked for: a verb of making ("make sure" is none) and, a few words later on the same line, a plan, a
# roadmap, a design document, an architecture or a strategy ("write a detailed plan in TODO.md",
# "create an implementation plan", "制定一个迁移方案", "計画を立てて", "계획을 세워줘"); a plan only
# named ("follow the plan", "the plan says …") is not asked for
_PLAN_NOUNS = (
    r"(?:plan|plans|roadmap|design[ \t]++doc(?:ument)?s?|architecture|arquitectura|arquitetura|strategy|estrategia"
    r"|strat[ée]gie|plano|план|архитектуру|стратегию)\b"
)
# a spec or an RFC to be written (Part 2's design): a specification, the requirements, a PRD, with
# only its article and a few words of its own between ("write a short spec for the sync API"; in
# "write the tests following the spec" or "make it match the spec" the spec is named, not asked
# for; "specs" alone are tests in some frameworks)
_SPEC_NOUNS = (
    r"(?:spec(?:ifications?)?|rfc|prd|requirements(?:[ \t]++doc(?:ument)?)?|especificaci[oó]n|especifica[çc][ãa]o"
    r"|requisitos|requerimientos|spezifikation|anforderungen|спецификаци\w*+|требовани\w*+)\b"
)
_SPEC_BETWEEN = (
    r"(?:(?!(?:in|on|at|from|per|according|following|to|with|against|for|of|by|based|using|that|which|tests?|it|match\w*+"
    r"|meets?|follows?|like|as|than|same"
    r"|en|de|del|da|do|para|con|com|nach|gem[äa]ß|für|mit|по|для|с)\b)[^\s.]++[ \t]++){0,4}?"
)
# the verbs of making a plan or a spec is asked with, in English and in the guide's other languages
_MAKE_EN = (
    r"\b(?:write|make(?![ \t]++sure\b)|create|develop|draft|prepare|produce|come[ \t]++up[ \t]++with|give[ \t]++me"
    r"|put[ \t]++together|outline|propose|formulate)"
)
_MAKE_INTL = (
    r"\b(?:elabor[ae]\w*+|crea|haz|escribe|cria|escreva|fa[çc]a|fais|r[ée]dige[sz]?|erstelle|schreibe?|entwirf"
    r"|составь|напиши|подготовь|разработай)"
)
_PLAN_ASKED = (
    # in English a word or more comes between ("make a plan"; "make plan" is a make target)
    _MAKE_EN
    + r"[ \t]++(?:[^\s.]++[ \t]++){1,6}?"
    + _PLAN_NOUNS
    + r"|"
    + _MAKE_INTL
    + r"[ \t]++(?:[^\s.]++[ \t]++){0,6}?"
    + _PLAN_NOUNS
    + r"|(?:"
    + _MAKE_EN
    + r"|"
    + _MAKE_INTL
    + r")[ \t]++"
    + _SPEC_BETWEEN
    + _SPEC_NOUNS
    + r"|(?:制定|写|出|给出|列出|设计|做)(?:一个|一份|一下|个|份)?[^。\n]{0,8}?(?:计划|方案|规划|路线图|设计文档|需求文档|需求说明|规格说明)"
    r"|計画を(?:立て|作)|(?:設計|計画|プラン)(?:して|を作|を立て|を書い)|계획(?:을|를)?[ \t]*(?:세워|짜|작성)"
    r"|(?:仕様書|要件定義(?:書)?|要求仕様(?:書)?)を(?:作|書|まとめ)|(?:요구[ \t]*사항|명세서|기획서)[^.\n]{0,12}?(?:작성|만들어|정리해)"
)
# the characters of a prompt read for a plan asked for
PLAN_HEAD: Final = 600
# the cue words: one of them is in every plan the pattern finds (lower case)
_PLAN_CUES: Final = (
    "plan",
    "roadmap",
    "design",
    "architect",
    "arquitec",
    "arquitet",
    "strat",
    "план",
    "архитект",
    "стратег",
    "spec",
    "rfc",
    "prd",
    "requirement",
    "requisito",
    "requerimiento",
    "especifica",
    "anforderung",
    "спецификац",
    "требован",
)
_PLAN_CUES_CJK: Final = (
    "计划",
    "方案",
    "规划",
    "路线图",
    "设计文档",
    "需求",
    "规格",
    "計画",
    "設計",
    "プラン",
    "仕様",
    "要件",
    "계획",
    "요구",
    "명세",
    "기획",
)
# the characters of a prompt read for a document named
DOCUMENT_HEAD: Final = 1000
# the longest prompt read as command lines (characters, trimmed)
COMMANDS_MAX: Final = 800

# a list item: a bullet, a number or a CJK numeral, then a word
# (a blank after it, but none needed after the CJK enumeration comma: "一、登录页…")
_POINT = (
    r"^[ \t]*+(?:(?:[-*•+]|[0-9]{1,3}[.)])[ \t]++"
    r"|(?:[0-9]{1,3}|[一二三四五六七八九十]{1,3})[、．][ \t]*+|[一二三四五六七八九十]{1,3}\.[ \t]++)\S"
)
# the fewest points of a list, and the characters of a prompt read for them
LIST_MIN_POINTS: Final = 3
LIST_HEAD: Final = 8000

RULE_WHY: Final = "a person's prompt that sets a standing rule for the rest of the work is kept word for word"
# the characters of a prompt read for a standing rule
RULE_HEAD: Final = 400
# A standing rule's words, written out as people type them (with their accents and without):
# the pattern is made of these lists, and so are the cue words, so a prompt that holds none of
# them is not searched. The languages people ask an agent to answer in, as each language names
# them:
_LANGUAGE_NAMES: Final = {
    "en": "english spanish chinese mandarin japanese korean german french portuguese russian italian"
    " thai vietnamese turkish arabic hindi indonesian dutch polish ukrainian",
    "es": "español espanol inglés ingles chino japonés japones coreano alemán aleman francés frances"
    " portugués portugues ruso italiano",
    "pt": "português portugues inglês ingles espanhol chinês chines japonês japones francês frances"
    " alemão alemao italiano russo",
    "fr": "français francais anglais espagnol allemand chinois japonais italien portugais russe",
    "de": "deutsch englisch französisch franzosisch spanisch chinesisch japanisch italienisch russisch",
    "it": "italiano inglese spagnolo francese tedesco cinese giapponese",
}
# the verbs of answering, speaking or writing before each language's names, and its preposition
_ANSWER_VERBS: Final = {
    "en": (r"answer|reply|respond|speak|talk|write|communicate|chat|work", "in"),
    "es": (r"responde|respóndeme|respondeme|contesta|habla|háblame|hablame|escribe", "en"),
    "pt": (r"responda|responde|fale|escreva", "em"),
    "fr": (r"réponds|reponds|répondez|repondez|parle|parlez|écris|ecris|écrivez|ecrivez", "en"),
    "de": (r"antworte|antwortet|sprich|schreib|schreibe|schreibt|alles|immer", "auf"),
    "it": (r"rispondi|rispondimi|parla|scrivi", "in"),
}
_RU_LANGUAGES: Final = "на русском|на английском|на украинском|по-русски|по-английски|по-украински"
_RU_VERBS: Final = "отвечай|отвечайте|говори|пиши|общайся|работай"
_ZH_LANGUAGES: Final = "中文|汉语|漢語|英文|英语|英語|日语|日文|繁体中文|简体中文|繁體中文"
_ZH_VERBS: Final = "回答|回复|回覆|交流|对话|對話|沟通|溝通|输出|輸出|说明|說明"
# for the rest of the work: Latin phrases (matched as whole words), then the others
_FROM_NOW_WORDS: Final = (
    "from now on|going forward|for the rest of this session|for the rest of the session"
    "|for the rest of this conversation|for the rest of the conversation|for the rest of this chat"
    "|for the rest of the chat|for the rest of this project|for the rest of the project|de ahora en adelante"
    "|a partir de ahora|à partir de maintenant|a partir de maintenant|dorénavant|dorenavant"
    "|désormais|desormais|ab jetzt|von nun an|ab sofort|d'ora in poi|d’ora in poi|d'ora in avanti"
    "|d’ora in avanti|da ora in poi|a partir de agora|daqui pra frente|daqui para frente"
    "|de agora em diante"
)
_FROM_NOW_OTHERS: Final = (
    "с этого момента|впредь|отныне|从现在开始|從現在開始|从今以后|以后都|以後都|以后每次|今后|今後は"
    "|これからは|以降は|앞으로는|지금부터"
)
# the sentence openers of "always do X" / "never do X", and the verbs of the work after them
_ALWAYS: Final = "always|never|don't ever|don’t ever|do not ever"
_ALWAYS_OTHERS: Final = "永远不要|永遠不要|始终使用|一律使用|每次都要|常に|항상"
_WORK_VERBS: Final = (
    "use|run|write|commit|push|create|add|answer|reply|respond|ask|delete|remove|modify|edit"
    "|touch|call|put|make|keep|include|test|check|update|follow|start|stop|mention|say|speak"
    "|talk|read|install|change|document|log|work|prefer|format|lint"
)


def _any(words: str) -> str:
    """An alternation of space-separated words (plain letters: nothing to escape)."""
    return "(?:" + "|".join(words.split()) + ")"


_STANDING = "|".join(
    [
        # the language of the answers: a verb of answering, speaking or writing, then the language
        *(
            rf"\b(?:{verbs})\b[^.\n?]{{0,40}}?\b{prep} {_any(_LANGUAGE_NAMES[lang])}\b"
            for lang, (verbs, prep) in _ANSWER_VERBS.items()
        ),
        rf"\b(?:{_RU_VERBS})\b[^.\n?]{{0,30}}?(?:{_RU_LANGUAGES})",
        rf"(?:{_RU_LANGUAGES})[^.\n?]{{0,20}}?\b(?:{_RU_VERBS})\b",
        r"\b(?:trả lời|tra loi|nói|noi|viết|viet)\b[^.\n?]{0,20}?(?:bằng tiếng|bang tieng)\b",
        rf"(?:用|使用)(?:{_ZH_LANGUAGES})(?:{_ZH_VERBS})",
        r"(?:中文|英文)(?:回答|回复|回覆|对话|對話|交流|沟通|溝通)",
        r"(?:日本語|英語|中国語)で(?:答え|回答|返信|返答|話し|書い|説明し|応答|対応し|会話し)",
        r"(?:한국어|한글|영어)로\s*(?:답|대답|말|대화|설명|작성|응답)",
        # for the rest of the work
        rf"\b(?:{_FROM_NOW_WORDS})\b",
        _FROM_NOW_OTHERS,
        # a sentence that opens with "always" or "never" and a verb of the work
        rf"(?:\A|[.!;:\n])[ \t]*(?:please[ \t,]+)?(?:{_ALWAYS})[ \t]+(?:{_WORK_VERBS})\b",
        _ALWAYS_OTHERS,
    ]
)
# the cue words: one of them is in every standing rule the pattern finds (lower case)
_RULE_CUES: Final = (
    *" ".join(_LANGUAGE_NAMES.values()).split(),
    *_RU_LANGUAGES.split("|"),
    *_ZH_LANGUAGES.split("|"),
    *["日本語", "中国語", "한국어", "한글", "영어"],
    "bằng tiếng",
    "bang tieng",
    *_FROM_NOW_WORDS.split("|"),
    *_FROM_NOW_OTHERS.split("|"),
    "always",
    "ever",
    *_ALWAYS_OTHERS.split("|"),
)

# a condition the result must meet: a word of obligation, prohibition or limit, in the guide's
# languages ("should", "must", "make sure", "never", "only", "by default", "debe", "nunca", "só",
# "doit", "muss", "должен", "только"; a Latin word must end there: "onlyfans", "shoulder" and
# "nieve" are words), matched on the lower-cased head (a case-blind match of so many words is
# several times slower), and the Chinese, Japanese and Korean ones ("必须", "不要", "べき", "해야")
# as they are; "ように" after "の" says "like …" and is not counted (`states_conditions` skips it: a
# lookbehind in the pattern makes it scan ten times slower)
_CONDITION = (
    r"\b(?:should(?:n['’]?t)?|must(?:n['’]?t)?|shall|needs?[ \t]++to|ha(?:s|ve)[ \t]++to|make[ \t]++sure"
    r"|ensure|don['’]?t|do[ \t]++not|never|always|only|by[ \t]++default|at[ \t]++(?:least|most)"
    r"|no[ \t]++more[ \t]++than"
    r"|debe|deben|deber[ií]a|tienen?[ \t]++que|nunca|siempre|s[oó]lo|[uú]nicamente|aseg[uú]rate"
    r"|deve|devem|deveria|t[eê]m[ \t]++que|tem[ \t]++que|sempre|s[oó]mente|apenas|garanta|certifique-se|só"
    r"|doit|doivent|devrait|il[ \t]++faut|toujours|jamais|seulement|uniquement|assure-toi"
    r"|muss|m[uü]ssen|soll|sollte|sollen|immer|niemals|nie|nur|stelle[ \t]++sicher"
    r"|должен|должна|должно|должны|нужно|надо|всегда|никогда|только|обязательно|убедись"
    r"|devono|dovrebbe|assicurati)\b"
)
_CONDITION_CJK = (
    r"必须|必須|应该|應該|应当|需要|不要|不能|只能|确保|確保|保证|默认|預設|务必|務必|禁止|不允许|不允許"
    r"|必ず|べき|ないで|ように|必要|해야|하지[ \t]?마|반드시|않도록|되도록"
)
# a question asked with its mark
_QUESTION_MARK = r"[?？]"

# a commit, a push, a deploy or a pull request asked for, in the guide's languages (a Latin word
# must end there: "commitment", "pushover" and "prune" are words)
_COMMIT = (
    r"\b(?:commit|commits|push|deploy|pr|pull[ \t]++request|commite|commitea|comitea|commita|committe"
    r"|pushe|pousse|d[ée]ploie|despliega|pusha|закоммит\w*|закомит\w*|запушь|запуш\w*|задеплой\w*"
    r"|коммит\w*)\b"
    r"|コミット|プッシュ|デプロイ|提交|推送|部署|커밋|푸시|배포"
)
# what settles something along with it: an approval, a yes, a hold ("ok, that's good enough:
# commit", "LGTM, push", "don't push yet", "先不要提交", "まだプッシュしないで")
_SETTLES = (
    r"\b(?:ok|okay|good|great|lgtm|looks[ \t]++good|perfect|fine|enough|ship[ \t]++it|merge[ \t]++it"
    r"|don['’]?t|not[ \t]++yet|no|yes|sure)\b"
    r"|不要|别|先不|好的|可以|まだ|しないで"
)

# a choice said in a request, as the guide's "we use pnpm, not npm" says one: one thing taken in
# place of another ("use Postgres instead of MySQL", "而不是", "ではなく", "대신"), a thing to use
# ("let's use sqlite", "давай использовать fastapi", "vamos usar"), or something declined as not needed
# ("no need to send it", "tests aren't needed", "不需要", "それは不要", "не нужны") (a Latin or Cyrillic
# word must end there: "instead" alone and "statten" are not)
_CHOICE = (
    r"\b(?:instead[ \t]++of|rather[ \t]++than|en[ \t]++(?:lugar|vez)[ \t]++de|em[ \t]++vez[ \t]++de"
    r"|au[ \t]++lieu[ \t]++de|(?:an)?statt|вместо)\b|而不是|而非|代わりに|ではなく|대신"
    r"|\b(?:let['’]?s|we(?:['’]ll|[ \t]++will)?)[ \t]++use\b|\bдавай(?:те)?[ \t]++(?:использовать|юзать)\b"
    r"|\b(?:vamos|vamo)[ \t]++usar\b|\busemos\b"
    r"|\bno[ \t]++need\b|\bnot[ \t]++needed\b|\bdon['’]?t[ \t]++need\b|\bне[ \t]++нужн\w*+"
    r"|\bno[ \t]++hace[ \t]++falta\b|\bno[ \t]++es[ \t]++necesario\b|\bn[ãa]o[ \t]++precisa\b"
    r"|不需要|不用|不必|要らない|不要(?:です)?。?$|필요[ \t]?없"
    # and the guide's outcomes: an approval, a ship or merge call, a revert, a hold ("LGTM, ship it")
    r"|\b(?:lgtm|ship[ \t]++it|approved?|merge[ \t]++(?:it|this|now)|revert|roll[ \t]?back|hold[ \t]++off"
    r"|don['’]?t[ \t]++merge|decided)\b"
)

# a user story: what a user wants, a requirement however it is said ("As an admin, I want …",
# "Como administrador, quero …", "作为管理员，我希望…"): Part 1 calls it a spec, never a bug report
_STORY = (
    r"\b(?:as[ \t]++an?|como|en[ \t]++tant[ \t]++que|als)\b[^.\n]{2,60}?\b(?:i[ \t]++want|i[ \t]++need|i[ \t]++would[ \t]++like"
    r"|quiero|necesito|quero|preciso|je[ \t]++veux|ich[ \t]++m[öo]chte|ich[ \t]++will)\b"
    r"|作为.{1,30}?我(?:想|希望|需要|要)|として.{1,30}?(?:たい|ほしい)"
)
# the cue words (lower case): one of them is in every text `_CHOICE` finds, so a prompt that holds
# none is not searched
_CHOICE_CUE_WORDS: Final = (
    "instead rather lugar vez lieu statt вместо 而不是 而非 代わりに ではなく 대신 use использ юзать usar "
    "usemos need нужн falta necesario precisa 不需要 不用 不必 要らない 不要 필요 lgtm ship approve merge "
    "revert roll hold decided"
)
_CHOICE_CUES: Final = tuple(_CHOICE_CUE_WORDS.split())
# a document named: a README, docs, a guide, a Markdown file, in the guide's languages (a Latin
# word must end there: "docstring" and "guideline" are not documents)
_DOCUMENT = (
    r"readme|\bdocs?\b|\bdocumenta\w*+|\bguides?\b|\btutorials?\b|\w\.md\b|\bgu[ií]as?\b|\banleitung\b"
    r"|\bdokumentation\b|документаци|инструкци|руководств"
    r"|文档|说明书|手册|指南|ドキュメント|説明書|文書|マニュアル|문서|가이드"
)
# the words of a mechanical change around a document: a commit, a push or a deploy (`_COMMIT`), a
# changelog line, a file moved, copied or deleted, a run (a Latin word must end there: "pushing" is
# not "push")
_MECHANICAL = (
    _COMMIT + r"|changelog|\b(?:tag|git|rename|move|delete|remove|drop|rm|mv|cp|copy|run|execute)\b"
    r"|удали|перемести|删除|移动|重命名|削除|移動|삭제"
)

# options asked for: other ways, alternatives, which is better, in the guide's languages (Part 2:
# "options and trade-offs" are design) (a Latin word must end there: "optional" is no option)
_OPTIONS = (
    r"\b(?:options?|alternatives?|other[ \t]++ways?|what[ \t]++else|which[ \t]++(?:one|is[ \t]++better)"
    r"|pros[ \t]++and[ \t]++cons|trade-?offs?|opciones|alternativas|opções|optionen|alternativen|möglichkeiten)\b"
    r"|вариант|варіант|альтернатив|какие[ \t]++(?:еще|ещё)|які[ \t]++ще"
    r"|方案|选项|有什么办法|哪种|哪个好|其他方法|選択肢|他の方法|どちらが|どっちが|다른[ \t]?방법|옵션|선택지|어떤[ \t]?게[ \t]?나"
)
# what comes next asked for, in the guide's languages ("what's next?", "what should we do next?",
# "接下来该做什么", "下一步怎么做", "次は何をすれば", "뭐부터 하면 돼?", "что дальше", "¿qué sigue?")
_NEXT = (
    r"\bwhat(?:['’]s|[ \t]++is|[ \t]++are|[ \t]++should[ \t]++(?:i|we)[ \t]++do|[ \t]++to[ \t]++do|[ \t]++can[ \t]++we[ \t]++do"
    r"|[ \t]++do[ \t]++we[ \t]++do)?[ \t]++(?:the[ \t]++)?next\b|\bnext[ \t]++steps?[ \t]*+[?？]|\bwhat[ \t]++(?:now|then)[ \t]*+[?？]"
    r"|\bqu[eé][ \t]++sigue\b|\by[ \t]++ahora[ \t]++qu[eé]\b|\bpr[oó]xim[oa][ \t]++(?:passo|etapa)\b|\bet[ \t]++maintenant\b"
    r"|\bque[ \t]++faire[ \t]++ensuite\b|\bwas[ \t]++(?:kommt[ \t]++)?als[ \t]++n[äa]chstes\b|\bчто[ \t]++(?:делать[ \t]++)?дальше\b"
    r"|接下来(?:该|要|应该)?(?:做|怎么|干)|下一步(?:该|要|应该)?(?:做|怎么|干|是什么)|次(?:は|に)(?:何|なに)を|次の(?:ステップ|作業)は"
    r"|다음(?:은|에는)?[ \t]*+(?:뭐|무엇|어떤)|뭐부터"
)
# a reading or a check asked for: a verb of reading, studying, reviewing, analysing or summarising
# and the project, its code, files or docs, in the guide's languages ("read all the docs in the
# docs folder and summarize them", "lee el código del proyecto", "先阅读一下这个项目", "изучи все файлы
# в папке docs"), or a check whether something holds ("see if everything in the spec is met",
# "confirm that the retry is in place for all three clients", "…되는지 확인")
_EXAMINE = (
    r"\b(?:read|study|scan|explore|review|analy[sz]e|understand|summari[sz]e|go[ \t]++through|look[ \t]++through"
    r"|familiari[sz]e[ \t]++yourself[ \t]++with|get[ \t]++(?:an[ \t]++)?overview[ \t]++of)\b(?:[ \t]++\S++){0,4}?[ \t]++"
    r"(?:(?:the|this|all|my|our)[ \t]++)*+(?:project|codebase|code[ \t]*+base|repo(?:sitory)?|files?|folders?|director(?:y|ies)"
    r"|docs?|documents?|documentation|readme|structure|changes)\b"
    r"|\b(?:lee|leer|analiza|analizar|estudia|revisa|resume|lista)\b(?:[ \t]++\S++){0,3}?[ \t]++(?:(?:el|la|los|las|todos?)[ \t]++)?"
    r"(?:proyecto|c[oó]digo|repositorio|archivos?|carpetas?|directorio|documentos?|documentaci[oó]n|readme)"
    r"|\b(?:leia|ler|analise|analisar|estude|revise|resuma)\b(?:[ \t]++\S++){0,3}?[ \t]++(?:(?:o|a|os|as|todos?)[ \t]++)?"
    r"(?:projeto|c[oó]digo|reposit[oó]rio|arquivos?|pastas?|diret[oó]rio|documentos?|documenta[cç][aã]o|readme)"
    r"|\b(?:lis|lire|analyse|analyser|[ée]tudie|parcours|prends?[ \t]++connaissance)\b(?:[ \t]++\S++){0,3}?[ \t]++"
    r"(?:(?:le|la|les|tout|tous)[ \t]++|l['’])?(?:projet|code|d[ée]p[oô]t|fichiers?|dossiers?|r[ée]pertoire|documents?|documentation"
    r"|readme|application)"
    r"|\b(?:lies|lese|analysiere|sieh[ \t]++dir|schau[ \t]++dir|verschaffe[ \t]++dir)\b(?:[ \t]++\S++){0,4}?[ \t]++"
    r"(?:(?:das|die|den|alle)[ \t]++)?(?:projekt|code|repo|dateien|datei|ordner|verzeichnis|dokumente|dokumentation|readme|[üu]berblick)"
    r"|(?:изучи|прочитай|проанализируй|посмотри|ознакомься)\w*+(?:[ \t]++\S++){0,4}?[ \t]++"
    r"(?:проект|код|репозитори|файл|папк|документаци|readme)"
    r"|(?:阅读|读一下|了解|熟悉|分析|看一下|看看|浏览|总结)(?:一下)?(?:这个|整个|当前)?(?:项目|代码|代码库|仓库|文件|目录|文档|readme)"
    r"|(?:プロジェクト|コード|リポジトリ|ファイル|フォルダ|ドキュメント|README)(?:全体)?を?(?:読んで|読み込んで|把握して|理解して|分析して)"
    r"|(?:프로젝트|코드|레포|파일|폴더|문서|README)(?:[ \t]*+\S{1,6}?)?(?:를|을)[ \t]*+(?:읽어|파악해|분석해|살펴봐)|\bpelajari\b"
    r"|\b(?:check|verify|confirm|see|find[ \t]++out)[ \t]++(?:if|whether)\b|\b(?:verify|confirm)[ \t]++that\b"
    r"|\b(?:verifica|comprueba|revisa)[ \t]++(?:si|que)\b|\b(?:verifique|confira)[ \t]++(?:se|que)\b|\bv[ée]rifie[ \t]++(?:si|que)\b"
    r"|\b(?:pr[üu]fe?|[üu]berpr[üu]fe?)[ \t]++(?:ob|dass)\b|провер\w*+[ \t]*+,?[ \t]*+(?:ли|что|все[ \t]++ли)"
    r"|检查(?:一下)?(?:是否|有没有)|确认(?:一下)?(?:是否|有没有)|(?:か|かどうか)を?(?:確認|チェック)して"
    r"|(?:있는지|되는지|했는지|맞는지)[ \t]*+(?:확인|체크|검토)"
)
# the head of a prompt read for a reading or a check asked for
EXAMINE_HEAD: Final = 300
# the cue words (lower case): one of them is in every text `_EXAMINE` finds, so a prompt that holds
# none is not searched (most prompts; the pattern is long)
_EXAMINE_CUE_WORDS: Final = (
    "read study scan explor review analy anali understand summar through familiar overview "
    "lista estudia revisa resume leia estude revise resuma lire tudie parcours "
    "connaissance lies lese sieh schau verschaffe pelajari check verify confirm "
    "verifi rifie comprueb confira prüf prufe berpr изуч прочит проанализ посмотр ознаком провер "
    "阅读 读一下 了解 熟悉 分析 看一下 看看 浏览 总结 检查 确认 読 把握 理解 確認 チェック "
    "읽어 파악 분석 살펴 확인 체크 검토"
)
# (and short words the pattern reads only before a space or a tab, which the test turns into a
# space: "lis" is in "list", "see" in "seed")
_EXAMINE_CUES: Final = (*_EXAMINE_CUE_WORDS.split(), "lis ", "lee ", "leer ", "ler ", "see ", "find ")
# the longest prompt read for what comes next asked (a longer one asks for more)
NEXT_MAX: Final = 400
# the cue words (lower case) of what comes next asked: one of them is in every text `_NEXT` finds
_NEXT_CUE_WORDS: Final = (
    "next now then sigue ahora próxim proxim maintenant ensuite chstes дальше "
    "接下来 下一步 次は 次に 次の 다음 뭐부터"
)
_NEXT_CUES: Final = tuple(_NEXT_CUE_WORDS.split())
# a standing rule and nothing more: at most this many characters, and no stop inside it
RULE_ALONE_MAX: Final = 120
_INNER_STOP = r"[\n.,;，。；、!?？！]"

# from the prebuilt programs (tests/core/test_sre_cache.py lists them)
_SOCIAL_RE = compile_re(_SOCIAL, IGNORECASE)
_COMMANDS_RE = compile_re(_COMMANDS)
_POINT_RE = compile_re(_POINT, MULTILINE)
_CJK_SENTENCE_RE = compile_re(_CJK_SENTENCE)
_ERROR_RE = compile_re(_ERROR)
_ASKING_RE = compile_re(_ASKING, IGNORECASE)
_STANDING_RE = compile_re(_STANDING, IGNORECASE)
_PASTED_RE = compile_re(_PASTED)
_CHANGE_RE = compile_re(_CHANGE, IGNORECASE)
_FAILURE_SEEN_RE = compile_re(_FAILURE_SEEN, IGNORECASE)
_POLITE_RE = compile_re(_POLITE, IGNORECASE)
_BUILD_ERROR_RE = compile_re(_BUILD_ERROR)
_PLAN_ASKED_RE = compile_re(_PLAN_ASKED, IGNORECASE)
_QUESTION_WORDS_RE = compile_re(_QUESTION_WORDS, IGNORECASE)
_CONDITION_RE = compile_re(_CONDITION)
_CONDITION_CJK_RE = compile_re(_CONDITION_CJK)
_QUESTION_MARK_RE = compile_re(_QUESTION_MARK)
_COMMIT_RE = compile_re(_COMMIT, IGNORECASE)
_SETTLES_RE = compile_re(_SETTLES, IGNORECASE)
_CHOICE_RE = compile_re(_CHOICE, IGNORECASE | MULTILINE)
_STORY_RE = compile_re(_STORY, IGNORECASE)
_DOCUMENT_RE = compile_re(_DOCUMENT, IGNORECASE)
_MECHANICAL_RE = compile_re(_MECHANICAL, IGNORECASE)
_OPTIONS_RE = compile_re(_OPTIONS, IGNORECASE)
_NEXT_RE = compile_re(_NEXT, IGNORECASE)
_EXAMINE_RE = compile_re(_EXAMINE, IGNORECASE)
_INNER_STOP_RE = compile_re(_INNER_STOP)


def asks(text: str) -> bool:
    """Whether a person's prompt asks for something: at least `ASK_MIN_WORDS` words, and no
    greeting, thanks or acknowledgement opening it (see the module)."""
    # the head is enough to count a few words (a long paste is not split whole)
    head = text.strip()[:ASK_HEAD]
    if not head or text_words(len(head.split()), head) < ASK_MIN_WORDS:
        return False
    return _SOCIAL_RE.match(head[:SOCIAL_HEAD]) is None


def says_choice(text: str) -> bool:
    """Whether a person's prompt says a choice in words: one thing in place of another, a thing
    to use, something not needed, an approval or a ship, merge or revert call (see `_CHOICE`)."""
    lowered = text.lower()
    return any(cue in lowered for cue in _CHOICE_CUES) and _CHOICE_RE.search(text) is not None


def asks_without_choice(text: str) -> bool:
    """Whether a person's prompt asks for something and says no choice: Part 1 of docs/labels.md
    calls such a request context (a spec or code when it says more), a decision only "when it
    makes a choice" ("go with option B", "we use pnpm, not npm"); the model, which met orders
    mostly as decisions, reads "добавь тесты на Go" or "extend the release script to sign the build" as one.
    The bare pick, the go-ahead and the stated choice (`core.picks`) are asked before."""
    return asks(text) and not says_choice(text)


def command_lines(text: str) -> bool:
    """Whether a person's prompt is nothing but shell command lines (see the module)."""
    body = text.strip()
    if not body or len(body) > COMMANDS_MAX or _COMMANDS_RE.match(body) is None:
        return False
    for line in body.splitlines():
        # the words outside quotes (a commit message is an argument, not a sentence)
        bare = " ".join(line.split('"')[::2])
        bare = " ".join(bare.split("'")[::2])
        if not _SENTENCE_WORDS.isdisjoint(bare.lower().split()) or _CJK_SENTENCE_RE.search(bare):
            return False
    return True


def pasted_error(text: str) -> bool:
    """Whether a person's prompt is an error or a warning pasted with no request (see the module)."""
    body = text.strip()
    if _ERROR_RE.match(body, 0, ERROR_HEAD) is None:
        return False
    lines = [line for line in body.splitlines() if line.strip()]
    return _ASKING_RE.search(lines[0]) is None and _ASKING_RE.search(lines[-1]) is None


def plain_report(text: str) -> bool:
    """Whether a person's prompt tells something in a few words and asks for no change (see the
    module): the router reads such a prompt that tells a symptom as analysis."""
    body = text.strip()
    if not body or len(body) > REPORT_MAX:
        return False
    if sum(1 for line in body.splitlines() if line.strip()) > REPORT_MAX_LINES:
        return False
    return _PASTED_RE.search(body) is None and _CHANGE_RE.search(body) is None


def reports_failure(text: str) -> bool:
    """Whether a prompt or a thread message is a plain report that tells a failure as it is seen
    ("Crashes at launch", "Il salvataggio non funziona", "打不开"): Part 1 of docs/labels.md calls a bug report
    that only says what happened context, where the model, which met "doesn't work" mostly in
    review remarks, reads a review."""
    # the cue words first: most messages hold none, and a plain report costs more to ask
    lowered = text.lower()
    if not any(cue in lowered for cue in _FAILURE_CUES):
        return False
    if not plain_report(text) or _FAILURE_SEEN_RE.search(text) is None:
        return False
    return _STORY_RE.search(text) is None


def build_error(text: str) -> bool:
    """Whether an error pasted in a person's prompt is a build, compile, type or lint error that
    names what to change, not a failure at run time (see `_BUILD_ERROR`), in its first lines."""
    return _BUILD_ERROR_RE.search(text, 0, ERROR_HEAD) is not None


def tells_failure(text: str) -> bool:
    """Whether a person's prompt tells a failure as it is seen, in words the label pack's
    `analysis.symptom` does not hold (see the module): read with `plain_report` by the router."""
    lowered = text.lower()
    return any(cue in lowered for cue in _FAILURE_CUES) and _FAILURE_SEEN_RE.search(text) is not None


def polite_request(text: str) -> bool:
    """Whether a person's prompt asks for work politely or as a question ("can you add …?",
    "帮我…", "してください"): a question so phrased is a request, not a question about the work."""
    return _POLITE_RE.search(text) is not None


def ends_question(text: str) -> bool:
    """Whether a person's prompt ends with a question mark."""
    return text.rstrip(_AFTER_QUESTION).endswith(("?", "？"))


def asks_in_words(text: str) -> bool:
    """Whether a person's prompt asks a question in words, with or without its mark (see
    `_QUESTION_WORDS`): "how can I test …", "后端如何启动", "どうやって切り替える"."""
    return _QUESTION_WORDS_RE.search(text.strip()) is not None


def asks_for_plan(text: str) -> bool:
    """Whether a person's prompt asks, in its head, for a plan, a roadmap, a design document or
    an architecture to be made (see the module)."""
    head = text[:PLAN_HEAD]
    lowered = head.lower()
    if not any(cue in lowered for cue in _PLAN_CUES) and not any(cue in head for cue in _PLAN_CUES_CJK):
        return False
    return _PLAN_ASKED_RE.search(head) is not None


def lists_points(text: str) -> bool:
    """Whether a person's prompt lists at least `LIST_MIN_POINTS` points (see the module)."""
    # the first few points only: a long list is not read to its end
    points = zip(range(LIST_MIN_POINTS), _POINT_RE.finditer(text, 0, LIST_HEAD), strict=False)
    return sum(1 for _ in points) == LIST_MIN_POINTS


def states_conditions(text: str) -> bool:
    """Whether a person's prompt states at least `CONDITION_MIN` conditions the result must meet
    and asks no question (see the module)."""
    head = text.strip()[:CONDITION_HEAD]
    if _QUESTION_MARK_RE.search(head) is not None:
        return False
    latin = _CONDITION_RE.finditer(head.lower())
    cjk = (
        m
        for m in _CONDITION_CJK_RE.finditer(head)
        if head[m.start() - 1 : m.start()] != "の" or m[0] != "ように"
    )
    # counted up to the fewest needed; the question words last: they are read through the whole head
    marks = zip(range(CONDITION_MIN), chain(latin, cjk), strict=False)
    return sum(1 for _ in marks) == CONDITION_MIN and not asks_in_words(head)


def asks_to_commit(text: str) -> bool:
    """Whether a person's prompt of at most `COMMIT_MAX_WORDS` words asks to commit, push or
    deploy the work and settles nothing else (see the module)."""
    body = text.strip()
    # a cheap bound first: a prompt this long has more words than such a directive
    if len(body) > COMMIT_MAX_WORDS * 12 or _COMMIT_RE.search(body) is None:
        return False
    if _SETTLES_RE.search(body) is not None:
        return False
    return text_words(len(body.split()), body) <= COMMIT_MAX_WORDS


def asks_for_options(text: str) -> bool:
    """Whether a person's prompt asks for options: other ways, alternatives, which is better
    ("is there some other way to do this?", "а какие еще есть схемы хранения?", "有什么办法…"): the
    router's question rule leaves such a question to the model, which reads it as design (see the
    module)."""
    return _OPTIONS_RE.search(text) is not None


def asks_to_examine(text: str) -> bool:
    """Whether a person's prompt asks, in its head, for the project, its code, files or docs to
    be read, studied, reviewed or summarised, or for a check whether something holds, and asks
    for no change anywhere ("fix", "should", "修改": see `plain_report`): an investigation, which
    Part 2 calls analysis."""
    body = text.strip()
    lowered = body[:EXAMINE_HEAD].lower().replace("\t", " ")
    if not any(cue in lowered for cue in _EXAMINE_CUES):
        return False
    if _EXAMINE_RE.search(body, 0, EXAMINE_HEAD) is None:
        return False
    return _CHANGE_RE.search(body) is None


def asks_next_step(text: str) -> bool:
    """Whether a person's prompt of at most `NEXT_MAX` characters asks what comes next ("what's
    next?", "接下来该做什么", "뭐부터 하면 돼?"): the next steps are a plan, which Part 2 calls design."""
    body = text.strip()
    if not 0 < len(body) <= NEXT_MAX:
        return False
    lowered = body.lower()
    return any(cue in lowered for cue in _NEXT_CUES) and _NEXT_RE.search(body) is not None


def writes_document(text: str) -> bool:
    """Whether a person's prompt names a document (a README, docs, a guide, a Markdown file) in
    its first `DOCUMENT_HEAD` characters with no word of a mechanical change (a changelog, a
    commit, a move, a run): the router reads writing it as the work (see the module)."""
    head = text[:DOCUMENT_HEAD]
    return _DOCUMENT_RE.search(head) is not None and _MECHANICAL_RE.search(head) is None


# a question to the agent about itself: who or what model it is, what it can do or reach
# the question ends there ("what can you do?", not "… about the bug"), or after the agent's name
# said to it ("what can you do, Claude?", "what can you do, codex")
_END = (
    r"(?=(?:[ \t]*+,?[ \t]*+(?:aider|claude|codex|gemini|copilot|cursor|chatgpt|gpt|opencode))?"
    r"[ \t]*(?:[?？!.。！]|\Z))"
)
_ABOUT_THE_AGENT = (
    r"\b(?:what|which)[ \t]+(?:model|llm|ai)(?:[ \t]+version)?[ \t]+(?:are[ \t]+you|is[ \t]+this|is[ \t]+that"
    r"|am[ \t]+i|is[ \t]+running|do[ \t]+you[ \t]+(?:use|run))\b"
    r"|\bwho[ \t]+are[ \t]+you"
    + _END
    + r"|\babout[ \t]+yourself\b|\bhow[ \t]+are[ \t]+you(?:[ \t]+(?:doing|today))?"
    + _END
    + r"|\bwhat[ \t]+(?:can[ \t]+you[ \t]+do|are[ \t]+you[ \t]+(?:able[ \t]+to[ \t]+do|capable[ \t]+of))(?:[ \t]+for[ \t]+me)?"
    + _END
    + r"|\bare[ \t]+you[ \t]+(?:still[ \t]+)?there"
    + _END
    + r"|\bare[ \t]+you[ \t]+an?[ \t]+(?:ai|bot|model|human|real[ \t]+person)\b"
    r"|\b(?:do|can|could)[ \t]+you[ \t]+(?:have|see|read|access|remember|hear|recogni[sz]e|open)[ \t]+"
    r"(?:images?|pictures?|photos?|screenshots?|(?:the[ \t]+)?internet|(?:the[ \t]+)?web|my[ \t]+(?:computer|screen|disk)"
    r"|internet[ \t]+access|web[ \t]+access|skills?|tools?|memory)"
    + _END
    # what it can work with, named in general ("can you run commands?", "do you read pdfs?"; "can you
    # edit the files?" names files of the work, and asks for that work)
    + r"|\b(?:do|can|could)[ \t]+you[ \t]+(?:use|run|read|edit|write|open|browse|execute)[ \t]+"
    r"(?:pdfs?(?:[ \t]+files)?|files|bash|(?:a[ \t]+)?(?:shell|terminal|browser)|commands|docker|git|mcps?)"
    + _END
    + r"|你(?:能|可以)(?:读取?|打开|编辑|修改|运行|执行)(?:pdf|文件|命令|终端)吗"
    r"|(?:ファイル|PDF|pdf)を?(?:読め|開け|編集でき)(?:ますか|る[？?])"
    + r"|你是(?:谁|什么|哪个)|(?:你|这)是(?:什么|哪个)模型|你(?:有|会)(?:什么|哪些)(?:技能|能力|功能|工具)|你会什么"
    + _END
    + r"|你能(?:做什么|干什么)"
    + _END
    + r"|你能(?:识别|看到|看|读取?)(?:图片|图像|截图)|你能上网|你有.{0,12}(?:技能|能力|权限)吗"
    r"|(?:あなた|君)は(?:誰|だれ|何)|(?:あなた|君)は何ができ|(?:どの|何の)モデル(?:です|なの)|画像を?(?:読め|見れ|認識でき)"
    r"|너는[ \t]*누구|무슨[ \t]*모델이(?:야|에요|예요|니)"
    r"|\bqu[eé][ \t]+modelo[ \t]+(?:eres|sos|usas|es[ \t]+este)\b|\bqu[eé][ \t]+puedes[ \t]+hacer"
    + _END
    + r"|\bqu[eé][ \t]+eres[ \t]+capaz\b|\bqui[eé]n[ \t]+eres\b|\btienes[ \t]+acceso[ \t]+a[ \t]+(?:internet|mi[ \t]+(?:computadora|ordenador|pc))\b"
    r"|\b(?:voc[eê]|vc)[ \t]+(?:possui|tem)[ \t]+acesso[ \t]+(?:a|ao|à)[ \t]+(?:internet|meu[ \t]+(?:computador|pc))\b"
    r"|\bqual[ \t]+(?:modelo[ \t]+(?:voc[eê][ \t]+[eé]|[eé][ \t]+voc[eê])|[eé][ \t]+o[ \t]+seu[ \t]+modelo)\b"
    r"|\bquem[ \t]+[eé][ \t]+voc[eê]\b|\bo[ \t]+que[ \t]+voc[eê][ \t]+(?:pode|consegue)[ \t]+fazer"
    + _END
    + r"|\bqui[ \t]+es[ \t-]tu\b|\bquel[ \t]+mod[eè]le[ \t]+es[ \t-]tu\b|\bque[ \t]+(?:sais|peux)[ \t-]tu[ \t]+faire"
    + _END
    + r"|\bwer[ \t]+bist[ \t]+du\b|\bwelches[ \t]+modell[ \t]+bist[ \t]+du\b|\bwas[ \t]+kannst[ \t]+du(?:[ \t]+alles)?"
    + _END
    + r"|кто[ \t]+ты\b|как(?:ая|ой)[ \t]+ты[ \t]+модель|что[ \t]+ты[ \t]+умеешь"
)
# the head of a prompt read for a question to the agent about itself
ABOUT_HEAD: Final = 300
# the cue words (lower case) of a question to the agent about itself: one of them is in every text
# `_ABOUT_THE_AGENT` finds, so a prompt that holds none is not searched
_ABOUT_CUE_WORDS: Final = "you model modèle llm ai tu du ты voc vc quem eres puedes tienes pdf 你 模型 あなた 君 モデル 画像 ファイル 너 모델"
_ABOUT_CUES: Final = tuple(_ABOUT_CUE_WORDS.split())
# the longest prompt the router reads as a question to the agent about itself where the model
# reads it as work (a longer one asks for work besides)
ABOUT_ALONE_MAX: Final = 120
_ABOUT_RE = compile_re(_ABOUT_THE_AGENT, IGNORECASE)


def about_the_agent(text: str) -> bool:
    """Whether a person's prompt asks the agent about itself: its identity, its model, what it
    can do or reach (see the module)."""
    lowered = text[:ABOUT_HEAD].lower()
    if not any(cue in lowered for cue in _ABOUT_CUES):
        return False
    return _ABOUT_RE.search(text, 0, ABOUT_HEAD) is not None


def standing_rule(text: str) -> bool:
    """Whether a person's prompt sets a standing rule for the rest of the work (see the module)."""
    head = text.strip()[:RULE_HEAD]
    lowered = head.lower()
    if not any(cue in lowered for cue in _RULE_CUES):
        return False
    return _STANDING_RE.search(head) is not None


def rule_alone(text: str) -> bool:
    """Whether a person's prompt is a standing rule and nothing more: one sentence of at most
    `RULE_ALONE_MAX` characters ("Please always reply in Portuguese.", "한국어로 답변해줘."), which Part 2
    calls chat: it sets no route (a rule said with a task takes the task's label)."""
    body = text.strip()
    if not 0 < len(body) <= RULE_ALONE_MAX:
        return False
    if _INNER_STOP_RE.search(body.rstrip(".!。！ \t")) is not None:
        return False
    return standing_rule(body)


# a report that something is done or works now, with no request ("the build works now", "I removed
# the old config file", "部署完成", "うまくいきました！", "Всё готово, я включил биллинг"), read
# clause by clause: Part 2 of docs/labels.md calls it chat, a status that sets no route. The
# model, which met "works", "removed" and "完成" in requests, reads work.
# the longest prompt read, and the most words a clause that tells a state may have
DONE_MAX: Final = 160
DONE_CLAUSE_WORDS: Final = 10
_DONE_STATE = (
    r"(?:done|complete|completed|finished|created|deleted|removed|installed|enabled|up|running|ready|fixed"
    r"|resolved|solved|passing|working|merged|pushed|committed|accessible|set[ \t]++up|in[ \t]++place)"
)
# a clause that ends on the state: "it works now", "the deploy is complete", "ripgrep installed",
# "done", "测试都通过了", "動きました", "됐어요", "Всё работает", "deu certo", "ça marche"
_DONE_CLAUSE = (
    r"(?:\b(?:works|worked|working|runs)(?:[ \t]++(?:now|again|fine|great|perfectly|well|very[ \t]++well))*+"
    rf"|\b(?:is|are|was|were|been|now|['’]s|['’]re)[ \t]++(?:(?:now|all|already|finally)[ \t]++)?{_DONE_STATE}"
    r"(?:[ \t]++(?:now|successfully))?"
    r"|\btests?[ \t]++(?:pass|passed|are[ \t]++passing)|\bsuccessfully|\bsucceeded"
    r"|\A(?:(?:nice|ok|okay)[ \t]++)?(?:done|all[ \t]++set|finished|completed|installed|fixed)"
    r"|\A[\w.@/-]++(?:[ \t]++[\w.@/-]++){0,3}?[ \t]++(?:installed|created|deleted|done|merged|fixed|updated|enabled)"
    r"|完成了?|好了|搞定了?|通过了|没有?问题了?|沒問題|可以了|成功了|做好了|弄好了|跑通了|登录了"
    r"|できました|できた|うまくいった|うまくいきました|完了(?:しました)?|やった(?:よ)?|動きました|直りました|終わりました|マージしました"
    r"|됐어요?|됐습니다|됐네요?|완료(?:했어요?|했습니다|됐어요?)?|했어요?|했습니다|성공했어요?"
    r"|\b(?:готово|созданы?|работает|заработал\w*+|получилось)"
    r"|\b(?:pronto|funcionou|feito|deu[ \t]++certo|listo|ya[ \t]++funciona|funciona|hecho)"
    r"|\b(?:erledigt|fertig|funktioniert(?:[ \t]++jetzt)?|vorhanden|geklappt)"
    r"|\b(?:c['’]est[ \t]++fait|[çc]a[ \t]++marche|fini|termin[ée])"
    r")\Z"
    # or opens on what the person did: "I removed …", "я включил …", "eu reiniciei …", "我已确认…"
    r"|\A(?:i|we)(?:['’]ve|[ \t]++have|[ \t]++just)?[ \t]++(?:deleted|removed|created|installed|enabled|disabled"
    r"|restarted|updated|added|pushed|merged|committed|verified|confirmed|fixed|finished|logged[ \t]++in"
    r"|set[ \t]++it[ \t]++up|turned[ \t]++on)\b"
    r"|\A(?:я[ \t]++)?(?:включил|сделал|создал|установил|удалил|запустил|смог)"
    r"|\A(?:eu[ \t]++)?(?:reiniciei|pausei|instalei|criei|apaguei|consegui)\b"
    r"|\A(?:yo[ \t]++)?(?:instal[eé]|cre[eé]|borr[eé]|reinici[eé])\b"
    r"|\A(?:我(?:已經|已经|已)?|已經|已经|已)(?:确认|確認|登录|装好|改好|完成)"
)
# what says a state is not all there is: a remaining problem, a negation
_DONE_BUT = (
    r"\b(?:but|still|however|though|except|yet|only|not|no|pero|todav[ií]a|mas|ainda|mais|aber|noch"
    r"|nicht|pas|n[ãa]o|но|ещё|еще|не)\b|n['’]t|但|还是|仍|可是|不过|不|没有|けど|ただ|ない|하지만|근데|는데|않|안[ \t]"
)
# a clause that opens on an order is a request ("check that it is working", "先把…跑通了")
_DONE_ASKS = (
    r"\A(?:make|ensure|check|test|verify|see|confirm|remember|save|salve|try|let|run|please)(?![\w'’])"
    r"|\A(?:先|把|请|請|帮|幫)"
)
_DONE_CLAUSE_RE = compile_re(_DONE_CLAUSE, IGNORECASE)
_DONE_BUT_RE = compile_re(_DONE_BUT, IGNORECASE)
_DONE_ASKS_RE = compile_re(_DONE_ASKS, IGNORECASE)


def tells_done(text: str) -> bool:
    """Whether a person's prompt of at most `DONE_MAX` characters only reports that something is
    done or works now (see above): no question, no change asked, no failure told, and each clause
    a state told, a social word, a go-ahead or a resume ("Perfect, the app was built
    successfully and the tests pass"; an apology such as "すみません" is left to the model)."""
    body = text.strip()
    if not 0 < len(body) <= DONE_MAX or "?" in body or "？" in body:
        return False
    # the clauses and the resume are the go-ahead's (`core.picks`): one reading of a short prompt
    from turnlens.core.picks import bare_pick, clauses, resumes

    told = False
    # clause by clause first: most prompts open on a request, which ends the search there
    for part in clauses(body):
        words = text_words(len(part.split()), part)
        if _DONE_CLAUSE_RE.search(part) is None:
            if (_SOCIAL_RE.match(part) is not None and words <= 2) or resumes(part) or bare_pick(part):
                continue
            return False
        if (
            _DONE_ASKS_RE.match(part) is not None
            or words > DONE_CLAUSE_WORDS
            or _DONE_BUT_RE.search(part) is not None
        ):
            return False
        told = True
    return told and _CHANGE_RE.search(body) is None and not tells_failure(body)
