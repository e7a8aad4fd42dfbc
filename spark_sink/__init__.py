"""The PySpark Parquet sink: Kafka records to Parquet on file://, hdfs://, s3a://, exactly once.

A plug-in like any user's (it imports only `connect.api`). The connector is
`spark_sink.connector.SparkParquetSinkConnector`; importing this package loads neither pyspark nor
pyarrow (they come with the extra `kconnect[spark]`).
"""
