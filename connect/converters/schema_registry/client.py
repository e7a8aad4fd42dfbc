"""The converters' view of a Schema Registry: confluent-kafka's `SchemaRegistryClient` (its HTTP client
with the several URLs, basic and bearer auth, retries and caches) behind a few calls that raise kconnect's
errors.

A registry (or OAuth token endpoint) that cannot be reached, or answers 408, 429 or 5xx after the client's
retries, raises `RegistryUnavailableError` (a `RetriableError`: the task's `errors.retry.timeout` applies,
then its `errors.tolerance`); any other refusal, a token endpoint's included, is a `DataError` carrying the
server's own message. No message ever holds credentials: only the host and path of the URLs are named, and
passwords, tokens and client secrets are replaced by `[hidden]`.

One instance per converter, used by its task's thread only. confluent-kafka's Schema Registry modules
are imported here, on first use, so a worker that never configures such a converter never loads them.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import ssl
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from connect.api.errors import ConfigError, DataError, RetriableError
from connect.converters.schema_registry.registry_tls import ENDPOINT_IDENTIFICATION
from connect.converters.schema_registry.settings import RegistrySettings

EXTRA_HINT = "the Schema Registry converters need kconnect's `registry` extra: pip install 'kconnect[registry]'"
_RETRIABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
SCHEMA_NOT_FOUND = 40403
SUBJECT_NOT_FOUND = 40401
VERSION_NOT_FOUND = 40402


class RegistryUnavailableError(RetriableError):
    """The registry could not be reached or is failing; the same call may work later."""


class RegistryRefusedError(DataError):
    """The registry answered with an error (unknown id or subject, incompatible schema, denied, ...)."""

    def __init__(self, message: str, status: int, error_code: int) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code


@dataclass(frozen=True)
class Fetched:
    """A registered schema's text and the schemas it imports: (import name, subject, version) each."""

    schema_str: str
    references: tuple[tuple[str, str, int], ...]


@dataclass(frozen=True)
class Registered:
    schema_id: int
    schema_str: str
    version: int | None


