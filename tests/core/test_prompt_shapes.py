"""What a person's prompt is by its shape (`turnlens.core.prompt_shapes`): one that asks for
something is a request, neither chitchat nor a review, however few its words (a greeting, a
thanks, an acknowledgement or a bare "continue" is left to the model); one that is nothing but
shell command lines, or an error pasted with no request, is code; one that sets a standing rule,
lists points or states conditions is kept word for word; a commit or push asked for is a request,
no decision. Only a person's prompt is read this way."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from turnlens.classifier import classify, classify_many, classify_unit
from turnlens.core.kinds import kind_evidence
from turnlens.core.prompt_shapes import (
    ASK_MIN_WORDS,
    ASK_WHY,
    COMMANDS_MAX,
    COMMANDS_WHY,
    COMMIT_MAX_WORDS,
    COMMIT_WHY,
    CONDITION_HEAD,
    CONDITIONS_WHY,
    DOCUMENT_HEAD,
    DONE_CLAUSE_WORDS,
    DONE_MAX,
    ERROR_HEAD,
    ERROR_WHY,
    LIST_HEAD,
    LIST_WHY,
    NEXT_MAX,
    NO_CHOICE_CLASSES,
    NO_CHOICE_SURE,
    PLAN_HEAD,
    REPORT_MAX,
    REQUEST_CLASSES,
    REQUEST_WHY,
    RULE_ALONE_MAX,
    RULE_HEAD,
    RULE_WHY,
    about_the_agent,
    asks,
    asks_for_options,
    asks_for_plan,
    asks_in_words,
    asks_next_step,
    asks_to_commit,
    asks_to_examine,
    asks_without_choice,
    build_error,
    command_lines,
    ends_question,
    lists_points,
    pasted_error,
    plain_report,
    polite_request,
    reports_failure,
    rule_alone,
    says_choice,
    standing_rule,
    states_conditions,
    tells_done,
    tells_failure,
    writes_document,
)
from turnlens.core.rules import builtin_pack

ASKS = [
    "align the cards to the left",
    # a word that opens a social prompt when a stop follows it, and a sentence when none does
    "ha fallado el login desde ayer",
    "morning standup notes are missing from the wiki",
    "summarise what this repo does",
    "Can you walk me through the auth flow?",
    "No orders show up on the dashboard",
    "wrong field name, use the one from the schema",
    "still the same",
    "what about the footer",
    "did you save it",
    "same error here again",
    "kannst du die Tests ausführen?",
    "mach das nochmal",
    "de nuevo por favor",
    "el menú sigue sin abrirse en móvil",
    "reiniciei o servidor agora",
    "crée une branche pour le correctif",
    "где лежит конфиг",
    "这个接口有鉴权吗",
    "帮我看看这个报错",
    "그거 다시 해봐",
    # a Latin greeting word must end where it ends: "hind", "okapi", "thanksgiving" are words
    "hind legs of the model look wrong",
    "okapi images are missing from the gallery",
    # "yo" is Spanish for "I" before it is a greeting
    "yo necesito un endpoint para exportar",
]

# a request that says a choice (docs/labels.md, Part 1: "decision when it makes a choice"): one thing
# in place of another, a thing to use, something not needed, an approval or a ship call
CHOICE_ASKS = [
    "let's use Postgres instead of MySQL",
    "we use pnpm, please remember that, and try again",
    "ок, давай использовать fastapi и составь план",
    "документация не нужна, сделай только прототип",
    "no need to send it, just solve the problem",
    "用 Redis 而不是 Memcached",
    "それは不要です。",
    "Postgres ではなく SQLite を使って",
    "LGTM, merge it into the release branch",
    "revert to the old parser, it broke the build",
]

LEFT_TO_THE_MODEL = [
    # too short to say what is asked: a resume, a word, a reaction
    "continue",
    "go on",
    "fix",
    "WTF?",
    "继续",
    "продолжай",
    # a greeting, a thanks or an acknowledgement opens it
    "Hello there, how is it going",
    "hi, what can you do?",
    "Thanks, that works now!",
    "ok thanks a lot",
    "Привет, как дела?",
    "好的，谢谢你的帮助",
    "ありがとうございます、助かりました",
    "hola, ¿qué tal?",
    "great, now the page loads",
    # an interjection opens it
    "hmm, let me think about that tonight",
    "morning! back at it in ten minutes",
    "jaja, no me lo esperaba",
    "ha, that was quicker than I thought",
]


@pytest.mark.parametrize("text", LEFT_TO_THE_MODEL)
def test_greetings_thanks_and_resumes_are_left_to_the_model(text: str) -> None:
    assert not asks(text)
    assert kind_evidence("prompt", text) == (None, None)


# requests worded as PR remarks are ("should", "check", "is this correct"): as a thread message
# the shipped model reads each of these as a review
REVIEW_WORDED = [
    "the header should not move when the page scrolls",
    "revisa el formulario de login, debería validar el correo",
    "bitte prüfe, ob der Export noch funktioniert",
    "can you review the new parser tests",
    "is the rounding right now?",
    "this looks wrong, the total should include tax",
]


@pytest.mark.parametrize(
    ("texts", "read_as", "at_least"), [(ASKS, "chitchat", 5), (REVIEW_WORDED, "review", 4)]
)
def test_the_model_read_them_otherwise_before(texts: list[str], read_as: str, at_least: int) -> None:
    """The evidence is what moves them: without the kind, as a conversation turn, the shipped
    model reads several requests as chitchat, and several worded as PR remarks as reviews (else
    the tests of a request could not fail). A request typed to an agent is neither
    (docs/labels.md, Part 1: context)."""
    pack = builtin_pack("default")
    read = [t for t in texts if classify(t, pack).task_class == read_as]
    assert len(read) >= at_least, read


@pytest.mark.parametrize("text", REVIEW_WORDED)
def test_a_request_is_no_review(text: str) -> None:
    assert asks(text)
    allowed, why = kind_evidence("prompt", text)
    assert allowed is not None and "review" not in allowed and "chitchat" not in allowed
    assert why in (REQUEST_WHY, ASK_WHY)
    assert classify_unit(text, "prompt").task_class != "review"


def test_a_decision_said_in_a_prompt_wins() -> None:
    """A go-ahead or a stated choice is a decision (core.picks), asked before this."""
    assert kind_evidence("prompt", "yes, push it to main")[0] == ("decision",)
    assert kind_evidence("prompt", "let's go with the queue, drop the cron job")[0] == ("decision",)


def test_words_are_counted_as_the_learned_features_count_them() -> None:
    """Two CJK characters make a word: a short Chinese request asks, a bare "继续" does not."""
    assert ASK_MIN_WORDS == 3
    assert asks("修复登录按钮")
    assert not asks("继续")
    assert not asks("")
    assert not asks("   \n ")


def test_a_long_head_is_read_only_in_its_head() -> None:
    text = "x" * 5000 + " thanks"
    assert asks("please check " + text)


COMMAND_LINES = [
    "npm start",
    "ls -l",
    "cd ~/projects/shop",
    "python3 -m http.server 8000",
    "pip install -U httpx",
    "$ docker-compose up -d",
    "/run git log --oneline -5",
    "!pytest -x tests/test_api.py",
    'git add -A\ngit commit -m "wip: the checkout page"',
    "cd site\n\npython3 -m http.server 8000",
    "./scripts/deploy.sh --dry-run",
    "aider --model some/model --no-auto-commits",
    "git",
    # programs people run from a prompt beyond the package managers and the shell's own
    "tree",
    "ollama run llama3:8b",
    "firebase deploy --only hosting",
    "setx JAVA_HOME C:\\jdk-21",
    # environment variables before the program
    "NODE_ENV=production npm run build",
    "DEBUG=1 PORT=8080 python3 app.py",
    # a program the list does not name, with an option right after it
    "open -a Safari index.html",
    "hugo --minify",
    "cd ~/blog\njekyll --version",
    "cd 项目/前端\nnpm run dev",
    "sudo npm i -g typescript",
]

NOT_COMMAND_LINES = [
    "npm run build says the env file is missing. can you look",
    "git is not pushing my tags",
    "npm keeps failing on install",
    "why does npm start fail?",
    "cd into the folder and run the tests",
    "make the header sticky",
    "go build fails on arm64",
    "open the settings page",
    "npm start\nthen tell me what it prints.",
    "Run npm start",
    "cdn links are broken",
    "ollama is not starting",
    "tree shaking removes my export",
    "claude code is great",
    "firebase auth keeps logging me out",
    "hugo builds are slow -- any idea",
    "DEBUG=1 does nothing when I start it",
    "mypy かけてエラー全部直して",
    "git log 里这个 commit 改了什么，你解释一下",
    "docker 镜像变大了。查一下原因",
    "codex 작업 내용 모두 정리해줘",
]


PASTED_ERRORS = [
    "TypeError: cart.items is undefined",
    "ModuleNotFoundError: No module named 'httpx'",
    "src/pages/cart.tsx:41:17 - error TS2339: Property 'total' does not exist on type 'Cart'.",
    "Traceback (most recent call last):\n  File \"app.py\", line 9, in <module>\n    main()\nKeyError: 'id'",
    "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
    "▲ WARNING: The `@media` rule is not closed",
    "warning: unused variable `count`\n --> src/main.rs:12:9",
    "Uncaught ReferenceError: $ is not defined",
    # a lead-in before the paste
    "I'm getting:\n\nConnectionRefusedError: [Errno 111] Connection refused",
    "报错：Error: listen EADDRINUSE: address already in use :::3000",
    "エラー: java.lang.NullPointerException: name is null",
]

NOT_PASTED_ERRORS = [
    # a question or a fix asked for, first or last: the model decides
    "TypeError: cart.items is undefined\n\nwhy?",
    "Error: listen EADDRINUSE :::3000\nfix it",
    "TypeError: x is undefined, how do I fix this",
    "I'm getting: KeyError: 'id' — what does it mean?",
    # about errors, not an error
    "Error messages should say what to do next",
    "the error: it only fails on Safari",
    "Errors are swallowed in the retry loop",
    "we get a 500 error when the cart is empty",
]


def test_a_pasted_error_is_looked_for_at_the_opening_only() -> None:
    assert not pasted_error("x " * ERROR_HEAD + "\nTypeError: x is undefined")
    assert not pasted_error("see this\n\nTypeError: x is undefined")


def test_a_long_paste_is_not_read_as_command_lines() -> None:
    text = "\n".join(["git status"] * (COMMANDS_MAX // 10 + 1))
    assert len(text) > COMMANDS_MAX and not command_lines(text)


LISTS = [
    "Fix the settings page:\n1. the save button stays disabled\n2. the email field loses focus\n3. errors show twice",
    "- tiles at least 240px wide\n- never wider than half the screen\n- 16px between tiles",
    "请修改：\n1. 日志写到 logs 目录\n2. 错误提示改成中文\n3. 超时改为三十秒",
    "修改如下：\n一、登录页去掉验证码\n二、注册时校验手机号\n三、密码至少八位",
    "Requisitos:\n* upload até 50 MB\n* rejeitar executáveis\n* mostrar o progresso",
]

NOT_LISTS = [
    "Fix these two:\n1. the save button\n2. the email field",
    "The build fails with 3 errors. 1. is about imports",
    "version 1.2.3 is out",
    "a - b - c are the three options",
]


def test_a_list_is_looked_for_in_the_head_only() -> None:
    late = "x " * LIST_HEAD + "\n1. one\n2. two\n3. three"
    assert not lists_points(late)
    assert lists_points("1. one\n2. two\n3. three\n" + "x " * LIST_HEAD)


STANDING_RULES = [
    "answer in Korean from now on",
    "Please always reply in German, even when I write English",
    "Always run the linter before you commit anything",
    "never use rm, move files to the trash instead",
    "from now on keep the changelog updated after every change",
    "responde siempre en español, por favor",
    "a partir de agora, escreva os commits em português",
    "réponds en français à partir de maintenant",
    "antworte bitte immer auf Deutsch",
    "отвечай на русском",
    "以后都用中文回复我",
    "用中文回答，代码注释也用中文",
    "これからは日本語で答えてください",
    "앞으로는 한국어로 답해 줘",
    "Let's fix the login bug.\nNever push to main directly, open a branch.",
]

NOT_STANDING = [
    "never mind, the build works",
    "the text is always white on the dark theme",
    "why does it always fail on the second run?",
    "translate the README into German",
    "add a Korean locale file",
    "I always forget the flags, what were they",
    "it never reaches the handler",
    "总是报错，看看怎么回事",
]


# each language the rule names, as people type it with and without its accents
LANGUAGE_RULES = [
    "reply in Thai",
    "responde en ingles",
    "responde en inglés",
    "contesta en japones",
    "responda em chines",
    "responda em chinês",
    "escreva em alemao",
    "fale em portugues",
    "réponds en francais",
    "reponds en anglais",
    "antworte auf franzosisch",
    "schreib alles auf Englisch",
    "rispondi in italiano",
    "пиши по-русски",
    "на английском отвечай",
    "trả lời bằng tiếng Việt",
    "tra loi bang tieng Viet",
    "用英文回复",
    "简体中文回答",
    "英語で答えて",
    "영어로 답해",
]


@pytest.mark.parametrize("text", LANGUAGE_RULES)
def test_each_language_is_a_rule_with_or_without_its_accents(text: str) -> None:
    assert standing_rule(text)


def test_the_cue_words_only_save_time() -> None:
    """A prompt holding none of the cue words is not searched: on every text of this file the
    answer is the pattern's own."""
    from turnlens.core.prompt_shapes import _STANDING_RE

    texts = [*ASKS, *LEFT_TO_THE_MODEL, *REVIEW_WORDED, *STANDING_RULES, *NOT_STANDING, *LISTS]
    texts += LANGUAGE_RULES
    for text in texts:
        assert standing_rule(text) == (_STANDING_RE.search(text.strip()[:RULE_HEAD]) is not None), text


