"""LocalKafka: start, stop and inspect a 1- or 3-node KRaft cluster of `java` processes on 127.0.0.1.

State lives in one directory: `cluster.json` (the layout and cluster id chosen at the first start) and
`node-<i>/` with server.properties, log4j2.properties, data/, logs/ and kafka.pid. A later start with
the same layout reuses the data; a different layout wipes it and formats again. Called from the CLI
and from test fixtures, always on the caller's thread.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from local_kafka import config, network, processes
from local_kafka.errors import LocalKafkaError, require_tool
from local_kafka.jars import classpath, default_version, fetch_jars
from local_kafka.security import (
    SECURITY_MODES,
    SecurityFiles,
    client_settings,
    prepare,
    scram_format_arguments,
)

log = logging.getLogger(__name__)

DEFAULT_DIR = Path(".kconnect/kafka")
STATE_FILE = "cluster.json"


@dataclass(frozen=True)
class NodeStatus:
    node_id: int
    address: str
    pid: int | None

    @property
    def running(self) -> bool:
        return self.pid is not None


@dataclass(frozen=True)
class ClusterStatus:
    bootstrap_servers: str
    nodes: list[NodeStatus]

    @property
    def running(self) -> bool:
        """True only when every node runs; a partial cluster is reported as not running."""
        return bool(self.nodes) and all(node.running for node in self.nodes)


class LocalKafka:
    """A local Apache Kafka cluster owned by one state directory.

    `start()` is idempotent for an already running cluster with the same layout. `stop()` signals only
    processes whose command line proves they were started for this directory.
    """

    def __init__(
        self,
        directory: Path | str = DEFAULT_DIR,
        nodes: int = 1,
        port: int = config.DEFAULT_PORT,
        *,
        controller_port: int | None = None,
        version: str | None = None,
        cache: Path | None = None,
        heap: str = "512m",
        start_timeout: float = 90.0,
        security: str | None = None,
        broker_settings: Mapping[str, str | int] | None = None,
        jvm_options: Sequence[str] = (),
    ) -> None:
        """`security`: `ssl` or `sasl_ssl` adds a secured listener to each node (`security.py`);
        `broker_settings`: server.properties keys that replace or add to the defaults (`config.py`);
        `jvm_options`: added to every JVM's command line (the brokers' and the storage tool's)."""
        if security is not None and security not in SECURITY_MODES:
            raise ValueError(f"security must be one of {', '.join(SECURITY_MODES)}, not {security}")
        self.security = security
        self.directory = Path(directory).resolve()
        self.version = version or default_version()
        self.cache = cache
        self.heap = heap
        self.jvm_options = tuple(jvm_options)
        self.start_timeout = start_timeout
        self.broker_settings = dict(broker_settings or {})
        self.specs = config.layout(self.directory, nodes, port, controller_port)

    @property
    def bootstrap_servers(self) -> str:
        return config.bootstrap_servers(self.specs)

    @property
    def security_files(self) -> SecurityFiles | None:
        return SecurityFiles(self.directory / "security", self.security) if self.security else None

    @property
    def secure_bootstrap_servers(self) -> str | None:
        """The secured listeners' addresses (None without `security`)."""
        if not self.security:
            return None
        return ",".join(f"127.0.0.1:{config.secure_port(spec)}" for spec in self.specs)

    def _recorded(self) -> dict[str, object] | None:
        try:
            recorded: dict[str, object] = json.loads((self.directory / STATE_FILE).read_text())
        except (OSError, ValueError):
            return None
        return recorded

    def _layout_record(self) -> dict[str, object]:
        return {
            "nodes": len(self.specs),
            "port": self.specs[0].broker_port,
            "controller_port": self.specs[0].controller_port,
            "version": self.version,
            "security": self.security,
        }

    @classmethod
    def from_directory(cls, directory: Path | str = DEFAULT_DIR) -> LocalKafka | None:
        """The cluster as recorded by its last start in `directory`, or None if never started there."""
        probe = Path(directory).resolve() / STATE_FILE
        try:
            record = json.loads(probe.read_text())
            return cls(
                directory,
                int(record["nodes"]),
                int(record["port"]),
                controller_port=int(record["controller_port"]),
                version=str(record["version"]),
                security=str(record["security"]) if record.get("security") else None,
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def status(self) -> ClusterStatus:
        nodes = [NodeStatus(s.node_id, s.broker_address, processes.running_pid(s.directory)) for s in self.specs]
        return ClusterStatus(self.bootstrap_servers, nodes)

    def start(self) -> str:
        """Format storage if needed, start the nodes, wait until all are brokers; return the bootstrap servers.

        Returns at once if the same layout already runs; raises LocalKafkaError with the log tail when
        the nodes do not come up within `start_timeout` (they are stopped again).
        """
        java = require_tool("java")
        previous = LocalKafka.from_directory(self.directory) or self
        current = previous.status()
        if any(node.running for node in current.nodes):
            if current.running and previous._layout_record() == self._layout_record():
                return self.bootstrap_servers
            raise LocalKafkaError(
                f"{self.directory} already runs a cluster ({len(previous.specs)} node(s) at "
                f"{previous.bootstrap_servers}): run `kconnect kafka stop --dir {self.directory}` first"
            )
        libs = fetch_jars(self.version, self.cache)
        secure_ports = [config.secure_port(s) for s in self.specs] if self.security else []
        network.check_ports_free([*(p for s in self.specs for p in (s.broker_port, s.controller_port)), *secure_ports])
        log.info("starting Apache Kafka %s: %d node(s), state in %s", self.version, len(self.specs), self.directory)
        self._prepare_storage(java)
        for spec in self.specs:
            self._spawn_node(java, spec)
        log.info("jars in %s, logs in %s/node-*/logs", libs, self.directory)
        try:
            self._wait_until_ready()
        except LocalKafkaError:
            self.stop()
            raise
        return self.bootstrap_servers

    def stop(self, timeout: float = 30.0) -> list[int]:
        """End this directory's nodes (SIGTERM, SIGKILL after `timeout`); returns the pids ended."""
        pids = {s.directory: pid for s in self.specs if (pid := processes.read_pid(s.directory)) is not None}
        ended = processes.terminate(pids, timeout)
        for spec in self.specs:
            processes.clear_pid(spec.directory)
        return ended

    def kill_node(self, node_id: int) -> int:
        """SIGKILL one node, as a crash would end it (no controlled shutdown); returns its pid."""
        spec = self._spec(node_id)
        pid = processes.read_pid(spec.directory)
        if pid is None or not processes.is_ours(pid, spec.directory):
            raise LocalKafkaError(f"node {node_id} of {self.directory} is not running")
        processes.kill_now(pid)
        processes.clear_pid(spec.directory)
        return pid

    def start_node(self, node_id: int) -> None:
        """Start one node of a cluster started before (its storage is formatted); wait until all are brokers."""
        spec = self._spec(node_id)
        if processes.running_pid(spec.directory) is not None:
            raise LocalKafkaError(f"node {node_id} of {self.directory} already runs")
        network.check_ports_free([spec.broker_port, spec.controller_port])
        self._spawn_node(require_tool("java"), spec)
        self._wait_until_ready()

    def _spawn_node(self, java: str, spec: config.NodeSpec) -> None:
        command = self._java_command(java, spec, "kafka.Kafka", str(spec.directory / "server.properties"))
        processes.write_pid(spec.directory, processes.spawn_detached(command, spec.logs_dir / "stdout.log"))

    def _spec(self, node_id: int) -> config.NodeSpec:
        for spec in self.specs:
            if spec.node_id == node_id:
                return spec
        raise LocalKafkaError(f"no node {node_id} in {self.directory} (nodes: {[s.node_id for s in self.specs]})")

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of every node's server and stdout logs, for error messages."""
        parts = []
        for spec in self.specs:
            for name in ("server.log", "stdout.log"):
                path = spec.logs_dir / name
                if path.exists():
                    tail = path.read_text(errors="replace").splitlines()[-lines:]
                    parts.append(f"--- {path} (last {len(tail)} lines)\n" + "\n".join(tail))
        return "\n".join(parts) if parts else f"(no logs under {self.directory})"

    def _prepare_storage(self, java: str) -> None:
        recorded = self._recorded()
        layout = self._layout_record()
        if recorded is None or any(recorded.get(k) != v for k, v in layout.items()):
            # Storage formatted for another voter set or version would refuse to start; begin afresh.
            for path in self.directory.glob("node-*"):
                log.warning("layout changed: removing %s", path)
                shutil.rmtree(path)
            recorded = {**layout, "cluster_id": config.new_cluster_id()}
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / STATE_FILE).write_text(json.dumps(recorded, indent=2) + "\n")
        keytool = Path(java).resolve().parent / "keytool"
        files = (
            prepare(self.directory / "security", self.security, str(keytool) if keytool.exists() else None)
            if self.security
            else None
        )
        if files is not None:
            client = client_settings(files, self.secure_bootstrap_servers or "")
            files.client_properties.write_text("".join(f"{k}={v}\n" for k, v in client.items()))
            files.client_properties.chmod(0o600)
        for spec in self.specs:
            spec.logs_dir.mkdir(parents=True, exist_ok=True)
            (spec.directory / "server.properties").write_text(
                config.server_properties(spec, self.specs, files, self.broker_settings)
            )
            (spec.directory / "log4j2.properties").write_text(config.log4j2_properties(spec))

        def format_args(spec: config.NodeSpec) -> list[str]:
            scram = scram_format_arguments(files) if files is not None else []
            properties = str(spec.directory / "server.properties")
            return ["format", "-t", str(recorded["cluster_id"]), "-c", properties, *scram]

        unformatted = [s for s in self.specs if not (s.data_dir / "meta.properties").exists()]
        formatters = [
            subprocess.Popen(
                self._java_command(java, spec, "kafka.tools.StorageTool", *format_args(spec), heap="256m"),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for spec in unformatted
        ]
        outputs = [formatter.communicate()[0] for formatter in formatters]
        for spec, formatter, output in zip(unformatted, formatters, outputs, strict=True):
            if formatter.returncode != 0:
                raise LocalKafkaError(f"formatting {spec.data_dir} failed:\n{output.strip()}")

    def _java_command(
        self, java: str, spec: config.NodeSpec, main_class: str, *args: str, heap: str | None = None
    ) -> list[str]:
        return [
            java,
            f"-Xmx{heap or self.heap}",
            # Serial GC: no parallel GC threads competing with the tests on a 2-core machine.
            "-XX:+UseSerialGC",
            "-XX:+ExitOnOutOfMemoryError",
            "-XX:-UsePerfData",
            f"-XX:ErrorFile={spec.logs_dir / 'hs_err_%p.log'}",
            "-Djava.awt.headless=true",
            f"-Dkafka.logs.dir={spec.logs_dir}",
            f"-Dlog4j2.configurationFile={spec.directory / 'log4j2.properties'}",
            *self.jvm_options,
            processes.marker_argument(spec.directory),
            "-cp",
            classpath(self.version, self.cache),
            main_class,
            *args,
        ]

    def _wait_until_ready(self) -> None:
        def check_alive() -> None:
            dead = [s.node_id for s in self.specs if processes.running_pid(s.directory) is None]
            if dead:
                raise LocalKafkaError(f"node(s) {dead} exited during start-up:\n{self.log_tail()}")

        try:
            network.wait_for_brokers(
                self.bootstrap_servers, {s.node_id for s in self.specs}, self.start_timeout, check_alive
            )
        except TimeoutError as exc:
            raise LocalKafkaError(f"{exc}:\n{self.log_tail()}") from exc
