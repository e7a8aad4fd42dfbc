"""`rest.wire` answers the same bytes as FastAPI's encoding of the `rest.schemas` entity it stands for."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from connect.runtime.domain import info as domain
from connect.runtime.domain.states import ConnectorTaskId, State
from rest import schemas, wire

# Text JSON encoders are known to differ on: non-ASCII, control characters, quotes and backslashes.
AWKWARD = 'naïve "quoted" \\ back\tslash\n\x01 ✓ \u2028 😀'
CONFIG = {"connector.class": "FileStreamSource", "topic": AWKWARD, "": ""}
RUNNING = domain.InstanceStatus(State.RUNNING, "worker:8083")
FAILED = domain.InstanceStatus(State.FAILED, "worker:8083", f"Traceback: {AWKWARD}")
EMPTY_TRACE = domain.InstanceStatus(State.PAUSED, "worker:8083", "")
INFO = domain.ConnectorInfo(
    "src", CONFIG, [ConnectorTaskId("src", 0), ConnectorTaskId("src", 1)], domain.ConnectorType.SOURCE
)
STATE = domain.ConnectorStateInfo(
    "src",
    FAILED,
    # Out of order on purpose: the answer lists tasks by id.
    [domain.TaskStateInfo(2, EMPTY_TRACE), domain.TaskStateInfo(0, RUNNING), domain.TaskStateInfo(1, FAILED)],
    domain.ConnectorType.SINK,
)


def fastapi_bytes(annotation: Any, value: Any) -> bytes:
    """What FastAPI answers for a return value of a handler with this response model."""
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    return adapter.dump_json(adapter.validate_python(value), by_alias=True)


def wire_bytes(content: Any) -> bytes:
    return bytes(wire.JsonAnswer(content).body)


@pytest.mark.parametrize("info", [INFO, domain.ConnectorInfo("x", {}, [], domain.ConnectorType.UNKNOWN)])
def test_connector_info(info: domain.ConnectorInfo) -> None:
    expected = fastapi_bytes(schemas.ConnectorInfo, schemas.ConnectorInfo.of(info))
    assert wire_bytes(wire.connector_info(info)) == expected


def test_task_info() -> None:
    task = domain.TaskInfo(ConnectorTaskId("src", 3), CONFIG)
    assert wire_bytes(wire.task_info(task)) == fastapi_bytes(schemas.TaskInfo, schemas.TaskInfo.of(task))


@pytest.mark.parametrize("status", [RUNNING, FAILED, EMPTY_TRACE])
def test_task_state(status: domain.InstanceStatus) -> None:
    task = domain.TaskStateInfo(7, status)
    assert wire_bytes(wire.task_state(task)) == fastapi_bytes(schemas.TaskState, schemas.TaskState.of(task))


def test_connector_state_info() -> None:
    expected = fastapi_bytes(schemas.ConnectorStateInfo, schemas.ConnectorStateInfo.of(STATE))
    assert wire_bytes(wire.connector_state_info(STATE)) == expected


@pytest.mark.parametrize(("status", "info"), [(STATE, INFO), (STATE, None), (None, INFO), (None, None)])
def test_connector_expansions(status: domain.ConnectorStateInfo | None, info: domain.ConnectorInfo | None) -> None:
    model = schemas.ConnectorExpansions(
        status=schemas.ConnectorStateInfo.of(status) if status is not None else None,
        info=schemas.ConnectorInfo.of(info) if info is not None else None,
    )
    annotation = dict[str, schemas.ConnectorExpansions]
    expected = fastapi_bytes(annotation, {"src": model})
    assert wire_bytes({"src": wire.connector_expansions(status, info)}) == expected


def test_plain_maps_and_lists() -> None:
    assert wire_bytes(dict(CONFIG)) == fastapi_bytes(dict[str, str], dict(CONFIG))
    assert wire_bytes(["b", AWKWARD]) == fastapi_bytes(list[str], ["b", AWKWARD])