def import_optional(module: str) -> Any:
    """A module of the `registry` extra; ConfigError naming the extra when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"{EXTRA_HINT} ({exc})") from exc


def _references(schema: Any) -> tuple[tuple[str, str, int], ...]:
    return tuple((str(r.name), str(r.subject), int(r.version)) for r in (schema.references or ()))


def _user_info(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.username}:{parts.password}" if parts.password else None


def _shown_urls(urls: tuple[str, ...]) -> str:
    """The URLs without any user:password@ in them."""
    shown = []
    for url in urls:
        parts = urlsplit(url)
        shown.append(f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}{parts.path}")
    return ", ".join(shown)


class _NoSuchError(Exception):
    """Stands for an error type the installed confluent-kafka does not have."""


def _ssl_context_of(transport: Any) -> Any:
    return getattr(getattr(transport, "_pool", None), "_ssl_context", None)


def _skip_host_name_check(client: Any) -> None:
    """Turn off the check of the registry's host name, keeping the check of its certificate chain.

    confluent-kafka's client has no setting for it (`ssl.ca.location=False` turns off all verification). Its
    REST client builds one `ssl.SSLContext` from the `ssl.*` settings (`verify`) and hands that object to its
    httpx session, whose transports open connections from it only when a request is sent: clearing
    `check_hostname` on it now applies to every connection. A client that keeps no such context, or whose
    session's transports use another one, is refused rather than left checking host names silently.
    """
    rest = getattr(client, "_rest_client", None)
    context = getattr(rest, "verify", None)
    session = getattr(rest, "session", None)
    transports = [getattr(session, "_transport", None), *(getattr(session, "_mounts", None) or {}).values()]
    used = [_ssl_context_of(transport) for transport in transports if transport is not None]
    if not isinstance(context, ssl.SSLContext) or not used or any(found is not context for found in used):
        version = import_optional("confluent_kafka").version()[0]
        raise ConfigError(
            f"{ENDPOINT_IDENTIFICATION} empty (no check of the registry's host name) is not supported with "
            f"confluent-kafka {version}: its Schema Registry client does not expose the TLS context its HTTP "
            f"session uses. Give the registry a certificate for the host name in schema.registry.url instead."
        )
    context.check_hostname = False  # verify_mode stays CERT_REQUIRED: the chain is still checked


class RegistryClient:
    def __init__(
        self, settings: RegistrySettings, tls: Mapping[str, str] | None = None, *, check_host_name: bool = True
    ) -> None:
        """`tls`: the client's TLS settings (`RegistryTls.client_conf`); `check_host_name` False: the registry's
        certificate need not name its host (`RegistryTls.check_host_name`)."""
        registry = import_optional("confluent_kafka.schema_registry")
        error_module = import_optional("confluent_kafka.schema_registry.error")
        self._schema_type = registry.Schema
        self._error_type: type[Exception] = error_module.SchemaRegistryError
        self._token_error_type: type[Exception] = getattr(error_module, "OAuthTokenError", _NoSuchError)
        self._shown = _shown_urls(settings.urls)
        bearer = settings.bearer
        self._issuer = _shown_urls((bearer.issuer_url,)) if bearer is not None and bearer.issuer_url else ""
        basic = [settings.user_info, *(_user_info(u) for u in settings.urls)]
        passwords = (
            *basic,
            # A server that echoes the Authorization header it refused would show basic credentials encoded.
            *(base64.b64encode(info.encode()).decode() for info in basic if info),
            (tls or {}).get("ssl.key.password"),
            *(urlsplit(u).password for u in settings.urls),
            *(bearer.secrets if bearer is not None else ()),
        )
        self._secrets = [secret for secret in passwords if secret]
        conf: dict[str, Any] = {
            "url": ",".join(settings.urls),
            "cache.capacity": settings.client_cache_size,
            "timeout": settings.timeout_s,
            "max.retries": settings.max_retries,
            "retries.wait.ms": settings.retries_wait_ms,
            "retries.max.wait.ms": settings.retries_max_wait_ms,
        }
        if settings.user_info is not None:
            conf["basic.auth.user.info"] = settings.user_info
        if bearer is not None:
            conf.update(bearer.client_conf())
        conf.update(tls or {})
        try:
            # `mock://` URLs give confluent-kafka's in-memory registry (the unit tests use it).
            self._client = registry.SchemaRegistryClient.new_client(conf)
        except (ValueError, TypeError, OSError) as exc:  # OSError: a TLS file the client could not load
            raise ConfigError(f"Invalid Schema Registry client settings: {self._scrubbed(str(exc))}") from None
        if not check_host_name:
            try:
                _skip_host_name_check(self._client)
            except ConfigError:
                self.close()
                raise
        self.normalize = settings.normalize

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._client.__exit__()

    def schema_by_id(self, schema_id: int, schema_type: str = "AVRO") -> str:
        with self._translated(f"the schema with id {schema_id}"):
            schema = self._client.get_schema(schema_id)
        if (schema.schema_type or "AVRO") != schema_type:
            raise DataError(f"The schema with id {schema_id} is a {schema.schema_type} schema, not {schema_type}")
        return str(schema.schema_str)

    def fetch_by_id(self, schema_id: int, schema_type: str, fmt: str | None = None) -> Fetched:
        """The schema with its references; `fmt` as the registry's `format` (`serialized`: a Protobuf schema as a
        base64 descriptor)."""
        with self._translated(f"the schema with id {schema_id}"):
            schema = self._client.get_schema(schema_id, fmt=fmt)
        if (schema.schema_type or "AVRO") != schema_type:
            raise DataError(f"The schema with id {schema_id} is a {schema.schema_type} schema, not {schema_type}")
        return Fetched(str(schema.schema_str), _references(schema))

    def fetch_version(self, subject: str, version: int, fmt: str | None = None) -> Fetched:
        """A schema a reference names, with its own references."""
        with self._translated(f"version {version} of subject {subject}"):
            found = self._client.get_version(subject, version, fmt=fmt)
        return Fetched(str(found.schema.schema_str), _references(found.schema))

    def register(self, subject: str, schema_str: str, schema_type: str = "AVRO") -> int:
        with self._translated(f"registering a schema under subject {subject}"):
            schema_id: int = self._client.register_schema(
                subject, self._schema_type(schema_str, schema_type), normalize_schemas=self.normalize
            )
        return schema_id

    def lookup(self, subject: str, schema_str: str, schema_type: str = "AVRO") -> Registered:
        """The id and version of `schema_str` under `subject`; RegistryRefusedError when not registered there."""
        with self._translated(f"looking up a schema under subject {subject}"):
            found = self._client.lookup_schema(
                subject, self._schema_type(schema_str, schema_type), normalize_schemas=self.normalize
            )
        return Registered(int(found.schema_id), schema_str, found.version)

    def version_of(self, subject: str, schema_str: str, schema_type: str = "AVRO") -> int | None:
        """The version of `schema_str` under `subject`, None when it is not registered there."""
        try:
            return self.lookup(subject, schema_str, schema_type).version
        except RegistryRefusedError as exc:
            if exc.status == 404:
                return None
            raise

    def latest(self, subject: str) -> Registered:
        with self._translated(f"the latest schema of subject {subject}"):
            found = self._client.get_latest_version(subject)
        return Registered(int(found.schema_id), str(found.schema.schema_str), found.version)

    def is_compatible(self, subject: str, schema_str: str, schema_type: str = "AVRO") -> bool:
        with self._translated(f"checking compatibility with subject {subject}"):
            return bool(self._client.test_compatibility(subject, self._schema_type(schema_str, schema_type)))

    @contextlib.contextmanager
    def _translated(self, what: str) -> Iterator[None]:
        try:
            yield
        except self._error_type as exc:
            status = int(getattr(exc, "http_status_code", -1) or -1)
            code = int(getattr(exc, "error_code", -1) or -1)
            message = self._scrubbed(str(getattr(exc, "error_message", exc)))
            text = f"Schema Registry ({self._shown}) refused {what}: {message} (HTTP {status}, error code {code})"
            if status in _RETRIABLE_STATUSES:
                raise RegistryUnavailableError(text) from None
            raise RegistryRefusedError(text, status, code) from None
        except (DataError, RetriableError):
            raise
        except self._token_error_type as exc:
            raise self._token_failure(what, exc) from None
        except Exception as exc:
            # The HTTP client's transport errors (connection refused, timeouts, TLS) after its retries.
            raise RegistryUnavailableError(
                f"Schema Registry ({self._shown}) could not be reached for {what}: "
                f"{type(exc).__name__}: {self._scrubbed(str(exc))}"
            ) from None

    def _token_failure(self, what: str, exc: Exception) -> Exception:
        """confluent-kafka's OAuthTokenError, raised from the token endpoint's answer (an OAuth error, a
        refusal) or from the HTTP client's failure to reach it (then retriable)."""
        cause = exc.__context__
        message = self._scrubbed(str(getattr(exc, "message", None) or exc))
        text = f"Schema Registry ({self._shown}): no OAuth token from {self._issuer} for {what}: {message}"
        if any(kind.__name__ in {"TransportError", "TimeoutException"} for kind in type(cause).__mro__):
            return RegistryUnavailableError(text)
        return RegistryRefusedError(text, 401, -1)

    def _scrubbed(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[hidden]")
        return text