def test_a_standing_rule_is_looked_for_in_the_head_only() -> None:
    assert not standing_rule("x " * RULE_HEAD + "\nanswer in Korean from now on")
    assert standing_rule("answer in Korean from now on\n" + "x " * RULE_HEAD)


# a request that states two conditions or more the result must meet, in the guide's languages
CONDITIONS = [
    "Add an export button to the report page. It should only appear for admins, and the file must use"
    " semicolons as separators.",
    "make sure the cache is cleared on logout and never keep tokens in local storage",
    "The upload must reject files over 20 MB. Don't change the public API.",
    "Build the settings dialog: the theme switch is off by default and the language list shows at"
    " least five entries.",
    "给设置页加一个导出按钮，只能管理员看到，导出的文件必须是 UTF-8 编码",
    "不要改动数据库结构，新字段需要兼容旧数据",
    "検索結果は必ず日付順に並べて、削除済みの記事は表示しないようにしてください",
    "로그인 버튼은 반드시 오른쪽 위에 두고, 비밀번호는 로그에 남기지 않도록 해 주세요",
    "El formulario debe validar el correo y nunca enviar la contraseña en texto plano.",
    "A API deve aceitar arquivos de até 50 MB e só aceitar PDF.",
    "Le script doit tourner sans réseau et ne jamais écrire en dehors du dossier tmp.",
    "Die Tabelle muss sortierbar sein und darf nur die letzten 30 Tage zeigen, Export soll immer als CSV gehen.",
    "Кнопка должна быть неактивной, пока форма не заполнена, и всегда показывать подсказку.",
    "Il pulsante deve essere visibile solo agli utenti registrati, e il testo dovrebbe restare in italiano.",
]
# one mark alone (a wish or a note), a question, a word that only holds a mark: no condition stated
NOT_CONDITIONS = [
    "it should be faster",
    "only the login page is slow today",
    "fix the header, it looks off on mobile",
    "should the button only show for admins? and must it be red?",
    "how should I structure the tests so they only run once",
    "I changed the config this morning, and only the login page is slow",
    "like the onlyfans clone, the shoulder icon sits on the nieve background",
    "前と同じように、例のように並べて",
    "这个页面为什么必须登录才能看？不要骗我",
]


