"""Client settings for connector clients: Kafka Connect's defaults and the Java → librdkafka translation.

Pure functions and constants (no confluent_kafka here): `kafka_clients.KafkaClients` layers them, and
the herder's validation can use `override_violations` to reject forbidden `*.override.*` keys early.
librdkafka refuses keys it does not know, so Java-only client settings are dropped and renamed ones
translated before a client is built.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

log = logging.getLogger(__name__)

PRODUCER_OVERRIDE_PREFIX = "producer.override."
CONSUMER_OVERRIDE_PREFIX = "consumer.override."
ADMIN_OVERRIDE_PREFIX = "admin.override."
_OVERRIDE_PREFIXES = (PRODUCER_OVERRIDE_PREFIX, CONSUMER_OVERRIDE_PREFIX, ADMIN_OVERRIDE_PREFIX)
_PRINCIPAL_OVERRIDES = frozenset({"sasl.jaas.config", "sasl.mechanism", "security.protocol"})

# Kafka Connect's producer defaults (§5.1) in librdkafka's names. linger.ms: Java Connect leaves 0 but
# Java's producer batches whatever accumulates while a request is in flight; librdkafka sends a request
# as soon as linger expires, so with linger 0 every message is its own request (measured: less than
# half the throughput). 5 ms is librdkafka's and Kafka 4's own default and costs at most 5 ms latency.
PRODUCER_DEFAULTS: Mapping[str, str] = {
    "acks": "all",
    "max.in.flight.requests.per.connection": "1",
    "enable.idempotence": "false",
    "message.timeout.ms": "2147483647",
    "linger.ms": "5",
}
# Java's consumer reads uncommitted data unless told otherwise; librdkafka's default is read_committed.
CONSUMER_DEFAULTS: Mapping[str, str] = {
    "enable.auto.commit": "false",
    "auto.offset.reset": "earliest",
    "isolation.level": "read_uncommitted",
}
DEFAULT_MAX_POLL_RECORDS = 500

# Java client settings with no librdkafka counterpart: dropped (logged at debug).
_JAVA_ONLY = frozenset(
    {
        "key.serializer",
        "value.serializer",
        "key.deserializer",
        "value.deserializer",
        "max.block.ms",
        "buffer.memory",
        "interceptor.classes",
        "metric.reporters",
        "metrics.num.samples",
        "metrics.sample.window.ms",
        "metrics.recording.level",
        "auto.include.jmx.reporter",
        "partitioner.class",
        "partitioner.ignore.keys",
        "partitioner.adaptive.partitioning.enable",
        "partitioner.availability.timeout.ms",
        "default.api.timeout.ms",
        "max.poll.records",
        "exclude.internal.topics",
        "metadata.max.idle.ms",
        "fetch.max.wait.ms",
        "security.providers",
        "sasl.jaas.config",
        "sasl.login.callback.handler.class",
        "sasl.client.callback.handler.class",
        "ssl.truststore.location",
        "ssl.truststore.password",
        "ssl.truststore.type",
        "ssl.truststore.certificates",
        "ssl.keystore.type",
        "ssl.keymanager.algorithm",
        "ssl.trustmanager.algorithm",
        "ssl.enabled.protocols",
        "ssl.protocol",
        "ssl.engine.factory.class",
        "ssl.secure.random.implementation",
        "enable.metrics.push",
    }
)
_RENAMED = {
    "send.buffer.bytes": "socket.send.buffer.bytes",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
    "max.request.size": "message.max.bytes",
    "delivery.timeout.ms": "message.timeout.ms",
}
_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')


def to_librdkafka(props: Mapping[str, str], client: str) -> dict[str, str]:
    """Translate a Java client config to librdkafka's keys (drop Java-only keys, rename the others)."""
    result: dict[str, str] = {}
    for key, value in props.items():
        if key == "sasl.jaas.config":
            result.update(_jaas_credentials(value))
        if key in _JAVA_ONLY:
            log.debug("Dropping %s setting %s: the Java client's, librdkafka has no equivalent", client, key)
            continue
        result[_RENAMED.get(key, key)] = value
    return result


def _jaas_credentials(jaas: str) -> dict[str, str]:
    # PLAIN and SCRAM JAAS lines carry a username and password that librdkafka takes as plain settings.
    options = dict(_JAAS_OPTION.findall(jaas))
    if "username" in options and "password" in options:
        return {"sasl.username": options["username"], "sasl.password": options["password"]}
    return {}


def override_violations(policy: str, connector_config: Mapping[str, str]) -> list[str]:
    """Client overrides the worker's `connector.client.config.override.policy` forbids (empty: all fine)."""
    overrides = [k for k in connector_config if k.startswith(_OVERRIDE_PREFIXES)]
    if policy.lower() == "all":
        return []
    if policy.lower() == "principal":
        return [k for k in overrides if k.split(".override.", 1)[1] not in _PRINCIPAL_OVERRIDES]
    return overrides


def with_prefix(config: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}


def sink_group_id(connector: str, connector_config: Mapping[str, str]) -> str:
    """The consumer group of a sink connector: `connect-<name>` unless `consumer.override.group.id`."""
    return connector_config.get(CONSUMER_OVERRIDE_PREFIX + "group.id") or f"connect-{connector}"
