"""`turnlens classify`: the task class of one prompt or turn."""

from __future__ import annotations

from turnlens.cli.common import (
    EXIT_FLAGGED,
    EXIT_OK,
    UsageError,
    add_input_args,
    add_model_arg,
    apply_models,
    load_rules,
    read_input,
    report_problems,
)

TYPE_CHECKING = False  # `typing` (and the `re` it imports) stays off the one-shot path
if TYPE_CHECKING:
    import argparse

    from turnlens.core.classify import Classification
    from turnlens.core.rules import RulePack

HELP = """Print the task class of a prompt or turn: one of
  decision (≤5:1, frozen)   spec (≤3:1, frozen)        code (≤10:1, partly frozen)
  review (≤15:1)            context (≤25:1)            chitchat (≤80:1)
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import argparse

    p = sub.add_parser(
        "classify",
        help="print the task class of a prompt or turn",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_args(p)
    p.add_argument("--json", action="store_true", help="print the SE-029 JSON")
    p.add_argument(
        "--explain",
        nargs="?",
        const=True,  # as the one-shot fast path reads a bare --explain
        default=False,
        choices=["words", "raw"],
        help="also show the probability, the runner-up, the words of the text that pushed the answer "
        "and the rules that fired; --explain=raw shows the model's raw features (n-grams, signals)",
    )
    p.add_argument(
        "--rules",
        metavar="NAME|PATH",
        help="a built-in pack (default, reference) or a rules TOML file; "
        "default: the nearest .turnlens.toml, else the default pack",
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when the verdict is SKIP (frozen)")
    from turnlens.pipeline.formats import AUTO, names

    p.add_argument(
        "--from",
        dest="from_format",
        metavar="FORMAT",
        default=None,
        choices=[AUTO, *names()],
        help="read the input as a session file: one line per message (default for --input: "
        f"{AUTO}, detected; plain text and prompt files stay one prompt). Formats: {', '.join(names())}",
    )
    add_model_arg(p)
    p.set_defaults(func=run)


def explain_lines(result: Classification, raw: bool = False, text: str | None = None) -> list[str]:
    """The `--explain` block: the engine's answer and why (probability, the words that pushed
    it — or with `raw` the model's own features — and the rules that fired). `text`: the text
    classified, whose top may show the agent's reasoning (then the model answered as for it)."""
    frozen = {"true": "frozen", "partial": "partly frozen", "false": "not frozen"}[result.frozen]
    out = [
        f"  ≤{result.max_ratio}:1 · {frozen} · {result.verdict} · {result.words} words, {result.lines} lines"
    ]
    if result.pinned:
        out.append("  pinned by a <!-- turnlens: class=… --> directive")
    elif result.overridden_by:
        out.append(f"  decided by your rules: {', '.join(result.overridden_by)} (they win over the model)")
    if result.engine == "model" and result.probabilities:
        ranked = sorted(result.probabilities.items(), key=lambda kv: -kv[1])
        others = ", ".join(f"{k} {v:.0%}" for k, v in ranked[1:4])
        unsure = " — unsure" if result.unsure else ""
        out.append(f"  model: {result.task_class} {result.confidence:.1%}{unsure} (then {others})")
        if text is not None and not result.overridden_by:
            from turnlens.core.reasoning import kind_of_text

            if kind_of_text(text) == "thinking":
                out.append("  kind: thinking — the text opens with the agent's reasoning, which is context")
        if raw and result.features:
            out.append("  features that pushed it:")
            for c in result.features:
                out.append(f"    {c.weight:+.2f} {c.label()}")
        elif result.phrases:
            out.append("  features that pushed it:")  # the words of the text, on their lines
            for ph in result.phrases:
                out.append(f"    {ph.weight:+.2f} line {ph.line}: {ph.text!r}")
    if result.signals:
        out.append("  rules that fired:")
        for s in result.signals:
            where = f"line {s.line}: {s.text!r}" if s.line else s.description
            weight = ""
            if result.rule_weights is not None and s.rule in result.rule_weights:
                weight = f" (model {result.rule_weights[s.rule]:+.2f})"
            out.append(f"    {s.weight:+d} {s.category:<8} {s.rule:<22} {where}{weight}")
    out.append("  rule scores: " + "  ".join(f"{k} {v}" for k, v in result.scores.items()))
    return out


_ONE_PROMPT = ("turns", "prompt-file")  # formats whose text is classified whole, as one prompt


def run_session(args: argparse.Namespace, text: str, path: str | None, pack: RulePack) -> int | None:
    """A session file: one line (or JSON object) per message; None when the input is one prompt."""
    name = args.from_format or ("auto" if path else None)
    if name is None:
        return None
    from turnlens.pipeline.formats import AUTO, DETECT_HEAD, plainly_one_text

    if name == AUTO and plainly_one_text(path, text[:DETECT_HEAD]):
        return None  # what detection would say, without importing every format
    from turnlens.pipeline.formats import NotATranscript, resolve

    try:
        fmt = resolve(name, path, text)
    except (NotATranscript, ValueError) as exc:
        raise UsageError(f"turnlens classify: {path or '<stdin>'}: {exc}") from None
    if fmt.name in _ONE_PROMPT and args.from_format in (None, "auto"):
        return None
    from turnlens.pipeline.analyze import analyze
    from turnlens.pipeline.workspace import profile_for_pack

    try:
        analyzed = analyze(text, profile_for_pack(pack, format=fmt.name), path=path)
    except NotATranscript as exc:
        raise UsageError(f"turnlens classify: {path or '<stdin>'}: {exc}") from None
    report_problems(path or "<stdin>", analyzed.problems)
    items = []
    skip = False
    for r in analyzed.results:
        if r.unit.ignored:
            continue
        c = r.classification
        skip = skip or c.verdict == "SKIP"
        if args.json:
            items.append({"unit": r.unit.index, "role": r.unit.role, "kind": r.unit.kind, **c.to_json()})
        else:
            who = f"{r.unit.role} {r.unit.kind}" if r.unit.role else "turn"
            print(f"{r.unit.index}\t{who}\t{c.shown_class()}")
    if args.json:
        import json

        print(json.dumps(items, ensure_ascii=False, separators=(",", ":")))
    return EXIT_FLAGGED if args.strict and skip else EXIT_OK


def run(args: argparse.Namespace) -> int:
    from turnlens.classifier import classify

    text, path = read_input(args)
    pack = apply_models(load_rules(args.rules, path), args.model, "classify")
    done = run_session(args, text, path, pack)
    if done is not None:
        return done
    pin = None
    if "<!--" in text:  # an inline `<!-- turnlens: class=… -->` pins the class
        from turnlens.pipeline.units import parse_directives

        pin = parse_directives(text).pin
    result = classify(text, pack, explain=args.explain, pin=pin)
    if args.json:
        import json

        print(json.dumps(result.to_json(explain=args.explain), ensure_ascii=False, separators=(",", ":")))
    else:
        print(result.shown_class())
        if args.explain:
            print("\n".join(explain_lines(result, raw=args.explain == "raw", text=text)))
    return EXIT_FLAGGED if args.strict and result.verdict == "SKIP" else EXIT_OK
