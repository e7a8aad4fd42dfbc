"""A session server registered with `release_after_last_user` stops right after the last test that needs it,
directly or through another fixture, and not before."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONFTEST = """
import pytest
from tests.fixtures.lifetimes import release_after_last_user

EVENTS = []

@pytest.fixture(scope="session")
def server(request):
    release_after_last_user(request, lambda: EVENTS.append("released"))
    yield "up"
    EVENTS.append("session end")

@pytest.fixture
def through(server):
    return server

@pytest.fixture(autouse=True)
def log_test(request):
    EVENTS.append(request.node.name)
"""

TESTS = """
from conftest import EVENTS

def test_a(server):
    pass

def test_b():
    pass

def test_c(through):
    pass

def test_d():
    pass

def test_e():
    assert EVENTS == ["test_a", "test_b", "test_c", "released", "test_d", "test_e"]
"""


def test_the_server_is_released_after_its_last_user_and_before_the_next_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("pytest_plugins = ['tests.fixtures.lifetimes']\n" + CONFTEST)
    pytester.makepyfile(test_order=TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


def test_a_deselected_last_user_moves_the_release_earlier(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("pytest_plugins = ['tests.fixtures.lifetimes']\n" + CONFTEST)
    pytester.makepyfile(
        test_order=TESTS.replace(
            '["test_a", "test_b", "test_c", "released", "test_d", "test_e"]',
            '["test_a", "released", "test_b", "test_d", "test_e"]',
        )
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "not test_c")
    result.assert_outcomes(passed=4, deselected=1)
