"""The worker's logging: logger levels as Kafka Connect's `/admin/loggers` reads and changes them
(`levels`), and the connector context every log record of a task or connector carries (`context`).

Library code only: entry points (`workers`) configure handlers and formats.
"""
