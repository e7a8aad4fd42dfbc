"""The SQL connectors' configs: Confluent's JDBC URLs and keys, and validation answered per key."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect.api import ConfigError, Password
from connect.runtime.plugins import PluginRegistry
from connectors.sql.connection import ConnectionSettings, sqlalchemy_url
from connectors.sql.sink_connector import SqlSinkConnector
from connectors.sql.source_connector import SqlSourceConnector


def _url(url: str, **settings: object) -> str:
    return sqlalchemy_url(ConnectionSettings(url, **settings)).render_as_string(hide_password=False)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("jdbc", "expected"),
    [
        (
            "jdbc:postgresql://db.example:5433/shop?user=app&password=s3cret",
            "postgresql+psycopg://app:s3cret@db.example:5433/shop",
        ),
        ("jdbc:postgresql://db.example/shop", "postgresql+psycopg://db.example/shop"),
        ("jdbc:postgresql:shop", "postgresql+psycopg://localhost/shop"),
        ("jdbc:postgresql://db/shop?sslmode=require&loggerLevel=OFF", "postgresql+psycopg://db/shop?sslmode=require"),
        ("jdbc:mariadb://db:3307/shop?user=app", "mariadb+pymysql://app@db:3307/shop?charset=utf8mb4"),
        ("jdbc:mysql://db/shop", "mysql+pymysql://db/shop?charset=utf8mb4"),
        ("jdbc:sqlite:/var/data/shop.db", "sqlite:////var/data/shop.db"),
        ("jdbc:sqlite:shop.db", "sqlite:///shop.db"),
        ("jdbc:sqlite::memory:", "sqlite://"),
        ("postgresql://app@db/shop", "postgresql+psycopg://app@db/shop"),
        ("mariadb+pymysql://app@db/shop", "mariadb+pymysql://app@db/shop"),
        ("sqlite:///relative.db", "sqlite:///relative.db"),
    ],
)
def test_jdbc_urls_become_sqlalchemy_urls_and_sqlalchemy_urls_stay(jdbc: str, expected: str) -> None:
    assert _url(jdbc) == expected


def test_connection_user_and_password_win_over_the_urls() -> None:
    url = _url("jdbc:postgresql://db/shop?user=old&password=old", user="app", password=Password("new"))
    assert url == "postgresql+psycopg://app:new@db/shop"


@pytest.mark.parametrize("url", ["jdbc:oracle:thin:@db:1521/x", "jdbc:postgresql://a,b/shop", "not a url"])
def test_urls_that_cannot_be_used_are_config_errors(url: str) -> None:
    with pytest.raises(ConfigError):
        _url(url)


def test_the_password_key_is_a_password() -> None:
    results = {
        r.name: r for r in SqlSinkConnector().validate({"connection.url": "sqlite://", "connection.password": "x"})
    }
    assert isinstance(results["connection.password"].value, Password)
    assert str(results["connection.password"].value) == "[hidden]"


def test_an_unreachable_database_is_an_error_on_connection_url_with_the_reason(tmp_path: Path) -> None:
    url = f"jdbc:sqlite:{tmp_path / 'missing-dir' / 'x.db'}"
    results = {r.name: r for r in SqlSinkConnector().validate({"connection.url": url})}
    assert results["connection.url"].error_messages == [
        "Cannot connect to the database: OperationalError: unable to open database file"
    ]
    assert all(not r.error_messages for name, r in results.items() if name != "connection.url")


def test_a_reachable_database_validates_clean(tmp_path: Path) -> None:
    props = {"connection.url": f"jdbc:sqlite:{tmp_path / 'x.db'}", "mode": "bulk", "topic.prefix": "t-"}
    assert all(not r.error_messages for r in SqlSourceConnector().validate(props))


@pytest.mark.parametrize(
    ("props", "key", "message"),
    [
        ({"topic.prefix": "p"}, "mode", "Query mode must be specified"),
        (
            {"mode": "bulk", "topic.prefix": "p", "table.whitelist": "a", "table.blacklist": "b"},
            "table.blacklist",
            "exclusive",
        ),
        (
            {"mode": "bulk", "topic.prefix": "p", "table.whitelist": "a", "table.include.list": "b"},
            "table.include.list",
            "cannot be combined",
        ),
        ({"mode": "bulk", "topic.prefix": "p", "table.exclude.list": "b"}, "table.exclude.list", "needs"),
        (
            {"mode": "bulk", "topic.prefix": "p", "query": "SELECT 1", "table.whitelist": "a"},
            "query",
            "table filtering",
        ),
        ({"mode": "timestamp", "topic.prefix": "p"}, "timestamp.column.name", "required"),
        ({"mode": "incrementing", "topic.prefix": "p", "query": "SELECT 1"}, "incrementing.column.name", "required"),
        ({"mode": "bulk", "topic.prefix": "bad prefix!"}, "topic.prefix", "ASCII"),
        ({"mode": "bulk"}, "topic.prefix", "Missing required configuration"),
    ],
)
def test_source_cross_field_rules_answer_on_the_key_concerned(
    props: dict[str, str], key: str, message: str, tmp_path: Path
) -> None:
    results = {
        r.name: r for r in SqlSourceConnector().validate({"connection.url": f"sqlite:///{tmp_path}/x.db", **props})
    }
    assert any(message in m for m in results[key].error_messages), results[key]


@pytest.mark.parametrize(
    ("props", "key", "message"),
    [
        ({"delete.enabled": "true"}, "delete.enabled", "Primary key mode must be 'record_key'"),
        ({"insert.mode": "upsert"}, "pk.mode", "needs a primary key"),
        ({"pk.mode": "kafka", "pk.fields": "a,b"}, "pk.fields", "three"),
    ],
)
def test_sink_cross_field_rules_answer_on_the_key_concerned(
    props: dict[str, str], key: str, message: str, tmp_path: Path
) -> None:
    results = {
        r.name: r for r in SqlSinkConnector().validate({"connection.url": f"sqlite:///{tmp_path}/x.db", **props})
    }
    assert any(message in m for m in results[key].error_messages), results[key]
    with pytest.raises(ConfigError, match=message):
        SqlSinkConnector().start({"connection.url": "sqlite://", **props})


def test_confluents_class_names_resolve_to_the_sql_connectors() -> None:
    registry = PluginRegistry.discover()
    assert registry.connector_class("io.confluent.connect.jdbc.JdbcSourceConnector") is SqlSourceConnector
    assert registry.connector_class("io.confluent.connect.jdbc.JdbcSinkConnector") is SqlSinkConnector


@pytest.mark.parametrize(
    ("mode", "support"),
    [
        ("incrementing", "SUPPORTED"),
        ("timestamp+incrementing", "SUPPORTED"),
        ("timestamp", "UNSUPPORTED"),
        ("bulk", "UNSUPPORTED"),
    ],
)
def test_exactly_once_support_follows_the_mode(mode: str, support: str) -> None:
    answer = SqlSourceConnector().exactly_once_support(
        {"connection.url": "sqlite://", "mode": mode, "topic.prefix": ""}
    )
    assert answer is not None and answer.value == support
