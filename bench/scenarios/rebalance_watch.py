"""`ClusterWatch`: what the rebalance benchmark reads from Kafka while a cluster runs, on a thread of its own.

From the beginning of each topic, with one groupless consumer:
- the connectors' output topics (one per connector): records per task per 0.5 s window of their timestamps
  (the producing worker's clock, so the window a record falls in does not depend on when it is read). The
  task comes from the key: kconnect's datagen writes `<task>-<seq>`, Java's VerifiableSource `<task>`;
- the cluster's status topic: every task status written, in partition order (one task's records share a
  partition, so per task this is the order they were written);
- kconnect's slots topic, if given: its claim and placement records, with their timestamps.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Collection, Mapping

from confluent_kafka import OFFSET_BEGINNING, Consumer, Message, TopicPartition

from bench.scenarios.rebalance_analysis import StatusEvent, TaskKey, parse_status, window_index, window_totals

log = logging.getLogger(__name__)

POLL_TIMEOUT_S = 0.2
BATCH = 10_000


def task_of_key(key: bytes | None) -> int | None:
    """The task number a source record's key names: `3-17` (datagen) and `3` (VerifiableSource) are task 3."""
    if key is None:
        return None
    head = key.split(b"-", 1)[0]
    return int(head) if head.isdigit() else None


class ClusterWatch:
    def __init__(
        self, bootstrap_servers: str, topics: Mapping[str, str], status_topic: str, slots_topic: str | None = None
    ) -> None:
        """`topics` maps each output topic to the connector writing it."""
        self._bootstrap = bootstrap_servers
        self._topics = dict(topics)
        self._status_topic = status_topic
        self._slots_topic = slots_topic
        self._lock = threading.Lock()
        self._counts: dict[TaskKey, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self._latest_ms = 0
        self._statuses: list[StatusEvent] = []
        self._slot_records: list[tuple[int, bytes]] = []  # (timestamp ms, key)
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="rebalance-watch", daemon=True)

    def start(self, timeout: float = 60.0) -> None:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the watch consumer was not assigned its partitions within {timeout:.0f}s")
        self.check()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(30)

    def check(self) -> None:
        """Raise what ended the watch thread, if anything did."""
        if self._error is not None:
            raise RuntimeError(f"the watch consumer failed: {self._error}") from self._error

    # -- reads (any thread) ----------------------------------------------------------------------

    def window_totals(self, tasks: Collection[TaskKey], first: int, last: int) -> list[int]:
        with self._lock:
            return window_totals(self._counts, tasks, first, last)

    def latest_ms(self) -> int:
        """The newest output record timestamp read so far."""
        with self._lock:
            return self._latest_ms

    def wait_read(self, wall_s: float, timeout: float = 60.0) -> None:
        """Wait until output records stamped after `wall_s` have been read (everything before is then counted,
        give or take the few ms one partition may lag another)."""
        deadline = time.monotonic() + timeout
        while self.latest_ms() < wall_s * 1000:
            self.check()
            if time.monotonic() > deadline:
                raise TimeoutError(f"no output record stamped after {wall_s:.1f} read within {timeout:.0f}s")
            time.sleep(0.05)

    def status_events(self, since_ms: int, until_ms: int) -> list[StatusEvent]:
        with self._lock:
            return [event for event in self._statuses if since_ms <= event.at_ms <= until_ms]

    def slot_records(self, key: bytes, since_ms: int, until_ms: int) -> int:
        """How many slots-topic records with `key` (`claim`, `placement`) were stamped in the interval."""
        with self._lock:
            return sum(1 for at, found in self._slot_records if found == key and since_ms <= at <= until_ms)

    # -- the watch thread --------------------------------------------------------------------------

    def _run(self) -> None:
        consumer = Consumer(
            {
                "bootstrap.servers": self._bootstrap,
                "group.id": f"kconnect-bench-watch-{uuid.uuid4().hex[:8]}",
                "enable.auto.commit": False,
                "log_level": 0,
            }
        )
        try:
            metadata = consumer.list_topics(timeout=30)
            wanted = [*self._topics, self._status_topic, *([self._slots_topic] if self._slots_topic else [])]
            partitions = []
            for topic in wanted:
                found = metadata.topics.get(topic)
                if found is None or found.error is not None:
                    raise RuntimeError(f"topic {topic} does not exist")
                partitions += [TopicPartition(topic, p, OFFSET_BEGINNING) for p in sorted(found.partitions)]
            consumer.assign(partitions)
            self._ready.set()
            while not self._stopping.is_set():
                self._apply(consumer.consume(BATCH, POLL_TIMEOUT_S))
        except Exception as error:
            log.exception("the watch consumer failed")
            self._error = error
            self._ready.set()
        finally:
            consumer.close()

    def _apply(self, messages: list[Message]) -> None:
        with self._lock:
            for message in messages:
                if message.error() is not None:
                    continue
                topic = message.topic() or ""
                at_ms = int(message.timestamp()[1])
                connector = self._topics.get(topic)
                if connector is not None:
                    task = task_of_key(message.key())
                    if task is not None:
                        self._counts[(connector, task)][window_index(at_ms / 1000)] += 1
                        self._latest_ms = max(self._latest_ms, at_ms)
                elif topic == self._status_topic:
                    event = parse_status(message.key(), message.value(), at_ms)
                    if event is not None:
                        self._statuses.append(event)
                else:
                    self._slot_records.append((at_ms, message.key() or b""))
