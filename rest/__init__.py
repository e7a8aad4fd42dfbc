"""The REST API: a thin FastAPI adapter over the Herder protocol, speaking Kafka Connect's contract."""
