"""The REST resources, one router per group of Kafka Connect endpoints."""
