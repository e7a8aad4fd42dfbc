"""`WorkerConfig`: a worker's settings, parsed from the str → str map of its properties file.

Kafka Connect's worker keys with Kafka's defaults (Kafka's `WorkerConfig`). Keys that are not defined
here are kept (Kafka warns about them and carries on), because `producer.*`, `consumer.*`, `admin.*`,
converter sub-configs and plug-in settings all live in the same map. The keys of Kafka's
`DistributedConfig` that the runtime reads (`group.id` and `exactly.once.source.support` for exactly-once
source tasks, the three storage topics for `stores.topics`) and the top-level client connection keys
(handed to the worker's internal clients) are defined here too, in every mode. Keys only distributed mode
reads (group membership, slots) are defined by distributed mode's own definition, which extends
`worker_config_def()` and is passed to `from_props`. Parsed once by the process entry point and passed
in; immutable afterwards.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from connect.api.config import ConfigDef, ConfigType, Importance, Range, ValidString
from connect.api.errors import ConfigError
from connect.runtime.config.inert_worker_keys import warn_inert_keys
from connect.runtime.config.providers.config_transformer import resolve_with_own_providers
from connect.runtime.metrics.windows import Windows

METRICS_RECORDING_ENABLE = "metrics.recording.enable"
log = logging.getLogger(__name__)

BOOTSTRAP_SERVERS = "bootstrap.servers"
KEY_CONVERTER = "key.converter"
VALUE_CONVERTER = "value.converter"
HEADER_CONVERTER = "header.converter"
OFFSET_FLUSH_INTERVAL_MS = "offset.flush.interval.ms"
OFFSET_FLUSH_TIMEOUT_MS = "offset.flush.timeout.ms"
TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS = "task.shutdown.graceful.timeout.ms"
LISTENERS = "listeners"
OVERRIDE_POLICY = "connector.client.config.override.policy"
OFFSET_STORAGE_FILE = "offset.storage.file.filename"
EXACTLY_ONCE_SOURCE_SUPPORT = "exactly.once.source.support"
TOPIC_CREATION_ENABLE = "topic.creation.enable"
TASK_ISOLATION = "task.isolation"
TASK_PROCESSES_MAX = "task.processes.max"
SOURCE_BATCH_PRODUCE = "source.batch.produce.enable"

# Kafka's DistributedConfig keys the runtime reads.
GROUP_ID = "group.id"
CONFIG_STORAGE_TOPIC = "config.storage.topic"
OFFSET_STORAGE_TOPIC = "offset.storage.topic"
STATUS_STORAGE_TOPIC = "status.storage.topic"
CONFIG_STORAGE_REPLICATION_FACTOR = "config.storage.replication.factor"
OFFSET_STORAGE_REPLICATION_FACTOR = "offset.storage.replication.factor"
STATUS_STORAGE_REPLICATION_FACTOR = "status.storage.replication.factor"
OFFSET_STORAGE_PARTITIONS = "offset.storage.partitions"
STATUS_STORAGE_PARTITIONS = "status.storage.partitions"

# Top-level client connection keys: how the worker's internal clients reach and authenticate with Kafka.
CLIENT_DNS_LOOKUP = "client.dns.lookup"
SECURITY_PROTOCOL = "security.protocol"

DEFAULT_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

LOG_FORMAT = "log.format"

_PRODUCER_PREFIX = "producer."
_CONSUMER_PREFIX = "consumer."
_ADMIN_PREFIX = "admin."


def worker_config_def() -> ConfigDef:
    """The worker keys kconnect understands, with Kafka Connect's types and defaults."""
    d = ConfigDef()
    d.define(
        BOOTSTRAP_SERVERS, ConfigType.LIST, "localhost:9092", None, Importance.HIGH, "Kafka brokers to connect to."
    )
    d.define(KEY_CONVERTER, ConfigType.CLASS, None, None, Importance.HIGH, "Converter of record keys.")
    d.define(VALUE_CONVERTER, ConfigType.CLASS, None, None, Importance.HIGH, "Converter of record values.")
    d.define(HEADER_CONVERTER, ConfigType.CLASS, DEFAULT_HEADER_CONVERTER, None, Importance.LOW, "Header converter.")
    d.define(OFFSET_FLUSH_INTERVAL_MS, ConfigType.LONG, 60000, Range.at_least(0), Importance.LOW, "Commit interval.")
    d.define(OFFSET_FLUSH_TIMEOUT_MS, ConfigType.LONG, 5000, Range.at_least(0), Importance.LOW, "Commit timeout.")
    d.define(TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS, ConfigType.LONG, 5000, Range.at_least(0), Importance.LOW, "Stop wait.")
    d.define(LISTENERS, ConfigType.LIST, "http://:8083", None, Importance.LOW, "REST listeners.")
    d.define("rest.advertised.host.name", ConfigType.STRING, None, None, Importance.LOW, "Advertised REST host.")
    d.define("rest.advertised.port", ConfigType.INT, None, None, Importance.LOW, "Advertised REST port.")
    d.define("rest.advertised.listener", ConfigType.STRING, None, None, Importance.LOW, "Advertised scheme.")
    d.define("admin.listeners", ConfigType.LIST, None, None, Importance.LOW, "Admin REST listeners.")
    d.define("rest.extension.classes", ConfigType.LIST, "", None, Importance.LOW, "REST extensions.")
    d.define(
        "rest.authorizer.class",
        ConfigType.STRING,
        None,
        None,
        Importance.LOW,
        "Who may do what on the REST API (kconnect's key): RoleAuthorizer or a plug-in; unset, everything.",
    )
    d.define("rest.authorizer.rules.file", ConfigType.STRING, None, None, Importance.LOW, "RoleAuthorizer's rules.")
    d.define(
        "rest.authorizer.rules.reload.ms",
        ConfigType.INT,
        1000,
        Range.at_least(10),
        Importance.LOW,
        "How often RoleAuthorizer checks its rules file for a change.",
    )
    d.define("audit.log.file", ConfigType.STRING, None, None, Importance.LOW, "Audit records as JSON lines.")
    d.define(
        "audit.topic",
        ConfigType.STRING,
        None,
        None,
        Importance.LOW,
        "Topic of the audit records (distributed: <group.id>-audit by default; empty: none).",
    )
    d.define(
        "audit.topic.replication.factor",
        ConfigType.SHORT,
        -1,
        None,
        Importance.LOW,
        "Replication factor of the audit topic kconnect creates (-1: the broker's default).",
    )
    d.define(
        "audit.topic.retention.ms",
        ConfigType.LONG,
        90 * 24 * 3600 * 1000,
        Range.at_least(-1),
        Importance.LOW,
        "How long the audit topic kconnect creates keeps its records (default 90 days; -1: forever).",
    )
    d.define("access.control.allow.origin", ConfigType.STRING, "", None, Importance.LOW, "CORS origins.")
    d.define("access.control.allow.methods", ConfigType.STRING, "", None, Importance.LOW, "CORS methods.")
    d.define("response.http.headers.config", ConfigType.STRING, "", None, Importance.LOW, "Response headers.")
    d.define(
        "rest.request.body.max.bytes",
        ConfigType.INT,
        10 * 1024 * 1024,
        Range.at_least(1),
        Importance.LOW,
        "Largest REST request body accepted (kconnect's key); larger ones are answered 413.",
    )
    d.define("plugin.path", ConfigType.LIST, None, None, Importance.LOW, "Plug-in directories.")
    d.define(
        "plugin.discovery",
        ConfigType.STRING,
        "hybrid_warn",
        ValidString.in_("only_scan", "hybrid_warn", "hybrid_fail", "service_load", ignore_case=True),
        Importance.LOW,
        "How plug-ins are found.",
    )
    d.define("config.providers", ConfigType.LIST, "", None, Importance.LOW, "Config provider names.")
    d.define(
        OVERRIDE_POLICY,
        ConfigType.STRING,
        "All",
        ValidString.in_("All", "None", "Principal", ignore_case=True),
        Importance.MEDIUM,
        "Which client settings connectors may override.",
    )
    d.define(
        TOPIC_CREATION_ENABLE,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether to allow automatic creation of topics used by source connectors, when source connectors are "
        "configured with `topic.creation.` properties. Each task will use an admin client to create its topics "
        "and will not depend on the Kafka brokers to create topics automatically.",
    )
    d.define(
        TASK_ISOLATION,
        ConfigType.STRING,
        "thread",
        ValidString.in_("thread", "process", ignore_case=True),
        Importance.MEDIUM,
        "Where tasks run: `thread`, each on a thread of the worker process; `process`, in child processes of "
        "the worker (at most `task.processes.max`) with their own Kafka clients, so tasks use several cores, "
        "the worker's REST API does not wait for busy tasks, and a task that crashes its interpreter takes "
        "only its process's tasks with it.",
    )
    d.define(
        TASK_PROCESSES_MAX,
        ConfigType.INT,
        0,
        Range.at_least(0),
        Importance.LOW,
        "With `task.isolation=process`, the most task processes the worker runs; 0 means as many as the "
        "machine has cores. A new task gets a process of its own while there are fewer, else shares the one "
        "with the fewest tasks. At least as many as the worker has tasks: each task alone in its process "
        "(a crash fails it alone); fewer: less memory (an interpreter and Kafka clients per process).",
    )
    d.define(
        SOURCE_BATCH_PRODUCE,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Whether a source task that sends columns (it polls batches and has no transformation chain) "
        "hands each batch's values to librdkafka in one call (`rd_kafka_produce_batch`) rather than one "
        "`produce` call per record. Such a task switches to one call per record, once, when its batches carry "
        "timestamps or headers; exactly-once tasks and OAUTHBEARER clients always produce one record at a time.",
    )
    d.define("topic.tracking.enable", ConfigType.BOOLEAN, True, None, Importance.LOW, "Track active topics.")
    d.define("topic.tracking.allow.reset", ConfigType.BOOLEAN, True, None, Importance.LOW, "Allow topic reset.")
    d.define(OFFSET_STORAGE_FILE, ConfigType.STRING, None, None, Importance.LOW, "Standalone offsets file.")
    d.define(
        "metrics.sample.window.ms",
        ConfigType.LONG,
        30000,
        Range.at_least(1),
        Importance.LOW,
        "The window of one sample of the rates, averages and maxima served by /metrics.",
    )
    d.define(
        "metrics.num.samples",
        ConfigType.INT,
        2,
        Range.at_least(1),
        Importance.LOW,
        "How many samples the rates, averages and maxima served by /metrics cover.",
    )
    d.define("metrics.recording.level", ConfigType.STRING, "INFO", None, Importance.LOW, "Metrics level.")
    d.define(
        METRICS_RECORDING_ENABLE,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "kconnect: whether tasks record their timings, batch sizes and windowed figures (once per batch). Off, "
        "/metrics still serves statuses, counts and totals; the benchmark measures what recording costs.",
    )
    d.define("metric.reporters", ConfigType.LIST, "", None, Importance.LOW, "Metric reporters.")
    d.define(
        LOG_FORMAT,
        ConfigType.STRING,
        "text",
        ValidString.in_("text", "json", ignore_case=True),
        Importance.LOW,
        "Log line format of the worker process: text (Kafka's layout) or json (one object a line).",
    )
    _define_runtime_distributed_keys(d)
    _define_client_connection_keys(d)
    return d


