"""Client settings: Kafka Connect's defaults, the worker's own connection settings, Java → librdkafka.

Pure functions and constants (no confluent_kafka here): `kafka_clients.KafkaClients` layers them, and
the herder's validation can use `override_violations` to reject forbidden `*.override.*` keys early.
Connector clients take the worker's `producer.*`/`consumer.*`/`admin.*`; the worker's internal clients
(config/status/offsets logs, group membership) take its top-level connection settings instead
(`internal_client_props`), as Kafka Connect's do. librdkafka refuses keys it does not know, so
Java-only client settings are dropped and renamed ones translated before a client is built.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from connect.runtime.kafka.client_tls import librdkafka_tls, uses_pem_keystore

log = logging.getLogger(__name__)

PRODUCER_OVERRIDE_PREFIX = "producer.override."
CONSUMER_OVERRIDE_PREFIX = "consumer.override."
ADMIN_OVERRIDE_PREFIX = "admin.override."
_OVERRIDE_PREFIXES = (PRODUCER_OVERRIDE_PREFIX, CONSUMER_OVERRIDE_PREFIX, ADMIN_OVERRIDE_PREFIX)
PRINCIPAL_OVERRIDES = frozenset({"sasl.jaas.config", "sasl.mechanism", "security.protocol"})

# Kafka Connect's producer defaults (Kafka's `Worker.baseProducerConfigs`) in librdkafka's names.
# linger.ms: Java Connect leaves 0 but Java's producer batches whatever accumulates while a request is in
# flight; librdkafka sends a request as soon as linger expires, so with linger 0 every message is its own
# request, which costs throughput (docs/architecture.md, "Hot paths"). 5 ms is librdkafka's and Kafka 4's own
# default and costs at most 5 ms latency.
PRODUCER_DEFAULTS: Mapping[str, str] = {
    "acks": "all",
    "max.in.flight.requests.per.connection": "1",
    "enable.idempotence": "false",
    "message.timeout.ms": "2147483647",
    "linger.ms": "5",
}
# Java's consumer reads uncommitted data unless told otherwise; librdkafka's default is read_committed.
# fetch.queue.backoff.ms: once a partition's prefetch queue reaches queued.min.messages (or
# queued.max.messages.kbytes), librdkafka waits this long before fetching for it again; its default of
# 1000 ms left a sink that drains the queue faster idle most of each second (README, "Performance
# notes"). Java's consumer fetches again as soon as its buffer is drained.
# topic.metadata.refresh.interval.ms: right after a broker restart, its metadata may list a subscribed topic
# with no partitions; librdkafka then drops the topic from the consumer's effective subscription, stays out
# of the group, and looks again only at its next metadata refresh: 5 minutes by default, for which a sink sat
# idle in a run of broker restarts. Java's consumer asks again within a second when a subscribed topic is
# missing from an answer. 10 s bounds the wait at the cost of one metadata request per consumer per 10 s (of
# every topic for a `topics.regex` sink: raise it with `consumer.override.` on clusters of many topics).
CONSUMER_DEFAULTS: Mapping[str, str] = {
    "enable.auto.commit": "false",
    "auto.offset.reset": "earliest",
    "isolation.level": "read_uncommitted",
    "fetch.queue.backoff.ms": "10",
    "topic.metadata.refresh.interval.ms": "10000",
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
        "ssl.client.auth",  # the server side's (REST listeners), never a client's
        "ssl.provider",
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
# The top-level worker settings that say how to reach and authenticate with the cluster: Kafka Connect
# hands the worker's own config to its internal clients, so these apply to them (and `producer.*`,
# `consumer.*`, `admin.*` do not). Java-only ones among them are dropped by `to_librdkafka` as usual.
_INTERNAL_CLIENT_KEYS = frozenset(
    {
        "bootstrap.servers",
        "client.dns.lookup",
        "security.protocol",
        "connections.max.idle.ms",
        "metadata.max.age.ms",
        "reconnect.backoff.ms",
        "reconnect.backoff.max.ms",
        "retry.backoff.ms",
        "retry.backoff.max.ms",
        "send.buffer.bytes",
        "receive.buffer.bytes",
        "socket.connection.setup.timeout.ms",
    }
)
_INTERNAL_CLIENT_PREFIXES = ("ssl.", "sasl.")
# Translated by `kafka_client_tls` rather than passed on as they are.
_TRANSLATED_TLS = frozenset(
    {"ssl.keystore.key", "ssl.keystore.certificate.chain", "ssl.endpoint.identification.algorithm"}
)
_PKCS12_KEYSTORE = frozenset({"ssl.keystore.location", "ssl.keystore.password"})
_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;"]+))')


def to_librdkafka(props: Mapping[str, str], client: str) -> dict[str, str]:
    """Translate a Java client config to librdkafka's keys (drop Java-only keys, rename the others)."""
    result: dict[str, str] = {}
    pem_keystore = uses_pem_keystore(props)
    for key, value in props.items():
        if key == "sasl.jaas.config":
            result.update(_jaas_credentials(value))
        if key in _JAVA_ONLY or key in _TRANSLATED_TLS or (pem_keystore and key in _PKCS12_KEYSTORE):
            log.debug("Dropping %s setting %s: the Java client's, librdkafka has no equivalent", client, key)
            continue
        result[_RENAMED.get(key, key)] = value
    result.update(librdkafka_tls(props))
    return result


