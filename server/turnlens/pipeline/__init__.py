"""text → units → results: the one road every view takes.

`formats/` turns a document into units (a turn, a message) with their spans;
`profile.py` says what applies to one document; `analyze.py` scores the units
and routes them, re-scoring only what changed. The language server, the CLI,
batch runs and the API all call `analyze`; none of them knows a file format.
"""