def _define_runtime_distributed_keys(d: ConfigDef) -> None:
    """The keys of Kafka's `DistributedConfig` the runtime reads (accepted in every mode)."""
    d.define(GROUP_ID, ConfigType.STRING, None, None, Importance.HIGH, "The worker cluster's group.")
    for store in ("config", "offset", "status"):
        d.define(f"{store}.storage.topic", ConfigType.STRING, None, None, Importance.HIGH, f"{store} topic.")
        d.define(f"{store}.storage.replication.factor", ConfigType.SHORT, 3, None, Importance.LOW, "Replicas.")
    d.define(OFFSET_STORAGE_PARTITIONS, ConfigType.INT, 25, Range.at_least(1), Importance.LOW, "Partitions.")
    d.define(STATUS_STORAGE_PARTITIONS, ConfigType.INT, 5, Range.at_least(1), Importance.LOW, "Partitions.")
    d.define(
        EXACTLY_ONCE_SOURCE_SUPPORT,
        ConfigType.STRING,
        "disabled",
        ValidString.in_("disabled", "preparing", "enabled", ignore_case=True),
        Importance.HIGH,
        "Exactly-once source support.",
    )


def _define_client_connection_keys(d: ConfigDef) -> None:
    """The top-level client keys Kafka Connect's DistributedConfig defines, with Kafka's defaults; `ssl.*` and
    `sasl.*` are passed through as prefixes. Only the keys given are handed to clients (`originals`)."""
    d.define(
        CLIENT_DNS_LOOKUP,
        ConfigType.STRING,
        "use_all_dns_ips",
        ValidString.in_("use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"),
        Importance.MEDIUM,
        "How clients use the DNS lookups of bootstrap.servers.",
    )
    d.define(
        SECURITY_PROTOCOL,
        ConfigType.STRING,
        "PLAINTEXT",
        ValidString.in_("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL", ignore_case=True),
        Importance.MEDIUM,
        "Protocol used to communicate with brokers.",
    )
    for key, default in _CLIENT_TIMING_DEFAULTS.items():
        d.define(key, ConfigType.LONG, default, None, Importance.LOW, "Internal clients' connection setting.")
    for key, default in _CLIENT_BUFFER_DEFAULTS.items():
        d.define(key, ConfigType.INT, default, None, Importance.LOW, "Socket buffer size (-1: the OS's).")


