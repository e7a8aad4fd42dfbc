"""Config providers (KIP-297): `${alias:path:key}` placeholders in worker and connector configs, resolved
by providers the worker declares with Kafka's keys and class names."""

from connect.runtime.config.providers.builtin import (
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
)
from connect.runtime.config.providers.config_transformer import (
    ConfigTransformer,
    Resolved,
    has_placeholder,
    resolve_with_own_providers,
)
from connect.runtime.config.providers.loader import CONFIG_PROVIDERS, ENTRY_POINT_GROUP, ConfigProviders
from connect.runtime.config.providers.redaction import (
    HIDDEN,
    RedactingFilter,
    SecretRedactor,
)

__all__ = [
    "CONFIG_PROVIDERS",
    "ENTRY_POINT_GROUP",
    "HIDDEN",
    "ConfigProviders",
    "ConfigTransformer",
    "DirectoryConfigProvider",
    "EnvVarConfigProvider",
    "FileConfigProvider",
    "RedactingFilter",
    "Resolved",
    "SecretRedactor",
    "has_placeholder",
    "resolve_with_own_providers",
]
