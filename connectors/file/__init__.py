"""Kafka's FileStream connectors: lines of a file (or stdin) into one topic, and records' values out to a file."""
