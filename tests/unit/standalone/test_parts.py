"""The small parts of standalone mode: sink offset parsing, success texts, config state, commit lookup, the
REST app placeholder served while the worker starts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from connect.api.records import TopicPartition
from connect.runtime.domain.errors import BadRequestError
from connect.runtime.domain.info import ConnectorOffset
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.stores.memory_config_store import MemoryConfigStore
from workers.common.deferred_app import DeferredApp
from workers.herding.offset_admin import parse_sink_offsets, success_message
from workers.herding.server_info import git_head

# -- sink offsets --------------------------------------------------------------------------------


def _sink(partition: dict[str, Any], offset: dict[str, Any] | None) -> ConnectorOffset:
    return ConnectorOffset(partition, offset)


def test_sink_offsets_accept_numbers_and_numeric_strings() -> None:
    parsed = parse_sink_offsets(
        [
            _sink({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 10}),
            _sink({"kafka_topic": "t", "kafka_partition": "1"}, {"kafka_offset": "20"}),
            _sink({"kafka_topic": "t", "kafka_partition": 2}, None),
        ]
    )
    assert parsed == {TopicPartition("t", 0): 10, TopicPartition("t", 1): 20, TopicPartition("t", 2): None}


@pytest.mark.parametrize(
    ("partition", "offset", "message"),
    [
        ({"kafka_topic": "t"}, {"kafka_offset": 1}, "must contain the keys 'kafka_topic' and 'kafka_partition'"),
        ({"kafka_topic": None, "kafka_partition": 0}, {"kafka_offset": 1}, "Kafka topic names must be valid strings"),
        ({"kafka_topic": "t", "kafka_partition": None}, {"kafka_offset": 1}, "Kafka partitions must be valid numbers"),
        ({"kafka_topic": "t", "kafka_partition": "x"}, {"kafka_offset": 1}, "Kafka partition value .*'x'"),
        ({"kafka_topic": "t", "kafka_partition": 1.5}, {"kafka_offset": 1}, "Kafka partition value .*'1.5'"),
        ({"kafka_topic": "t", "kafka_partition": 0}, {"offset": 1}, "should either be null or contain the key"),
        ({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": "ten"}, "Kafka offset value .*'ten'"),
        ({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": True}, "Kafka offset value"),
    ],
)
def test_malformed_sink_offsets_are_bad_requests(
    partition: dict[str, Any], offset: dict[str, Any], message: str
) -> None:
    with pytest.raises(BadRequestError, match=message):
        parse_sink_offsets([_sink(partition, offset)])


def test_success_messages_are_kafkas() -> None:
    assert success_message(True, reset=False) == "The offsets for this connector have been altered successfully"
    assert success_message(True, reset=True) == "The offsets for this connector have been reset successfully"
    assert success_message(False, reset=True) == (
        "The Connect framework-managed offsets for this connector have been reset successfully. However, if this "
        "connector manages offsets externally, they will need to be manually reset in the system that the "
        "connector uses."
    )


# -- config state --------------------------------------------------------------------------------


def test_new_connector_defaults_to_started_and_update_keeps_target_state() -> None:
    state = MemoryConfigStore()
    state.put_connector_config("c", {"name": "c"}, None)
    assert state.target_state("c") is TargetState.STARTED
    state.put_target_state("c", TargetState.PAUSED)
    state.put_connector_config("c", {"name": "c", "x": "1"}, None)
    assert state.target_state("c") is TargetState.PAUSED
    assert state.connector_config("c") == {"name": "c", "x": "1"}


def test_task_configs_change_when_their_content_or_the_connector_config_changes() -> None:
    state = MemoryConfigStore()
    state.put_connector_config("c", {"name": "c"}, None)
    tasks = [{"a": "1"}, {"a": "2"}]
    assert state.task_configs_changed("c", tasks)
    state.put_task_configs("c", tasks)
    assert state.tasks("c") == [ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)]
    assert not state.task_configs_changed("c", [{"a": "1"}, {"a": "2"}])
    assert state.task_configs_changed("c", [{"a": "1"}])
    state.put_connector_config("c", {"name": "c", "new": "setting"}, None)
    assert state.task_configs_changed("c", tasks), "a changed connector config restarts the tasks"


def test_task_config_of_an_unknown_task_is_none() -> None:
    state = MemoryConfigStore()
    state.put_connector_config("c", {"name": "c"}, None)
    assert state.task_config(ConnectorTaskId("c", 0)) is None
    assert state.task_config(ConnectorTaskId("other", 0)) is None


# -- commit id -----------------------------------------------------------------------------------


def test_git_head_follows_a_branch_ref_or_packed_refs(tmp_path: Path) -> None:
    git = tmp_path / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text("abc123\n")
    assert git_head(tmp_path) == "abc123"
    (git / "refs" / "heads" / "main").unlink()
    (git / "packed-refs").write_text("# pack-refs with: peeled\ndef456 refs/heads/main\n")
    assert git_head(tmp_path) == "def456"
    (git / "HEAD").write_text("0123abcd\n")
    assert git_head(tmp_path) == "0123abcd"


def test_git_head_is_none_without_a_repository(tmp_path: Path) -> None:
    assert git_head(tmp_path) is None


# -- REST placeholder while starting -------------------------------------------------------------


async def _get(app: Any, path: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://worker") as client:
        return await client.get(path)


def test_deferred_app_answers_starting_until_attached_then_forwards() -> None:
    deferred = DeferredApp()
    health = asyncio.run(_get(deferred, "/health"))
    assert health.status_code == 503
    assert health.json() == {"status": "starting", "message": "Worker is still starting up."}
    other = asyncio.run(_get(deferred, "/connectors"))
    assert other.status_code == 503
    assert other.json() == {"error_code": 503, "message": "Worker is still starting up."}

    async def real(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"real"})

    deferred.attach(real)
    assert asyncio.run(_get(deferred, "/connectors")).text == "real"
