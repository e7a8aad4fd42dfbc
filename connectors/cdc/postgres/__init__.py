"""PostgreSQL: logical replication with the built-in pgoutput plug-in, as Debezium's PostgresConnector."""
