"""Session units by kind: the kind limits the classes the model may answer (docs/labels.md)."""

from __future__ import annotations

import pytest

from turnlens.classifier import classify, classify_many, classify_unit
from turnlens.core.kinds import KIND_CLASSES, allowed_classes, tool_name
from turnlens.core.rules import builtin_pack

DEFAULT = builtin_pack("default")
REFERENCE = builtin_pack("reference")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('Bash: {"command": "du -sh node_modules"}', "bash"),
        ("mcp__github__create_issue: {}", "create_issue"),
        ('<tool-use data-tool-type="shell" data-tool-name="run_terminal_cmd">\n', "bash"),
        ('<tool-use data-tool-type="generic" data-tool-name="list_dir">', "list_dir"),
        ("💻 **Bash: Run the type check**\n```shell\nnpm run typecheck\n```", "bash"),
        ("✍️ **Write: src/app.ts**", "write"),
        ('<tool-use data-tool-type="task" data-tool-name="todo_write">', "todo_write"),
        ("just a sentence: with a colon later", None),
    ],
)
def test_tool_names(text: str, name: str | None) -> None:
    assert tool_name(text) == name


def test_conversation_turns_keep_every_class() -> None:
    assert allowed_classes(None, "x") is None and allowed_classes("prompt", "x") is None


def test_an_agents_reply_is_never_a_decision() -> None:
    # the person decides, in a prompt: the agent's report of carrying it out is not the decision
    assert allowed_classes("reply", "Merged into main.") == ("spec", "code", "review", "context", "chitchat")
    for text in ("Merged into main.", "APPROVED. Merge once CI is green.", "Going with option B."):
        assert classify_unit(text, "reply", DEFAULT).task_class != "decision"
    assert classify_unit("APPROVED. Merge once CI is green.", "prompt", DEFAULT).task_class == "decision"


def test_commands_and_writes_are_code_and_lookups_are_code_or_context() -> None:
    assert allowed_classes("tool_call", "Bash: git merge main") == ("code",)
    assert allowed_classes("tool_call", "Write: {}") == ("code",)
    # a look-up names what it looks at: a path or a query on one line is context, a pasted snippet may be code
    assert allowed_classes("tool_call", "Read: /src/app.py") == ("context",)
    assert allowed_classes("tool_call", 'ToolSearch: {"query": "select:TodoWrite"}') == ("context",)
    assert allowed_classes("tool_call", 'Grep: {"pattern": "def run\\n    return"}') == ("code", "context")
    assert allowed_classes("tool_call", "Read:\n```\nconst x = 1;\n```") == ("code", "context")
    assert allowed_classes("command", "ls") == ("code",)
    assert allowed_classes("tool_call", 'TodoWrite: {"todos": []}') == ("spec",)
    for kind in ("tool_result", "thinking", "injected", "summary"):
        allowed = allowed_classes(kind, "LGTM, merging")
        assert allowed is not None and "decision" not in allowed and "chitchat" not in allowed
    assert set(KIND_CLASSES) >= {"tool_call", "tool_result", "thinking", "injected", "command"}


NUMBERED_READ = (
    "     1→# Deployment\n     2→\n     3→The service MUST run two replicas.\n     4→It SHALL use TLS.\n"
)
CAT_N = "1\timport os\n2\timport crypto from 'crypto';\n3\t\n4\t// a stable id per process\n"
EDIT_RESULT = (
    "The file /repo/README.md has been updated. Here's the result of running `cat -n` on a snippet:\n"
    "    12→## Usage\n    13→\n    14→Run `npm start`.\n    15→The server MUST listen on 8080.\n"
)
LISTING = (
    "- /Users/ana/shop/\n  - README.md\n  - src/\n    - cart.ts\n    - checkout.ts\n"
    "\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."
)


@pytest.mark.parametrize(
    ("text", "allowed"),
    [(NUMBERED_READ, ("code",)), (CAT_N, ("code",)), (EDIT_RESULT, ("code",)), (LISTING, ("context",))],
)
def test_a_tool_results_shape_settles_its_class(text: str, allowed: tuple[str, ...]) -> None:
    """A numbered file (a read tool's output, `cat -n`, `nl`) is a file's content: code, even a
    document full of MUSTs; a listing of paths is context, even with the client's MUST note."""
    assert allowed_classes("tool_result", text) == allowed
    assert classify_unit(text, "tool_result").task_class == allowed[0]
    # the same text typed as a turn keeps every class
    assert allowed_classes(None, text) is None


