"""Data: the rule pack of the router's embedded labeler (labels.toml)."""
