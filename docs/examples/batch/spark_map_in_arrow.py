"""Label rows with Spark: `DataFrame.mapInArrow` with the same `turnlens.batch.label_batch`.

    pip install pyspark 'turnlens[batch]'
    python docs/examples/batch/spark_map_in_arrow.py UNITS_PARQUET

UNITS_PARQUET is any Parquet with `session_id`, `unit_index`, `role`, `kind` and `text`
columns — for instance the `units/` folder of `turnlens batch`, to label it again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from turnlens.batch import label_batch, spark_ddl
from turnlens.batch.schema import LABELS

LABEL_NAMES = {name for name, _, _ in LABELS}


def _label(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        yield label_batch(batch)


def label(df: DataFrame) -> DataFrame:
    """`df` with the label columns appended (any it had already are replaced)."""
    kept = [f for f in df.schema.fields if f.name not in LABEL_NAMES]
    schema = ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in kept)
    return df.select(*(f.name for f in kept)).mapInArrow(_label, f"{schema}, {spark_ddl(LABELS)}")


if __name__ == "__main__":
    spark = SparkSession.builder.appName("turnlens-label").getOrCreate()
    units = spark.read.parquet(sys.argv[1]).select("session_id", "unit_index", "role", "kind", "text")
    label(units).groupBy("class", "frozen").count().orderBy("class").show()