CODEX_LISTING = (
    "Chunk ID: 1a2b3c\nWall time: 0.0001 seconds\nProcess exited with code 0\nOriginal token count: 40\n"
    "Output:\nTotal output lines: 4\n\npackage.json\nsrc/app.ts\nsrc/routes/index.ts\nREADME.md\n"
)
SEARCH_HITS = (
    "Exit code: 0\nWall time: 0.3 seconds\nOutput:\nsrc/app.ts:12:export const dynamic = true;\n"
    "src/app.ts:13-\nsrc/db.ts:40:  // MUST stay dynamic\n"
)
SILENT = (
    "Chunk ID: 9f\nWall time: 1.9 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n"
)
GEMINI_SHELL = "Command: ls docs\nDirectory: (root)\nOutput: docs/plan.md\ndocs/setup.md\ndocs/api/index.md\n"


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        (CODEX_LISTING, ("context",)),
        (SEARCH_HITS, ("context",)),
        (SILENT, ("context", "review")),
        (GEMINI_SHELL, ("context",)),
    ],
)
def test_a_shell_tools_envelope_is_read_past(text: str, allowed: tuple[str, ...]) -> None:
    """The lines a shell tool writes around a command's output (Codex's `Chunk ID`, `Wall time`,
    `Exit code`; Gemini CLI's `Command`, `Directory`) are the harness's: the shape of what the
    command printed decides (a listing or search hits are context; nothing printed is chatter
    or a silent verdict)."""
    assert allowed_classes("tool_result", text) == allowed
    assert classify_unit(text, "tool_result").task_class in allowed


def test_a_result_of_another_shape_keeps_the_result_classes() -> None:
    for text in (
        "3 passed, 1 failed",
        "1 file changed\n- old line\n+ new line",
        "- one\nplain text\nmore text",
        "Exit code: 1\nWall time: 2.1 seconds\nOutput:\nerror[E0308]: mismatched types\n  --> src/main.rs:4:5",
    ):
        assert allowed_classes("tool_result", text) == KIND_CLASSES["tool_result"]
    # one numbered line is not yet a file
    assert allowed_classes("tool_result", "1\tonly one line") == KIND_CLASSES["tool_result"]


@pytest.mark.parametrize(
    "text",
    [
        "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. You MUST ask"
        " before writing outside the workspace.\n</permissions instructions>",
        "<collaboration_mode># Plan Mode\n\nYou MUST NOT edit files in this mode.</collaboration_mode>",
        "<environment_context>\n  <cwd>/home/ana/shop</cwd>\n  <shell>bash</shell>\n</environment_context>",
        "<skills_instructions>\n## Skills\nA skill is a set of local instructions.</skills_instructions>",
        "<plugins_instructions>\n## Plugins\nA plugin bundles skills and tools.\n- `Tracker`: read the"
        " team's tickets</plugins_instructions>",
        "<apps_instructions>\nApps MUST be called through their connector.</apps_instructions>",
    ],
)
def test_a_clients_standing_instructions_are_context(text: str) -> None:
    """The text an agent's client sends with every session (Codex's sandbox rules, mode,
    environment, skills list) is a reminder, not the project's instructions, MUSTs and all."""
    assert allowed_classes("system", text) == ("context",)
    assert classify_unit(text, "system").task_class == "context"


@pytest.mark.parametrize(
    "text",
    [
        "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nEvery change MUST ship with a test.\n</INSTRUCTIONS>",
        "# AGENTS.md instructions for C:\\repos\\game\n\n<INSTRUCTIONS>\n## Project overview\r\nA canvas game.\r\n"
        "Run `npm test` before each commit.\n</INSTRUCTIONS>",
        "<user_instructions>\n\nUse pnpm, never npm. Keep functions under 40 lines.\n\n</user_instructions>",
    ],
)
def test_a_projects_agents_md_is_spec(text: str) -> None:
    """Codex passes a project's AGENTS.md on under its own heading (`<user_instructions>` in
    older versions): the project's instructions for how the work is done, spec."""
    assert allowed_classes("system", text) == ("spec",)
    assert classify_unit(text, "system").task_class == "spec"
    # the heading quoted further down a text is not the instructions passed on
    assert (
        allowed_classes("system", "As the file says:\n# AGENTS.md instructions for /repo")
        == KIND_CLASSES["system"]
    )


