"""REST: /admin/loggers, and the LoggerLevels behind it."""

from __future__ import annotations

import logging

import pytest

from connect.api.errors import NotFoundError
from connect.runtime.logs.levels import LoggerLevels, level_name, parse_level
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import RestHarness, isolated_root_logger, rest_harness


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def rest(clock: Clock) -> RestHarness:
    return rest_harness(clock=clock)


def test_lists_root_and_explicitly_set_loggers(rest: RestHarness) -> None:
    manager = rest.root_logger.manager
    manager.getLogger("kconnect.quiet")  # no level of its own: not listed
    manager.getLogger("kconnect.loud").setLevel(logging.DEBUG)
    response = rest.client.get("/admin/loggers")
    assert response.status_code == 200
    assert response.json() == {
        "kconnect.loud": {"level": "DEBUG", "last_modified": None},
        "root": {"level": "WARN", "last_modified": None},
    }


def test_get_logger_answers_its_effective_level(rest: RestHarness) -> None:
    rest.root_logger.manager.getLogger("kconnect.child")
    response = rest.client.get("/admin/loggers/kconnect.child")
    assert response.status_code == 200
    assert response.json() == {"level": "WARN", "last_modified": None}
    assert rest.client.get("/admin/loggers/ROOT").json() == {"level": "WARN", "last_modified": None}


def test_unknown_logger_is_404(rest: RestHarness) -> None:
    response = rest.client.get("/admin/loggers/never.created")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "Logger never.created not found."}


def test_set_level_applies_to_descendants_and_records_the_time(rest: RestHarness, clock: Clock) -> None:
    manager = rest.root_logger.manager
    child = manager.getLogger("app.db.pool")
    manager.getLogger("app.dbx")  # shares a prefix but is not a descendant
    response = rest.client.put("/admin/loggers/app.db", json={"level": "debug"})
    assert response.status_code == 200
    assert response.json() == ["app.db", "app.db.pool"]
    assert child.getEffectiveLevel() == logging.DEBUG
    assert manager.getLogger("app.dbx").getEffectiveLevel() == logging.WARNING
    expected = {"level": "DEBUG", "last_modified": 1_700_000_000_000}
    assert rest.client.get("/admin/loggers/app.db.pool").json() == expected
    assert rest.client.get("/admin/loggers").json()["app.db"] == expected


def test_setting_the_same_level_again_keeps_last_modified(rest: RestHarness, clock: Clock) -> None:
    assert rest.client.put("/admin/loggers/app", json={"level": "INFO"}).status_code == 200
    clock.now += 60
    assert rest.client.put("/admin/loggers/app", json={"level": "INFO"}).json() == ["app"]
    assert rest.client.get("/admin/loggers/app").json()["last_modified"] == 1_700_000_000_000


def test_set_root_level_sets_every_logger(rest: RestHarness) -> None:
    rest.root_logger.manager.getLogger("a.b").setLevel(logging.ERROR)
    response = rest.client.put("/admin/loggers/root", json={"level": "TRACE"})
    assert response.status_code == 200
    assert response.json() == ["a.b", "root"]
    assert rest.root_logger.level == 5
    assert rest.client.get("/admin/loggers").json()["a.b"]["level"] == "TRACE"


def test_invalid_level_is_404_with_kafkas_text(rest: RestHarness) -> None:
    response = rest.client.put("/admin/loggers/app", json={"level": "LOUD"})
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "invalid log level 'LOUD'."}


def test_missing_level_is_400(rest: RestHarness) -> None:
    response = rest.client.put("/admin/loggers/app", json={"lvl": "INFO"})
    assert response.status_code == 400
    assert response.json() == {"error_code": 400, "message": "Desired 'level' parameter was not specified in request."}


def test_cluster_scope_goes_to_the_herder_and_answers_204(rest: RestHarness, clock: Clock) -> None:
    rest.herder.loggers = rest.loggers  # the cluster applies it on this worker too

    response = rest.client.put("/admin/loggers/app?scope=CLUSTER", json={"level": "error"})

    assert response.status_code == 204
    assert response.content == b""
    assert rest.herder.cluster_logger_levels == [("app", "error")]
    assert rest.client.get("/admin/loggers/app").json() == {"level": "ERROR", "last_modified": 1_700_000_000_000}


def test_cluster_scope_sets_nothing_here_itself(rest: RestHarness) -> None:
    # Without the cluster (here: the fake herder) applying it, this worker's level does not change.
    assert rest.client.put("/admin/loggers/app?scope=cluster", json={"level": "ERROR"}).status_code == 204
    assert rest.herder.cluster_logger_levels == [("app", "ERROR")]
    assert rest.client.get("/admin/loggers/app").status_code == 404


def test_cluster_scope_checks_the_level_before_anything_is_written(rest: RestHarness) -> None:
    response = rest.client.put("/admin/loggers/app?scope=cluster", json={"level": "LOUD"})
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "invalid log level 'LOUD'."}
    missing = rest.client.put("/admin/loggers/app?scope=cluster", json={})
    assert missing.status_code == 400
    assert rest.herder.cluster_logger_levels == []


class _SingleWorkerHerder(FakeHerder):
    """A herder without cluster-wide logger levels."""

    set_cluster_logger_level = None  # type: ignore[assignment]


def test_cluster_scope_with_a_herder_of_one_worker_sets_the_level_here() -> None:
    rest = rest_harness(_SingleWorkerHerder())

    response = rest.client.put("/admin/loggers/app?scope=cluster", json={"level": "ERROR"})

    assert response.status_code == 204
    assert rest.client.get("/admin/loggers/app").json()["level"] == "ERROR"


def test_unknown_scope_means_worker(rest: RestHarness) -> None:
    response = rest.client.put("/admin/loggers/app?scope=galaxy", json={"level": "ERROR"})
    assert response.status_code == 200
    assert response.json() == ["app"]
    assert rest.herder.cluster_logger_levels == []


@pytest.mark.parametrize(
    ("text", "level", "shown"),
    [("warn", 30, "WARN"), ("WARNING", 30, "WARN"), ("fatal", 50, "FATAL"), ("OFF", 60, "OFF"), ("all", 1, "ALL")],
)
def test_level_names_follow_log4j(text: str, level: int, shown: str) -> None:
    assert parse_level(text) == level
    assert level_name(level) == shown


def test_logger_levels_default_to_the_process_hierarchy() -> None:
    assert LoggerLevels().level("root").level == level_name(logging.getLogger().level)


def test_parse_level_rejects_unknown() -> None:
    with pytest.raises(NotFoundError, match="invalid log level 'verbose'"):
        parse_level("verbose")


def test_set_level_creates_the_named_logger() -> None:
    root = isolated_root_logger()
    loggers = LoggerLevels(root)
    assert loggers.set_level("brand.new", "DEBUG") == ["brand.new"]
    assert loggers.level("brand.new").level == "DEBUG"
    assert "brand.new" in root.manager.loggerDict
