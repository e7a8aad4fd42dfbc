"""`TlsSettings`: the `ssl.*` keys of one https listener, chosen the way Kafka's `SSLUtils` chooses them.

All or nothing: if any worker key starts with the listener's prefix (`listeners.https.` for the REST
listeners, `admin.listeners.https.` for the admin ones), only the prefixed keys are read; otherwise the
plain `ssl.*` worker keys are (Kafka's `AbstractConfig.valuesWithPrefixAllOrNothing`). Defaults are
Kafka's `SslConfigs`. Passwords are kept out of `repr` so a logged settings object shows none.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from connect.api.errors import ConfigError

log = logging.getLogger(__name__)

LISTENERS_PREFIX = "listeners.https."
ADMIN_LISTENERS_PREFIX = "admin.listeners.https."

CLIENT_AUTH_VALUES = ("none", "requested", "required")
DEFAULT_PROTOCOLS = ("TLSv1.2", "TLSv1.3")

# Java's JSSE plumbing: nothing to choose in Python's ssl module, so they are accepted and logged as unused.
_JAVA_ONLY_KEYS = (
    "ssl.provider",
    "ssl.secure.random.implementation",
    "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm",
)
_READ_KEYS = (
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.key.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
    "ssl.client.auth",
    "ssl.enabled.protocols",
    "ssl.protocol",
    "ssl.cipher.suites",
    "ssl.endpoint.identification.algorithm",
)


@dataclass(frozen=True)
class StoreSettings:
    """A key store or trust store: a file (`location`, `type`, `password`) or PEM text given in the config."""

    kind: str  # "keystore" or "truststore": the middle of the key names, for error messages
    prefix: str  # the prefix the keys were read under ("" or e.g. "listeners.https.")
    type: str | None
    location: str | None
    password: str | None = field(default=None, repr=False)
    key_password: str | None = field(default=None, repr=False)
    pem_key: str | None = field(default=None, repr=False)
    pem_certificates: str | None = None

    def key(self, name: str) -> str:
        """The full worker key of one of this store's settings, e.g. `listeners.https.ssl.keystore.location`."""
        return f"{self.prefix}ssl.{self.kind}.{name}"

    @property
    def given(self) -> bool:
        return bool(self.location or self.pem_certificates or self.pem_key)


@dataclass(frozen=True)
class TlsSettings:
    prefix: str
    keystore: StoreSettings
    truststore: StoreSettings
    client_auth: str = "none"
    enabled_protocols: tuple[str, ...] = DEFAULT_PROTOCOLS
    protocol: str = "TLSv1.3"
    cipher_suites: tuple[str, ...] = ()
    endpoint_identification: str = "https"

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    @classmethod
    def for_listeners(cls, worker: Mapping[str, str], prefix: str = LISTENERS_PREFIX) -> TlsSettings:
        """The settings of the https listeners under `prefix` (all or nothing, as Kafka)."""
        if any(key.startswith(prefix) for key in worker):
            return cls.from_keys({k[len(prefix) :]: v for k, v in worker.items() if k.startswith(prefix)}, prefix)
        return cls.from_keys(worker, "")

    @classmethod
    def from_keys(cls, keys: Mapping[str, str], prefix: str = "") -> TlsSettings:
        """Read the `ssl.*` entries of `keys` (already stripped of `prefix`, which only names keys in errors)."""

        def get(name: str) -> str | None:
            value = keys.get(name)
            return value.strip() if value is not None and value.strip() else None

        for java_only in _JAVA_ONLY_KEYS:
            if get(java_only) is not None:
                log.warning("%s%s has no effect: kconnect uses Python's ssl module, not Java's", prefix, java_only)
        for name in keys:
            if name.startswith("ssl.") and name not in _READ_KEYS and name not in _JAVA_ONLY_KEYS and prefix:
                raise ConfigError(f"Unknown TLS setting {prefix}{name}")
        client_auth = (get("ssl.client.auth") or "none").lower()
        if client_auth not in CLIENT_AUTH_VALUES:
            raise ConfigError(
                f"Invalid value {keys.get('ssl.client.auth')} for configuration {prefix}ssl.client.auth: "
                f"expected one of {', '.join(CLIENT_AUTH_VALUES)}"
            )
        return cls(
            prefix=prefix,
            keystore=StoreSettings(
                "keystore",
                prefix,
                type=get("ssl.keystore.type"),
                location=get("ssl.keystore.location"),
                password=keys.get("ssl.keystore.password"),
                key_password=keys.get("ssl.key.password"),
                pem_key=get("ssl.keystore.key"),
                pem_certificates=get("ssl.keystore.certificate.chain"),
            ),
            truststore=StoreSettings(
                "truststore",
                prefix,
                type=get("ssl.truststore.type"),
                location=get("ssl.truststore.location"),
                password=keys.get("ssl.truststore.password"),
                pem_certificates=get("ssl.truststore.certificates"),
            ),
            client_auth=client_auth,
            enabled_protocols=_list(get("ssl.enabled.protocols")) or DEFAULT_PROTOCOLS,
            protocol=get("ssl.protocol") or "TLSv1.3",
            cipher_suites=_list(get("ssl.cipher.suites")),
            endpoint_identification=(keys.get("ssl.endpoint.identification.algorithm", "https") or "").strip(),
        )


def _list(value: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (value or "").split(",") if item.strip())
