"""Apache Kafka Connect's Java runtime as a benchmark peer: its jars, resolved by `mvn` from pom.xml."""
