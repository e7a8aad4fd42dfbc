"""The dedicated broker of a benchmark run and the admin chores every scenario needs.

The broker is the project's own local Kafka (`local_kafka.LocalKafka`), in a directory and on
ports of its own, started at the beginning of a run and stopped in a `finally`. `KafkaAdmin` creates
and deletes topics, reads end offsets and fills topics with the raw producer.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from confluent_kafka import ConsumerGroupState, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
from confluent_kafka.cimpl import NewTopic  # where the typed stubs declare it

from local_kafka import LocalKafka
from local_kafka.security import SECURE_PORT_OFFSET, client_settings
from workers.common.tcp_ports import port_free

log = logging.getLogger(__name__)

CONTROLLER_OFFSET = 100


def free_port(avoid: set[int] | None = None) -> int:
    """A port the OS says is free on 127.0.0.1 now (and not in `avoid`)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if not avoid or port not in avoid:
            return port


def broker_port() -> int:
    """A broker port whose controller port and secured listener's port (port + 100 and port + 200,
    LocalKafka's layout) are free too."""
    offsets = (CONTROLLER_OFFSET, SECURE_PORT_OFFSET)
    for _ in range(100):
        port = free_port()
        if port + max(offsets) <= 65535 and all(port_free(port + offset) for offset in offsets):
            return port
    raise RuntimeError("no free ports for the benchmark broker")


MEMORY_LOG_PARENT = Path("/dev/shm")
MEMORY_LOG_PREFIX = "kconnect-bench-kafka-"
STALE_UNSTARTED_S = 600
# A stopped broker's log written this recently may be a broker between the stop and start of a restart.
RESTART_GRACE_S = 60
MEMORY_LOG_MIN_FREE_BYTES = 8 << 30
"""The in-memory log needs room for the largest topics a group keeps at once (a few GB) with margin."""
LATEST = OffsetSpec.latest()  # type: ignore[no-untyped-call]
IN_MEMORY_SETTINGS = {
    # A deleted topic's files go at once, not a minute later: a full run deletes gigabytes a minute.
    "log.segment.delete.delay.ms": 0,
}


def memory_log_parent() -> Path | None:
    """A tmpfs with room for the broker's log, or None (the log then stays on disk with the run's files).

    On disk, a full run's 1 KB rows write about a gigabyte a repetition, more than the page cache holds
    back: the disk's writeback then paces the broker, differently for whichever system runs when it
    starts, and the rows measure the disk. In memory they measure the systems."""
    try:
        stats = shutil.disk_usage(MEMORY_LOG_PARENT)
    except OSError:
        return None
    return MEMORY_LOG_PARENT if stats.free >= MEMORY_LOG_MIN_FREE_BYTES else None


def _recently_written(place: Path) -> bool:
    """Anything under the log directory written in the last minute: a broker stopped for a restart."""
    newest = max((path.stat().st_mtime for path in [place, *place.glob("*"), *place.glob("*/*")]), default=0.0)
    return time.time() - newest < RESTART_GRACE_S


def sweep_stale_memory_logs(parent: Path) -> None:
    """Removes in-memory broker logs no broker runs from any more: what a harness killed with SIGKILL left
    (its reaper ends the broker, but cannot know the directory)."""
    for place in parent.glob(f"{MEMORY_LOG_PREFIX}*"):
        cluster = LocalKafka.from_directory(place)
        if cluster is None:
            # Not started yet (another run's, in its first seconds) or never started: only an old one goes.
            if time.time() - place.stat().st_mtime < STALE_UNSTARTED_S:
                continue
        elif any(node.running for node in cluster.status().nodes) or _recently_written(place):
            continue  # running, or stopped a moment ago and about to start again (a broker-restart trial)
        log.info("removing the in-memory log of an earlier benchmark broker: %s", place.name)
        shutil.rmtree(place, ignore_errors=True)


@contextlib.contextmanager
def dedicated_broker(directory: Path, security: str | None = None) -> Iterator[LocalKafka]:
    """A one-node broker on free ports, stopped (and its in-memory log removed) whatever happens in the
    block: in `directory`, or in a directory of its own on a tmpfs when there is one with room
    (`memory_log_parent`), with topics' files deleted at once (`IN_MEMORY_SETTINGS`).

    `security` (`sasl_ssl` or `ssl`) adds a secured listener beside the PLAINTEXT one
    (`kconnect kafka start --security`); `secured_client_keys` gives a client's keys for it."""
    if MEMORY_LOG_PARENT.is_dir():
        sweep_stale_memory_logs(MEMORY_LOG_PARENT)
    parent = memory_log_parent()
    place = Path(tempfile.mkdtemp(prefix=MEMORY_LOG_PREFIX, dir=parent)) if parent is not None else directory
    settings = IN_MEMORY_SETTINGS if parent is not None else {}
    cluster = LocalKafka(place, nodes=1, port=broker_port(), heap="1g", security=security, broker_settings=settings)
    try:
        cluster.start()
        log.info(
            "benchmark broker %s (Apache Kafka %s) is up, its log %s",
            cluster.bootstrap_servers,
            cluster.version,
            "in memory" if parent is not None else "on disk",
        )
        yield cluster
    finally:
        try:
            cluster.stop()
        finally:
            if parent is not None:
                shutil.rmtree(place, ignore_errors=True)


