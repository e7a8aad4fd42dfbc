"""Unit tests: no network, no external processes beyond the interpreter."""
