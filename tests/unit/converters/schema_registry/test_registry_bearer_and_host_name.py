"""`bearer.auth.*` mapped to confluent-kafka's registry client and refused where Confluent's converters
refuse it; the token and client secret hidden wherever a config is shown; and an empty
`schema.registry.ssl.endpoint.identification.algorithm` turning off only the host name check."""

from __future__ import annotations

import logging
import ssl
from collections.abc import Mapping
from typing import Any

import pytest

from connect.api.errors import ConfigError, RetriableError
from connect.converters.schema_registry.avro import AvroConverter
from connect.converters.schema_registry.bearer_auth import BearerAuth
from connect.converters.schema_registry.client import RegistryClient, _skip_host_name_check
from connect.converters.schema_registry.registry_tls import RegistryTls
from connect.converters.schema_registry.settings import RegistrySettings, registry_config_def
from connect.runtime.config.providers.config_transformer import ConfigTransformer
from connect.runtime.config.providers.loader import ConfigProviders
from connect.runtime.config.providers.redaction import SecretRedactor
from connect.runtime.config.providers.worker_secrets import WorkerSecrets
from connect.runtime.plugins import PluginRegistry
from connect.runtime.validation import validate_connector_config
from connectors.file.source import FileStreamSourceConnector
from tests.fixtures.tcp_ports import free_port

TOKEN, SECRET = "static-t0ken", "client-s3cret"
URL = {"schema.registry.url": "http://registry:8081"}
STATIC = {**URL, "bearer.auth.credentials.source": "STATIC_TOKEN", "bearer.auth.token": TOKEN}
OAUTH = {
    **URL,
    "bearer.auth.credentials.source": "OAUTHBEARER",
    "bearer.auth.issuer.endpoint.url": "https://idp/oauth2/token",
    "bearer.auth.client.id": "worker",
    "bearer.auth.client.secret": SECRET,
}


def bearer(configs: Mapping[str, str]) -> BearerAuth | None:
    return RegistrySettings.parse(configs, False).bearer


def test_static_token_maps_to_the_clients_keys() -> None:
    auth = bearer({**STATIC, "bearer.auth.logical.cluster": "lsrc-1", "bearer.auth.identity.pool.id": "pool-1"})
    assert auth is not None and auth.client_conf() == {
        "bearer.auth.credentials.source": "STATIC_TOKEN",
        "bearer.auth.token": TOKEN,
        "bearer.auth.logical.cluster": "lsrc-1",
        "bearer.auth.identity.pool.id": "pool-1",
    }
    assert auth.secrets == (TOKEN,)


def test_oauthbearer_maps_to_the_clients_keys_with_empty_cluster_and_scope_when_unset() -> None:
    auth = bearer(OAUTH)
    assert auth is not None and auth.client_conf() == {
        "bearer.auth.credentials.source": "OAUTHBEARER",
        "bearer.auth.issuer.endpoint.url": "https://idp/oauth2/token",
        "bearer.auth.client.id": "worker",
        "bearer.auth.client.secret": SECRET,
        "bearer.auth.scope": "",
        "bearer.auth.logical.cluster": "",
    }
    assert auth.secrets == (SECRET,)
    assert bearer({**OAUTH, "bearer.auth.scope": "registry"}).client_conf()["bearer.auth.scope"] == "registry"  # type: ignore[union-attr]


def test_the_client_is_built_with_the_bearer_settings() -> None:
    """confluent-kafka's client takes the mapped keys (it refuses keys it does not know, and missing ones)."""
    for configs in (STATIC, OAUTH):
        client = RegistryClient(RegistrySettings.parse(configs, False))
        try:
            rest = client._client._rest_client
            assert rest.bearer_auth_credentials_source == configs["bearer.auth.credentials.source"]
        finally:
            client.close()


def test_no_source_no_bearer_auth() -> None:
    assert bearer({**URL, "bearer.auth.token": TOKEN}) is None
    assert bearer({**URL, "bearer.auth.credentials.source": " "}) is None


@pytest.mark.parametrize("source", ["SASL_OAUTHBEARER_INHERIT", "CUSTOM", "OAUTHBEARER_AZURE_IMDS", "static_token"])
def test_other_sources_are_refused_naming_the_supported_ones(source: str) -> None:
    with pytest.raises(ConfigError, match=f"Invalid value {source} .*supported are STATIC_TOKEN and OAUTHBEARER"):
        AvroConverter().configure({**STATIC, "bearer.auth.credentials.source": source}, False)


def test_what_a_source_lacks_is_named() -> None:
    with pytest.raises(ConfigError, match=r"STATIC_TOKEN needs bearer\.auth\.token$"):
        bearer({**STATIC, "bearer.auth.token": ""})
    with pytest.raises(
        ConfigError, match=r"OAUTHBEARER needs bearer\.auth\.issuer\.endpoint\.url, bearer\.auth\.client\.secret$"
    ):
        bearer(
            {
                key: value
                for key, value in OAUTH.items()
                if key not in ("bearer.auth.issuer.endpoint.url", "bearer.auth.client.secret")
            }
        )