def test_a_skill_the_agent_loaded_is_spec() -> None:
    """Claude Code passes a loaded skill on as a meta message (`Base directory for this skill:`,
    then its SKILL.md): instructions the work must follow, spec as a project's AGENTS.md."""
    text = (
        "Base directory for this skill: /home/ana/.claude/skills/release-notes\n\n# Release notes\n\n"
        "Collect the merged pull requests since the last tag, group them by area and write one line each."
    )
    assert allowed_classes("system", text) == ("spec",)
    c = classify_unit(text, "system")
    assert c.task_class == "spec"
    # the same words elsewhere in a text, or in a person's prompt, are not a skill loaded
    assert (
        allowed_classes("system", "See above.\nBase directory for this skill: /x") == KIND_CLASSES["system"]
    )
    assert allowed_classes(None, text) is None


def test_the_clients_interruption_notice_is_context() -> None:
    for text in ("[Request interrupted by user]", "[Request interrupted by user for tool use]"):
        assert allowed_classes("injected", text) == ("context",)
        assert classify_unit(text, "injected").task_class == "context"
    assert (
        allowed_classes("injected", "[Request interrupted by user] and then MUST ...")
        == KIND_CLASSES["injected"]
    )


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Bash: git merge feature/login && git push", "tool_call"),
        ("thanks!", "tool_result"),
        ("LGTM, approved, ship it", "tool_result"),
        ("ok", "thinking"),
        ("hello", "injected"),
    ],
)
def test_the_model_answers_within_the_kind(text: str, kind: str) -> None:
    c = classify_unit(text, kind, DEFAULT)
    allowed = allowed_classes(kind, text)
    assert allowed is not None and c.task_class in allowed
    assert 0.0 < c.confidence <= 1.0 and c.engine == "model"
    assert c.probabilities is not None and abs(sum(c.probabilities.values()) - 1.0) < 1e-6
    # the same words as a conversation turn may take a class the kind rules out
    assert classify(text, DEFAULT).engine == "model"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Bash: pytest -q tests/test_cli.py", "tool_call"),
        ("Edit: src/app.py", "tool_call"),
        ("Read: /src/app.py", "tool_call"),
        ("The tests pass now; next I should look at the parser.", "thinking"),
        ("FAILED tests/test_cli.py::test_help - AssertionError", "tool_result"),
    ],
)
def test_a_kinds_evidence_renormalises_the_answer_even_when_the_model_agreed(text: str, kind: str) -> None:
    # the kind rules classes out, so the probability left is spread over the rest whatever the
    # model's own first choice was: a command is code with certainty, not at the model's 0.6
    allowed = allowed_classes(kind, text)
    assert allowed is not None
    for c in (classify_unit(text, kind, DEFAULT), classify_many([text], DEFAULT, None, [kind])[0]):
        assert c.probabilities is not None
        assert abs(sum(c.probabilities[k] for k in allowed) - 1.0) < 1e-6
        assert all(c.probabilities[k] == 0.0 for k in c.probabilities if k not in allowed)
        assert c.confidence == pytest.approx(c.probabilities[c.task_class])
        if allowed == ("code",):
            assert c.task_class == "code" and c.confidence == pytest.approx(1.0)


def test_pins_and_the_rules_engines_ignore_the_kind() -> None:
    assert classify("thanks!", DEFAULT, kind="tool_result", pin="chitchat").task_class == "chitchat"
    assert classify("thanks!", REFERENCE, kind="tool_result") == classify("thanks!", REFERENCE)


def test_classify_many_passes_kinds() -> None:
    texts = ["thanks!", "thanks!"]
    out = classify_many(texts, DEFAULT, None, [None, "tool_result"])
    assert out[1].task_class in ("spec", "code", "review", "context")
    assert out[0] == classify("thanks!", DEFAULT)
    with pytest.raises(ValueError, match="one kind"):
        classify_many(texts, DEFAULT, None, [None])


