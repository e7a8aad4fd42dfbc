"""The local cluster as seen over TCP: ports must be free before a start, brokers must answer after it.

The only module of the package that imports confluent_kafka, lazily, so `kconnect kafka stop|status`
and the unit tests never load librdkafka.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterable

from local_kafka.errors import LocalKafkaError


def check_ports_free(ports: Iterable[int]) -> None:
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            # SO_REUSEADDR so a port in TIME_WAIT from a just-stopped broker counts as free, as it does
            # for Kafka's own listener.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError as exc:
                raise LocalKafkaError(f"port {port} on 127.0.0.1 is in use ({exc.strerror})") from exc


def wait_for_brokers(
    bootstrap_servers: str,
    node_ids: set[int],
    timeout: float,
    check_alive: Callable[[], None],
) -> None:
    """Return once metadata lists every id in `node_ids` as a broker, else TimeoutError.

    `check_alive` runs before every attempt and raises to give up early (a node died).
    """
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    # log_level 0 keeps librdkafka's "connection refused" chatter off stderr while nodes boot.
    admin = AdminClient({"bootstrap.servers": bootstrap_servers, "log_level": 0})
    deadline = time.monotonic() + timeout
    seen: set[int] = set()
    while time.monotonic() < deadline:
        check_alive()
        try:
            seen = set(admin.list_topics(timeout=2).brokers)
        except KafkaException:
            seen = set()
        if seen >= node_ids:
            return
        time.sleep(0.2)
    raise TimeoutError(f"cluster not ready after {timeout:.0f}s (brokers seen: {sorted(seen)})")
