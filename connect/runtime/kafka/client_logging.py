"""The logging of kconnect's own librdkafka clients (the internal topic logs, the internal topic admin).

librdkafka's log lines go to the child logger `librdkafka` of the module that made the client, and
client-level errors to that module's logger: a warning while librdkafka keeps retrying (every broker
down during a restart, say), an error when it gives up.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import KafkaError


def with_logging(
    log: logging.Logger, config: Mapping[str, str], on_error: Callable[[KafkaError], None] | None = None
) -> dict[str, Any]:
    """`config` with librdkafka's log lines and client errors sent to `log` (see above); `on_error` is
    told of each client error too."""
    librdkafka_log = log.getChild("librdkafka")

    def log_client_error(error: KafkaError) -> None:
        if error.fatal():
            log.error("Kafka client fatal error: %s", error.str())
        else:
            log.warning("Kafka client error: %s", error.str())
        if on_error is not None:
            on_error(error)

    return {**config, "logger": librdkafka_log, "error_cb": log_client_error}