# a directive to commit, push or deploy the work, in the guide's languages: a request
COMMITS = [
    "commit and push",
    "push the commit",
    "commit this and open a PR",
    "deploy the functions to staging",
    "コミットしてプッシュしてください",
    "提交并推送到远程仓库",
    "커밋하고 푸시해 줘",
    "haz commit de los cambios",
    "faz o push para a main",
    "закоммить и запушь",
]
# one that settles something along with it, a longer prompt, a word that only holds the verb
NOT_COMMITS = [
    "ok, that's good enough: commit and push",
    "LGTM, push it",
    "don't push yet, the tests are red",
    "先不要提交",
    "まだプッシュしないで",
    "the commitment to the schedule is in the roadmap doc",
    "add push notifications to the settings screen so users can turn them on and off for each"
    " channel they follow",
]


# a sentence about a command, two points or numbers in a line, a word of time or a language
# alone: no shape
QUIET = [
    *((text, command_lines, COMMANDS_WHY) for text in NOT_COMMAND_LINES),
    *((text, lists_points, LIST_WHY) for text in NOT_LISTS),
    *((text, standing_rule, RULE_WHY) for text in NOT_STANDING),
    *((text, pasted_error, ERROR_WHY) for text in NOT_PASTED_ERRORS),
    *((text, states_conditions, CONDITIONS_WHY) for text in NOT_CONDITIONS),
    *((text, asks_to_commit, COMMIT_WHY) for text in NOT_COMMITS),
]


