"""The PySpark Parquet sink connector (a plug-in importing only `connect.api`); built in its own issue."""