def test_a_session_file_is_analysed_with_its_units_kinds() -> None:
    from pathlib import Path

    from turnlens.pipeline.analyze import analyze

    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "claude-session.jsonl"
    results = analyze(path.read_text(encoding="utf-8"), path=str(path)).results
    kinds = {r.unit.kind for r in results}
    assert {"tool_call", "tool_result", "prompt"} <= kinds
    for r in results:
        allowed = allowed_classes(r.unit.kind, r.unit.text)
        if allowed is not None and r.unit.pin is None:
            assert r.classification.task_class in allowed, (r.unit.kind, r.unit.text[:40])


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The tests pass now; next I should look at the parser.", "thinking"),
        ("I renamed the helper and updated its two callers; the build is green.", "reply"),
        ("Here is the plan:\n1. read the config\n2. add the flag\n3. run the tests", "reply"),
    ],
)
def test_an_agents_own_text_has_its_kinds_temperature(text: str, kind: str) -> None:
    # the shipped turns model is calibrated on threads; an agent's replies and thinking carry a
    # further temperature of their own (fitted on real session units): the same class, only
    # how sure it is changes, and a tool call keeps the model's own
    from turnlens.core.rules import with_model
    from turnlens.learn.model import Model, packaged_model

    shipped = packaged_model("classes")
    t = shipped.kind_temperature(kind)
    assert t != 1.0 and shipped.kind_temperature("tool_call") == 1.0
    assert shipped.kind_temperature(kind) != shipped.kind_temperature(None)
    plain = Model.from_bytes(shipped.to_bytes())
    plain.kind_temperatures = {}
    without = classify_unit(text, kind, with_model(builtin_pack("default"), plain))
    for c in (classify_unit(text, kind, DEFAULT), classify_many([text], DEFAULT, None, [kind])[0]):
        assert c.task_class == without.task_class
        assert c.probabilities is not None and without.probabilities is not None
        powered = {k: p ** (1.0 / t) for k, p in without.probabilities.items()}
        total = sum(powered.values())
        for k, p in c.probabilities.items():
            assert p == pytest.approx(powered[k] / total)
        assert c.confidence == pytest.approx(c.probabilities[c.task_class])
        # sharper (t < 1) or flatter (t > 1) than the model's own, never the other way
        assert (c.confidence - without.confidence) * (1.0 - t) >= 0
    turn = classify(text, DEFAULT)
    assert turn.task_class == classify(text, with_model(builtin_pack("default"), plain)).task_class


@pytest.mark.parametrize(
    "text",
    [
        "Crash on startup on my old tablet, every time since the last update.",
        "nit: this could be a dict comprehension",
        "我这边也复现了，换成 2.3 版本就好了",
        "Thanks, merged!",
    ],
)
def test_a_conversation_turn_has_a_temperature_of_its_own(text: str) -> None:
    # a thread message (a unit with no kind) takes the further temperature kept under
    # CONVERSATION: the same class in both entry points, only how sure it is changes; a model
    # without one leaves the turn as the model gives it
    from turnlens.core.rules import with_model
    from turnlens.learn.model import CONVERSATION, Model, packaged_model

    shipped = packaged_model("classes")
    t = shipped.kind_temperatures[CONVERSATION]
    assert t == shipped.kind_temperature(None) and t != 1.0
    plain = Model.from_bytes(shipped.to_bytes())
    plain.kind_temperatures = {k: v for k, v in shipped.kind_temperatures.items() if k != CONVERSATION}
    without = classify(text, with_model(builtin_pack("default"), plain))
    assert without.probabilities is not None
    powered = {k: p ** (1.0 / t) for k, p in without.probabilities.items()}
    total = sum(powered.values())
    for c in (classify(text, DEFAULT), classify_many([text], DEFAULT)[0]):
        assert c.task_class == without.task_class and c.probabilities is not None
        for k, p in c.probabilities.items():
            assert p == pytest.approx(powered[k] / total)
        assert (c.confidence - without.confidence) * (1.0 - t) >= 0
    # a session unit of a kind keeps its own: the conversation's is not applied twice
    for kind in ("tool_call", "reply"):
        assert (
            classify_unit(text, kind, DEFAULT).probabilities
            == classify_unit(text, kind, with_model(builtin_pack("default"), plain)).probabilities
        )


def test_a_temperature_for_a_kind_with_every_class_allowed_applies_too() -> None:
    # a model file may name any unit kind (a person's prompt allows every class): its
    # temperature is used, not silently dropped, and a kind it does not name is left alone
    from turnlens.core.rules import with_model
    from turnlens.learn.model import Model, packaged_model

    text = "Let's go with option B and keep the old endpoint until June."
    model = Model.from_bytes(packaged_model("classes").to_bytes())
    model.kind_temperatures = {}
    pack = with_model(builtin_pack("default"), model)
    before = classify_unit(text, "prompt", pack)
    model.kind_temperatures = {"prompt": 0.5}
    pack = with_model(builtin_pack("default"), model)
    for c in (classify_unit(text, "prompt", pack), classify_many([text], pack, None, ["prompt"])[0]):
        assert c.task_class == before.task_class and before.probabilities is not None
        squared = {k: p**2 for k, p in before.probabilities.items()}
        assert c.confidence == pytest.approx(squared[c.task_class] / sum(squared.values()))
    assert (
        classify_unit(text, "tool_result", pack).probabilities
        == classify_unit(
            text,
            "tool_result",
            with_model(builtin_pack("default"), Model.from_bytes(packaged_model("classes").to_bytes())),
        ).probabilities
    )


