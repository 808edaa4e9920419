"""Label your own rows with Ray Data: `map_batches(turnlens.batch.label_batch)`.

    pip install 'turnlens[ray]'
    python docs/examples/batch/ray_map_batches.py OUT_DIR [RAY_ADDRESS]

Rows need `session_id`, `unit_index` and `text`; `role` and `kind` (when known) decide
which units get a route (user prompts). Any other column passes through.
"""

from __future__ import annotations

import sys

import ray
import ray.data

from turnlens.batch import label_batch

ROWS = [
    {"session_id": "s1", "unit_index": 1, "role": "user", "kind": "prompt",
     "text": "ultrathink: how should we shard a terabyte of sessions?"},
    {"session_id": "s1", "unit_index": 2, "role": "assistant", "kind": "reply",
     "text": "Shard by session file; every worker labels whole sessions."},
    {"session_id": "s1", "unit_index": 3, "role": "user", "kind": "prompt",
     "text": "APPROVED — ship it"},
]  # fmt: skip


def label(out_dir: str) -> ray.data.Dataset:
    """Label ROWS and write them as Parquet under `out_dir`."""
    labelled = ray.data.from_items(ROWS).map_batches(label_batch, batch_format="pyarrow")
    labelled.write_parquet(out_dir)
    return labelled


if __name__ == "__main__":
    ray.init(address=sys.argv[2] if len(sys.argv) > 2 else None, include_dashboard=False)
    for row in label(sys.argv[1]).select_columns(["unit_index", "class", "frozen", "effort"]).take_all():
        print(row)
