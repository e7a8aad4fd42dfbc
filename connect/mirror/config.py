"""MirrorMaker 2's connector keys, with Kafka 4.3's names and defaults (Java's `MirrorConnectorConfig`,
`MirrorSourceConfig`, `MirrorCheckpointConfig`, `MirrorHeartbeatConfig`).

A config written for Java's connectors (Strimzi's `KafkaMirrorMaker2`, a `connect-mirror-maker` file turned
into connector configs) validates unchanged. Keys about the clients of each cluster (`source.cluster.*`,
`target.consumer.*`, ...) are not declared, as in Java: `client_configs` reads them.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Range, ValidString
from connect.api.config import ConfigValue
from connect.mirror import filters
from connect.mirror.replication_policy import (
    DEFAULT_POLICY_CLASS,
    DEFAULT_SEPARATOR,
    INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG,
    POLICY_CLASS_CONFIG,
    SEPARATOR_CONFIG,
    SOURCE_CLUSTER_ALIAS_CONFIG,
)

ENABLED_CONFIG = "enabled"
TARGET_CLUSTER_ALIAS_CONFIG = "target.cluster.alias"
ADMIN_TIMEOUT_MS_CONFIG = "admin.timeout.ms"

OFFSET_SYNCS_TOPIC_LOCATION_CONFIG = "offset-syncs.topic.location"
OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR_CONFIG = "offset-syncs.topic.replication.factor"
EMIT_OFFSET_SYNCS_ENABLED_CONFIG = "emit.offset-syncs.enabled"
OFFSET_LAG_MAX_CONFIG = "offset.lag.max"
CONSUMER_POLL_TIMEOUT_MS_CONFIG = "consumer.poll.timeout.ms"
REPLICATION_FACTOR_CONFIG = "replication.factor"
HEARTBEATS_REPLICATION_ENABLED_CONFIG = "heartbeats.replication.enabled"

EMIT_CHECKPOINTS_ENABLED_CONFIG = "emit.checkpoints.enabled"
EMIT_CHECKPOINTS_INTERVAL_SECONDS_CONFIG = "emit.checkpoints.interval.seconds"
SYNC_GROUP_OFFSETS_ENABLED_CONFIG = "sync.group.offsets.enabled"
SYNC_GROUP_OFFSETS_INTERVAL_SECONDS_CONFIG = "sync.group.offsets.interval.seconds"
CHECKPOINTS_TOPIC_REPLICATION_FACTOR_CONFIG = "checkpoints.topic.replication.factor"

EMIT_HEARTBEATS_ENABLED_CONFIG = "emit.heartbeats.enabled"
EMIT_HEARTBEATS_INTERVAL_SECONDS_CONFIG = "emit.heartbeats.interval.seconds"
HEARTBEATS_TOPIC_REPLICATION_FACTOR_CONFIG = "heartbeats.topic.replication.factor"

# Set by the connectors in each task's config, as Java's are.
TASK_ASSIGNED_PARTITIONS_CONFIG = "task.assigned.partitions"
TASK_ASSIGNED_GROUPS_CONFIG = "task.assigned.groups"
TASK_INDEX_CONFIG = "task.index"

_AT_LEAST_ONE = Range.at_least(1)


def _interval(config: ConfigDef, name: str, default: int, what: str) -> ConfigDef:
    return config.define(
        name, ConfigType.LONG, default, None, Importance.LOW, f"How often {what}, in seconds; negative: never."
    )


COMMON_CONFIG_DEF = (
    ConfigDef()
    .define(
        ENABLED_CONFIG,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether the connector runs tasks (false: none; the heartbeat connector ignores it, as Java's does).",
    )
    .define(
        SOURCE_CLUSTER_ALIAS_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        None,
        Importance.HIGH,
        "The alias of the cluster mirrored from (its name in remote topics: `A.orders`). Required.",
    )
    .define(
        TARGET_CLUSTER_ALIAS_CONFIG,
        ConfigType.STRING,
        "target",
        None,
        Importance.HIGH,
        "The alias of the cluster mirrored to.",
    )
    .define(
        ADMIN_TIMEOUT_MS_CONFIG,
        ConfigType.LONG,
        60_000,
        _AT_LEAST_ONE,
        Importance.LOW,
        "How long a one-off admin step (creating a topic, listing groups) may take, in milliseconds.",
    )
    .define(
        POLICY_CLASS_CONFIG,
        ConfigType.CLASS,
        DEFAULT_POLICY_CLASS,
        None,
        Importance.LOW,
        "How remote topics are named; the same on every connector of a flow.",
    )
    .define(
        SEPARATOR_CONFIG,
        ConfigType.STRING,
        DEFAULT_SEPARATOR,
        None,
        Importance.LOW,
        "What separates the source alias from the topic in remote topic names.",
    )
    .define(
        INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether internal topic names (offset syncs, checkpoints) use the separator too (false: always `.`).",
    )
)

_OFFSET_SYNCS_DEF = (
    ConfigDef()
    .define(
        OFFSET_SYNCS_TOPIC_LOCATION_CONFIG,
        ConfigType.STRING,
        "source",
        ValidString.in_("source", "target"),
        Importance.LOW,
        "Which cluster holds the offset-syncs topic.",
    )
    .define(
        EMIT_OFFSET_SYNCS_ENABLED_CONFIG,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether the source connector writes offset syncs (the checkpoint connector cannot run without them).",
    )
)

SOURCE_CONFIG_DEF = (
    COMMON_CONFIG_DEF.merged(_OFFSET_SYNCS_DEF)
    .define(
        filters.TOPICS_CONFIG,
        ConfigType.LIST,
        filters.TOPICS_DEFAULT,
        None,
        Importance.HIGH,
        "Regular expressions of the topics to mirror.",
    )
    .define(
        filters.TOPICS_EXCLUDE_CONFIG,
        ConfigType.LIST,
        filters.TOPICS_EXCLUDE_DEFAULT,
        None,
        Importance.HIGH,
        "Regular expressions of topics never to mirror; they win over `topics`.",
    )
    .define(
        filters.CONFIG_PROPERTIES_EXCLUDE_CONFIG,
        ConfigType.LIST,
        filters.CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
        None,
        Importance.LOW,
        "Topic config properties never synced to remote topics.",
    )
    .define(
        CONSUMER_POLL_TIMEOUT_MS_CONFIG,
        ConfigType.LONG,
        1000,
        _AT_LEAST_ONE,
        Importance.LOW,
        "How long one poll of the source cluster waits, in milliseconds.",
    )
    .define(
        "refresh.topics.enabled",
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether new topics and partitions are looked for.",
    )
    .define(
        "sync.topic.configs.enabled",
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether remote topics' configs follow their source topics'.",
    )
    .define(
        "sync.topic.acls.enabled",
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether topic ACLs are copied to remote topics.",
    )
    .define(
        REPLICATION_FACTOR_CONFIG,
        ConfigType.INT,
        2,
        None,
        Importance.LOW,
        "The replication factor of the remote topics created.",
    )
    .define(
        OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR_CONFIG,
        ConfigType.SHORT,
        3,
        None,
        Importance.LOW,
        "The replication factor of the offset-syncs topic.",
    )
    .define(
        OFFSET_LAG_MAX_CONFIG,
        ConfigType.LONG,
        100,
        None,
        Importance.LOW,
        "How far a remote partition may move past its last offset sync before a new one is due.",
    )
    .define(
        HEARTBEATS_REPLICATION_ENABLED_CONFIG,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether heartbeats topics are mirrored even when `topics` leaves them out.",
    )
)
SOURCE_CONFIG_DEF = _interval(SOURCE_CONFIG_DEF, "refresh.topics.interval.seconds", 600, "topics are looked for")
SOURCE_CONFIG_DEF = _interval(SOURCE_CONFIG_DEF, "sync.topic.configs.interval.seconds", 600, "topic configs sync")
SOURCE_CONFIG_DEF = _interval(SOURCE_CONFIG_DEF, "sync.topic.acls.interval.seconds", 600, "topic ACLs are copied")

CHECKPOINT_CONFIG_DEF = (
    COMMON_CONFIG_DEF.merged(_OFFSET_SYNCS_DEF)
    .define(
        filters.GROUPS_CONFIG,
        ConfigType.LIST,
        filters.GROUPS_DEFAULT,
        None,
        Importance.HIGH,
        "Regular expressions of the consumer groups to checkpoint.",
    )
    .define(
        filters.GROUPS_EXCLUDE_CONFIG,
        ConfigType.LIST,
        filters.GROUPS_EXCLUDE_DEFAULT,
        None,
        Importance.HIGH,
        "Regular expressions of groups never to checkpoint; they win over `groups`.",
    )
    .define(
        filters.TOPICS_CONFIG,
        ConfigType.LIST,
        filters.TOPICS_DEFAULT,
        None,
        Importance.LOW,
        "Regular expressions of the topics whose offsets are checkpointed.",
    )
    .define(
        filters.TOPICS_EXCLUDE_CONFIG,
        ConfigType.LIST,
        filters.TOPICS_EXCLUDE_DEFAULT,
        None,
        Importance.LOW,
        "Regular expressions of topics whose offsets are never checkpointed.",
    )
    .define(
        CONSUMER_POLL_TIMEOUT_MS_CONFIG,
        ConfigType.LONG,
        1000,
        _AT_LEAST_ONE,
        Importance.LOW,
        "The step, in milliseconds, of a task's wait between checkpoints.",
    )
    .define(
        "refresh.groups.enabled",
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether new consumer groups are looked for.",
    )
    .define(
        EMIT_CHECKPOINTS_ENABLED_CONFIG,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether checkpoints are emitted (the connector is pointless without).",
    )
    .define(
        SYNC_GROUP_OFFSETS_ENABLED_CONFIG,
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.LOW,
        "Whether translated offsets are written to the target's groups that have no active member.",
    )
    .define(
        CHECKPOINTS_TOPIC_REPLICATION_FACTOR_CONFIG,
        ConfigType.SHORT,
        3,
        None,
        Importance.LOW,
        "The replication factor of the checkpoints topic.",
    )
)
CHECKPOINT_CONFIG_DEF = _interval(
    CHECKPOINT_CONFIG_DEF, "refresh.groups.interval.seconds", 600, "groups are looked for"
)
# kconnect's own (Java has no such key and ignores it): the recent syncs kept in full for precise translation
# of groups that lag behind the mirror (`offset_sync_store`).
OFFSET_SYNCS_HISTORY_SIZE_CONFIG = "offset-syncs.history.size"
CHECKPOINT_CONFIG_DEF = CHECKPOINT_CONFIG_DEF.define(
    OFFSET_SYNCS_HISTORY_SIZE_CONFIG,
    ConfigType.INT,
    1000,
    Range.at_least(0),
    Importance.LOW,
    "kconnect: the latest offset syncs kept per partition, every one of them, besides Java's 64 spread-out "
    "ones: a group up to about this many times offset.lag.max behind is translated to within offset.lag.max "
    "(16 bytes a sync; 0 keeps only Java's).",
)
CHECKPOINT_CONFIG_DEF = _interval(
    CHECKPOINT_CONFIG_DEF, EMIT_CHECKPOINTS_INTERVAL_SECONDS_CONFIG, 60, "checkpoints are emitted"
)
CHECKPOINT_CONFIG_DEF = _interval(
    CHECKPOINT_CONFIG_DEF, SYNC_GROUP_OFFSETS_INTERVAL_SECONDS_CONFIG, 60, "group offsets are written"
)

HEARTBEAT_CONFIG_DEF = (
    COMMON_CONFIG_DEF.merged(ConfigDef())
    .define(
        EMIT_HEARTBEATS_ENABLED_CONFIG,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether heartbeats are emitted (false: the connector runs without tasks).",
    )
    .define(
        HEARTBEATS_TOPIC_REPLICATION_FACTOR_CONFIG,
        ConfigType.SHORT,
        3,
        None,
        Importance.LOW,
        "The replication factor of the heartbeats topic.",
    )
)
HEARTBEAT_CONFIG_DEF = _interval(
    HEARTBEAT_CONFIG_DEF, EMIT_HEARTBEATS_INTERVAL_SECONDS_CONFIG, 1, "the flow emits a heartbeat"
)


def add_errors(values: list[ConfigValue], errors: Mapping[str, str]) -> list[ConfigValue]:
    """`values` (a connector's validation) with each error of `errors` added to the value of its key."""
    for value in values:
        if value.name in errors:
            value.error_messages.append(errors[value.name])
    return values
