"""SQL source and sink connectors on SQLAlchemy, configured with Confluent's JDBC connector keys (`kconnect[sql]`)."""
