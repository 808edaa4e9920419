"""A thread message that settles its own class in a few words, in the languages threads are
written in (`turnlens.core.outcomes`): a triage outcome is a decision, a +1, me too or ping is
chitchat, a bare approval is a decision, a bare "fixed" or "done" is context, a short status is no chitchat. Each side has texts that must stay quiet, where the same words mean something else,
and the evidence holds only for a conversation turn, never for a prompt or an agent's reply."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from turnlens.classifier import classify, classify_many
from turnlens.core.kinds import allowed_classes, kind_evidence
from turnlens.core.outcomes import (
    APPROVAL_WHY,
    CI_WHY,
    DONE_MAX,
    DONE_WHY,
    ME_TOO_WHY,
    STATE_CLASSES,
    STATE_MAX,
    STATE_WHY,
    TRIAGE_WHY,
    approves,
    ci_verdict,
    me_too,
    reports_done,
    tells_state,
    triage_outcome,
    turn_evidence,
)
from turnlens.core.prompt_shapes import FAILURE_CLASSES, FAILURE_WHY, reports_failure
from turnlens.core.rules import builtin_pack

TRIAGE = [
    "Closing as won't fix.",
    "Closing since the fix shipped in 2.4.",
    "closing for now, happy to reopen if it comes back",
    "I'm closing this, the repo is archived.",
    "Thanks for the report. Closing due to no response.",
    "Merged, thanks!",
    "merged.",
    "Merged via 3f2a9c1",
    "Thanks, merged",
    "Reverting #812; it broke the Windows build.",
    "Marking as blocking for the 1.0 release.",
    "Tagging as good first issue.",
    "Lo cierro porque ya está resuelto en la 3.1.",
    "Fechando esta issue, resolvida no PR #40.",
    "Je la ferme, le problème ne se reproduit plus.",
    "Ich schließe das hier, es ist ein Duplikat.",
    "已合并，感谢贡献",
    "ありがとうございます、マージしました！",
    "テストが通ったらマージします",
    "리뷰 감사합니다. 머지했습니다.",
    "OK, I'm going to close this: nobody could reproduce it on 3.x.",
    "Won't fix. The old behaviour is documented and people rely on it.",
    "wontfix: the flag stays for 2.x",
    "Fechando essa issue, o problema era de configuração.",
    "Je confirme et clôture.",
    "Je ferme l'issue, corrigé dans la 0.9.",
    "Grazie, la chiudo.",
    "Ik sluit deze issue, het is opgelost in 1.4.",
    "Dank je, dan sluit ik dit ticket.",
    "Закрываю, исправлено в 2.1.",
    "关闭问题：缺少复现步骤",
    # a close said without the word, and GitHub's own notices of a revert or a move
    "Duplicate of #412",
    "dupe of https://github.com/octo/app/issues/40",
    "Duplicado de #918, seguimos allí.",
    "Doublon de #77.",
    "重复 #3，请在那边讨论",
    "Reverts octo/app#188",
    "This issue was moved to octo/docs#28",
    "Тесты прошли. Закрываю пулл реквест.",
    "Merging https://github.com/octo/docs/pull/57",
    "OK. This issue can be closed now.",
    "Thanks! This issue can now be closed as the release is out.",
    "duplicado de #31, se puede cerrar",
    "ご確認ありがとうございます。この件はクローズいたします。",
    "校對完成。先關閉，未來再重開。",
    "#6579은 devel에 병합됐습니다.",
]

NOT_TRIAGE = [
    "Closing the file handle twice raises an error here.",
    "Merging #123 (4f1c2d0) into main will increase coverage by 0.2%.",
    "closing brackets are misplaced in the template",
    "Should we close this? It looks stale to me.",
    "The merged config is written to ~/.app/config.toml",
    "close #157",
    "Je ferme l'application et ça plante au redémarrage.",
    "chiudo il programma e va in crash",
    "закрываю приложение и оно падает",
    "als ik de app sluit, verdwijnen mijn notities",
    "we are going to close the gap in the next sprint",
    "I'm going to close the modal when the user clicks outside",
    "if we don't fix the parser first, we won't fix the export either",
    "this won't fix the race, it only hides it",
    "the duplicate rows come from the join in report.sql",
    "Reverts are slow when the history is long",
    "we should check whether this issue was moved to the new tracker",
    "закрываю пулл реквест? или лучше подождать",
    "Merging #88 (4f1c2d0) into main will not change coverage.",
    "When the user clicks outside, it should be closed.",
    "Can this be closed?",
    "no se puede cerrar la ventana",
]

ME_TOO = [
    "+1",
    "+1 这个什么时候能支持",
    "me too, on macOS 14",
    "Same here.",
    "@maintainer any update on this?",
    "is there any progress on this?",
    "ping @carla",
    "我也是",
    "我也遇到了同样的问题，请问解决了吗",
    "同じくです",
    "yo también tengo este error",
    "moi aussi",
    "alguma novidade?",
    "Такая же проблема",
    "same problem on 2.3.1",
    "mismo problema aquí",
    "même problème chez moi",
    "同样的问题，求解决",
    # the same problem said with who has it, or the same thing wanted
    "I'm having the same problem here, on 2.4.",
    "I have the same problems on Windows",
    "need the same feature for the mobile app",
    "Та же самая проблема у меня на Linux",
    "我的也是这样，重装也没用",
]

NOT_ME_TOO = [
    "Same as before: the importer fails on row 3 when the header is missing.",
    "Updates to the schema are in the migration below.",
    "I ping the health endpoint every 30 s",
    "私は別の方法で試しました",
    "我觉得这个方案可以",
    "The same problem exists in the exporter, see below.",
    "это та же проблема, что и в #12? Похоже, нет: тут падает парсер",
]


APPROVALS = [
    "LGTM",
    "looks good to me, thanks!",
    "@dana lgtm 🚀",
    "CR 👍",
    "Approved.",
    "特に問題ありません",
    "問題なさそうです",
    "没问题，可以合并",
    "sieht gut aus, danke!",
    "me parece bien",
    "ça me va",
    "выглядит хорошо",
]

NOT_APPROVALS = [
    # an approval with remarks is a review: the model decides
    "LGTM, but rename `tmp2` and add a test for the empty list",
    "looks good but the CI job is red",
    "Approved the first two commits; the third needs a rebase",
    # a reaction or an ok alone is chitchat's, a question is no approval
    "👍",
    "ok",
    "这个问题没问题吗",
    "looks good?",
]

DONE = [
    # the guide's own
    "fixed",
    "done",
    "should be fine now",
    "Fixed in 2.3.",
    "@maria fixed by #812, thanks!",
    "It's fixed now 👍",
    "Done ✅",
    "corrigé dans la 1.4",
    "arreglado",
    "Behoben mit #2290.",
    "исправлено",
    "risolto, grazie",
    "düzeltildi",
    "已修复",
    "修正しました！",
    "수정했습니다.",
    # an ok or a thanks first, an "already", where it was fixed said before the verb
    "Obrigada! Resolvido.",
    "Merci ! Résolu.",
    "thanks, it's already fixed",
    "问题解决了",
    "v3.1で修正",
    "Thank you, it's working now on 2.4",
]

NOT_DONE = [
    "thanks",
    "ok",
    "ok, fixed the typo but the build still fails",
    # more than the state: the model decides
    "fixed the typo in the README as well, and bumped the version",
    "Fixed in 2.3, but the Windows build still fails",
    "done? I still see the old logo",
    "Done with the review: two nits below.",
    "is it fixed now?",
    # a close said with it is the triage outcome's
    "Fixed, closing.",
    "fixed\nbut the export still times out on large files",
]


LONG_REPORT = "Merged. " + " ".join(["The importer reads every row twice when the header is missing."] * 8)
LONG_WITH_OUTCOME_INSIDE = (
    " ".join(["The importer reads every row twice when the header is missing."] * 8) + "\nMerged, thanks!"
)


# each signal's texts, the class they settle and why
SETTLED = [
    *((text, triage_outcome, "decision", TRIAGE_WHY) for text in TRIAGE),
    *((text, me_too, "chitchat", ME_TOO_WHY) for text in ME_TOO),
    *((text, approves, "decision", APPROVAL_WHY) for text in APPROVALS),
    *((text, reports_done, "context", DONE_WHY) for text in DONE),
]
# the same words that settle nothing: an outcome's verb on a file or an app, "same" inside a
# statement, an approval with remarks, more than "fixed"
QUIET = [
    *((text, triage_outcome, TRIAGE_WHY) for text in NOT_TRIAGE),
    *((text, me_too, ME_TOO_WHY) for text in NOT_ME_TOO),
    *((text, approves, APPROVAL_WHY) for text in NOT_APPROVALS),
    *((text, reports_done, DONE_WHY) for text in NOT_DONE),
]


@pytest.mark.parametrize(("text", "signal", "settled", "why"), SETTLED)
def test_a_thread_message_settled_by_its_own_words(
    text: str, signal: Callable[[str], bool], settled: str, why: str
) -> None:
    assert signal(text)
    assert turn_evidence(text) == ((settled,), why)
    assert classify(text).task_class == settled


@pytest.mark.parametrize(("text", "signal", "why"), QUIET)
def test_the_same_words_that_settle_nothing_stay_quiet(
    text: str, signal: Callable[[str], bool], why: str
) -> None:
    assert not signal(text)
    found = turn_evidence(text)
    assert found is None or found[1] != why


def test_only_a_short_line_is_read_as_fixed() -> None:
    assert not reports_done("fixed " + "x" * DONE_MAX)


def test_a_long_text_counts_only_when_its_first_line_says_it() -> None:
    assert triage_outcome(LONG_REPORT)
    assert not triage_outcome(LONG_WITH_OUTCOME_INSIDE)
    assert not me_too("+1 " + " ".join(["the importer reads every row twice"] * 12))


def test_an_outcome_wins_over_a_plus_one() -> None:
    assert turn_evidence("+1, merged.") == (("decision",), TRIAGE_WHY)


def test_only_a_conversation_turn_is_settled_by_its_words() -> None:
    """A person's prompt has its own evidence (core.picks); an agent's reply never decides."""
    assert kind_evidence(None, "Closing as won't fix.") == (("decision",), TRIAGE_WHY)
    assert kind_evidence("prompt", "Closing as won't fix.")[1] != TRIAGE_WHY
    assert "decision" not in (kind_evidence("reply", "Merged, thanks!")[0] or ())
    assert kind_evidence(None, "The importer reads every row twice.") == (None, None)


def test_batch_answers_as_one_at_a_time() -> None:
    texts = [*TRIAGE[:5], *ME_TOO[:5], *NOT_TRIAGE, *NOT_ME_TOO]
    pack = builtin_pack("default")
    one = [classify(t, pack).task_class for t in texts]
    assert [c.task_class for c in classify_many(texts, pack)] == one


# a short message that tells how the software behaves: a status, never chitchat
STATES = [
    "Works fine on Fedora 40.",
    "Same on Pixel 7",
    "Working again after the update, thx!",
    "Chrome funktioniert auch nicht",
    "исправил ссылку в README",
    "编译这一步报错了",
    "更新后好了",
    "再起動したら直った",
]
NOT_STATES = [
    "thanks!",  # nothing told
    "Great job, everyone!",  # "work" alone is praise
    "any update on this?",
    "see you at the sync tomorrow",
    "my workspace is on another disk",  # a word that holds the word
]


@pytest.mark.parametrize("text", STATES)
def test_a_short_status_is_no_chitchat(text: str) -> None:
    assert tells_state(text)
    assert turn_evidence(text) == (STATE_CLASSES, STATE_WHY)
    assert "chitchat" not in STATE_CLASSES
    assert classify(text).task_class != "chitchat"


@pytest.mark.parametrize("text", NOT_STATES)
def test_no_state_told_leaves_the_model_to_it(text: str) -> None:
    assert not tells_state(text)
    found = turn_evidence(text)
    assert found is None or found[1] != STATE_WHY


# a CI bot's verdict on a build (docs/labels.md, Part 1: review)
CI_VERDICTS = [
    "Build succeeded! [Build mylib pr12-7,9f3a2c1 completed](https://ci.appveyor.com/project/x/y/builds/1)",
    ":white_check_mark: [Build mylib 2.0.41 completed](https://ci.appveyor.com/project/s/s/builds/3)",
    "All checks have passed\n4 successful checks",
    "❌ **Build failed** — `lint` job",
    "**CI** passed on all 6 targets",
]
NOT_CI_VERDICTS = [
    "All checks green, merging now.",  # the merge call is the triage outcome's
    "Tests are green on my fork now, pushing in a sec.",  # a person's status
    "Build failed:\n```\nModule not found: Can't resolve './x'\n```",  # a person's paste
    "build completed the docs?",
    "The build passed locally but not on CI.",
]


@pytest.mark.parametrize("text", CI_VERDICTS)
def test_a_ci_bots_verdict_is_a_review(text: str) -> None:
    assert ci_verdict(text)
    assert turn_evidence(text) == (("review",), CI_WHY)
    assert classify(text).task_class == "review"


@pytest.mark.parametrize("text", NOT_CI_VERDICTS)
def test_a_persons_word_on_a_build_is_left_to_the_rest(text: str) -> None:
    assert not ci_verdict(text)
    found = turn_evidence(text)
    assert found is None or found[1] != CI_WHY


# a bug report that says only what happened (docs/labels.md, Part 1: context)
FAILURES = [
    "still broken on Firefox 128",
    "Crashes at launch on older tablets.",
    "Still not able to log in on mobile, even after a reset",
    "Il salvataggio non funziona.",
    "Buongiorno,\nanche a Milano non funziona",
    "quand je valide le formulaire, rien ne se passe",
    "o app não abre no iPhone",
    "после обновления не работает",
    "一存档就闪退",
    "設定画面が開かない",
]
NOT_FAILURES = [
    "still broken on Firefox 128, please fix the flex gap",  # a change asked: the model decides
    "It doesn't work because the token expired; it should refresh on 401.",  # a requirement
    "Works fine on Fedora 40.",
    'Il salvataggio non funziona.\n```\nTraceback (most recent call last):\n  File "a.py", line 1\n```',
    # a user story says what a user wants, however it is worded: a spec (Part 1)
    "Como administrador, quero desativar um usuário. Usuário desativado não aparece nas buscas.",
    "As a guest I want the cart to stay, so that a reload doesn't lose it",
    # a review that asks for a change in a word of mending ("补一下": add it)
    "整体没问题，不过异常被吞掉了，不然线上出问题没法查。补一下再合。",
]


@pytest.mark.parametrize("text", FAILURES)
def test_a_failure_told_is_a_report_not_a_review(text: str) -> None:
    assert reports_failure(text)
    assert turn_evidence(text) == (FAILURE_CLASSES, FAILURE_WHY)
    assert set(FAILURE_CLASSES) == {"code", "context"}
    assert classify(text).task_class in FAILURE_CLASSES


@pytest.mark.parametrize("text", NOT_FAILURES)
def test_a_failure_with_a_change_asked_or_a_paste_is_left_to_the_rest(text: str) -> None:
    assert not reports_failure(text)
    found = turn_evidence(text)
    assert found is None or found[1] != FAILURE_WHY


def test_a_persons_prompt_that_tells_a_failure_is_context_or_code() -> None:
    """The same shape read as a person's prompt: a request wins first, then the report."""
    assert allowed_classes("prompt", "ainda trava!") == FAILURE_CLASSES
    assert allowed_classes("prompt", "不行啊") == FAILURE_CLASSES
    assert allowed_classes("prompt", "can you fix it? it keeps crashing") != FAILURE_CLASSES


def test_a_plus_one_stays_chitchat_and_a_long_report_is_no_status() -> None:
    assert turn_evidence("same problem here, any fix?") == (("chitchat",), ME_TOO_WHY)
    assert not tells_state("Works fine on Fedora 40. " + "x" * STATE_MAX)
