"""The offsets API (KIP-875) for one worker: read, alter and reset a connector's offsets.

Source connectors' offsets live in the worker's `OffsetStore` under keys `["<connector>", {partition}]`;
sink connectors' offsets are their consumer group's (`connect-<name>`, or `consumer.override.group.id`)
committed offsets, read and changed through the admin client. Before anything is written the connector's
own `alter_offsets` hook is called on a fresh instance (never started), as Kafka's Worker does, so it can
reject the change or say whether it keeps offsets elsewhere too.

Called by either herder (`BaseHerder`), one request at a time per connector in standalone mode (its lock);
the herder has checked that the connector is STOPPED with no tasks before it alters or resets anything.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from connect.api.connector import SinkConnector, SourceConnector
from connect.api.errors import ConnectError, DataError
from connect.api.records import TopicPartition
from connect.runtime.config.connector.keys import CONNECTOR_CLASS_CONFIG
from connect.runtime.domain.errors import BadRequestError
from connect.runtime.domain.info import ConnectorOffset
from connect.runtime.kafka import KafkaAdmin, KafkaClients, sink_group_id
from connect.runtime.offsets import OffsetStore, decode_key, decode_offset, encode_key, encode_offset
from connect.runtime.plugins import PluginRegistry

log = logging.getLogger(__name__)

KAFKA_TOPIC_KEY = "kafka_topic"
KAFKA_PARTITION_KEY = "kafka_partition"
KAFKA_OFFSET_KEY = "kafka_offset"

_INTEGER = re.compile(r"[+-]?[0-9]+")

AdminFactory = Callable[[Mapping[str, str]], KafkaAdmin]
"""Builds an admin client for a connector config (its `admin.override.*` apply)."""


def admin_factory(clients: KafkaClients) -> AdminFactory:
    """Admin clients from the worker's connector client factory, for the offsets of sink connectors."""

    def admin(connector_config: Mapping[str, str]) -> KafkaAdmin:
        return clients.admin("kconnect-offsets-admin", connector_config)

    return admin


def success_message(complete: bool, reset: bool) -> str:
    """Kafka Connect's two success texts; `complete` is what the connector's `alter_offsets` returned."""
    verb = "reset" if reset else "altered"
    if complete:
        return f"The offsets for this connector have been {verb} successfully"
    return (
        f"The Connect framework-managed offsets for this connector have been {verb} successfully. However, if this "
        f"connector manages offsets externally, they will need to be manually {verb} in the system that the "
        "connector uses."
    )


class OffsetAdmin:
    def __init__(self, registry: PluginRegistry, offset_store: OffsetStore, admin: AdminFactory | None) -> None:
        self._registry = registry
        self._store = offset_store
        self._admin = admin

    # -- reads ---------------------------------------------------------------------------------

    def offsets(self, name: str, config: Mapping[str, str]) -> list[ConnectorOffset]:
        connector = self._connector(config)
        if isinstance(connector, SinkConnector):
            group = sink_group_id(name, config)
            committed = self._admin_for(config).consumer_group_offsets(group)
            return [
                ConnectorOffset(
                    {KAFKA_TOPIC_KEY: tp.topic, KAFKA_PARTITION_KEY: tp.partition}, {KAFKA_OFFSET_KEY: offset}
                )
                for tp, offset in sorted(committed.items())
            ]
        return [ConnectorOffset(partition, offset) for partition, offset in self._source_offsets(name)]

    def _source_offsets(self, name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        found = []
        for key, value in self._store.snapshot().items():
            decoded = decode_key(key)
            offset = decode_offset(value)
            if decoded is not None and decoded[0] == name and offset is not None:
                found.append((decoded[1], offset))
        return found

    # -- writes --------------------------------------------------------------------------------

    def alter(self, name: str, config: Mapping[str, str], offsets: list[ConnectorOffset]) -> str:
        connector = self._connector(config)
        if isinstance(connector, SinkConnector):
            return self._alter_sink(name, config, connector, parse_sink_offsets(offsets), reset=False)
        assert isinstance(connector, SourceConnector)
        pairs = [(dict(o.partition), None if o.offset is None else dict(o.offset)) for o in offsets]
        return self._alter_source(name, config, connector, pairs, reset=False)

    def reset(self, name: str, config: Mapping[str, str]) -> str:
        connector = self._connector(config)
        if isinstance(connector, SinkConnector):
            group = sink_group_id(name, config)
            admin = self._admin_for(config)
            partitions: dict[TopicPartition, int | None] = dict.fromkeys(admin.consumer_group_offsets(group))
            complete = _call_hook(name, lambda: connector.alter_offsets(config, partitions))
            admin.delete_consumer_group(group)
            return success_message(complete, reset=True)
        assert isinstance(connector, SourceConnector)
        pairs: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(p, None) for p, _ in self._source_offsets(name)]
        return self._alter_source(name, config, connector, pairs, reset=True)

    def _alter_sink(
        self,
        name: str,
        config: Mapping[str, str],
        connector: SinkConnector,
        offsets: dict[TopicPartition, int | None],
        *,
        reset: bool,
    ) -> str:
        complete = _call_hook(name, lambda: connector.alter_offsets(config, offsets))
        group = sink_group_id(name, config)
        admin = self._admin_for(config)
        to_write = {tp: offset for tp, offset in offsets.items() if offset is not None}
        to_remove = [tp for tp, offset in offsets.items() if offset is None]
        admin.alter_consumer_group_offsets(group, to_write)
        if to_remove:
            # The admin API can only drop a group's offsets for some partitions by rewriting the rest:
            # delete the group, then commit back the offsets that were not reset.
            kept = {tp: o for tp, o in admin.consumer_group_offsets(group).items() if tp not in to_remove}
            admin.delete_consumer_group(group)
            admin.alter_consumer_group_offsets(group, kept)
        return success_message(complete, reset)

    def _alter_source(
        self,
        name: str,
        config: Mapping[str, str],
        connector: SourceConnector,
        pairs: list[tuple[dict[str, Any], dict[str, Any] | None]],
        *,
        reset: bool,
    ) -> str:
        try:
            encoded = {encode_key(name, partition): encode_offset(offset) for partition, offset in pairs}
        except DataError as exc:
            raise BadRequestError(str(exc)) from exc
        complete = _call_hook(name, lambda: connector.alter_offsets(config, pairs))
        if encoded:
            self._store.set(encoded)
            self._store.flush()
        else:
            log.info("No offsets found for source connector %s: nothing to %s", name, "reset" if reset else "alter")
        return success_message(complete, reset)

    # -- helpers -------------------------------------------------------------------------------

    def _connector(self, config: Mapping[str, str]) -> SourceConnector | SinkConnector:
        connector = self._registry.connector_class(config.get(CONNECTOR_CLASS_CONFIG, ""))()
        if not isinstance(connector, SourceConnector | SinkConnector):
            raise ConnectError(f"{type(connector).__name__} is neither a source nor a sink connector")
        return connector

    def _admin_for(self, config: Mapping[str, str]) -> KafkaAdmin:
        if self._admin is None:
            raise ConnectError("This worker has no Kafka admin client, so it cannot read or change sink offsets")
        return self._admin(config)


