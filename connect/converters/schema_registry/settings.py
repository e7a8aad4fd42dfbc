"""The Schema Registry converters' config keys, with the names and defaults of Confluent's
`AbstractKafkaSchemaSerDeConfig` and `AvroDataConfig`, parsed once in `configure` into `RegistrySettings`."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, Password, Range, ValidString
from connect.api.errors import ConfigError
from connect.converters.schema_registry.bearer_auth import CREDENTIALS_SOURCE as BEARER_CREDENTIALS_SOURCE
from connect.converters.schema_registry.bearer_auth import BearerAuth, define_bearer_keys
from connect.converters.schema_registry.subjects import SubjectNameStrategy

SCHEMA_REGISTRY_URL = "schema.registry.url"
BASIC_AUTH_CREDENTIALS_SOURCE = "basic.auth.credentials.source"
BASIC_AUTH_USER_INFO = "basic.auth.user.info"
SCHEMA_REGISTRY_USER_INFO = "schema.registry.basic.auth.user.info"
AUTO_REGISTER_SCHEMAS = "auto.register.schemas"
USE_LATEST_VERSION = "use.latest.version"
LATEST_COMPATIBILITY_STRICT = "latest.compatibility.strict"
NORMALIZE_SCHEMAS = "normalize.schemas"
KEY_SUBJECT_NAME_STRATEGY = "key.subject.name.strategy"
VALUE_SUBJECT_NAME_STRATEGY = "value.subject.name.strategy"
MAX_SCHEMAS_PER_SUBJECT = "max.schemas.per.subject"
SCHEMAS_CACHE_CONFIG = "schemas.cache.config"
CONNECT_META_DATA = "connect.meta.data"
ENHANCED_AVRO_SCHEMA_SUPPORT = "enhanced.avro.schema.support"
HTTP_CONNECT_TIMEOUT_MS = "http.connect.timeout.ms"
HTTP_READ_TIMEOUT_MS = "http.read.timeout.ms"
MAX_RETRIES = "max.retries"
RETRIES_WAIT_MS = "retries.wait.ms"
RETRIES_MAX_WAIT_MS = "retries.max.wait.ms"

_TOPIC_NAME_STRATEGY = "io.confluent.kafka.serializers.subject.TopicNameStrategy"


class CredentialsSource(enum.Enum):
    URL = "URL"
    USER_INFO = "USER_INFO"


def registry_config_def() -> ConfigDef:
    group = "Schema Registry"
    config_def = (
        ConfigDef()
        .define(
            SCHEMA_REGISTRY_URL,
            ConfigType.LIST,
            NO_DEFAULT,
            None,
            Importance.HIGH,
            "Comma-separated list of URLs for Schema Registry instances that can be used to register or look up "
            "schemas. Each is tried in turn when the one before fails.",
            group=group,
        )
        .define(
            BASIC_AUTH_CREDENTIALS_SOURCE,
            ConfigType.STRING,
            "URL",
            ValidString.in_("URL", "USER_INFO", "SASL_INHERIT"),
            Importance.MEDIUM,
            "Where the basic authentication credentials come from: URL (user:password@ in the URL) or USER_INFO "
            "(basic.auth.user.info). SASL_INHERIT is not supported.",
            group=group,
        )
        .define(
            BASIC_AUTH_USER_INFO,
            ConfigType.PASSWORD,
            "",
            None,
            Importance.MEDIUM,
            "The user:password for basic authentication when basic.auth.credentials.source is USER_INFO.",
            group=group,
        )
        .define(
            SCHEMA_REGISTRY_USER_INFO,
            ConfigType.PASSWORD,
            "",
            None,
            Importance.MEDIUM,
            "Deprecated name of basic.auth.user.info.",
            group=group,
        )
        .define(
            AUTO_REGISTER_SCHEMAS,
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.MEDIUM,
            "Register the schema of values written under the subject when it is not registered yet.",
            group=group,
        )
        .define(
            USE_LATEST_VERSION,
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.LOW,
            "Write with the latest registered version of the subject's schema (only with auto.register.schemas=false).",
            group=group,
        )
        .define(
            LATEST_COMPATIBILITY_STRICT,
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "With use.latest.version: check that the latest version is compatible with the schema of the data "
            "(asked of the registry) and fail otherwise.",
            group=group,
        )
        .define(
            NORMALIZE_SCHEMAS,
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.LOW,
            "Ask the registry to normalize schemas when registering and looking them up.",
            group=group,
        )
        .define(
            KEY_SUBJECT_NAME_STRATEGY,
            ConfigType.STRING,
            _TOPIC_NAME_STRATEGY,
            None,
            Importance.MEDIUM,
            "How the subject of a key schema is named: TopicNameStrategy, RecordNameStrategy or "
            "TopicRecordNameStrategy (Confluent's class names or the simple names).",
            group=group,
        )
        .define(
            VALUE_SUBJECT_NAME_STRATEGY,
            ConfigType.STRING,
            _TOPIC_NAME_STRATEGY,
            None,
            Importance.MEDIUM,
            "How the subject of a value schema is named, as key.subject.name.strategy.",
            group=group,
        )
        .define(
            MAX_SCHEMAS_PER_SUBJECT,
            ConfigType.INT,
            1000,
            Range.at_least(1),
            Importance.LOW,
            "Maximum number of schemas the registry client caches.",
            group=group,
        )
        .define(
            SCHEMAS_CACHE_CONFIG,
            ConfigType.INT,
            1000,
            Range.at_least(1),
            Importance.LOW,
            "Size of the converter's caches of converted schemas (by Connect schema and by schema id).",
            group=group,
        )
        .define(
            CONNECT_META_DATA,
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "Write Connect's schema name, version, doc, parameters and default into the Avro schema "
            "(connect.* properties), and read them back.",
            group=group,
        )
        .define(
            ENHANCED_AVRO_SCHEMA_SUPPORT,
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.LOW,
            "Keep Avro enums as enums and union member names as full names when writing.",
            group=group,
        )
        .define(
            HTTP_CONNECT_TIMEOUT_MS,
            ConfigType.INT,
            60000,
            Range.at_least(1),
            Importance.LOW,
            "Timeout of connecting to the registry.",
            group=group,
        )
        .define(
            HTTP_READ_TIMEOUT_MS,
            ConfigType.INT,
            60000,
            Range.at_least(1),
            Importance.LOW,
            "Timeout of one request to the registry.",
            group=group,
        )
        .define(
            "schema.registry.ssl.truststore.location",
            ConfigType.STRING,
            "",
            None,
            Importance.MEDIUM,
            "Trust store (PEM or PKCS12; JKS must be converted) of the CAs the registry's certificate is checked "
            "against; empty: the system's and certifi's CAs.",
            group=group,
        )
        .define(
            "schema.registry.ssl.truststore.password",
            ConfigType.PASSWORD,
            "",
            None,
            Importance.MEDIUM,
            "Password of a PKCS12 trust store.",
            group=group,
        )
        .define(
            "schema.registry.ssl.truststore.type",
            ConfigType.STRING,
            "",
            None,
            Importance.LOW,
            "PEM or PKCS12; empty: told from the file.",
            group=group,
        )
        .define(
            "schema.registry.ssl.keystore.location",
            ConfigType.STRING,
            "",
            None,
            Importance.MEDIUM,
            "Key store (PEM or PKCS12) with this client's key and certificate, for registries that require them.",
            group=group,
        )
        .define(
            "schema.registry.ssl.keystore.password",
            ConfigType.PASSWORD,
            "",
            None,
            Importance.MEDIUM,
            "Password of a PKCS12 key store.",
            group=group,
        )
        .define(
            "schema.registry.ssl.keystore.type",
            ConfigType.STRING,
            "",
            None,
            Importance.LOW,
            "PEM or PKCS12; empty: told from the file.",
            group=group,
        )
        .define(
            "schema.registry.ssl.key.password",
            ConfigType.PASSWORD,
            "",
            None,
            Importance.MEDIUM,
            "Password of the private key in a PEM key store.",
            group=group,
        )
        .define(
            "schema.registry.ssl.endpoint.identification.algorithm",
            ConfigType.STRING,
            "https",
            None,
            Importance.LOW,
            "https: check the registry's host name against its certificate; empty: do not (the certificate "
            "is still verified against the trust store).",
            group=group,
        )
        .define(
            MAX_RETRIES,
            ConfigType.INT,
            3,
            Range.at_least(0),
            Importance.LOW,
            "Retries of a registry request that failed to connect or got a retriable status (408, 429, 5xx), "
            "per URL, before the next URL is tried. The task's errors.retry.timeout retries on top of these.",
            group=group,
        )
        .define(
            RETRIES_WAIT_MS,
            ConfigType.INT,
            1000,
            Range.at_least(0),
            Importance.LOW,
            "Initial back-off between retries of a registry request (doubling, with jitter).",
            group=group,
        )
        .define(
            RETRIES_MAX_WAIT_MS,
            ConfigType.INT,
            20000,
            Range.at_least(0),
            Importance.LOW,
            "Maximum back-off between retries of a registry request.",
            group=group,
        )
    )
    return define_bearer_keys(config_def, group)


@dataclass(frozen=True)
class RegistrySettings:
    urls: tuple[str, ...]
    user_info: str | None
    bearer: BearerAuth | None
    auto_register: bool
    use_latest_version: bool
    latest_compatibility_strict: bool
    normalize: bool
    subject_strategy: SubjectNameStrategy
    client_cache_size: int
    schemas_cache_size: int
    connect_meta_data: bool
    enhanced_schema_support: bool
    timeout_s: float
    max_retries: int
    retries_wait_ms: int
    retries_max_wait_ms: int

    @classmethod
    def parse(cls, configs: Mapping[str, Any], is_key: bool) -> RegistrySettings:
        """ConfigError for a missing URL, an unknown strategy or unsupported credentials."""
        values = registry_config_def().parse(configs)
        urls = tuple(u.strip() for u in values[SCHEMA_REGISTRY_URL] if u.strip())
        if not urls:
            raise ConfigError(f'Missing required configuration "{SCHEMA_REGISTRY_URL}" which has no default value.')
        bearer = _bearer(configs, values, urls)
        source = values[BASIC_AUTH_CREDENTIALS_SOURCE]
        if source == "SASL_INHERIT":
            raise ConfigError(f"{BASIC_AUTH_CREDENTIALS_SOURCE}=SASL_INHERIT is not supported; use USER_INFO or URL")
        user_info = None
        if source == CredentialsSource.USER_INFO.value:
            secret: Password = values[BASIC_AUTH_USER_INFO]
            if not secret.value:
                secret = values[SCHEMA_REGISTRY_USER_INFO]
            if ":" not in secret.value:
                raise ConfigError(
                    f"{BASIC_AUTH_USER_INFO} must be user:password when {BASIC_AUTH_CREDENTIALS_SOURCE}=USER_INFO"
                )
            user_info = secret.value
        strategy_key = KEY_SUBJECT_NAME_STRATEGY if is_key else VALUE_SUBJECT_NAME_STRATEGY
        return cls(
            urls=urls,
            user_info=user_info,
            bearer=bearer,
            auto_register=values[AUTO_REGISTER_SCHEMAS],
            use_latest_version=values[USE_LATEST_VERSION],
            latest_compatibility_strict=values[LATEST_COMPATIBILITY_STRICT],
            normalize=values[NORMALIZE_SCHEMAS],
            subject_strategy=SubjectNameStrategy.named(strategy_key, values[strategy_key]),
            client_cache_size=values[MAX_SCHEMAS_PER_SUBJECT],
            schemas_cache_size=values[SCHEMAS_CACHE_CONFIG],
            connect_meta_data=values[CONNECT_META_DATA],
            enhanced_schema_support=values[ENHANCED_AVRO_SCHEMA_SUPPORT],
            timeout_s=max(values[HTTP_CONNECT_TIMEOUT_MS], values[HTTP_READ_TIMEOUT_MS]) / 1000,
            max_retries=values[MAX_RETRIES],
            retries_wait_ms=values[RETRIES_WAIT_MS],
            retries_max_wait_ms=values[RETRIES_MAX_WAIT_MS],
        )


def _bearer(configs: Mapping[str, Any], values: Mapping[str, Any], urls: tuple[str, ...]) -> BearerAuth | None:
    """Bearer authentication, alone: Confluent's `RestService` refuses a basic and a bearer credentials source
    set together; credentials in a URL would be sent as basic authentication and override the token."""
    bearer = BearerAuth.parse(values)
    if bearer is None:
        return None
    if str(configs.get(BASIC_AUTH_CREDENTIALS_SOURCE) or "").strip():
        raise ConfigError(
            f"Only one of '{BASIC_AUTH_CREDENTIALS_SOURCE}' and '{BEARER_CREDENTIALS_SOURCE}' may be specified"
        )
    if any(urlsplit(url).username or urlsplit(url).password for url in urls):
        raise ConfigError(
            f"{SCHEMA_REGISTRY_URL} holds user:password@ credentials, which cannot be combined with "
            f"{BEARER_CREDENTIALS_SOURCE}"
        )
    return bearer