_CLIENT_TIMING_DEFAULTS = {
    "metadata.max.age.ms": 300000,
    "connections.max.idle.ms": 540000,
    "reconnect.backoff.ms": 50,
    "reconnect.backoff.max.ms": 1000,
    "retry.backoff.ms": 100,
    "retry.backoff.max.ms": 1000,
    "socket.connection.setup.timeout.ms": 10000,
}
_CLIENT_BUFFER_DEFAULTS = {"send.buffer.bytes": 131072, "receive.buffer.bytes": 32768}


@dataclass(frozen=True)
class WorkerConfig:
    """Parsed worker settings. `originals` is the map as given; `values` the parsed defined keys."""

    originals: Mapping[str, str]
    values: Mapping[str, Any]

    @classmethod
    def from_props(cls, props: Mapping[str, str], definition: ConfigDef | None = None) -> WorkerConfig:
        """Resolve config provider placeholders (with the providers `props` declares), parse and validate;
        ConfigError names the first bad key.

        `definition`: a mode's definition extending `worker_config_def()` (distributed mode's adds the keys
        only it reads); by default the worker's own."""
        definition = definition if definition is not None else worker_config_def()
        props = resolve_with_own_providers(props)
        values = definition.parse(props)
        for required in (KEY_CONVERTER, VALUE_CONVERTER):
            if not values.get(required):
                raise ConfigError(f'Missing required configuration "{required}" which has no default value.')
        unknown = sorted(k for k in props if k not in definition.keys and not _is_prefixed(k))
        if unknown:
            # Kafka logs these and starts anyway: a plug-in or a newer version may read them.
            log.warning("Worker configs not known to kconnect (kept, maybe used by plug-ins): %s", ", ".join(unknown))
        warn_inert_keys(props)
        return cls(dict(props), values)

    # -- typed accessors -----------------------------------------------------------------------

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(self.values[BOOTSTRAP_SERVERS])

    @property
    def key_converter(self) -> str:
        return str(self.values[KEY_CONVERTER])

    @property
    def value_converter(self) -> str:
        return str(self.values[VALUE_CONVERTER])

    @property
    def header_converter(self) -> str:
        return str(self.values[HEADER_CONVERTER])

    @property
    def offset_flush_interval_ms(self) -> int:
        return int(self.values[OFFSET_FLUSH_INTERVAL_MS])

    @property
    def offset_flush_timeout_ms(self) -> int:
        return int(self.values[OFFSET_FLUSH_TIMEOUT_MS])

    @property
    def task_shutdown_graceful_timeout_ms(self) -> int:
        return int(self.values[TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS])

    @property
    def listeners(self) -> list[str]:
        return list(self.values[LISTENERS])

    @property
    def client_config_override_policy(self) -> str:
        """`All`, `None` or `Principal`, in Kafka's spelling whatever the case given."""
        raw = str(self.values[OVERRIDE_POLICY]).lower()
        return {"all": "All", "none": "None", "principal": "Principal"}[raw]

    @property
    def topic_tracking_enable(self) -> bool:
        return bool(self.values["topic.tracking.enable"])

    @property
    def topic_tracking_allow_reset(self) -> bool:
        return bool(self.values["topic.tracking.allow.reset"])

    @property
    def metrics_windows(self) -> Windows:
        """The windows of rates, averages and maxima (`metrics.sample.window.ms` times `metrics.num.samples`)."""
        return Windows(
            int(self.values["metrics.sample.window.ms"]) / 1000,
            int(self.values["metrics.num.samples"]),
            bool(self.values[METRICS_RECORDING_ENABLE]),
        )

    @property
    def task_isolation(self) -> str:
        """`thread` or `process` (see the key's documentation)."""
        return str(self.values[TASK_ISOLATION]).lower()

    @property
    def source_batch_produce(self) -> bool:
        return bool(self.values[SOURCE_BATCH_PRODUCE])

    @property
    def task_processes_max(self) -> int:
        """`task.processes.max`, with 0 resolved to the number of cores."""
        configured = int(self.values[TASK_PROCESSES_MAX])
        return configured or os.cpu_count() or 1

    @property
    def topic_creation_enable(self) -> bool:
        """Whether source tasks create their topics when their connector config has `topic.creation.*` keys."""
        return bool(self.values[TOPIC_CREATION_ENABLE])

    @property
    def plugin_discovery(self) -> str:
        return str(self.values["plugin.discovery"]).lower()

    @property
    def offset_storage_file(self) -> str | None:
        value = self.values[OFFSET_STORAGE_FILE]
        return str(value) if value else None

    @property
    def group_id(self) -> str | None:
        value = self.values[GROUP_ID]
        return str(value) if value else None

    @property
    def exactly_once_source_support(self) -> str:
        """`disabled`, `preparing` or `enabled` (KIP-618; only `enabled` runs source tasks exactly once)."""
        return str(self.values[EXACTLY_ONCE_SOURCE_SUPPORT]).lower()

    def get(self, key: str) -> Any:
        """A parsed value of a defined key, or the original string of any other key (None if absent)."""
        if key in self.values:
            return self.values[key]
        return self.originals.get(key)

    # -- sub-configs ---------------------------------------------------------------------------

    def with_prefix(self, prefix: str) -> dict[str, str]:
        """The original entries under `prefix`, prefix removed."""
        return {k[len(prefix) :]: v for k, v in self.originals.items() if k.startswith(prefix)}

    def producer_props(self) -> dict[str, str]:
        """`bootstrap.servers` plus the worker's `producer.*` settings (prefix removed; they win)."""
        return {BOOTSTRAP_SERVERS: self.bootstrap_servers, **self.with_prefix(_PRODUCER_PREFIX)}

    def consumer_props(self) -> dict[str, str]:
        return {BOOTSTRAP_SERVERS: self.bootstrap_servers, **self.with_prefix(_CONSUMER_PREFIX)}

    def admin_props(self) -> dict[str, str]:
        return {BOOTSTRAP_SERVERS: self.bootstrap_servers, **self.with_prefix(_ADMIN_PREFIX)}

    def converter_props(self, converter_key: str) -> dict[str, str]:
        """Sub-configs of `key.converter`, `value.converter` or `header.converter` (prefix removed)."""
        return self.with_prefix(converter_key + ".")

    # -- identity ------------------------------------------------------------------------------

    def advertised_url(self) -> str:
        """The REST URL other workers use to reach this one, built as Kafka builds it."""
        first = urlsplit(self.listeners[0] if self.listeners else "http://:8083")
        scheme = self.values["rest.advertised.listener"] or first.scheme or "http"
        host = self.values["rest.advertised.host.name"] or first.hostname or socket.getfqdn()
        port = self.values["rest.advertised.port"] or first.port or 8083
        return f"{scheme}://{host}:{port}/"

    def worker_id(self) -> str:
        """`host:port` of the advertised URL: Kafka Connect's worker id, shown in every status."""
        url = urlsplit(self.advertised_url())
        return f"{url.hostname}:{url.port}"


_SUB_CONFIG_PREFIXES = (
    _PRODUCER_PREFIX,
    _CONSUMER_PREFIX,
    _ADMIN_PREFIX,
    KEY_CONVERTER + ".",
    VALUE_CONVERTER + ".",
    HEADER_CONVERTER + ".",
    "config.providers.",
    "listeners.https.",
    "admin.listeners.https.",
    "ssl.",
    "sasl.",
    "security.",
    "internal.",
)


def _is_prefixed(key: str) -> bool:
    return key.startswith(_SUB_CONFIG_PREFIXES)
