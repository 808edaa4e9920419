"""Hand-written rows in the shapes real threads, agent prompts and session tool traffic take
(terse approvals and triage outcomes, bots' reports, opinionated review remarks, prose
requirements, CJK without spaces, first-person bug reports, meta questions, file moves, tool
calls and results). Run to regenerate turns-real.jsonl, turns-tools.jsonl and
prompts-real.jsonl from the `.rows` files next to this script."""

from pathlib import Path

from rows import read_rows, write_jsonl

HERE = Path(__file__).resolve().parent
FILES = (
    ("turns-real.rows", "trl", "turns-real.jsonl"),
    ("tools.rows", "ttl", "turns-tools.jsonl"),
    ("prompts-real.rows", "prl", "prompts-real.jsonl"),
)

if __name__ == "__main__":
    for source, prefix, out in FILES:
        write_jsonl(read_rows(HERE / source), prefix, HERE / out)