@pytest.mark.parametrize(("text", "shape", "why"), QUIET)
def test_what_only_looks_like_a_shape_is_none(text: str, shape: Callable[[str], bool], why: str) -> None:
    assert not shape(text)
    assert kind_evidence("prompt", text)[1] != why


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (ASKS[0], REQUEST_WHY),
        (CHOICE_ASKS[0], ASK_WHY),
        (COMMAND_LINES[0], COMMANDS_WHY),
        (PASTED_ERRORS[0], ERROR_WHY),
        (LISTS[0], LIST_WHY),
        (STANDING_RULES[0], RULE_WHY),
        (CONDITIONS[0], CONDITIONS_WHY),
        (COMMITS[0], COMMIT_WHY),
    ],
)
def test_only_a_persons_prompt_is_read_so(text: str, why: str) -> None:
    """A thread message of a few words may well be chitchat ("This is great work!") and is read
    by its words; an agent's reply lists its steps and says "from now on I will…" of its own
    work, and it and a tool call have their kind's classes."""
    assert kind_evidence(None, text) == (None, None)
    assert kind_evidence("reply", text)[1] != why
    assert kind_evidence("tool_call", text)[1] != why


SETTLED = [
    *((text, asks_without_choice, REQUEST_CLASSES, REQUEST_WHY) for text in ASKS),
    *((text, asks, ("decision", "spec", "code", "context"), ASK_WHY) for text in CHOICE_ASKS),
    *((text, standing_rule, ("decision", "spec"), RULE_WHY) for text in STANDING_RULES),
    *((text, command_lines, ("code",), COMMANDS_WHY) for text in COMMAND_LINES),
    *((text, pasted_error, ("code",), ERROR_WHY) for text in PASTED_ERRORS),
    *((text, lists_points, ("decision", "spec", "code"), LIST_WHY) for text in LISTS),
    *((text, states_conditions, ("spec", "code"), CONDITIONS_WHY) for text in CONDITIONS),
    *((text, asks_to_commit, ("spec", "code", "context"), COMMIT_WHY) for text in COMMITS),
]


@pytest.mark.parametrize(("text", "shape", "classes", "why"), SETTLED)
def test_a_prompt_settled_by_its_shape(
    text: str, shape: Callable[[str], bool], classes: tuple[str, ...], why: str
) -> None:
    """A request of a few words is neither chitchat nor a review, command lines are code, a
    standing rule and a list of points are kept word for word: the kind evidence says so and
    why, and the answer is among them."""
    assert shape(text)
    assert kind_evidence("prompt", text) == (classes, why)
    assert classify_unit(text, "prompt").task_class in classes


@pytest.mark.parametrize("text", CHOICE_ASKS)
def test_a_request_that_says_a_choice_may_be_a_decision(text: str) -> None:
    assert says_choice(text) and asks(text) and not asks_without_choice(text)


@pytest.mark.parametrize(
    "text",
    [
        "добавь тесты для парсера",
        "extend the release script to sign the build",
        "use the helper from utils",  # a thing to use, said to the agent: no choice between options
        "needed for the release, add the changelog entry",
        "steady state is fine",  # "statt" must be a whole word
    ],
)
def test_a_request_with_no_choice_said_is_no_decision(text: str) -> None:
    assert not says_choice(text)
    assert kind_evidence("prompt", text) == (REQUEST_CLASSES, REQUEST_WHY)
    assert classify_unit(text, "prompt").task_class != "decision"


def test_a_request_read_as_a_decision_answers_its_next_class() -> None:
    """Where the model says decision and the request says no choice, the next of its other
    classes answers, as sure as such answers were right; the decision keeps the rest's largest
    share, so the guard may still keep the prompt in doubt."""
    from turnlens.classifier import no_choice
    from turnlens.learn.model import Prediction

    said = Prediction("decision", 0.6, {"decision": 0.6, "spec": 0.05, "context": 0.3, "chitchat": 0.05})
    got = no_choice(said)
    assert got.label == "context" and got.confidence == NO_CHOICE_SURE
    assert abs(sum(got.probabilities.values()) - 1.0) < 1e-9
    assert max(got.probabilities, key=got.probabilities.__getitem__) == "context"
    assert got.probabilities["decision"] > got.probabilities["spec"] > 0
    assert no_choice(Prediction("context", 0.7, {"decision": 0.3, "context": 0.7})).label == "context"
    assert 0.5 < NO_CHOICE_SURE < 1.0
    text = (
        "И ещё добавь тест на Go для хендлера"  # "and add a Go test for the handler": the model says decision
    )
    c = classify_unit(text, "prompt")
    assert c.task_class in NO_CHOICE_CLASSES and c.confidence == NO_CHOICE_SURE
    assert c.runner_up() is not None and c.runner_up()[0] == "decision"
    many = classify_many([text], kinds=["prompt"])[0]
    assert (many.task_class, many.confidence) == (c.task_class, c.confidence)
    assert classify_unit("let's use Postgres instead of MySQL", "prompt").task_class == "decision"


