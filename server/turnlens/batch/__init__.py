"""Labelling transcript archives at scale: Arrow rows in, labelled rows out, Parquet on disk.

A view, like `cli/` and `lsp/`: `label_batch` is the pure function any engine can
map over record batches (Ray Data, Spark `mapInArrow`, a local process pool);
`run_batch` is what `turnlens batch` runs. Needs pyarrow (`turnlens[batch]`);
the `ray` engine needs Ray (`turnlens[ray]`). See docs/scale.md.
"""

from __future__ import annotations

from turnlens.batch.label import Labeler, label_batch
from turnlens.batch.read import ReadOptions
from turnlens.batch.schema import SCHEMA_VERSION, input_schema, sessions_schema, spark_ddl, units_schema

__all__ = [
    "SCHEMA_VERSION",
    "Labeler",
    "ReadOptions",
    "input_schema",
    "label_batch",
    "sessions_schema",
    "spark_ddl",
    "units_schema",
]
