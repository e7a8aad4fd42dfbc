"""A mirror connector with `enabled=false` (dedicated mode's flows that run only for their heartbeats) touches
neither cluster and runs no task, as Java's: otherwise the unused direction of a one-way mirror would create
remote topics and checkpoints topics on the cluster it should leave alone."""

from __future__ import annotations

import pytest

from connect.api import SourceConnector
from connect.mirror import clusters
from connect.mirror.checkpoint_connector import MirrorCheckpointConnector
from connect.mirror.source_connector import MirrorSourceConnector

DISABLED_FLOW = {
    "name": "MirrorSourceConnector",
    "source.cluster.alias": "B",
    "target.cluster.alias": "A",
    "source.cluster.bootstrap.servers": "127.0.0.1:1",
    "target.cluster.bootstrap.servers": "127.0.0.1:1",
    "enabled": "false",
}


@pytest.mark.parametrize("connector_class", [MirrorSourceConnector, MirrorCheckpointConnector])
def test_a_disabled_connector_opens_no_client_and_runs_no_task(
    connector_class: type[SourceConnector], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_admin(*_: object) -> None:
        raise AssertionError("a disabled connector opened an admin client")

    monkeypatch.setattr(clusters, "admin", no_admin)
    connector = connector_class()
    connector.start(DISABLED_FLOW)
    try:
        assert connector.task_configs(4) == []
    finally:
        connector.stop()