def test_the_cue_words_of_a_failure_and_of_a_choice_only_save_time() -> None:
    """A text holding none of the cue words is not searched: on every text of this file and on
    the head of every row of the shipped corpus (all its languages) the answer is the
    pattern's own."""
    import json
    from pathlib import Path

    import turnlens
    from turnlens.core.prompt_shapes import _CHOICE_RE, _FAILURE_SEEN_RE, _STORY_RE

    texts = [*FAILURES_SEEN, *NOT_FAILURES_SEEN, *ASKS, *CHOICE_ASKS, *LEFT_TO_THE_MODEL, *EXAMINED]
    for path in sorted((Path(turnlens.__file__).parent / "learn" / "corpus").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            texts.append(json.loads(line)["text"][:300])
    assert len(texts) > 10_000
    for text in texts:
        failure = _FAILURE_SEEN_RE.search(text) is not None
        assert tells_failure(text) == failure, text
        story = _STORY_RE.search(text) is not None
        assert reports_failure(text) == (plain_report(text) and failure and not story), text
        assert says_choice(text) == (_CHOICE_RE.search(text) is not None), text


def test_conditions_are_counted_in_the_head_only() -> None:
    """A long paste is not read to its end: marks past `CONDITION_HEAD` do not count."""
    late = "x " * CONDITION_HEAD + "it must work offline and never log passwords"
    assert not states_conditions(late)
    assert states_conditions("it must work offline and never log passwords " + "x " * CONDITION_HEAD)


def test_a_requirement_said_of_us_is_one() -> None:
    """Typed to an agent, "we should use …" and "I should be able to …" bind the result."""
    assert states_conditions("we should use the billing module, and we should reuse its create service")
    assert states_conditions("I should be able to pick a folder, not only a file")


def test_conditions_stated_come_after_a_list_and_before_a_request() -> None:
    """A list of points keeps its classes (a decision among them); conditions stated in a
    request of a few words are no longer left as context."""
    listed = "1. the button must be blue\n2. it should never move\n3. keep the label"
    assert kind_evidence("prompt", listed)[1] == LIST_WHY
    assert asks(CONDITIONS[1])
    assert kind_evidence("prompt", CONDITIONS[1])[1] == CONDITIONS_WHY


def test_a_yes_with_a_push_said_stays_a_go_ahead() -> None:
    """ "sure, push it" answers the agent: the go-ahead (a decision) is asked before the
    directive to commit."""
    assert asks_to_commit("push it to main")
    assert kind_evidence("prompt", "sure, push it to main")[0] == ("decision",)


def test_a_directive_to_commit_is_a_few_words() -> None:
    words = " ".join(["commit"] + ["word"] * COMMIT_MAX_WORDS)
    assert not asks_to_commit(words)
    assert asks_to_commit(" ".join(["commit"] + ["word"] * (COMMIT_MAX_WORDS - 1)))


# a person's question to the agent about itself: its identity, its model, what it can do or reach
ABOUT_THE_AGENT = [
    "what model are you?",
    "which LLM is this",
    "who are you?",
    "tell me a little about yourself",
    "what can you do?",
    "are you still there?",
    "can you see images?",
    "do you have internet access?",
    "你是什么模型？",
    "你会什么？",
    "あなたは何ができますか",
    "무슨 모델이야?",
    "¿qué modelo eres?",
    "quem é você?",
    "que peux-tu faire ?",
    "was kannst du alles?",
    "что ты умеешь?",
    # the agent's name said to it
    "what can you do, Claude?",
    "what can you do, codex",
    "who are you codex",
    # what it can work with, named in general
    "can you run commands?",
    "do you read pdfs?",
    "could you open a terminal, claude?",
    "你能读取pdf吗",
    "ファイルを編集できますか",
]
# questions that ask about the work, whatever words they share with those
ABOUT_THE_WORK = [
    "which model should we use for the ranking step?",
    "what model does the importer load at startup?",
    "can you see why the build fails?",
    "how are you handling retries in the client?",
    "what can you do about the flaky test?",
    "who are you calling in this handler?",
    "用什么模型比较好",
    "这个库能做什么",
    "¿qué puedes hacer con este error?",
    "quel modèle utiliser pour la recherche ?",
    "was kannst du mir zu diesem Fehler sagen",
    "what can you do with the cursor position?",  # a word after the name: the work
    "can you run the tests?",  # the work's own tests: a request
    "can you edit the files in src/ to use tabs?",
    "can you open a terminal in the repo root and start the server?",
]


@pytest.mark.parametrize("text", ABOUT_THE_AGENT)
def test_a_question_to_the_agent_about_itself(text: str) -> None:
    # the router leaves it no route (Part 2: a meta question is chat), however the model reads it
    assert about_the_agent(text)


@pytest.mark.parametrize("text", ABOUT_THE_WORK)
def test_a_question_about_the_work_is_not_one(text: str) -> None:
    assert not about_the_agent(text)


PLAIN_REPORTS = [
    "the preview still doesn't show",
    "nothing happens when I click save",
    "it works locally but the deployed page is blank",
    "la página sigue en blanco",
    "o botão de salvar não funciona\ndepois do login",  # two lines
    "le menu ne s'affiche toujours pas",
    "登录页还是不显示",
    "ボタンを押しても何も起きない",
    "сайт не открывается",
]
NOT_PLAIN_REPORTS = [
    "the preview still doesn't show, fix it",  # a fix asked for
    "still broken. can you repair the login?",
    "la página no carga, arréglalo",
    "o botão não funciona, corrija",
    "le menu ne s'affiche pas, corrige-le",
    "die Tabelle wird nicht angezeigt, bitte behebe das",
    "сайт не открывается, исправь",
    "登录页还是不显示，改一下",
    "ボタンが動かない、直して",
    "버튼이 안 눌려요 고쳐줘",
    "the banner should only show on the home page",  # a requirement stated
    "the list must stay sorted after a refresh",
    "TypeError: x is undefined",  # a pasted error
    "still the same:\nsrc/app.ts:14:9 - error TS2322: Type 'string' is not assignable",
    "one\ntwo\nthree",  # three lines
    "",
]


@pytest.mark.parametrize("text", PLAIN_REPORTS)
def test_a_plain_report_tells_and_asks_no_change(text: str) -> None:
    assert plain_report(text)


@pytest.mark.parametrize("text", NOT_PLAIN_REPORTS)
def test_a_change_asked_a_requirement_or_a_paste_is_no_plain_report(text: str) -> None:
    assert not plain_report(text)


def test_a_plain_report_is_a_few_words() -> None:
    text = "the chart is empty " * 20
    assert len(text.strip()) > REPORT_MAX and not plain_report(text)
    assert plain_report(text[: REPORT_MAX - 20])


@pytest.mark.parametrize("word", ["prefix", "fixture", "mustard", "development", "debenture"])
def test_a_word_that_only_holds_a_change_word_is_not_one(word: str) -> None:
    assert plain_report(f"the {word} page is blank")


FAILURES_SEEN = [
    "the worker keeps crashing after a deploy",
    "the upload is stuck at 99 %",
    "I can't log in with the new password",
    "la app no funcionó después del cambio",
    "o app ainda trava no splash",
    "ça plante au démarrage",
    "die App stürzt beim Start ab",
    "la pagina si blocca",
    "приложение вылетает при запуске",
    "打开就闪退",
    "アプリが起動しない",
    "로그인 버튼 동작 안 해",
    # a state of what is not seen
    "the search bar isn't responsive",
    "nothing shows after the upload",
    "又 无法访问此网站 了",
    "页面连不上后端",
    "ws-proxy なしだと接続できない",
    "여전히 프리뷰가 안보이는데",
    "아직 violet이 적용되지않음",
    # no response, something broken, an error that shows up
    "저장 버튼을 눌러도 아무 반응이 없어",
    "한글이 또 깨져",
    "배포하니까 이런 오류가 뜨네",
    "ログイン後に500エラーが出ます",
    "「接続に失敗しました」とでます",
    "送信ボタンが反応しない",
    # an error that one hits, gets or sees
    "the upload hits a CORS error on the second request",
    "after the migration the page returns 500",
    "the editor is showing type errors in every file",
    "при сохранении ошибка приходит от сервера",
    "点保存以后出现了错误",
    "ビルドするとエラーになる",
    # stopped working, no reaction, broken, hanging
    "после обновления бот перестал отвечать",
    "кнопка сохранения не нажимается",
    "вкладка настроек опять сломалась",
    "на экране входа висит загрузка",
    "logowanie nie działa",
]
NOT_FAILURES_SEEN = [
    "add a retry when the upload fails",
    "keep the crash reporter as it is",
    "the build is down to 40 seconds, nice",
    "make the login page stick to the top",
    "check whether the script stops, and restart it if it does",
    "이 스크립트가 중단되지 않는지 확인해 줘",  # whether it stops: a check asked, not a failure
    "セッションがなくても動くようにしたい",
    "에러가 없는지 확인해 줘",  # whether there is an error: a check asked
    "エラー処理を追加して",  # error handling asked for
    "show errors in a toast instead of the console",  # a request to show them
    "return 404 when the user is missing",  # a behaviour asked for
    "сделай так, чтобы кнопка не нажималась дважды",  # a behaviour asked for
]


@pytest.mark.parametrize("text", FAILURES_SEEN)
def test_a_failure_told_as_it_is_seen(text: str) -> None:
    assert tells_failure(text)


@pytest.mark.parametrize("text", NOT_FAILURES_SEEN)
def test_words_of_failure_in_a_request_are_no_failure_seen(text: str) -> None:
    assert not tells_failure(text)


POLITE = [
    "can you add a dark mode toggle?",
    "could u rename it",
    "can we map the events from the csv instead?",
    "Could we start with a simple maze?",
    "would it be possible to keep both?",
    "is it possible to run it nightly?",
    "please check the token",
    "let's see what the logs say",
    "i need the totals by month",
    "¿puedes revisar el login?",
    "você pode subir o servidor?",
    "peux-tu relancer les tests ?",
    "kannst du das Token prüfen?",
    "можешь проверить конфиг?",
    "帮我看看这个接口",
    "请检查一下配置",
    "把标题改成蓝色",
    "不要なブランチを削除してもらっていいでしょうか？",
    "確認してください",
    "설정 파일 만들어 주세요",
]
NOT_POLITE = [
    "is this header sticky on purpose?",
    "what does the retry count default to?",
    "the upload could not connect",  # "could" without "you"
    "why is the cache cleared on every deploy",
    "这个环境变量是干什么用的？",
    "この設定は本番でも有効？",
    "the pleasant path works",  # a word that only holds "please"
    "how can we detect the merge base?",  # a question: how, not whether we may
    "what else can we look at?",
]


@pytest.mark.parametrize("text", POLITE)
def test_a_request_phrased_politely_or_as_a_question(text: str) -> None:
    assert polite_request(text)


@pytest.mark.parametrize("text", NOT_POLITE)
def test_a_question_about_the_work_is_no_polite_request(text: str) -> None:
    assert not polite_request(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("is it done?", True),
        ("これは意図的なもの？", True),
        ('did it print "ok?"', True),
        ("did it work?)", True),
        ("is it done?  ", True),
        ("why? because the cache is cold", False),
        ("fix it", False),
        ("", False),
    ],
)
def test_a_question_ends_with_its_mark(text: str, expected: bool) -> None:
    assert ends_question(text) is expected


