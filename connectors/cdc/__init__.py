"""Change data capture: sources that stream a database's changes in commit order, with Debezium's keys,
events and offsets, so Debezium's configs, topics and consumers work unchanged. What every database shares
(topic and schema names, the envelope, heartbeats, transaction metadata) lives here; each database's log
reader lives in its own package (`postgres`)."""
