"""Connections to the database: `connection.url` to a SQLAlchemy engine, and connecting with retries.

Confluent's JDBC connectors take `jdbc:` URLs; the same configs work here because the URLs of the
databases we ship drivers for are translated (PostgreSQL → psycopg 3, MariaDB/MySQL → PyMySQL,
SQLite → the standard library's sqlite3). Any other database works through a SQLAlchemy URL, given
as is. `connection.user`/`connection.password` win over credentials in the URL, as in Confluent's
connectors, where they are handed to the driver over the URL's.

Each engine sets its sessions' time zone to `db.timezone` where the database has one (PostgreSQL,
MariaDB), so that timestamps without a zone mean the same wall-clock time to the database and to us.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import zoneinfo
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote

from connect.api import ConfigError, ConnectError, Password, RetriableError

try:
    import sqlalchemy as sa
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("The SQL connectors need SQLAlchemy and drivers: pip install 'kconnect[sql]'") from exc

log = logging.getLogger(__name__)

# The driver used when a URL names none: the ones `kconnect[sql]` installs, not SQLAlchemy's defaults.
_DEFAULT_DRIVERS = {"postgresql": "psycopg", "mysql": "pymysql", "mariadb": "pymysql"}
# JDBC URL parameters with a meaning here; others are dropped with a warning (they are JVM driver settings).
_JDBC_PARAMS = {
    "postgresql": {"sslmode": "sslmode", "ApplicationName": "application_name", "connectTimeout": "connect_timeout"},
    "mysql": {"connectTimeout": "connect_timeout"},
}


@dataclass(frozen=True)
class ConnectionSettings:
    """The connection keys both connectors share, parsed."""

    url: str
    user: str | None = None
    password: Password | None = None
    attempts: int = 3
    backoff_ms: int = 10_000
    timezone: str = "UTC"


def sqlalchemy_url(settings: ConnectionSettings) -> sa.URL:
    """The SQLAlchemy URL for `connection.url` and the credentials; ConfigError when it cannot be used."""
    raw = settings.url.strip()
    url = _from_jdbc(raw) if raw.startswith("jdbc:") else _parse_sqlalchemy(raw)
    backend, _, driver = url.drivername.partition("+")
    if not driver and backend in _DEFAULT_DRIVERS:
        url = url.set(drivername=f"{backend}+{_DEFAULT_DRIVERS[backend]}")
    if settings.user:
        url = url.set(username=settings.user)
    if settings.password is not None and settings.password.value:
        url = url.set(password=settings.password.value)
    return url


def _parse_sqlalchemy(raw: str) -> sa.URL:
    try:
        return sa.make_url(raw)
    except sa.exc.ArgumentError as exc:
        raise ConfigError(f"Not a JDBC or SQLAlchemy URL: {exc}") from None


def _from_jdbc(raw: str) -> sa.URL:
    rest = raw[len("jdbc:") :]
    subprotocol, _, target = rest.partition(":")
    if subprotocol == "sqlite":
        return _sqlite_url(target)
    if subprotocol in ("postgresql", "mysql", "mariadb"):
        return _server_url(subprotocol, target)
    raise ConfigError(
        f"JDBC URLs of '{subprotocol}' are not translated; give a SQLAlchemy URL "
        "(dialect+driver://user:password@host:port/database) instead"
    )


def _sqlite_url(target: str) -> sa.URL:
    # jdbc:sqlite:/abs/path.db, jdbc:sqlite:relative.db, jdbc:sqlite::memory: (the xerial driver's forms).
    path = target.split("?", 1)[0]
    if path in ("", ":memory:"):
        return sa.make_url("sqlite://")
    return sa.URL.create("sqlite", database=path)


def _server_url(subprotocol: str, target: str) -> sa.URL:
    # jdbc:postgresql://host:port/db?user=u&password=p, jdbc:postgresql:db (localhost), jdbc:mariadb://h/db
    body, _, query = target.partition("?")
    if not body.startswith("//"):
        host, port, database = "localhost", None, body
    else:
        authority, _, database = body[2:].partition("/")
        if "," in authority:
            raise ConfigError("JDBC URLs with several hosts are not supported; name one host")
        host, port = _host_port(authority)
    params = dict(parse_qsl(query, keep_blank_values=True))
    # MySQL Connector/J also accepts ';'-free "&"-joined properties after the path, handled by parse_qsl.
    user = params.pop("user", None)
    password = params.pop("password", None)
    known = _JDBC_PARAMS["postgresql" if subprotocol == "postgresql" else "mysql"]
    kept = {known[k]: v for k, v in params.items() if k in known}
    dropped = sorted(set(params) - set(known))
    if dropped:
        log.warning("JDBC URL parameters without an equivalent here are ignored: %s", ", ".join(dropped))
    if subprotocol != "postgresql":
        kept.setdefault("charset", "utf8mb4")
    backend = "postgresql" if subprotocol == "postgresql" else subprotocol
    return sa.URL.create(
        f"{backend}+{_DEFAULT_DRIVERS[backend]}",
        username=unquote(user) if user else None,
        password=password,
        host=host,
        port=port,
        database=unquote(database) or None,
        query=kept,
    )


def _host_port(authority: str) -> tuple[str, int | None]:
    if authority.startswith("["):  # [ipv6]:port
        host, _, port = authority[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = authority.rpartition(":") if authority.count(":") == 1 else (authority, "", "")
    if port and not port.isdigit():
        raise ConfigError(f"Not a port number in the JDBC URL: {port}")
    return host or "localhost", int(port) if port else None


def db_timezone(name: str) -> dt.tzinfo:
    """The zone of `db.timezone`; ConfigError for an unknown name."""
    if name.upper() in ("UTC", "Z", "GMT"):
        return dt.UTC
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"Invalid value {name} for configuration db.timezone: not a known time zone") from None


def create_engine(settings: ConnectionSettings) -> sa.Engine:
    """An engine whose connections are checked before use and set to `db.timezone`."""
    url = sqlalchemy_url(settings)
    options: dict[str, Any] = {"pool_pre_ping": True}
    if url.get_backend_name() != "sqlite":
        options["pool_size"] = 2
    try:
        engine = sa.create_engine(url, **options)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as exc:
        raise ConfigError(f"Cannot use {url.render_as_string(hide_password=True)}: {exc}") from None
    _set_session_timezone(engine, settings.timezone)
    return engine


def _set_session_timezone(engine: sa.Engine, timezone: str) -> None:
    backend = engine.dialect.name
    if backend == "postgresql":
        statement = "SET TIME ZONE '" + timezone.replace("'", "''") + "'"
    elif backend in ("mysql", "mariadb"):
        # Named zones need the server's time zone tables, which a fresh server lacks: use the UTC offset then.
        statement = "SET time_zone = '" + _mysql_zone(timezone) + "'"
    else:
        return

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(statement)
        finally:
            cursor.close()
        if backend == "postgresql":
            dbapi_connection.commit()


def _mysql_zone(timezone: str) -> str:
    offset = dt.datetime.now(db_timezone(timezone)).utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def describe_error(exc: BaseException) -> str:
    """The database's own message, without SQLAlchemy's statement dump and background link."""
    if isinstance(exc, sa.exc.DBAPIError) and exc.orig is not None:
        return f"{type(exc.orig).__name__}: {exc.orig}".strip()
    return f"{type(exc).__name__}: {exc}"


def connect_with_retries(engine: sa.Engine, settings: ConnectionSettings, stop: threading.Event) -> sa.Connection:
    """A connection, trying `connection.attempts` times `connection.backoff.ms` apart (Confluent's
    CachedConnectionProvider); RetriableError with the database's reason when every attempt failed."""
    attempts = max(1, settings.attempts)
    for attempt in range(1, attempts + 1):
        try:
            return engine.connect()
        except sa.exc.DBAPIError as exc:
            reason = describe_error(exc)
            if attempt == attempts:
                raise RetriableError(f"Cannot connect to the database after {attempts} attempt(s): {reason}") from exc
            log.info("Connection attempt %d of %d failed, retrying: %s", attempt, attempts, reason)
            if stop.wait(settings.backoff_ms / 1000):
                break
    raise ConnectError("Stopped while connecting to the database")


def check_reachable(settings: ConnectionSettings) -> str | None:
    """None when a connection can be made now (one attempt), else why not: for config validation."""
    try:
        engine = create_engine(settings)
    except ConfigError as exc:
        return str(exc)
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
        return None
    except sa.exc.DBAPIError as exc:
        return f"Cannot connect to the database: {describe_error(exc)}"
    finally:
        engine.dispose()


def close_quietly(connection: sa.Connection) -> None:
    """Close a connection that may be broken already (the database went away): nothing is left to save."""
    try:
        connection.close()
    except sa.exc.SQLAlchemyError:
        log.debug("Closing a broken connection failed", exc_info=True)
