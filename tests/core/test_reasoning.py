"""A turn read alone that opens with an agent's reasoning is the agent's thinking (context)."""

from __future__ import annotations

import pytest

from turnlens.classifier import classify, classify_many
from turnlens.core.reasoning import kind_of_text
from turnlens.core.rules import builtin_pack

DEFAULT = builtin_pack("default")
REFERENCE = builtin_pack("reference")

# the agent's working as Markdown logs keep it: the reasoning, then a plan, a diff, a command
PLANNING = (
    "<think><details><summary>Thought Process</summary>The user wants the export to be streamed. "
    "I MUST keep the old endpoint working and add a flag.</details></think>\n\n"
    "## Plan\n1. add `--stream` to the CLI\n2. write rows as they come\n3. update the tests\n"
)
FENCED = (
    "```thinking\nThe error says the column `real_name` does not exist, so the entity maps a field "
    "the table lacks.\n```\n\n```diff\n- private String realName;\n+ @TableField(exist = false)\n```\n"
)


@pytest.mark.parametrize(
    "text",
    [
        PLANNING,
        FENCED,
        "<thinking>Check the parser first.</thinking> Done.",
        "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nThe user says update the diff.\n",
        "---\n\n_****_\n\n<think>Running the tests next.</think>",
        "  \n~~~ thinking\nmaybe the cache\n~~~\n",
    ],
)
def test_a_turn_that_opens_with_reasoning_is_thinking(text: str) -> None:
    assert kind_of_text(text) == "thinking"
    c = classify(text, DEFAULT)
    assert (c.task_class, c.engine) == ("context", "model")
    assert c.confidence == pytest.approx(1.0)
    # a transcript's turns get the same answers as one turn at a time
    assert classify_many([text, "LGTM, merging"], DEFAULT)[0] == c


@pytest.mark.parametrize(
    "text",
    [
        "Please think about it: <think> tags leak into the output of the API.",
        "thinking out loud: should we merge this today?",
        "```python\nthinking = True\n```",
        "I was thinking we could ship on Friday.",
        "<thinker>not a tag we know</thinker>",
        "",
    ],
)
def test_other_turns_keep_every_class(text: str) -> None:
    assert kind_of_text(text) is None
    assert classify(text, DEFAULT) == classify(text, DEFAULT, kind=None)


def test_the_rules_engines_and_a_pin_read_the_text_alone() -> None:
    assert classify(PLANNING, REFERENCE) == classify(PLANNING, REFERENCE, kind=None)
    assert classify(PLANNING, DEFAULT, pin="spec").task_class == "spec"
    assert classify_many([PLANNING], DEFAULT, ["spec"])[0].task_class == "spec"


def test_a_session_units_own_kind_wins() -> None:
    # a reader that knows the unit (a reply that quotes a reasoning tag) keeps its kind
    reply = classify(PLANNING, DEFAULT, kind="reply")
    assert reply.task_class in ("spec", "code", "review", "context", "chitchat")
    assert classify_many([PLANNING], DEFAULT, None, ["reply"])[0] == reply


def test_only_a_model_of_the_task_classes_reads_the_kind() -> None:
    # the router's model answers its own labels (design, analysis…): a kind limits task classes
    from turnlens.classifier import turn_kind
    from turnlens.learn.model import packaged_model

    assert turn_kind(PLANNING, packaged_model("classes")) == "thinking"
    assert turn_kind(PLANNING, packaged_model("labels")) is None


def test_the_hover_says_why_a_turn_is_thinking() -> None:
    from turnlens.lsp.labels import hover_text
    from turnlens.pipeline.analyze import analyze

    result = analyze(PLANNING).results[0]
    assert result.unit.kind is None and result.classification.task_class == "context"
    text = hover_text(result, 1, 1, markdown=False)
    assert "Kind: thinking — the turn opens with the agent's reasoning" in text
    plain = analyze("Please add a --stream flag to the export command.").results[0]
    assert "Kind:" not in hover_text(plain, 1, 1, markdown=False)