def _jaas_credentials(jaas: str) -> dict[str, str]:
    """librdkafka's settings for the credentials of a Java JAAS line (`sasl.jaas.config`).

    PLAIN and SCRAM carry `username` and `password`. OAUTHBEARER (KIP-768) carries `clientId`,
    `clientSecret` and maybe `scope` for the OIDC client-credentials flow (with
    `sasl.oauthbearer.token.endpoint.url`, which librdkafka names alike), or, for development, the
    unsecured JWT options (`unsecuredLoginStringClaim_sub`, `unsecuredLoginLifetimeSeconds`,
    `unsecuredLoginExtension_<name>`)."""
    options = {m.group(1): m.group(2) if m.group(2) is not None else m.group(3) for m in _JAAS_OPTION.finditer(jaas)}
    if "OAuthBearerLoginModule" in jaas:
        return _oauthbearer(options)
    if "username" in options and "password" in options:
        return {"sasl.username": options["username"], "sasl.password": options["password"]}
    return {}


def _oauthbearer(options: Mapping[str, str]) -> dict[str, str]:
    if "clientId" in options and "clientSecret" in options:
        settings = {
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.client.id": options["clientId"],
            "sasl.oauthbearer.client.secret": options["clientSecret"],
        }
        if "scope" in options:
            settings["sasl.oauthbearer.scope"] = options["scope"]
        return settings
    if "unsecuredLoginStringClaim_sub" in options:
        parts = [f"principal={options['unsecuredLoginStringClaim_sub']}"]
        if "unsecuredLoginLifetimeSeconds" in options:
            parts.append(f"lifeSeconds={options['unsecuredLoginLifetimeSeconds']}")
        prefix = "unsecuredLoginExtension_"
        parts += [f"extension_{k[len(prefix) :]}={v}" for k, v in options.items() if k.startswith(prefix)]
        return {"enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": " ".join(parts)}
    return {}


def internal_client_props(worker_props: Mapping[str, str]) -> dict[str, str]:
    """The connection settings (`bootstrap.servers`, `security.protocol`, `ssl.*`, `sasl.*`, ...) among
    top-level worker settings, for the worker's internal clients (Java names; translate before use)."""
    return {
        key: value
        for key, value in worker_props.items()
        if key in _INTERNAL_CLIENT_KEYS or key.startswith(_INTERNAL_CLIENT_PREFIXES)
    }


def override_violations(policy: str, connector_config: Mapping[str, str]) -> list[str]:
    """Client overrides the worker's `connector.client.config.override.policy` forbids (empty: all fine)."""
    overrides = [k for k in connector_config if k.startswith(_OVERRIDE_PREFIXES)]
    if policy.lower() == "all":
        return []
    if policy.lower() == "principal":
        return [k for k in overrides if k.split(".override.", 1)[1] not in PRINCIPAL_OVERRIDES]
    return overrides


def with_prefix(config: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}


def sink_group_id(connector: str, connector_config: Mapping[str, str]) -> str:
    """The consumer group of a sink connector: `connect-<name>` unless `consumer.override.group.id`."""
    return connector_config.get(CONSUMER_OVERRIDE_PREFIX + "group.id") or f"connect-{connector}"
