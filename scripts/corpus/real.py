"""Hand-written rows in the shapes real threads, agent prompts and session tool traffic take
(terse approvals and triage outcomes, bots' reports, opinionated review remarks, prose
requirements, CJK without spaces, first-person bug reports, meta questions, file moves, tool
calls and results), and rows each written after one real item of a public thread or agent log
(`turns-threads`, `turns-agents`, `prompts-agents`, `prompts-agents-intl`: a new text with the
real one's label, language and shape, its wording and specifics changed; nothing copied), the
work requests among those prompts read as turns (`turns-requests`: context) and plain
explanations without marker words (`turns-plain`: context), approvals that carry a directive
(`turns-approvals`: decision) and prompts typed to agents read as turns of their sessions, each
written after a real one (`turns-prompts`: decisions, specs and plain requests;
`turns-prompts-briefs`: decisions given as orders, specs written as briefs, routine requests),
and notes and explanations written as Markdown bullets (`turns-notes`: context). Run to
regenerate the JSON Lines files from the `.rows` files next to this script."""

from pathlib import Path

from rows import read_rows, write_jsonl

HERE = Path(__file__).resolve().parent
FILES = (
    ("turns-real.rows", "trl", "turns-real.jsonl"),
    ("tools.rows", "ttl", "turns-tools.jsonl"),
    ("prompts-real.rows", "prl", "prompts-real.jsonl"),
    ("turns-threads.rows", "tth", "turns-threads.jsonl"),
    ("turns-agents.rows", "tag", "turns-agents.jsonl"),
    ("prompts-agents.rows", "pag", "prompts-agents.jsonl"),
    ("prompts-agents-intl.rows", "pai", "prompts-agents-intl.jsonl"),
    ("turns-requests.rows", "trq", "turns-requests.jsonl"),
    ("turns-plain.rows", "tpl", "turns-plain.jsonl"),
    ("turns-approvals.rows", "tap", "turns-approvals.jsonl"),
    ("turns-prompts.rows", "tpr", "turns-prompts.jsonl"),
    ("turns-prompts-briefs.rows", "tpb", "turns-prompts-briefs.jsonl"),
    ("turns-notes.rows", "tnt", "turns-notes.jsonl"),
)

if __name__ == "__main__":
    for source, prefix, out in FILES:
        write_jsonl(read_rows(HERE / source), prefix, HERE / out)
