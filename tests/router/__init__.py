"""Tests of the router (SPEC §5)."""
