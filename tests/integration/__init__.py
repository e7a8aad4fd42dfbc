"""Integration tests against a real Kafka broker."""