def secured_client_keys(cluster: LocalKafka) -> dict[str, str]:
    """Kafka client keys (Kafka's names) of the cluster's secured listener; empty when it has none."""
    files = cluster.security_files
    if files is None or cluster.secure_bootstrap_servers is None:
        return {}
    return client_settings(files, cluster.secure_bootstrap_servers)


class KafkaAdmin:
    """Topic chores against the benchmark broker; one instance per run."""

    def __init__(self, bootstrap_servers: str) -> None:
        self.bootstrap_servers = bootstrap_servers
        self._admin = AdminClient({"bootstrap.servers": bootstrap_servers, "log_level": 0})

    def reconnect(self) -> None:
        """A new admin client, for after a restart of the broker: librdkafka's admin client that lived through
        one was seen to time out every group description afterwards."""
        self._admin = AdminClient({"bootstrap.servers": self.bootstrap_servers, "log_level": 0})

    def close(self) -> None:
        """Nothing to release: the admin client ends with the object (kept for the callers' `finally`s)."""

    def create_topic(self, name: str, partitions: int = 1, config: dict[str, str] | None = None) -> None:
        futures = self._admin.create_topics([NewTopic(name, partitions, 1, config=config or {})])
        futures[name].result(timeout=30)
        self._wait_for_leaders(name, partitions)

    def _wait_for_leaders(self, name: str, partitions: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            metadata = self._admin.list_topics(name, timeout=5).topics.get(name)
            if (
                metadata is not None
                and metadata.error is None
                and len(metadata.partitions) == partitions
                and all(p.leader >= 0 for p in metadata.partitions.values())
            ):
                return
            time.sleep(0.05)
        raise TimeoutError(f"topic {name} has no leaders after {timeout:.0f}s")

    def delete_topics(self, names: list[str]) -> None:
        if not names:
            return
        for future in self._admin.delete_topics(names, operation_timeout=30).values():
            with contextlib.suppress(Exception):
                future.result(timeout=30)

    def group_member_partitions(self, group: str) -> list[tuple[str, int]] | None:
        """Each member of consumer group `group` as (client id, partitions it holds); None unless the group is
        stable."""
        try:
            futures = self._admin.describe_consumer_groups([group], request_timeout=5)
            description = futures[group].result(timeout=10)
        except KafkaException:
            return None
        if description.state != ConsumerGroupState.STABLE:
            return None
        return [(member.client_id, len(member.assignment.topic_partitions)) for member in description.members]

    def group_summary(self, group: str) -> str:
        """Consumer group `group`'s state and members (client id, partitions held), for error messages."""
        try:
            description = self._admin.describe_consumer_groups([group], request_timeout=5)[group].result(timeout=10)
        except KafkaException as exc:
            return f"not described: {exc}"
        members = [(m.client_id, m.member_id[-8:], len(m.assignment.topic_partitions)) for m in description.members]
        return f"{description.state.name} {members}"

    def topics_with_prefix(self, prefix: str) -> list[str]:
        return [name for name in self._admin.list_topics(timeout=10).topics if name.startswith(prefix)]

    def partitions(self, topic: str) -> int:
        metadata = self._admin.list_topics(topic, timeout=5).topics.get(topic)
        return 0 if metadata is None or metadata.error is not None else len(metadata.partitions)

    def end_offset(self, topic: str, partitions: int = 1) -> int:
        """The sum of the high watermarks of `topic`'s partitions (0 while the topic is unknown), asked afresh with
        one ListOffsets request: a consumer's watermarks went stale once topics of earlier runs were deleted (a
        topic created after them read 0 for minutes)."""
        request = {TopicPartition(topic, partition): LATEST for partition in range(partitions)}
        try:
            answers = self._admin.list_offsets(request, request_timeout=5)
            return sum(max(int(future.result(timeout=10).offset), 0) for future in answers.values())
        except KafkaException:
            # librdkafka's admin client, asked about a topic before it existed, may answer "no leaders found"
            # for it from then on (seen after topics of earlier runs were deleted): the next call asks afresh.
            self._admin = AdminClient({"bootstrap.servers": self.bootstrap_servers, "log_level": 0})
            return 0
