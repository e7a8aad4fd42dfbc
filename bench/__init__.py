"""Side-by-side benchmarks: kconnect next to raw confluent-kafka and Apache Kafka Connect (Java).

Run with `python -m bench [--quick] [--only NAME ...]`. Every figure comes from processes this package
starts itself: a dedicated local broker, kconnect's worker and Java Kafka Connect, each driven only
through its command line, properties files and REST API. Results merge into
`docs/benchmarks/results.json`, from which `docs/benchmarks.md` and its plots are regenerated.
"""
