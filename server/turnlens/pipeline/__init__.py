"""text → units → results: the one road every view takes.

`formats/` turns a document into units (a turn, a message) with their spans;
`workspace.py` resolves what applies to a document (settings + path → rule pack,
user models, router, `Profile`); `analyze.py` scores the units and routes them,
re-scoring only what changed. The language server, the CLI, batch runs and the
API all get their profile from the workspace and their results from `analyze`;
none of them knows a file format.
"""
