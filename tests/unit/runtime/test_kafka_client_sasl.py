"""Kafka's `sasl.jaas.config` lines (PLAIN, SCRAM, OAUTHBEARER) as librdkafka settings librdkafka accepts."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer

from connect.runtime.kafka.client_config import to_librdkafka

SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="connect" password="s3c;r=t";'
OIDC = (
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
    'clientId="connect-worker" clientSecret="oidc-secret" scope="kafka";'
)
HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
UNSECURED = (
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
    'unsecuredLoginStringClaim_sub="alice" unsecuredLoginLifetimeSeconds=3600 unsecuredLoginExtension_traceId="t1";'
)


@pytest.mark.parametrize(
    ("mechanism", "jaas", "extra", "expected"),
    [
        ("SCRAM-SHA-512", SCRAM, {}, {"sasl.username": "connect", "sasl.password": "s3c;r=t"}),
        (
            "PLAIN",
            'org.apache.kafka.common.security.plain.PlainLoginModule required username=bob password="pw";',
            {},
            {"sasl.username": "bob", "sasl.password": "pw"},
        ),
        (
            "OAUTHBEARER",
            OIDC,
            {"sasl.oauthbearer.token.endpoint.url": "https://idp.example/token"},
            {
                "sasl.oauthbearer.method": "oidc",
                "sasl.oauthbearer.client.id": "connect-worker",
                "sasl.oauthbearer.client.secret": "oidc-secret",
                "sasl.oauthbearer.scope": "kafka",
                "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
            },
        ),
        (
            "OAUTHBEARER",
            UNSECURED,
            {},
            {
                "enable.sasl.oauthbearer.unsecure.jwt": "true",
                "sasl.oauthbearer.config": "principal=alice lifeSeconds=3600 extension_traceId=t1",
            },
        ),
    ],
)
def test_jaas_lines_become_librdkafka_settings(
    mechanism: str, jaas: str, extra: dict[str, str], expected: dict[str, str]
) -> None:
    java = {
        "bootstrap.servers": "127.0.0.1:1",
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.jaas.config": jaas,
        "sasl.login.callback.handler.class": HANDLER,
        **extra,
    }
    config = to_librdkafka(java, "producer")
    assert {k: v for k, v in config.items() if k in expected} == expected
    assert "sasl.jaas.config" not in config
    assert "sasl.login.callback.handler.class" not in config
    # librdkafka knows every key (an unknown one raises when the client is built).
    Producer(config).flush(0)
