"""Processes and the `kconnect` command: herders, membership, bootstrap, the local Kafka manager."""
