"""`MirrorCheckpointConnector`: checkpoints the source cluster's consumer groups to the target cluster (Java's
`MirrorCheckpointConnector`).

At start it creates the checkpoints topic (`<source>.checkpoints.internal`, on the target) and lists the groups
to checkpoint: those the group filter takes that have a committed offset on at least one topic the topic filter
takes. Every `refresh.groups.interval.seconds` it looks again and asks for new task configs when the set
changed. Groups are split in contiguous chunks over at most `tasks.max` tasks.

A connector with `enabled=false` does none of it and runs no task, as Java's. It cannot run without offset
syncs nor with checkpoints off: both are validation errors, as in Java.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from connect.api import ConfigDef, ConnectError, OffsetsToAlter, RetriableError, SourceConnector, SourceTask
from connect.api.config import ConfigValue
from connect.api.version import distribution_version
from connect.mirror import clusters
from connect.mirror.checkpoint_task import MirrorCheckpointTask
from connect.mirror.config import (
    ADMIN_TIMEOUT_MS_CONFIG,
    CHECKPOINT_CONFIG_DEF,
    CHECKPOINTS_TOPIC_REPLICATION_FACTOR_CONFIG,
    EMIT_CHECKPOINTS_ENABLED_CONFIG,
    EMIT_CHECKPOINTS_INTERVAL_SECONDS_CONFIG,
    EMIT_OFFSET_SYNCS_ENABLED_CONFIG,
    ENABLED_CONFIG,
    TASK_ASSIGNED_GROUPS_CONFIG,
    TASK_INDEX_CONFIG,
    add_errors,
)
from connect.mirror.filters import group_filter, topic_filter
from connect.mirror.offsets import check_constant_offsets
from connect.mirror.replication_policy import SOURCE_CLUSTER_ALIAS_CONFIG, load_replication_policy
from connect.mirror.scheduler import Scheduler

log = logging.getLogger(__name__)


def contiguous_chunks(items: list[str], count: int) -> list[list[str]]:
    """Kafka's `ConnectorUtils.groupPartitions`: `count` chunks in order, the first `len % count` one longer."""
    size, longer = divmod(len(items), count)
    chunks, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < longer else 0)
        chunks.append(items[start:end])
        start = end
    return chunks


def validation_errors(props: Mapping[str, str]) -> dict[str, str]:
    """Java's `MirrorCheckpointConfig.validate`: nothing to say about a disabled connector."""
    errors: dict[str, str] = {}
    if props.get(ENABLED_CONFIG, "true").strip().lower() == "false":
        return errors
    if props.get(EMIT_CHECKPOINTS_ENABLED_CONFIG, "").strip().lower() == "false":
        errors[EMIT_CHECKPOINTS_ENABLED_CONFIG] = (
            f"MirrorCheckpointConnector can't run with {EMIT_CHECKPOINTS_ENABLED_CONFIG} set to false"
        )
    if props.get(EMIT_OFFSET_SYNCS_ENABLED_CONFIG, "").strip().lower() == "false":
        errors[EMIT_OFFSET_SYNCS_ENABLED_CONFIG] = "MirrorCheckpointConnector can't run without offset syncs"
    return errors


class MirrorCheckpointConnector(SourceConnector):
    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return CHECKPOINT_CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        return add_errors(super().validate(props), validation_errors(props))

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        values: dict[str, Any] = CHECKPOINT_CONFIG_DEF.parse(props)
        self._runs_tasks = bool(values[ENABLED_CONFIG]) and bool(values[EMIT_CHECKPOINTS_ENABLED_CONFIG])
        self._runs_tasks &= values[EMIT_CHECKPOINTS_INTERVAL_SECONDS_CONFIG] >= 0
        self._known: list[str] | None = None
        self._lock = threading.Lock()
        if not values[ENABLED_CONFIG]:
            return
        self._timeout_s = values[ADMIN_TIMEOUT_MS_CONFIG] / 1000
        self._groups_accepted = group_filter(props).accepts
        self._topics_accepted = topic_filter(props).accepts
        self._source = clusters.admin(props, "source", "checkpoint-source-admin")
        policy = load_replication_policy(props)
        target = clusters.admin(props, "target", "checkpoint-target-admin")
        try:
            topic = policy.checkpoints_topic(str(values[SOURCE_CLUSTER_ALIAS_CONFIG]))
            replication_factor = int(values[CHECKPOINTS_TOPIC_REPLICATION_FACTOR_CONFIG])
            clusters.create_compacted_topic(target, topic, replication_factor, self._timeout_s)
        except ConnectError as exc:
            log.warning("Could not create the checkpoints topic: %s", exc)
        finally:
            target.close()
        try:
            self._refresh(initial=True)
        except ConnectError as exc:
            log.warning("Could not list the consumer groups at start: %s", exc)
        self._scheduler = Scheduler(f"mirror-checkpoint-{props.get('name')}")
        self._scheduler.every(
            values["refresh.groups.interval.seconds"] if values["refresh.groups.enabled"] else -1,
            "looking for consumer groups",
            self._refresh,
            first_now=False,
        )

    def _groups(self) -> list[str]:
        groups = []
        for group in self._source.consumer_group_ids(self._timeout_s):
            if not self._groups_accepted(group):
                continue
            committed = self._source.committed_offsets(group, self._timeout_s)
            if any(self._topics_accepted(topic) for topic, _ in committed):
                groups.append(group)
        return groups

    def _refresh(self, initial: bool = False) -> None:
        groups = self._groups()
        with self._lock:
            changed, self._known = groups != self._known, groups
        if changed and not initial:
            log.info("The consumer groups to checkpoint changed: new task configs")
            self.context.request_task_reconfiguration()

    def task_class(self) -> type[SourceTask]:
        return MirrorCheckpointTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        with self._lock:
            known = self._known
        if not self._runs_tasks:
            return []
        if known is None:
            raise RetriableError("The consumer groups to checkpoint are not listed yet")
        if not known:
            return []
        chunks = contiguous_chunks(known, min(max_tasks, len(known)))
        return [
            {**self._props, TASK_ASSIGNED_GROUPS_CONFIG: ",".join(chunk), TASK_INDEX_CONFIG: str(index)}
            for index, chunk in enumerate(chunks)
        ]

    def stop(self) -> None:
        scheduler = getattr(self, "_scheduler", None)
        if scheduler is not None:
            scheduler.stop()
        source = getattr(self, "_source", None)
        if source is not None:
            source.close()

    def alter_offsets(self, props: Mapping[str, str], offsets: OffsetsToAlter) -> bool:
        check_constant_offsets(offsets, ("topic", "group"), ("partition",))
        return True
