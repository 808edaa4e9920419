"""The labelled rows the shipped models are trained on (docs/labels.md, Part 3)."""
