"""What the standalone and distributed herders share: `BaseHerder` (the requests both answer the same way,
Kafka's AbstractHerder), KIP-745 restart plans, the KIP-875 offsets API and `GET /`'s server info."""
