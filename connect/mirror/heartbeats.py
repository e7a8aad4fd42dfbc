"""`MirrorHeartbeatConnector` and its task: a flow's sign of life, one `Heartbeat` record a second on the target
cluster's `heartbeats` topic (Java's `MirrorHeartbeatConnector`, `MirrorHeartbeatTask`).

Heartbeats are what make a topology readable from any cluster: mirrored onward they become `A.heartbeats`,
`B.A.heartbeats`, ..., from which `MirrorClient` finds the upstream clusters and their distance, and their
timestamps show end-to-end latency. The connector creates the 1-partition compacted topic at start (it ignores
`enabled`, as Java's does) and runs one task unless `emit.heartbeats.enabled` is false or the interval
negative. Records are raw bytes: the connector needs the ByteArrayConverter for keys and values.

Stored source offsets are the constant `{"offset": 0}` under `{"sourceClusterAlias", "targetClusterAlias"}`,
byte for byte what Java's task stores, so a Java worker can take over the offsets topic.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from connect.api import ConfigDef, ConnectError, OffsetsToAlter, SourceConnector, SourceRecord, SourceTask
from connect.api.data import BYTES_SCHEMA
from connect.api.version import distribution_version
from connect.mirror import clusters
from connect.mirror.config import (
    ADMIN_TIMEOUT_MS_CONFIG,
    EMIT_HEARTBEATS_ENABLED_CONFIG,
    EMIT_HEARTBEATS_INTERVAL_SECONDS_CONFIG,
    HEARTBEAT_CONFIG_DEF,
    HEARTBEATS_TOPIC_REPLICATION_FACTOR_CONFIG,
    TARGET_CLUSTER_ALIAS_CONFIG,
)
from connect.mirror.offsets import check_constant_offsets
from connect.mirror.records import Heartbeat
from connect.mirror.replication_policy import SOURCE_CLUSTER_ALIAS_CONFIG, load_replication_policy

log = logging.getLogger(__name__)

PARTITION_KEYS = ("sourceClusterAlias", "targetClusterAlias")


def _interval_s(values: Mapping[str, Any]) -> float:
    """The heartbeat interval; negative when heartbeats are off (Java's `emitHeartbeatsInterval`)."""
    if not values[EMIT_HEARTBEATS_ENABLED_CONFIG]:
        return -1.0
    return float(values[EMIT_HEARTBEATS_INTERVAL_SECONDS_CONFIG])


class MirrorHeartbeatConnector(SourceConnector):
    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return HEARTBEAT_CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        values = HEARTBEAT_CONFIG_DEF.parse(props)
        self._interval_s = _interval_s(values)
        topic = load_replication_policy(props).heartbeats_topic()
        admin = clusters.admin(props, "target", "heartbeats-target-admin")
        try:
            clusters.create_compacted_topic(
                admin,
                topic,
                values[HEARTBEATS_TOPIC_REPLICATION_FACTOR_CONFIG],
                values[ADMIN_TIMEOUT_MS_CONFIG] / 1000,
            )
        except ConnectError as exc:  # as Java's start-up steps: logged; the task's records may create it
            log.warning("Could not create the heartbeats topic %s: %s", topic, exc)
        finally:
            admin.close()

    def task_class(self) -> type[SourceTask]:
        return MirrorHeartbeatTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [] if self._interval_s < 0 else [dict(self._props)]

    def stop(self) -> None:
        pass

    def alter_offsets(self, props: Mapping[str, str], offsets: OffsetsToAlter) -> bool:
        check_constant_offsets(offsets, PARTITION_KEYS)
        return True


class MirrorHeartbeatTask(SourceTask):
    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        values = HEARTBEAT_CONFIG_DEF.parse(props)
        self._source = str(values[SOURCE_CLUSTER_ALIAS_CONFIG])
        self._target = str(values[TARGET_CLUSTER_ALIAS_CONFIG])
        self._topic = load_replication_policy(props).heartbeats_topic()
        self._interval_s = max(_interval_s(values), 0.0)
        self._stopped = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self._stopped.wait(self._interval_s):
            return None
        heartbeat = Heartbeat(self._source, self._target, int(time.time() * 1000))
        partition = {"sourceClusterAlias": self._source, "targetClusterAlias": self._target}
        record = SourceRecord(
            partition,
            {"offset": 0},
            self._topic,
            0,
            BYTES_SCHEMA,
            heartbeat.key(),
            BYTES_SCHEMA,
            heartbeat.value(),
            heartbeat.timestamp_ms,
        )
        return [record]

    def stop(self) -> None:
        self._stopped.set()
