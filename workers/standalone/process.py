"""`StandaloneWorker`: one standalone worker process's parts, wired and started in Kafka's order.

Order matters: the REST listener is bound first (its advertised `host:port` is the worker id that every
status shows), then the stores, the Worker and the herder are built, the real REST app is attached, the
connectors from the command line are created, and only then does `/health` say healthy. `stop` undoes it
in reverse: REST first (no new requests), then the herder (tasks stop and commit their final offsets),
then the offset store's last flush.

Used by `kconnect standalone` (cli.py), by `make run` (workers/demo.py) and by tests, on the caller's
thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

from connect.api.errors import ConfigError, ConnectError
from connect.runtime.config.worker_config import OFFSET_STORAGE_FILE, WorkerConfig
from connect.runtime.domain.info import RestartRequest
from connect.runtime.domain.states import State
from connect.runtime.kafka import KafkaClients
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.offsets import OffsetStore
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import FileOffsetStore, MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from rest.app import create_app
from rest.audit.trail import AuditTrail
from rest.listeners.server import RestServer
from rest.ui import single_worker
from workers.common.audit import audit_trail
from workers.common.deferred_app import DeferredApp
from workers.common.heap import settle_heap
from workers.common.logs import redact_logs
from workers.common.properties import ConnectorFile
from workers.common.rest_listener import start_rest_listener, worker_id_of
from workers.standalone.herder import StandaloneHerder

log = logging.getLogger(__name__)


class StandaloneWorker:
    """A standalone worker: REST server, Worker and StandaloneHerder over memory/file stores."""

    def __init__(
        self,
        config: WorkerConfig,
        *,
        registry: PluginRegistry | None = None,
        require_offsets_file: bool = True,
    ) -> None:
        if require_offsets_file and config.offset_storage_file is None:
            raise _missing(OFFSET_STORAGE_FILE)
        self.config = config
        self._registry = registry
        self.rest: RestServer | None = None
        self.herder: StandaloneHerder | None = None
        self.offset_store: OffsetStore | None = None
        self.status_store: MemoryStatusStore | None = None
        self._undo_log_redaction: Callable[[], None] | None = None
        self._audit: AuditTrail | None = None

    @classmethod
    def from_props(
        cls, props: Mapping[str, str], *, registry: PluginRegistry | None = None, require_offsets_file: bool = True
    ) -> StandaloneWorker:
        """Parse `props` as a worker config (ConfigError names the first bad key)."""
        return cls(WorkerConfig.from_props(props), registry=registry, require_offsets_file=require_offsets_file)

    @property
    def url(self) -> str:
        """The REST URL a client on this machine can use (the advertised one, e.g. `http://host:8083/`)."""
        if self.rest is None:
            raise RuntimeError("The worker is not started")
        return self.rest.advertised_url

    @property
    def local_url(self) -> str:
        """`scheme://127.0.0.1:<port>` of the first listener: reachable whatever the advertised host is."""
        if self.rest is None:
            raise RuntimeError("The worker is not started")
        return self.rest.local_url()

    def start(
        self, connectors: Sequence[ConnectorFile] = (), *, on_listening: Callable[[str], None] | None = None
    ) -> None:
        """Bind REST, start the worker, create `connectors`; raises (after cleaning up) if any step fails.
        `on_listening` gets the worker id as soon as the listener is bound (the logs show it from then on)."""
        rest, deferred = start_rest_listener(self.config)
        self.rest = rest
        if on_listening is not None:
            on_listening(worker_id_of(rest.advertised_url))
        try:
            self._start_worker(deferred, rest)
            assert self.herder is not None
            for connector in connectors:
                self._create(self.herder, connector)
            self.herder.mark_ready()
        except BaseException:
            self.stop()
            raise
        settle_heap()
        log.info("Kafka Connect standalone worker started: REST API at %s", self.url)

    @staticmethod
    def _create(herder: StandaloneHerder, connector: ConnectorFile) -> None:
        """Create a connector from the command line; as in Kafka, one that fails to start stops the process."""
        herder.put_connector_config(
            connector.name, connector.config, allow_replace=False, initial_state=connector.initial_state
        )
        status = herder.connector_status(connector.name).connector
        if status.state is State.FAILED:
            first_line = (status.trace or "").strip().splitlines()[-1:] or ["no trace"]
            raise ConnectError(f"Failed to start connector {connector.name}: {first_line[0]}")

    def _start_worker(self, deferred: DeferredApp, rest: RestServer) -> None:
        worker_id = worker_id_of(rest.advertised_url)
        registry = self._registry or PluginRegistry.discover()
        self.status_store = MemoryStatusStore(worker_id)
        path = self.config.offset_storage_file
        # The Worker starts the store (loading the offsets file) and stops it (final flush).
        self.offset_store = FileOffsetStore(path) if path else MemoryOffsetStore()
        clients = KafkaClients.from_worker_config(self.config)
        loggers = LoggerLevels()
        worker = Worker(
            worker_id=worker_id,
            config=self.config,
            plugins=registry,
            offset_store=self.offset_store,
            status=self.status_store,
            clients=clients,
        )
        self.herder = StandaloneHerder(
            worker,
            registry,
            self.status_store,
            self.offset_store,
            clients,
            worker_id,
            config=self.config,
            loggers=loggers,
        )
        herder = self.herder
        # A value from a config provider with a TTL changed: restart the connector and its tasks with it.
        worker.secrets.on_change(lambda name: herder.restart_connector(RestartRequest(name, include_tasks=True)))
        self._undo_log_redaction = redact_logs(worker.secrets.redactor)
        self.herder.start()
        cluster = single_worker(worker_id, rest.advertised_url)
        self._audit = audit_trail(self.config, clients, worker_id)
        app = create_app(self.herder, loggers=loggers, metrics=worker.metric_groups, cluster=cluster, audit=self._audit)
        deferred.attach(app)

    def stop(self) -> None:
        """Stop REST, then every task and connector (final offset commits), the worker and its offset store."""
        log.info("Kafka Connect stopping")
        if self.rest is not None:
            self.rest.stop()
        if self._audit is not None:
            self._audit.close()
        if self.herder is not None:
            try:
                self.herder.stop()
            except Exception:
                log.exception("Error while stopping the herder")
        if self._undo_log_redaction is not None:
            self._undo_log_redaction()
        log.info("Kafka Connect stopped")


def _missing(key: str) -> ConfigError:
    return ConfigError(f'Missing required configuration "{key}" which has no default value.')