@pytest.mark.parametrize("basic", ["URL", "USER_INFO", "SASL_INHERIT"])
def test_basic_and_bearer_together_are_refused(basic: str) -> None:
    configs = {**STATIC, "basic.auth.credentials.source": basic, "basic.auth.user.info": "alice:pw"}
    with pytest.raises(
        ConfigError, match=r"Only one of 'basic\.auth\.credentials\.source' and 'bearer\.auth\.credentials\.source'"
    ) as refused:
        AvroConverter().configure(configs, False)
    assert TOKEN not in str(refused.value) and "pw" not in str(refused.value)


def test_credentials_in_the_url_are_refused_with_bearer() -> None:
    with pytest.raises(ConfigError, match="user:password@ credentials") as refused:
        bearer({**STATIC, "schema.registry.url": "http://alice:pw@registry:8081"})
    assert "pw" not in str(refused.value)


def test_claim_names_and_expiry_buffer_are_accepted_and_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert bearer({**OAUTH, "bearer.auth.scope.claim.name": "scp", "bearer.auth.cache.expiry.buffer.seconds": "60"})
    warned = caplog.text
    assert "bearer.auth.scope.claim.name=scp is not applied" in warned
    assert "bearer.auth.cache.expiry.buffer.seconds=60 is not applied" in warned
    assert SECRET not in warned


def test_defaults_of_the_keys_not_applied_are_not_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        bearer({**OAUTH, "bearer.auth.sub.claim.name": "sub", "bearer.auth.cache.expiry.buffer.seconds": "300"})
    assert not caplog.records


def test_token_and_client_secret_are_hidden_in_validation_and_traces() -> None:
    keys = registry_config_def().keys
    assert keys["bearer.auth.token"].type.value == keys["bearer.auth.client.secret"].type.value == "PASSWORD"
    config = {"name": "s", "connector.class": "FileStreamSource", "topic": "t", "value.converter": "AvroConverter"}
    config.update({f"value.converter.{key}": value for key, value in {**OAUTH, "bearer.auth.token": TOKEN}.items()})
    infos = validate_connector_config(config, PluginRegistry.of(FileStreamSourceConnector, AvroConverter))
    shown = {info.value.name: info.value.value for info in infos.configs if info.value}
    assert (
        shown["value.converter.bearer.auth.token"] == shown["value.converter.bearer.auth.client.secret"] == "[hidden]"
    )
    assert TOKEN not in repr(infos) and SECRET not in repr(infos)

    secrets = WorkerSecrets(ConfigTransformer(ConfigProviders({})), SecretRedactor())
    secrets.add_passwords(None, config)
    assert secrets.redactor.redact(f"failed with {TOKEN} and {SECRET}") == "failed with [hidden] and [hidden]"


# ---------------------------------------------------------------------------------------- host name check


def test_endpoint_identification_https_is_the_default_and_empty_turns_the_check_off(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert RegistryTls({}).check_host_name
    assert RegistryTls({"schema.registry.ssl.endpoint.identification.algorithm": "HTTPS"}).check_host_name
    assert not caplog.records
    with caplog.at_level(logging.WARNING):
        assert not RegistryTls({"schema.registry.ssl.endpoint.identification.algorithm": " "}).check_host_name
    assert "host name is not checked" in caplog.text


def test_other_endpoint_identification_algorithms_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"Invalid value LDAPS .*https .* or empty"):
        RegistryTls({"schema.registry.ssl.endpoint.identification.algorithm": "LDAPS"})


def _client(check_host_name: bool) -> Any:
    client = RegistryClient(
        RegistrySettings.parse({"schema.registry.url": "https://registry:8081"}, False), check_host_name=check_host_name
    )
    return client


def test_without_the_host_name_check_the_sessions_context_still_verifies_the_chain() -> None:
    for check in (True, False):
        client = _client(check)
        try:
            rest = client._client._rest_client
            context = rest.session._transport._pool._ssl_context
            assert context is rest.verify
            assert context.check_hostname is check
            assert context.verify_mode is ssl.CERT_REQUIRED
        finally:
            client.close()


def test_a_client_that_does_not_expose_its_tls_context_is_refused() -> None:
    class Opaque:
        pass

    with pytest.raises(
        ConfigError, match=r"endpoint\.identification\.algorithm empty .* not supported with confluent-kafka"
    ):
        _skip_host_name_check(Opaque())


def test_a_session_that_uses_another_tls_context_is_refused() -> None:
    from confluent_kafka.schema_registry import SchemaRegistryClient

    client = SchemaRegistryClient({"url": "https://registry:8081"})
    rest = client._rest_client
    rest.session.close()
    rest.session = type(rest.session)()  # a session with a context of its own
    try:
        with pytest.raises(ConfigError, match="does not expose the TLS context its HTTP session uses"):
            _skip_host_name_check(client)
        assert rest.verify.check_hostname
    finally:
        client.close()


def test_a_token_endpoint_that_cannot_be_reached_is_retriable_and_hides_the_secret() -> None:
    converter = AvroConverter()
    port = free_port()
    converter.configure(
        {**OAUTH, "bearer.auth.issuer.endpoint.url": f"http://127.0.0.1:{port}/token", "max.retries": "0"}, False
    )
    try:
        with pytest.raises(RetriableError, match=f"no OAuth token from http://127.0.0.1:{port}/token") as raised:
            converter.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x02k")
        assert SECRET not in str(raised.value)
    finally:
        converter.close()
