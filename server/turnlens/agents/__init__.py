"""TurnLens inside coding agents: hooks and the status line.

Each module reads what an agent hands a hook (JSON on stdin, a session file),
asks the pipeline (the format readers, `analyze_stream`, the plan, the router)
and answers in the agent's documented format. Nothing here calls a model back
end: every answer comes from the embedded rules and models, offline.

    payload.py     the hook's JSON, read with bounds and typed getters
    state.py       the user's state folder: the hook log, the restore log, session ledgers
    ledger.py      a session file read once, line by line, and remembered between calls
    compaction.py  instructions before a compaction; what a summary lost, given back after
    prompt.py      one line of context for a confident, high-effort prompt
    statusline.py  the status line: last route, frozen share, plan against the window
    hook.py        one entry point per event, with a deadline; any failure is a no-op
    warm.py        a long session read ahead in the background, so compaction need not wait
    install.py     merging TurnLens's entries into an agent's settings and taking them out
"""
