"""The shipped model files (made by `turnlens train`, checked by tests/learn)."""
