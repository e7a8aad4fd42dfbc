"""The Spark Parquet sink benchmark's parts (bench/spark_sink.py runs them): the topics and Spark settings
all systems share (`cells`), kconnect's worker (`kconnect_sink`), Spark Structured Streaming with its Kafka
source from Maven Central (`streaming`, `jars`), a plain pyarrow writer (`arrow_writer`) and the sink's
fixed cost per flush (`flush_cost`)."""
