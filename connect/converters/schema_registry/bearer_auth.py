"""`bearer.auth.*`, Confluent's keys for bearer authentication to the registry (`SchemaRegistryClientConfig`),
as confluent-kafka's registry client takes them.

Bearer authentication is on when `bearer.auth.credentials.source` is set, as in Confluent's `RestService`:
`STATIC_TOKEN` sends `bearer.auth.token`; `OAUTHBEARER` gets a token from `bearer.auth.issuer.endpoint.url`
with the client-credentials grant (`bearer.auth.client.id` and `bearer.auth.client.secret`, optional
`bearer.auth.scope`) and fetches a new one before it expires. The other sources of Confluent's client
(`SASL_OAUTHBEARER_INHERIT`, `CUSTOM`) are refused. The token and the client secret are PASSWORD keys: they
are never logged, and `RegistryClient` hides them in every error it raises.

confluent-kafka's client reads the token's expiry from the token endpoint's `expires_in` and fetches a new one
after 80% of it; it does not parse the token, so the claim names Java's client checks
(`bearer.auth.scope.claim.name`, `bearer.auth.sub.claim.name`) and its refresh margin
(`bearer.auth.cache.expiry.buffer.seconds`) are accepted for Confluent's configs and, when set to anything but
their defaults, warned about as not applied.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance, Password, Range, invalid_value
from connect.api.errors import ConfigError

log = logging.getLogger(__name__)

CREDENTIALS_SOURCE = "bearer.auth.credentials.source"
TOKEN = "bearer.auth.token"
LOGICAL_CLUSTER = "bearer.auth.logical.cluster"
IDENTITY_POOL_ID = "bearer.auth.identity.pool.id"
ISSUER_ENDPOINT_URL = "bearer.auth.issuer.endpoint.url"
CLIENT_ID = "bearer.auth.client.id"
CLIENT_SECRET = "bearer.auth.client.secret"
SCOPE = "bearer.auth.scope"
SCOPE_CLAIM_NAME = "bearer.auth.scope.claim.name"
SUB_CLAIM_NAME = "bearer.auth.sub.claim.name"
CACHE_EXPIRY_BUFFER_SECONDS = "bearer.auth.cache.expiry.buffer.seconds"

STATIC_TOKEN = "STATIC_TOKEN"
OAUTHBEARER = "OAUTHBEARER"
SUPPORTED_SOURCES = (STATIC_TOKEN, OAUTHBEARER)
# Defaults of the keys that confluent-kafka's client has no use for (Confluent's `SchemaRegistryClientConfig`).
_NOT_APPLIED_DEFAULTS: dict[str, Any] = {
    SCOPE_CLAIM_NAME: "scope",
    SUB_CLAIM_NAME: "sub",
    CACHE_EXPIRY_BUFFER_SECONDS: 300,
}


def _supported_source(name: str, value: Any) -> None:
    source = (value or "").strip()
    if source and source not in SUPPORTED_SOURCES:
        raise invalid_value(
            name, value, f"supported are {' and '.join(SUPPORTED_SOURCES)} (or empty: no bearer authentication)"
        )


def define_bearer_keys(config_def: ConfigDef, group: str) -> ConfigDef:
    text = ConfigType.STRING
    return (
        config_def.define(
            CREDENTIALS_SOURCE,
            text,
            "",
            _supported_source,
            Importance.MEDIUM,
            "Where the bearer token comes from: STATIC_TOKEN (bearer.auth.token) or OAUTHBEARER (fetched from "
            "bearer.auth.issuer.endpoint.url with the client-credentials grant). Empty: no bearer authentication. "
            "Cannot be combined with basic.auth.credentials.source.",
            group=group,
        )
        .define(TOKEN, ConfigType.PASSWORD, "", None, Importance.MEDIUM, "The token for STATIC_TOKEN.", group=group)
        .define(
            LOGICAL_CLUSTER,
            text,
            "",
            None,
            Importance.LOW,
            "The registry's logical cluster id, sent as the target-sr-cluster header (Confluent Cloud).",
            group=group,
        )
        .define(
            IDENTITY_POOL_ID,
            text,
            "",
            None,
            Importance.LOW,
            "The identity pool id(s), sent as the Confluent-Identity-Pool-Id header (Confluent Cloud).",
            group=group,
        )
        .define(
            ISSUER_ENDPOINT_URL,
            text,
            "",
            None,
            Importance.MEDIUM,
            "The OAuth token endpoint for OAUTHBEARER.",
            group=group,
        )
        .define(CLIENT_ID, text, "", None, Importance.MEDIUM, "The OAuth client id for OAUTHBEARER.", group=group)
        .define(
            CLIENT_SECRET,
            ConfigType.PASSWORD,
            "",
            None,
            Importance.MEDIUM,
            "The OAuth client secret for OAUTHBEARER.",
            group=group,
        )
        .define(SCOPE, text, "", None, Importance.LOW, "The scope asked for with OAUTHBEARER, if any.", group=group)
        .define(
            SCOPE_CLAIM_NAME,
            text,
            "scope",
            None,
            Importance.LOW,
            "Accepted for Confluent's configs; the token is not parsed here, so no claim is checked.",
            group=group,
        )
        .define(
            SUB_CLAIM_NAME,
            text,
            "sub",
            None,
            Importance.LOW,
            "Accepted for Confluent's configs; the token is not parsed here, so no claim is checked.",
            group=group,
        )
        .define(
            CACHE_EXPIRY_BUFFER_SECONDS,
            ConfigType.INT,
            300,
            Range.at_least(0),
            Importance.LOW,
            "Accepted for Confluent's configs; a new token is fetched after 80% of the token's expires_in.",
            group=group,
        )
    )


def _secret(values: Mapping[str, Any], key: str) -> str:
    value = values[key]
    return (value.value if isinstance(value, Password) else str(value or "")).strip()


@dataclass(frozen=True)
class BearerAuth:
    source: str
    token: str
    logical_cluster: str
    identity_pool_id: str
    issuer_url: str
    client_id: str
    client_secret: str
    scope: str

    @classmethod
    def parse(cls, values: Mapping[str, Any]) -> BearerAuth | None:
        """None when `bearer.auth.credentials.source` is empty; ConfigError naming what a source lacks.
        `values`: the parsed registry keys (`define_bearer_keys` among them)."""
        source = str(values[CREDENTIALS_SOURCE] or "").strip()
        if not source:
            return None
        auth = cls(
            source=source,
            token=_secret(values, TOKEN),
            logical_cluster=str(values[LOGICAL_CLUSTER]).strip(),
            identity_pool_id=str(values[IDENTITY_POOL_ID]).strip(),
            issuer_url=str(values[ISSUER_ENDPOINT_URL]).strip(),
            client_id=str(values[CLIENT_ID]).strip(),
            client_secret=_secret(values, CLIENT_SECRET),
            scope=str(values[SCOPE]).strip(),
        )
        needed = {STATIC_TOKEN: (TOKEN,), OAUTHBEARER: (ISSUER_ENDPOINT_URL, CLIENT_ID, CLIENT_SECRET)}[source]
        given = {
            TOKEN: auth.token,
            ISSUER_ENDPOINT_URL: auth.issuer_url,
            CLIENT_ID: auth.client_id,
            CLIENT_SECRET: auth.client_secret,
        }
        missing = [key for key in needed if not given[key]]
        if missing:
            raise ConfigError(f"{CREDENTIALS_SOURCE}={source} needs {', '.join(missing)}")
        for key, default in _NOT_APPLIED_DEFAULTS.items():
            if source == OAUTHBEARER and values[key] != default:
                log.warning("%s=%s is not applied: %s", key, values[key], _why_not_applied(key))
        return auth

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(secret for secret in (self.token, self.client_secret) if secret)

    def client_conf(self) -> dict[str, str]:
        """confluent-kafka's `SchemaRegistryClient` settings. That client requires a logical cluster (it always
        sends `target-sr-cluster`) and a scope: empty ones stand for Confluent's unset keys (an empty scope is
        not sent to the token endpoint)."""
        conf = {CREDENTIALS_SOURCE: self.source, LOGICAL_CLUSTER: self.logical_cluster}
        if self.identity_pool_id:
            conf[IDENTITY_POOL_ID] = self.identity_pool_id
        if self.source == STATIC_TOKEN:
            conf[TOKEN] = self.token
        else:
            conf.update(
                {
                    ISSUER_ENDPOINT_URL: self.issuer_url,
                    CLIENT_ID: self.client_id,
                    CLIENT_SECRET: self.client_secret,
                    SCOPE: self.scope,
                }
            )
        return conf


def _why_not_applied(key: str) -> str:
    if key == CACHE_EXPIRY_BUFFER_SECONDS:
        return "the registry client fetches a new token after 80% of the token's expires_in"
    return "the registry client does not parse the token, so it checks no claim"