def test_a_kinds_temperature_never_changes_the_class_it_is_given() -> None:
    from turnlens.learn.model import Model, Prediction

    # the rules' fallback may answer a class that is not the most probable (`no_evidence`):
    # a further temperature keeps that class and gives it its own, sharpened probability
    p = Prediction("context", 0.3, {"spec": 0.5, "context": 0.3, "code": 0.2})
    sharp = Model.at_temperature(p, 0.5)
    assert sharp.label == "context"
    assert sharp.confidence == pytest.approx(0.09 / (0.25 + 0.09 + 0.04))
    assert sum(sharp.probabilities.values()) == pytest.approx(1.0)
    assert Model.at_temperature(p, 1.0) is p


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        ('shell_command: {"command": "Get-ChildItem -Force", "workdir": "C:\\\\repo"}', ("code",)),
        ('write_stdin: {"session_id": 4, "chars": "y\\n"}', ("code",)),
        ('TaskCreate: {"subject": "Port the importer", "description": "Read CSV and JSON"}', ("spec",)),
        ('TaskUpdate: {"taskId": "3", "status": "completed"}', ("context",)),
        ('TaskUpdate: {"taskId": "3", "description": "Also cover the JSON importer"}', ("spec", "context")),
        ("TaskList: {}", ("context",)),
        (
            'AskUserQuestion: {"questions": [{"question": "Which database?", "options": ["SQLite", "Postgres"]}]}',
            ("context",),
        ),
        ('request_user_input: {"questions": [{"id": "db", "question": "Which one?"}]}', ("context",)),
        ('google_web_search: {"query": "pam_u2f nouserok"}', ("context",)),
        ('wait: {"cell_id": "2", "yield_time_ms": 30000}', ("context",)),
    ],
)
def test_more_tools_by_what_they_do(text: str, allowed: tuple[str, ...]) -> None:
    """Codex's Windows shell and stdin tools run commands; Claude Code's TaskCreate sets the plan and
    a TaskUpdate that only moves a task's status is bookkeeping; asking the person is context."""
    assert allowed_classes("tool_call", text) == allowed
    assert classify_unit(text, "tool_call").task_class in allowed


@pytest.mark.parametrize(
    "text",
    [
        "The file /home/ana/shop/src/cart.ts has been updated successfully.",
        "The file C:\\work\\notes\\设计.md has been updated. All occurrences were successfully replaced.",
        "File created successfully at: /home/ana/shop/migrations/0003_orders.sql",
        "Task #4 created successfully: Wire the CSV importer",
        "Updated task #4 status",
        "Todos have been modified successfully. Ensure that you continue to use the todo list to track your"
        " progress. Please proceed with the current tasks if applicable",
        "(Bash completed with no output)",
        "Successfully created and wrote to new file: /home/ana/shop/docs/plan.md.",
        "Successfully overwrote file: /home/ana/shop/src/app.ts.",
        "Success. Updated the following files:\nM src/cart.ts\nA src/cart.test.ts\n",
        "Found 2 files\nsrc/cart.ts\nsrc/checkout.ts",
        "No files found",
    ],
)
def test_a_tools_acknowledgement_or_count_is_context(text: str) -> None:
    """What a tool says when an action went through (Claude Code's Edit and Write, Gemini CLI's
    write_file, Codex's apply_patch) or how many files a search found is command chatter: context."""
    assert allowed_classes("tool_result", text) == ("context",)
    assert classify_unit(text, "tool_result").task_class == "context"


def test_an_acknowledgement_that_goes_on_is_read_as_what_follows() -> None:
    # Gemini CLI's write_file result can carry the file written after the acknowledgement
    text = (
        "Successfully overwrote file: /home/ana/shop/src/app.ts. Here is the updated code:\n"
        "export function total(items: Item[]): number {\n  return items.reduce((s, i) => s + i.price, 0);\n}\n"
    )
    assert allowed_classes("tool_result", text) == KIND_CLASSES["tool_result"]
    # an apply_patch list is the tool's; a lone `M x` line is not an acknowledgement
    assert allowed_classes("tool_result", "A quick note\nM and more") == KIND_CLASSES["tool_result"]


