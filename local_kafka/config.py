"""What each local Kafka node is told: ports, server.properties, log4j2 config, the cluster id.

Every node is combined broker+controller on 127.0.0.1 with a static voter set, so one node and three
nodes differ only in the numbers below. Pure functions: nothing here touches the filesystem.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from local_kafka.security import SECURE_PORT_OFFSET, SecurityFiles, broker_settings

NODE_COUNTS = (1, 3)
DEFAULT_PORT = 9092
# Controllers sit well above the broker block so `--port N` for brokers stays a contiguous N, N+1, N+2.
CONTROLLER_PORT_OFFSET = 100


@dataclass(frozen=True)
class NodeSpec:
    node_id: int
    broker_port: int
    controller_port: int
    directory: Path

    @property
    def broker_address(self) -> str:
        return f"127.0.0.1:{self.broker_port}"

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def logs_dir(self) -> Path:
        return self.directory / "logs"


def layout(directory: Path, nodes: int, port: int, controller_port: int | None = None) -> list[NodeSpec]:
    """Node i (1-based) listens on `port + i - 1` and its controller on `controller_port + i - 1`."""
    if nodes not in NODE_COUNTS:
        raise ValueError(f"nodes must be one of {NODE_COUNTS}, not {nodes}")
    first_controller = controller_port if controller_port is not None else port + CONTROLLER_PORT_OFFSET
    brokers = set(range(port, port + nodes))
    controllers = set(range(first_controller, first_controller + nodes))
    if brokers & controllers:
        raise ValueError(f"broker ports {sorted(brokers)} overlap controller ports {sorted(controllers)}")
    if max(brokers | controllers) > 65535 or min(brokers | controllers) < 1:
        raise ValueError("ports must lie in 1..65535")
    return [NodeSpec(i, port + i - 1, first_controller + i - 1, directory / f"node-{i}") for i in range(1, nodes + 1)]


def bootstrap_servers(specs: list[NodeSpec]) -> str:
    return ",".join(spec.broker_address for spec in specs)


def new_cluster_id() -> str:
    """A Kafka cluster id: a random UUID in Kafka's url-safe base64 form (what `kafka-storage random-uuid` prints).

    Like Kafka's Uuid.randomUuid(), never one starting with "-": the storage tool would read it as an option.
    """
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode("ascii")
        if not cluster_id.startswith("-"):
            return cluster_id


def server_properties(
    spec: NodeSpec,
    specs: list[NodeSpec],
    security: SecurityFiles | None = None,
    overrides: Mapping[str, str | int] | None = None,
) -> str:
    """`security`: add the secured listener (`security.py`) beside the PLAINTEXT one; `overrides`: broker
    settings that replace or add to these."""
    nodes = len(specs)
    # Internal topics get RF = node count so transactions and group offsets survive a node loss on
    # three nodes; their min ISR of 2 still leaves room for one node down.
    internal_min_isr = min(2, nodes)
    voters = ",".join(f"{s.node_id}@127.0.0.1:{s.controller_port}" for s in specs)
    settings: dict[str, str | int] = {
        "process.roles": "broker,controller",
        "node.id": spec.node_id,
        "controller.quorum.voters": voters,
        "listeners": f"PLAINTEXT://127.0.0.1:{spec.broker_port},CONTROLLER://127.0.0.1:{spec.controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{spec.broker_port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        **(_secured_listener(spec, security) if security is not None else {}),
        "log.dirs": str(spec.data_dir),
        "num.partitions": 1,
        "default.replication.factor": nodes,
        # Broker-wide 1 so topics a test creates with RF < 3 still take acks=all; replication tests
        # set min.insync.replicas on their own topics.
        "min.insync.replicas": 1,
        "auto.create.topics.enable": "true",
        "delete.topic.enable": "true",
        "offsets.topic.replication.factor": nodes,
        # 50 partitions (the default) make the first group join slow on a 2-core machine.
        "offsets.topic.num.partitions": 10,
        "transaction.state.log.replication.factor": nodes,
        "transaction.state.log.min.isr": internal_min_isr,
        "transaction.state.log.num.partitions": 10,
        "share.coordinator.state.topic.replication.factor": nodes,
        "share.coordinator.state.topic.min.isr": internal_min_isr,
        "group.initial.rebalance.delay.ms": 0,
        # Failover tests run workers with session timeouts of a few seconds; the default floor is 6 s.
        "group.min.session.timeout.ms": 1000,
        "num.network.threads": 2,
        "num.io.threads": 2,
        "num.recovery.threads.per.data.dir": 1,
        "log.cleaner.threads": 1,
        **(overrides or {}),
    }
    lines = [f"# Written by `kconnect kafka start` for node {spec.node_id} of {nodes}; rewritten on every start."]
    lines += [f"{key}={value}" for key, value in settings.items()]
    return "\n".join(lines) + "\n"


def secure_port(spec: NodeSpec) -> int:
    return spec.broker_port + SECURE_PORT_OFFSET


def _secured_listener(spec: NodeSpec, security: SecurityFiles) -> dict[str, str | int]:
    protocol = security.protocol
    address = f"{protocol}://127.0.0.1:{secure_port(spec)}"
    return {
        "listeners": f"PLAINTEXT://127.0.0.1:{spec.broker_port},{address},CONTROLLER://127.0.0.1:{spec.controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{spec.broker_port},{address}",
        "listener.security.protocol.map": f"PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,{protocol}:{protocol}",
        **broker_settings(security, secure_port(spec)),
    }


def log4j2_properties(spec: NodeSpec) -> str:
    """Everything to `logs/server.log`; state-change and request logs are noise for a local broker."""
    log_file = spec.logs_dir / "server.log"
    return (
        "status = warn\n"
        "appender.file.type = File\n"
        "appender.file.name = file\n"
        f"appender.file.fileName = {log_file}\n"
        "appender.file.layout.type = PatternLayout\n"
        "appender.file.layout.pattern = [%d] %p %m (%c)%n\n"
        "rootLogger.level = INFO\n"
        "rootLogger.appenderRef.file.ref = file\n"
        "logger.state.name = state.change.logger\n"
        "logger.state.level = WARN\n"
        "logger.request.name = kafka.request.logger\n"
        "logger.request.level = WARN\n"
    )
