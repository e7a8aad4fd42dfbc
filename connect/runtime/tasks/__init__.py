"""Task and connector runners: `WorkerTask` and its source, exactly-once source and sink kinds, the
`WorkerConnector`, what they need from the worker (`contexts`, `topic_creation`, `transactions`) and the
builders that assemble a runner from the worker's and the connector's configs.

Each runner runs on a thread of its own; the record path it drives lives in `connect.runtime.pipeline`.
"""