PLANS_ASKED = [
    "write a detailed plan to fix them in TODO.md",
    "Analyze the engines and make a detailed plan in PLAN.md",
    "create an implementation plan that follows the spec exactly",
    "draft a rollout plan for the billing service",
    "come up with a migration strategy for the old tables",
    "give me a roadmap for the next three releases",
    "haz un plan de migración a Postgres",
    "elabora una estrategia de caché",
    "crea una arquitectura para el módulo de pagos",
    "faça uma arquitetura para o serviço de fila",
    "rédige une stratégie de cache pour l'API",
    "erstelle einen Plan für die Migration",
    "составь план переноса сервиса",
    "先制定一个迁移方案",
    "给出一份部署计划",
    "移行の計画を立てて",
    "認証まわりを設計して",
    "배포 계획을 세워줘",
    # a spec to be written (Part 2's design: "a spec or RFC to be written")
    "write the requirements document for the booking app",
    "create a PRD for the export feature",
    "draft a short spec for the sync API",
    "escribe la especificación del módulo de pagos",
    "напиши требования к API",
    "写一份需求文档",
    "要件定義書を作ってください",
    "요구사항 문서를 작성해 줘",
]
PLANS_NAMED = [
    "follow the plan in PLAN.md and implement step 2",
    "the plan says to add a cache",
    "make plan\nmake test",  # a make target
    "update the design system tokens",
    "write the migration as planned",
    "make sure the plans page loads",
    "按照计划实现第二步",
    # a spec named, not asked for; "specs" alone are tests in some frameworks
    "write the tests following the spec",
    "write code according to the requirements",
    "make it match the spec",
    "update the spec",
    "create specs for the parser",
]


@pytest.mark.parametrize("text", PLANS_ASKED)
def test_a_plan_asked_for(text: str) -> None:
    assert asks_for_plan(text)


@pytest.mark.parametrize("text", PLANS_NAMED)
def test_a_plan_only_named_is_not_asked_for(text: str) -> None:
    assert not asks_for_plan(text)


