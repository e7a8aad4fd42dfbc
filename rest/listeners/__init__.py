"""Where the REST API listens: Kafka Connect's `listeners` and `admin.listeners` values (`addresses`),
which listener serves which path (`roles`), the uvicorn server over the bound sockets (`server`,
`uvicorn_sockets`), and a worker's server built from its config (`for_worker`).
"""