def _call_hook(name: str, hook: Callable[[], bool]) -> bool:
    try:
        return bool(hook())
    except ConnectError:
        raise
    except NotImplementedError as exc:
        raise ConnectError(
            f"Failed to modify offsets for connector {name} because it doesn't support external modification of offsets"
        ) from exc
    except Exception as exc:
        raise ConnectError(f"Failed to modify offsets for connector {name}: {exc}") from exc


def parse_sink_offsets(offsets: list[ConnectorOffset]) -> dict[TopicPartition, int | None]:
    """Kafka's `SinkUtils.parseSinkConnectorOffsets`: fixed keys, numbers given as numbers or strings."""
    parsed: dict[TopicPartition, int | None] = {}
    for entry in offsets:
        partition = entry.partition
        if partition is None:
            raise BadRequestError("The partition for a sink connector offset cannot be null or missing")
        if KAFKA_TOPIC_KEY not in partition or KAFKA_PARTITION_KEY not in partition:
            raise BadRequestError(
                f"The partition for a sink connector offset must contain the keys '{KAFKA_TOPIC_KEY}' and "
                f"'{KAFKA_PARTITION_KEY}'"
            )
        if partition[KAFKA_TOPIC_KEY] is None:
            raise BadRequestError("Kafka topic names must be valid strings and may not be null")
        if partition[KAFKA_PARTITION_KEY] is None:
            raise BadRequestError("Kafka partitions must be valid numbers and may not be null")
        raw_partition = partition[KAFKA_PARTITION_KEY]
        number = _integer(raw_partition)
        if number is None:
            raise BadRequestError(
                f"Failed to parse the following Kafka partition value in the provided offsets: '{raw_partition}'. "
                "Partition values for sink connectors need to be integers."
            )
        tp = TopicPartition(str(partition[KAFKA_TOPIC_KEY]), number)
        if entry.offset is None:
            parsed[tp] = None
            continue
        if KAFKA_OFFSET_KEY not in entry.offset:
            raise BadRequestError(
                f"The offset for a sink connector should either be null or contain the key '{KAFKA_OFFSET_KEY}'"
            )
        raw_offset = entry.offset[KAFKA_OFFSET_KEY]
        offset = _integer(raw_offset)
        if offset is None:
            raise BadRequestError(
                f"Failed to parse the following Kafka offset value in the provided offsets: '{raw_offset}'. "
                "Offset values for sink connectors need to be integers."
            )
        parsed[tp] = offset
    return parsed


def _integer(value: Any) -> int | None:
    """Java's `Long.parseLong(String.valueOf(value))`: integers and integer strings only."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return None