def test_a_plan_is_looked_for_in_the_head_only() -> None:
    assert not asks_for_plan("x" * PLAN_HEAD + " write a detailed plan")
    assert asks_for_plan("write a detailed plan " + "x" * PLAN_HEAD)


BUILD_ERRORS = [
    "src/app.ts:14:9 - error TS2322: Type 'string' is not assignable to type 'number'.",
    "error[E0308]: mismatched types",
    "./src/lib/api.ts:47:47\nType error: Property 'id' does not exist on type 'User'",
    "SyntaxError: invalid syntax",
    "Module not found: Can't resolve './theme'",
    "main.obj : error LNK2019: unresolved external symbol __imp_Init",
    "Engine.h(44,25): error C2589: '(': illegal token",
    "▲WARNING NG8103: the directive was used in the template but not imported",
    "Cannot find module '../services/projects' or its corresponding type declarations.",
]
RUNTIME_ERRORS = [
    "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'id'",
    "Error: connect ECONNREFUSED 127.0.0.1:5432",
    "ERROR 12:37:51 request failed with status 401",
    "TypeError: Cannot read properties of undefined (reading 'map')",
    "Uncaught Error: Minified React error #418",
]


@pytest.mark.parametrize("text", BUILD_ERRORS)
def test_a_build_error_names_what_to_change(text: str) -> None:
    assert build_error(text)


@pytest.mark.parametrize("text", RUNTIME_ERRORS)
def test_a_failure_at_run_time_is_no_build_error(text: str) -> None:
    assert not build_error(text)


QUESTIONS_IN_WORDS = [
    "how can I test the pretrained model with bci dataset",
    "what are the primary and secondary genre for these tracks",
    "ok so where is the retry count set",
    "Is there any mention of a trader in this code",
    "do we test for the updated expiry?",
    "como faço para liberar o arquivo .env",
    "¿cómo se configura el proxy",
    "pourquoi le build est lent",
    "wie starte ich den Server",
    "что с файлом upload_screen",
    "后端如何启动",
    "dll做了什么事情",
    "这个接口有鉴权吗",
    "アカウントはどうやって切り替える",
    "これは本番でも有効ですか",
    "실행 예시 뭐야",
    "이거 왜 이렇게 느려",
]
NOT_QUESTIONS_IN_WORDS = [
    "add a dark mode toggle",
    "how about a dark mode toggle",
    "do the missing parts now",
    "what I mean by port is the proxy port",
    "when I use --json I don't want the spinner",
    "come up with three names",
    "hay que agregar el input de cada archivo",
    "把标题改成蓝色",
    "readmeなどの文書は全て日本語にして",
    "いつものように進めて",
    "설정 파일 만들어",
    "",
]


@pytest.mark.parametrize("text", QUESTIONS_IN_WORDS)
def test_a_question_asked_in_words(text: str) -> None:
    assert asks_in_words(text)


@pytest.mark.parametrize("text", NOT_QUESTIONS_IN_WORDS)
def test_a_request_or_a_statement_asks_no_question(text: str) -> None:
    assert not asks_in_words(text)


