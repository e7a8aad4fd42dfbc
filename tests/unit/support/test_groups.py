"""The parallel suite's groups: the users of a costly server run together, on one xdist worker that starts the
server once and stops it after the last of them; the server groups run first."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
pytest_plugins = ["pytester"]

CONFTEST = """
import os
from pathlib import Path

import pytest
from tests.fixtures.lifetimes import release_after_last_user

pytest_plugins = ["tests.fixtures.groups", "tests.fixtures.lifetimes"]
EVENTS = Path(os.environ["EVENTS_FILE"])


def note(line):
    with EVENTS.open("a") as out:
        out.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {line}\\n")


@pytest.fixture(scope="session")
def local_postgres(request):
    note("postgres started")
    release_after_last_user(request, lambda: note("postgres released"))
    yield "postgres"


@pytest.fixture(scope="session")
def kafka_cluster3():
    yield "three brokers"
"""

TESTS = """
import time

import pytest

from conftest import note


def test_a():
    note("ran a")

def test_b(local_postgres):
    note("ran b")

def test_c():
    note("ran c")

def test_d(local_postgres):
    note("ran d")

def test_e(kafka_cluster3):
    note("ran e")

@pytest.mark.timed
def test_f():
    note("ran f")
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("EVENTS_FILE", str(pytester.path / "events.txt"))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # when this test itself runs in an xdist worker
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the xdist workers import tests.fixtures
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nmarkers =\n    timed: a time bound\n")
    pytester.makepyfile(
        test_suite=TESTS + "".join(f"\ndef test_filler_{n}():\n    time.sleep(0.05)\n" for n in range(20))
    )
    return pytester


def events(pytester: pytest.Pytester) -> list[str]:
    return (pytester.path / "events.txt").read_text().splitlines()


def test_the_server_groups_run_first_and_together_the_others_in_their_order(suite: pytest.Pytester) -> None:
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=26)
    ran = [line.split()[-1] for line in events(suite) if " ran " in line]
    # kafka3's group before sql's, then the timed group, then the rest as collected
    assert ran == ["e", "b", "d", "f", "a", "c"]
    assert events(suite).index("main postgres released") == events(suite).index("main ran d") + 1


def test_in_parallel_a_servers_users_share_one_worker_that_starts_it_once_and_releases_it_after_them(
    suite: pytest.Pytester,
) -> None:
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup")
    result.assert_outcomes(passed=26)
    lines = events(suite)
    started = [line for line in lines if line.endswith("postgres started")]
    assert len(started) == 1, lines
    worker = started[0].split()[0]
    users = [line for line in lines if line.endswith(("ran b", "ran d"))]
    assert users == [f"{worker} ran b", f"{worker} ran d"]
    mine = [line for line in lines if line.startswith(f"{worker} ")]
    assert mine.index(f"{worker} postgres released") == mine.index(f"{worker} ran d") + 1