POWERSHELL_TABLE = (
    "Exit code: 0\nWall time: 0.4 seconds\nOutput:\n\r\n\r\n    Directory: C:\\repo\\supabase\r\n\r\n"
    "Mode                 LastWriteTime         Length Name\r\n"
    "----                 -------------         ------ ----\r\n"
    "-a----        12.03.2026     10:02            913 001_init.sql\r\n"
)
POWERSHELL_7_TABLE = (
    "Exit code: 0\nWall time: 1.0 seconds\nOutput:\n"
    "\x1b[32;1mName        \x1b[0m\x1b[32;1m Mode \x1b[0m\x1b[32;1m Length\x1b[0m\r\n"
    "\x1b[32;1m----        \x1b[0m \x1b[32;1m---- \x1b[0m \x1b[32;1m------\x1b[0m\r\n"
    "notes.md     -a---   2956\r\nrun.ps1      -a---    282\r\n"
)
SKILL_FILE = (
    "Script completed\nWall time 0.1 seconds\nOutput:\n\nWarning: truncated output (original token count: 9000)\n"
    "Total output lines: 700\n\n---\nname: release-notes\ndescription: Write release notes from merged PRs.\n---\n\n"
    "# Release notes\n\nYou MUST list every breaking change first.\n"
)


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        (POWERSHELL_TABLE, ("context",)),
        (POWERSHELL_7_TABLE, ("context",)),
        (SKILL_FILE, ("code",)),
        (
            "<tool_use_error>InputValidationError: the required parameter `file_path` is missing</tool_use_error>",
            ("code",),
        ),
        (
            "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n/home/ana/.codex/sessions/2026/04/rollout-1.jsonl\n",
            ("context",),
        ),
    ],
)
def test_more_result_shapes(text: str, allowed: tuple[str, ...]) -> None:
    """A table PowerShell prints (with or without its colours) is a listing; a file that opens with
    YAML front matter is a file's content, behind Codex's truncation note too; a tool's own error is
    code; the one path a command printed is context."""
    assert allowed_classes("tool_result", text) == allowed
    assert classify_unit(text, "tool_result").task_class in allowed


def test_one_line_that_is_not_a_path_keeps_the_result_classes() -> None:
    text = 'Script completed\nWall time 0.0 seconds\nOutput:\n{"p50_us":1,"events":200000,"rate":538.1}\n'
    assert allowed_classes("tool_result", text) == KIND_CLASSES["tool_result"]


@pytest.mark.parametrize(
    "text",
    [
        "<task-notification>\n<task-id>b7x</task-id>\n<summary>Monitor event: page 2 fetched</summary>\n</task-notification>",
        "<local-command-caveat>Caveat: the messages below were generated by the user while running local commands."
        "</local-command-caveat>",
        "<ide_opened_file>The user opened the file /repo/src/app.ts in the IDE.</ide_opened_file>",
    ],
)
def test_the_clients_notices_are_context(text: str) -> None:
    assert allowed_classes("injected", text) == ("context",)


def test_a_task_notification_with_the_tasks_report_is_read() -> None:
    text = (
        "<task-notification>\n<task-id>b7x</task-id>\n<status>completed</status>\n<result>The importer MUST"
        " reject rows without an id.</result>\n</task-notification>"
    )
    assert allowed_classes("injected", text) == KIND_CLASSES["injected"]


MUST_DOC = (
    "# Release policy\n\nEvery release MUST be tagged.\nThe changelog SHALL list breaking changes first.\n"
)
# a subagent's report, as a `Task` / `Agent` call returns it: headings and MUSTs, still a report
REPORT = (
    "I have read the billing module. Summary:\n\n## Quotes\n\n- Prices MUST be fixed in USD when the quote"
    " is created.\n- The quote expires after 10 minutes.\n\n## Gaps\n\n1. No test covers expiry.\n"
)
TEST_RUN = "\n  cart › adds an item (4 ms)\n  cart › rejects a negative quantity (2 ms)\n\nTests: 2 passed, 2 total\n"


