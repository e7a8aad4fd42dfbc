"""Datagen: numbered generated records for demos, tests and benchmarks."""