DOCUMENTS = [
    "add an installation section to README.md",
    "update the docs on this matter please",
    "write a short guide for new contributors",
    "Adapt @docs/agents/release-notes.md to this repo",
    "escribe la documentación de la API",
    "schreib eine Anleitung für die Installation",
    "Напиши README.md с инструкцией по сборке и запуску",
    "допиши инструкцию по тестированию",
    "把使用说明写进文档",
    "ドキュメントを日本語にして",
    "사용 가이드 문서 작성해줘",
]
NOT_DOCUMENTS = [
    "add today's fixes to CHANGELOG.md",  # a changelog: Part 2's own bookkeeping
    "commit the README and push",
    "move docs/setup.md to the wiki folder",
    "delete the old docs",
    "run the docs build",
    "README.md を削除して",
    "删除旧的文档",
    "fix the docstring of parse_row",  # a docstring is no document
    "follow the guidelines",  # nor a guideline
    "add a --dry-run flag",  # nothing named
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_a_document_to_write_is_named(text: str) -> None:
    assert writes_document(text)


@pytest.mark.parametrize("text", NOT_DOCUMENTS)
def test_a_mechanical_change_or_no_document_writes_none(text: str) -> None:
    assert not writes_document(text)


def test_a_document_is_looked_for_in_the_head_only() -> None:
    pad = "x" * DOCUMENT_HEAD
    assert writes_document("update the README " + pad)
    assert not writes_document(pad + " update the README")
    # a mechanical word past the head does not count either
    assert writes_document("update the README " + pad + " then commit")


OPTIONS = [
    "is there some other way to do this?",
    "what are the alternatives to a cron job here?",
    "which one is better for a desktop app, SQLite or DuckDB?",
    "¿qué opciones tengo para el despliegue?",
    "а какие еще есть схемы хранения?",
    "有什么办法可以不用数据库吗？",
    "他の方法はありますか？",
    "다른 방법은 없어?",
]
NOT_OPTIONS = [
    "is the retry optional?",  # a word that holds the word
    "what does this flag do?",
    "does the export run before the backup?",
]


@pytest.mark.parametrize("text", OPTIONS)
def test_options_asked_for(text: str) -> None:
    assert asks_for_options(text)


@pytest.mark.parametrize("text", NOT_OPTIONS)
def test_a_question_about_the_work_asks_for_no_options(text: str) -> None:
    assert not asks_for_options(text)


NEXT_STEPS = [
    "what's next?",
    "ok, what should we do next",
    "the import works. next steps?",
    "¿y ahora qué?",
    "qual o próximo passo?",
    "et maintenant, que faire ensuite ?",
    "was kommt als Nächstes?",
    "что дальше?",
    "部署好了，接下来该做什么",
    "下一步怎么做",
    "次は何をすればいい？",
    "다음은 뭐 해야 돼?",
]
NOT_NEXT_STEPS = [
    "add a next button to the wizard",
    "the next release drops python 3.9",
    "open the next page on click",
]


@pytest.mark.parametrize("text", NEXT_STEPS)
def test_what_comes_next_asked(text: str) -> None:
    # the router reads it as a plan asked for: design (docs/labels.md, Part 2)
    assert asks_next_step(text)


@pytest.mark.parametrize("text", NOT_NEXT_STEPS)
def test_a_next_that_asks_for_no_plan(text: str) -> None:
    assert not asks_next_step(text)


def test_what_comes_next_is_read_in_a_short_prompt_only() -> None:
    assert asks_next_step("what's next? " + "x" * (NEXT_MAX - 20))
    assert not asks_next_step("what's next? " + "x" * NEXT_MAX)


EXAMINED = [
    "read all the docs in the docs folder and summarize them",
    "please go through the codebase and get familiar with it",
    "analyse the project structure",
    "lee el código del proyecto",
    "leia os arquivos da pasta config",
    "prends connaissance du projet avant de commencer",
    "schau dir die Dateien im Ordner an",
    "изучи все файлы в папке docs",
    "先阅读一下这个项目",
    "プロジェクト全体を読んで把握して",
    "프로젝트 구조를 파악해줘",
    "check whether the export covers every field in the spec",
    "confirm that the retry is in place for all three clients",
]
NOT_EXAMINED = [
    "read the config and fix the wrong port",  # a change asked: the model decides
    "review the files and they should all use tabs",  # a requirement
    "add a summary line to the output",
    "create the project structure for a flask app",
    "检查一下代码，然后修改登录接口",
]


@pytest.mark.parametrize("text", EXAMINED)
def test_a_reading_or_a_check_asked_for(text: str) -> None:
    assert asks_to_examine(text)


@pytest.mark.parametrize("text", NOT_EXAMINED)
def test_a_reading_with_a_change_or_no_reading_is_none(text: str) -> None:
    assert not asks_to_examine(text)


RULES_ALONE = [
    "Please always reply in Portuguese.",
    "answer in English from now on",
    "用中文回复",
    "日本語で答えて",
    "한국어로 답변해줘.",
]
NOT_RULES_ALONE = [
    "answer in English from now on, and fix the login test",  # a task with it
    "fix the login test. from now on answer in English",
    "please clean the warnings",  # no rule
    "always run the linter before a commit, and add it to the CI config",
]


@pytest.mark.parametrize("text", RULES_ALONE)
def test_a_standing_rule_alone(text: str) -> None:
    assert rule_alone(text)


@pytest.mark.parametrize("text", NOT_RULES_ALONE)
def test_a_standing_rule_with_a_task_or_no_rule_is_not_alone(text: str) -> None:
    assert not rule_alone(text)


def test_a_standing_rule_alone_is_short() -> None:
    assert not rule_alone("always answer in English " + "and keep it short " * (RULE_ALONE_MAX // 18))


# a report that something is done or works now, and nothing more (my own wording, in the guide's
# languages): Part 2 calls it chat
DONE_REPORTS = [
    "the build works now",
    "I removed the old config file",
    "tests passed",
    "okay, the migration is done. continue",
    "Perfect, the app was built successfully and the tests pass",
    "ripgrep installed",
    "部署完成",
    "测试都通过了",
    "うまくいきました！",
    "設定できました",
    "테스트 다 통과했어요",
    "Всё готово, я включил биллинг",
    "Файлы созданы, продолжай",
    "Listo, ya funciona",
    "eu reiniciei o servidor",
    "deu certo",
    "c'est fait",
    "Die Datei ist jetzt vorhanden",
]
NOT_DONE_REPORTS = [
    "the build works now, add the tests for the parser",  # a request follows
    "the login is done, now do the signup page",
    "the build works now but the tests still fail",  # what is not done
    "it still doesn't work",
    "does it work now?",  # a question
    "check that the export is working",  # a request worded with the state
    "make sure the deploy is done before you tag",
    "fix the import, the rest works",  # a change asked
    "继续完成剩下的测试",  # a resume with its work
    "完成登录页面",  # an order
    "先把测试跑通了",
    "确认",  # one word: a go-ahead as often
    "ごめんなさい、直りました",  # an apology is left to the model
    "ya está listo el login, ahora haz el registro",
]


@pytest.mark.parametrize("text", DONE_REPORTS)
def test_a_report_that_something_is_done(text: str) -> None:
    assert tells_done(text)


@pytest.mark.parametrize("text", NOT_DONE_REPORTS)
def test_a_report_with_a_request_a_question_or_a_problem_is_not_only_done(text: str) -> None:
    assert not tells_done(text)


def test_a_report_that_something_is_done_is_short() -> None:
    # a longer prompt says more than a state; so does a long clause
    assert not tells_done("the build works now. " * (DONE_MAX // 20 + 1))
    assert not tells_done("the " + "new " * DONE_CLAUSE_WORDS + "build works now")


def test_the_cue_words_of_a_reading_and_of_what_comes_next_only_save_time() -> None:
    """A prompt holding none of the cue words is not searched: on every text of this file the
    answer is the pattern's own."""
    from turnlens.core.prompt_shapes import (
        _ABOUT_RE,
        _CHANGE_RE,
        _EXAMINE_RE,
        _NEXT_RE,
        ABOUT_HEAD,
        EXAMINE_HEAD,
    )

    texts = [*EXAMINED, *NOT_EXAMINED, *NEXT_STEPS, *NOT_NEXT_STEPS, *ASKS, *LEFT_TO_THE_MODEL]
    texts += [*OPTIONS, *NOT_OPTIONS, *FAILURES_SEEN, *NOT_FAILURES_SEEN, *ABOUT_THE_AGENT, *ABOUT_THE_WORK]
    for text in texts:
        body = text.strip()
        searched = _EXAMINE_RE.search(body, 0, EXAMINE_HEAD) is not None and _CHANGE_RE.search(body) is None
        assert asks_to_examine(text) == searched, text
        assert asks_next_step(text) == (0 < len(body) <= NEXT_MAX and _NEXT_RE.search(body) is not None), text
        assert about_the_agent(text) == (_ABOUT_RE.search(text, 0, ABOUT_HEAD) is not None), text