@pytest.mark.parametrize(
    ("call", "text", "allowed"),
    [
        ('Bash: {"command": "cat docs/RELEASE.md"}', MUST_DOC, ("code",)),
        ('exec_command: {"cmd": "npm test 2>&1 | tail -20"}', TEST_RUN, ("review",)),
        ('Bash: {"command": "git status --short"}', " M src/cart.ts\n?? notes.txt\n", ("context",)),
        ('WebFetch: {"url": "https://example.com/limits"}', MUST_DOC, ("context",)),
        ('Bash: {"command": "python scripts/report.py"}', MUST_DOC, KIND_CLASSES["tool_result"]),
        (
            'Agent: {"description": "Explore the billing code", "prompt": "Find where quotes are priced"}',
            REPORT,
            ("review", "context"),
        ),
    ],
)
def test_a_results_call_is_evidence(call: str, text: str, allowed: tuple[str, ...]) -> None:
    """What the call ran settles a result its text leaves open: a file printed is a file's content,
    a test run's output its verdict, `git status` a listing, fetched web text context."""
    assert allowed_classes("tool_result", text, call) == allowed
    assert classify_unit(text, "tool_result", call=call).task_class in allowed
    # without the call the text alone decides, as before
    assert allowed_classes("tool_result", text) == KIND_CLASSES["tool_result"]
    # the call is evidence for results only
    assert allowed_classes("reply", text, call) == KIND_CLASSES["reply"]


@pytest.mark.parametrize(
    ("call", "allowed"),
    [
        ('exec_command: {"cmd": "npx tsc --noEmit"}', ("review",)),
        ('shell_command: {"command": "Get-ChildItem -Recurse -File src"}', ("context",)),
        # a file printed that came out empty: the call names neither, the shape's classes stay
        ('exec_command: {"cmd": "cat empty.txt"}', ("context", "review")),
        ('exec_command: {"cmd": "python scripts/migrate.py"}', ("context", "review")),
    ],
)
def test_a_call_picks_among_the_classes_a_results_shape_leaves(call: str, allowed: tuple[str, ...]) -> None:
    """A command that printed nothing is chatter or a silent verdict; what it ran says which."""
    silent = "Chunk ID: 8ea748\nWall time: 1.9 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n"
    assert allowed_classes("tool_result", silent) == ("context", "review")
    assert allowed_classes("tool_result", silent, call) == allowed


def test_a_results_shape_comes_before_its_call() -> None:
    call = 'Bash: {"command": "cat notes.md"}'
    assert allowed_classes("tool_result", "(Bash completed with no output)", call) == ("context",)


@pytest.mark.parametrize(
    "text",
    [
        "Exit code: 1\nWall time: 0.2 seconds\nOutput:\nls: cannot access 'build': No such file or directory\n",
        'execution error: Io(Custom { kind: Other, error: "sandbox: runner error" })',
        "Exit code: 124\nWall time: 10.9 seconds\nOutput:\ncommand timed out after 10937 milliseconds\n",
    ],
)
def test_a_failed_command_printed_its_error_not_its_output(text: str) -> None:
    call = 'shell_command: {"command": "ls build"}'
    assert allowed_classes("tool_result", text, call) == KIND_CLASSES["tool_result"]
    # a failed test run's output is still its verdict
    failed_run = "Exit code: 1\nWall time: 3.0 seconds\nOutput:\nFAILED tests/test_cart.py::test_total - assert 3 == 4\n"
    assert allowed_classes("tool_result", failed_run, 'shell_command: {"command": "pytest -q"}') == (
        "review",
    )


def test_classify_many_reads_each_results_call() -> None:
    texts = [MUST_DOC, MUST_DOC, MUST_DOC]
    calls = ['Bash: {"command": "cat docs/RELEASE.md"}', 'WebFetch: {"url": "https://example.com"}', None]
    got = classify_many(texts, DEFAULT, kinds=["tool_result"] * 3, calls=calls)
    assert [c.task_class for c in got[:2]] == ["code", "context"]
    assert got[2].task_class == classify_unit(MUST_DOC, "tool_result").task_class
    assert [c.task_class for c in got] == [
        classify_unit(t, "tool_result", call=c).task_class for t, c in zip(texts, calls, strict=True)
    ]
    with pytest.raises(ValueError, match="one call"):
        classify_many(texts, DEFAULT, kinds=["tool_result"] * 3, calls=calls[:2])


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        (
            "💻 **Bash: Run the type check**\n```shell\nnpm run typecheck\n```\n```\n> shop@1.0.0 typecheck\n"
            "> tsc --noEmit\n\nsrc/cart.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\n```",
            ("review",),
        ),
        (
            "Tool use: **run_terminal_cmd**\n\n```bash\ncd /repo && python -m pytest -q\n```\n\n```\n3 passed in 0.4s\n```",
            ("review",),
        ),
        # a command exported without its output, or one that is not a check, stays a command
        ("💻 **Bash: Run the type check**\n```shell\nnpm run typecheck\n```", ("code",)),
        (
            "💻 **Bash: Show the changes**\n```shell\ngit status --short\n```\n```\n M src/cart.ts\n```",
            ("code",),
        ),
    ],
)
def test_an_exported_check_run_with_its_output_is_review(text: str, allowed: tuple[str, ...]) -> None:
    """A Markdown export keeps a command and what it printed in one part: when the command is a
    test, lint, build or type-check run, what the part says is the check's verdict."""
    assert allowed_classes("tool_call", text) == allowed
    assert classify_unit(text, "tool_call").task_class == allowed[0]


