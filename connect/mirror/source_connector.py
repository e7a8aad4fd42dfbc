"""`MirrorSourceConnector`: replicates a flow's topics from the source cluster to remote topics on the target
(Java's `MirrorSourceConnector`).

At start it creates the offset-syncs topic (unless `emit.offset-syncs.enabled=false`), lists the source
partitions the flow mirrors and creates their remote topics; then, on its own scheduler thread, it looks for
new topics and partitions every `refresh.topics.interval.seconds` (asking for new task configs when the set
of partitions with a remote partition to write to changed) and syncs topic configs every
`sync.topic.configs.interval.seconds`.
Partitions are dealt round-robin to at most `tasks.max` tasks. A connector with `enabled=false` (a flow of
dedicated mode that only runs for its heartbeats) does none of it and runs no task, as Java's.

Topic ACLs are not copied yet (`sync.topic.acls.enabled` is accepted and has no effect): a gap from Java's.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from connect.api import ConfigDef, ConnectError, ExactlyOnceSupport, OffsetsToAlter, SourceConnector, SourceTask
from connect.api.config import ConfigValue
from connect.api.version import distribution_version
from connect.mirror import clusters
from connect.mirror.config import (
    ADMIN_TIMEOUT_MS_CONFIG,
    EMIT_OFFSET_SYNCS_ENABLED_CONFIG,
    ENABLED_CONFIG,
    HEARTBEATS_REPLICATION_ENABLED_CONFIG,
    OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR_CONFIG,
    REPLICATION_FACTOR_CONFIG,
    SOURCE_CONFIG_DEF,
    TARGET_CLUSTER_ALIAS_CONFIG,
    TASK_ASSIGNED_PARTITIONS_CONFIG,
    TASK_INDEX_CONFIG,
    add_errors,
)
from connect.mirror.filters import config_property_filter, topic_filter
from connect.mirror.offsets import check_source_offsets
from connect.mirror.remote_topics import RemoteTopics, TopicPartitionKey
from connect.mirror.replication_policy import SOURCE_CLUSTER_ALIAS_CONFIG, load_replication_policy
from connect.mirror.scheduler import Scheduler
from connect.mirror.source_task import MirrorSourceTask, offset_syncs_side, offset_syncs_topic
from connect.mirror.topic_selection import deal_partitions, encode_partitions, topic_selector

log = logging.getLogger(__name__)


class MirrorSourceConnector(SourceConnector):
    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return SOURCE_CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        emitting = props.get(EMIT_OFFSET_SYNCS_ENABLED_CONFIG, "true").strip().lower() != "false"
        offset_sync_keys = sorted(k for k in props if k.startswith(("offset-syncs-", "offset-syncs.topic.")))
        errors = {}
        if not emitting and offset_sync_keys:
            keys = ", ".join(offset_sync_keys)
            errors[EMIT_OFFSET_SYNCS_ENABLED_CONFIG] = (
                f"{EMIT_OFFSET_SYNCS_ENABLED_CONFIG} is false, yet {keys} are set"
            )
        return add_errors(super().validate(props), errors)

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        values: dict[str, Any] = SOURCE_CONFIG_DEF.parse(props)
        self._enabled = bool(values[ENABLED_CONFIG])
        self._known: list[TopicPartitionKey] = []
        self._lock = threading.Lock()
        if not self._enabled:
            return
        timeout_s = values[ADMIN_TIMEOUT_MS_CONFIG] / 1000
        policy = load_replication_policy(props)
        source_alias = str(values[SOURCE_CLUSTER_ALIAS_CONFIG])
        selector = topic_selector(
            policy,
            str(values[TARGET_CLUSTER_ALIAS_CONFIG]),
            topic_filter(props).accepts,
            bool(values[HEARTBEATS_REPLICATION_ENABLED_CONFIG]),
        )
        self._topics = RemoteTopics(
            clusters.admin(props, "source", "replication-source-admin"),
            clusters.admin(props, "target", "replication-target-admin"),
            policy,
            source_alias,
            selector,
            config_property_filter(props),
            int(values[REPLICATION_FACTOR_CONFIG]),
            timeout_s,
        )
        if values[EMIT_OFFSET_SYNCS_ENABLED_CONFIG]:
            try:
                self._create_offset_syncs_topic(values, timeout_s)
            except ConnectError as exc:
                log.warning("Could not create the offset-syncs topic: %s", exc)
        try:
            self._refresh(initial=True)
        except ConnectError as exc:  # as Java's start-up steps: logged, and the next refresh tries again
            log.warning("Could not list the partitions to mirror at start: %s", exc)
        self._scheduler = Scheduler(f"mirror-source-{props.get('name')}")
        self._scheduler.every(
            values["refresh.topics.interval.seconds"] if values["refresh.topics.enabled"] else -1,
            "looking for new topics and partitions",
            self._refresh,
            first_now=False,
        )
        self._scheduler.every(
            values["sync.topic.configs.interval.seconds"] if values["sync.topic.configs.enabled"] else -1,
            "syncing topic configs",
            self._sync_configs,
        )

    def _create_offset_syncs_topic(self, values: Mapping[str, Any], timeout_s: float) -> None:
        side = offset_syncs_side(values)
        role = f"offset-syncs-{side}-admin"
        admin = clusters.admin(self._props, side, role)
        try:
            clusters.create_compacted_topic(
                admin,
                offset_syncs_topic(self._props),
                int(values[OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR_CONFIG]),
                timeout_s,
            )
        finally:
            admin.close()

    def _refresh(self, initial: bool = False) -> None:
        # Only partitions with a remote partition to write to are dealt to tasks (`remote_topics`).
        partitions = self._topics.create_missing(self._topics.source_partitions())
        with self._lock:
            changed = set(partitions) != set(self._known)
            self._known = partitions
        if changed and not initial:
            log.info("The source partitions to mirror changed: new task configs")
            self.context.request_task_reconfiguration()

    def _sync_configs(self) -> None:
        with self._lock:
            topics = sorted({topic for topic, _ in self._known})
        self._topics.sync_configs(topics)

    def task_class(self) -> type[SourceTask]:
        return MirrorSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        with self._lock:
            known = list(self._known)
        if not self._enabled:
            return []
        return [
            {**self._props, TASK_ASSIGNED_PARTITIONS_CONFIG: encode_partitions(dealt), TASK_INDEX_CONFIG: str(index)}
            for index, dealt in enumerate(deal_partitions(known, max_tasks))
        ]

    def stop(self) -> None:
        scheduler = getattr(self, "_scheduler", None)
        if scheduler is not None:
            scheduler.stop()
        topics = getattr(self, "_topics", None)
        if topics is not None:
            topics.source.close()
            topics.target.close()

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Supported when the source consumer reads committed records only: otherwise aborted transactions'
        records would be mirrored as if committed (Java's rule)."""
        isolation = clusters.client_settings(props, "source", "consumer").get("isolation.level", "read_uncommitted")
        return ExactlyOnceSupport.SUPPORTED if isolation == "read_committed" else ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(self, props: Mapping[str, str], offsets: OffsetsToAlter) -> bool:
        check_source_offsets(offsets)
        return True
