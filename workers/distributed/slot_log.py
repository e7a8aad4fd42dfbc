"""The slots topic read as a log: who claimed each slot, and the placement of work into slots.

Two kinds of records, both JSON values (`docs/distributed.md`):

| partition | key         | value                                                                   |
|-----------|-------------|-------------------------------------------------------------------------|
| s         | `claim`     | `{"worker": "host:port", "url": "http://host:port/", "ts": ms, "liveness": "host:port"}` |
| 0         | `placement` | `{"epoch": E, "config_offset": O, "connectors": {"c": slot},`            |
|           |             | `"tasks": {"c": [slot, ...]}}`                                           |
| 0         | `applied:<worker>` | `{"worker": "host:port", "placement": P}`                         |

A worker that is assigned slot s writes a claim to partition s; the claim's **offset** is the worker's
epoch for s: it only grows, so a stale owner recognises a newer claim, and tasks and statuses can be
stamped with it. The placement is written by the owner of slot 0 (the balancer), stamped with its own
slot-0 claim epoch and with the config-log offset it was decided at (every config record before it was
read; -1 when absent): a unit removed from the config log at or after that offset is not started from
it, since the balancer has not yet seen the removal. A placement whose epoch is below the latest slot-0
claim read before it comes from a balancer that had already lost slot 0, and is ignored; since claims
and placements share partition 0, every reader decides this the same way. Compaction keeps the last
claim per slot and the last placement, in order, so a restarted reader reaches the same state.

A worker that has reconciled the placement read at offset P (stopped whatever it ran outside its slots in
P) says so with an `applied` record. A unit moved between workers starts on its new worker once every
other slot owner applied the placement that moved it: that is what tells the new owner the old one
stopped it, even when the old one was still starting it and had reported nothing.

`SlotLogState` applies records (no I/O, unit-tested); `SlotLog` follows the topic with a `KafkaLog`.
Threads: the KafkaLog reader applies records and calls the listeners (`add_listener`) after each change;
reads and writes from any thread.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from connect.api.errors import RetriableError
from connect.runtime.kafka import KafkaClients
from connect.runtime.stores.kafka_log import KafkaLog
from workers.distributed.placement import CONNECTOR_TASK, Unit, connector_unit

log = logging.getLogger(__name__)

CLAIM_KEY = b"claim"
PLACEMENT_KEY = b"placement"
APPLIED_KEY_PREFIX = b"applied:"
PLACEMENT_PARTITION = 0


@dataclass(frozen=True)
class Claim:
    worker: str
    url: str
    epoch: int  # the claim record's offset in its slot's partition
    liveness: str = ""  # `host:port` of the worker's liveness listener (`liveness.py`); empty: none


@dataclass(frozen=True)
class Placement:
    """A published placement: `epoch` is its writer's slot-0 epoch, `offset` where it was read, `config_offset`
    the config-log offset it was decided at."""

    epoch: int = -1
    offset: int = -1
    slots: Mapping[Unit, int] = field(default_factory=dict)
    config_offset: int = -1


def encode_claim(worker: str, url: str, liveness: str = "") -> bytes:
    claim = {"worker": worker, "url": url, "ts": int(time.time() * 1000)}
    if liveness:
        claim["liveness"] = liveness
    return orjson.dumps(claim)


def encode_applied(worker: str, placement_offset: int) -> bytes:
    return orjson.dumps({"worker": worker, "placement": placement_offset})


def encode_placement(epoch: int, slots: Mapping[Unit, int], config_offset: int = -1) -> bytes:
    connectors: dict[str, int] = {}
    tasks: dict[str, dict[int, int]] = {}
    for unit, slot in slots.items():
        if unit.task == CONNECTOR_TASK:
            connectors[unit.connector] = slot
        else:
            tasks.setdefault(unit.connector, {})[unit.task] = slot
    # Task slots as a list by task number: the compact form of a connector's tasks 0..N-1.
    listed = {name: [by_index.get(i, -1) for i in range(max(by_index) + 1)] for name, by_index in tasks.items()}
    return orjson.dumps({"epoch": epoch, "config_offset": config_offset, "connectors": connectors, "tasks": listed})


def decode_placement(value: Mapping[str, Any]) -> tuple[int, dict[Unit, int], int] | None:
    """(epoch, slots, config_offset), or None if malformed."""
    try:
        epoch = int(value["epoch"])
        config_offset = int(value.get("config_offset", -1))
        slots: dict[Unit, int] = {connector_unit(str(c)): int(s) for c, s in dict(value["connectors"]).items()}
        for name, task_slots in dict(value["tasks"]).items():
            for index, slot in enumerate(task_slots):
                if int(slot) >= 0:
                    slots[Unit(str(name), index)] = int(slot)
    except (KeyError, TypeError, ValueError):
        return None
    return epoch, slots, config_offset


class SlotLogState:
    """Claims and the valid placement, from records applied in per-partition order. Not thread-safe."""

    def __init__(self) -> None:
        self.claims: dict[int, Claim] = {}
        self.placement = Placement()
        self.claims_changed_at = 0.0  # monotonic time of the last claim that changed an owner
        self.applied: dict[str, int] = {}  # worker -> offset of the latest placement it reconciled

    def apply(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> bool:
        """Apply one record; True if claims or the placement changed."""
        if value is None:
            return False
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            parsed = None
        if not isinstance(parsed, dict):
            log.error("Slots topic record at %d/%d is not a JSON object; skipped", partition, offset)
            return False
        if key == CLAIM_KEY:
            return self._claim(parsed, partition, offset)
        if key == PLACEMENT_KEY and partition == PLACEMENT_PARTITION:
            return self._placement(parsed, offset)
        if key is not None and key.startswith(APPLIED_KEY_PREFIX) and partition == PLACEMENT_PARTITION:
            return self._applied(parsed, offset)
        log.warning("Slots topic record with unknown key %r at %d/%d; skipped", key, partition, offset)
        return False

    def _claim(self, value: Mapping[str, Any], slot: int, offset: int) -> bool:
        previous = self.claims.get(slot)
        if previous is not None and previous.epoch >= offset:
            return False
        claim = Claim(str(value.get("worker", "")), str(value.get("url", "")), offset, str(value.get("liveness", "")))
        self.claims[slot] = claim
        if previous is None or previous.worker != claim.worker:
            self.claims_changed_at = time.monotonic()
        return True

    def _applied(self, value: Mapping[str, Any], offset: int) -> bool:
        try:
            worker, placement_offset = str(value["worker"]), int(value["placement"])
        except (KeyError, TypeError, ValueError):
            log.error("Applied-placement record at offset %d is malformed; skipped", offset)
            return False
        if placement_offset <= self.applied.get(worker, -1):
            return False
        self.applied[worker] = placement_offset
        return True

    def _placement(self, value: Mapping[str, Any], offset: int) -> bool:
        decoded = decode_placement(value)
        if decoded is None:
            log.error("Placement record at offset %d is malformed; skipped", offset)
            return False
        epoch, slots, config_offset = decoded
        balancer = self.claims.get(PLACEMENT_PARTITION)
        if balancer is not None and epoch < balancer.epoch:
            log.info("Ignoring a placement from a former owner of slot 0 (epoch %d < %d)", epoch, balancer.epoch)
            return False
        self.placement = Placement(epoch, offset, slots, config_offset)
        return True


class SlotLog:
    """Follows the slots topic; writes this worker's claims and (as balancer) placements."""

    def __init__(self, topic: str, clients: KafkaClients) -> None:
        self._state = SlotLogState()
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        self._log = KafkaLog(topic, clients, on_record=self._apply, name="slots")

    @property
    def topic(self) -> str:
        return self._log.topic

    @property
    def slot_count(self) -> int:
        return self._log.partitions

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` on the reader thread after each record that changed a claim or the placement."""
        self._listeners = [*self._listeners, listener]

    def start(self, timeout: float) -> None:
        self._log.start(timeout)

    def stop(self) -> None:
        self._log.stop()

    def read_to_end(self, timeout: float) -> None:
        self._log.read_to_end(timeout)

    def claims(self) -> dict[int, Claim]:
        with self._lock:
            return dict(self._state.claims)

    def owners(self) -> dict[int, str]:
        with self._lock:
            return {slot: claim.worker for slot, claim in self._state.claims.items()}

    def claims_changed_at(self) -> float:
        with self._lock:
            return self._state.claims_changed_at

    def applied(self) -> dict[str, int]:
        """Each worker's latest reconciled placement offset, as its `applied` records say."""
        with self._lock:
            return dict(self._state.applied)

    def placement(self) -> Placement:
        with self._lock:
            return self._state.placement

    def claim(
        self, slots: Iterable[int], worker: str, url: str, timeout: float, *, liveness: str = ""
    ) -> dict[int, int]:
        """Claim `slots` for `worker`; returns each slot's epoch once Kafka confirmed and this reader read it."""
        deadline = time.monotonic() + timeout
        value = encode_claim(worker, url, liveness)
        futures = {slot: self._log.send(CLAIM_KEY, value, partition=slot) for slot in sorted(slots)}
        epochs: dict[int, int] = {}
        for slot, future in futures.items():
            _, offset = _result(future, deadline, f"claiming slot {slot}")
            epochs[slot] = offset
        for slot, offset in epochs.items():
            self._log.wait_until_read(slot, offset, max(deadline - time.monotonic(), 0.0))
        return epochs

    def publish_placement(
        self, epoch: int, slots: Mapping[Unit, int], timeout: float, *, config_offset: int = -1
    ) -> int:
        """Write a placement stamped with `epoch` and `config_offset`; returns its offset once read back."""
        deadline = time.monotonic() + timeout
        value = encode_placement(epoch, slots, config_offset)
        future = self._log.send(PLACEMENT_KEY, value, partition=PLACEMENT_PARTITION)
        _, offset = _result(future, deadline, "publishing the placement")
        self._log.wait_until_read(PLACEMENT_PARTITION, offset, max(deadline - time.monotonic(), 0.0))
        return offset

    def report_applied(self, worker: str, placement_offset: int, timeout: float) -> None:
        """Say that `worker` reconciled the placement at `placement_offset`; returns once Kafka confirmed it."""
        future = self._log.send(
            APPLIED_KEY_PREFIX + worker.encode(),
            encode_applied(worker, placement_offset),
            partition=PLACEMENT_PARTITION,
        )
        _result(future, time.monotonic() + timeout, "reporting the applied placement")

    def _apply(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> None:
        with self._lock:
            changed = self._state.apply(key, value, partition, offset)
        if changed:
            for listener in self._listeners:
                listener()


def _result(future: concurrent.futures.Future[tuple[int, int]], deadline: float, what: str) -> tuple[int, int]:
    try:
        return future.result(timeout=max(deadline - time.monotonic(), 0.0))
    except concurrent.futures.TimeoutError:
        raise RetriableError(f"Timed out {what}: Kafka did not confirm the write") from None