@pytest.mark.parametrize(
    ("text", "led_in"),
    [
        ("Let's fix the config test:", True),
        ("Now update the verdict test assertions to match the new format:", True),
        ("现在，让我检查一下模块配置文件中的 API 路径：", True),
        ("The import failed on a missing column, so I'll add it to the schema first:", True),
        # code, a second paragraph or no colon at the end: the text decides
        ("Here is the fix:\n```python\nreturn total\n```", False),
        ("All 42 tests pass.\n\nThe next step is the importer:", False),
        ("All 42 tests pass and the linter is clean.", False),
        ("x" * 420 + ":", False),
    ],
)
def test_a_reply_that_leads_into_the_next_step_is_context(text: str, led_in: bool) -> None:
    """An agent's one-paragraph message ending on a colon announces the call that follows."""
    allowed = allowed_classes("reply", text)
    assert (allowed == ("context",)) is led_in
    if led_in:
        assert classify_unit(text, "reply").task_class == "context"
    # a person's prompt or a turn read alone is not the agent's lead-in
    assert allowed_classes("prompt", text) != ("context",)
    assert allowed_classes(None, text) != ("context",)


@pytest.mark.parametrize(
    "text",
    [
        'User has answered your questions: "Which store should the cache use?"="Redis", '
        '"Keep the old endpoint?"="No, drop it". You can now continue with the user\'s answers in mind.',
        "User has approved your plan. You can now start coding. Start with updating your todo list if "
        "applicable\n\n## Approved Plan:\n# Cache\n1. Put Redis behind the price lookup.\n2. Drop /v1/prices.",
        "User has approved exiting plan mode. You can now proceed.",
    ],
)
def test_the_persons_answer_to_the_agents_question_is_a_decision(text: str) -> None:
    """The agent asks (AskUserQuestion) or hands over its plan (ExitPlanMode); the client hands the
    person's pick or approval back as the tool's result. That is where the person decides, so
    the result is a decision, kept word for word, though a tool result is otherwise never one."""
    assert "decision" not in KIND_CLASSES["tool_result"]
    assert allowed_classes("tool_result", text) == ("decision",)
    for call in (None, 'AskUserQuestion: {"questions": []}', 'ExitPlanMode: {"plan": "# Cache"}'):
        assert classify_unit(text, "tool_result", call=call).task_class == "decision"
    # the same words inside another tool's output, or a person who answered nothing, are not one
    assert allowed_classes("tool_result", "log:\n" + text) == KIND_CLASSES["tool_result"]
    assert allowed_classes("tool_result", "User submitted without answering any questions.") == ("context",)


def test_codex_answers_to_request_user_input_are_a_decision() -> None:
    """Codex hands the answers back as JSON by question; read as answers only where the call is
    known to have asked (the same JSON from a web API is not the person's)."""
    answers = '{"answers": {"storage": {"answers": ["Postgres (Recommended)"]}}}'
    asked = 'request_user_input: {"questions": [{"id": "storage", "question": "Which store?"}]}'
    assert allowed_classes("tool_result", answers, asked) == ("decision",)
    assert classify_unit(answers, "tool_result", call=asked).task_class == "decision"
    assert allowed_classes("tool_result", answers) == KIND_CLASSES["tool_result"]
    fetched = 'Bash: {"command": "curl -s https://quiz.example/api/1"}'
    assert "decision" not in (allowed_classes("tool_result", answers, fetched) or ())


def test_exit_plan_mode_hands_over_the_plan() -> None:
    """ExitPlanMode's plan states what must be done: spec, as the agent's todo list; a call that
    carries no plan (it is kept in a file) only asks: context."""
    assert allowed_classes("tool_call", 'ExitPlanMode: {"plan": "# Cache\\n1. Redis for prices"}') == (
        "spec",
    )
    assert allowed_classes("tool_call", "ExitPlanMode: ## Cache\n1. Redis for prices") == ("spec",)
    assert allowed_classes("tool_call", "ExitPlanMode: {}") == ("context",)
