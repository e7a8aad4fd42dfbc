"""`MirrorMaker`: the flows of a dedicated MirrorMaker process (Java's `MirrorMaker`), each a distributed worker
of its target cluster, served from one REST listener.

Each flow's worker is an ordinary kconnect distributed worker with the config `MirrorMakerConfig.worker_config`
derives (group `<source>-mm2`, internal topics `mm2-{configs,offsets,status}.<source>.internal` on the target):
processes started with the same mm2.properties on several machines form one cluster per flow through the
same group membership every kconnect cluster uses, and share its tasks. Every worker writes its own config
log, so no request is forwarded to a leader (Java needs KIP-710's internal REST for that).

Connector configs are never posted by users: once a flow's worker has started, it writes the three
connectors' configs (`MirrorMakerConfig.connector_config`) to the flow's config log where they differ from
what is there. A changed mm2.properties is therefore applied by restarting the processes one by one: the
first restarted process writes the new configs and every worker of the flow follows them. (Java's
`MirrorHerder` writes them when a node becomes the group's leader, which a rolling restart also reaches.)
A refused config stops the process with the connector's reason, where Java only logs it.

It also answers the DR runbook's questions about its flows (`rest_app.FlowQueries`, `connect.mirror.mirror_client`):
status and lag, and a consumer group's translated offsets, read or written to the group on the target.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect.api.errors import ConnectError, NotFoundError
from connect.mirror import mirror_client
from connect.mirror.dedicated_config import CONNECTOR_CLASSES, Flow, MirrorMakerConfig
from connect.mirror.records import Checkpoint
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.info import WorkerHealth
from connect.runtime.plugins import PluginRegistry
from rest.listeners.for_worker import rest_server_for
from rest.listeners.server import RestServer
from workers.common.deferred_app import DeferredApp
from workers.common.health import STARTING
from workers.common.rest_listener import worker_id_of
from workers.distributed.process import DistributedWorker, MountedRest
from workers.distributed.settings import DistributedSettings
from workers.mirror.rest_app import flow_path, mirror_app

log = logging.getLogger(__name__)

DEFAULT_LISTENERS = "http://:8083"
RUNBOOK_TIMEOUT_S = 10.0
# Translating a group home asks the flow's source, which is down during a failover: the answer does not wait long.
HOME_TIMEOUT_S = 5.0
# The process's own REST keys, top-level in mm2.properties (Java's internal REST keys, KIP-710), with the TLS
# keys of HTTPS listeners (`listeners.https.ssl.*`) and REST extensions (authentication).
_REST_PREFIXES = (
    "listeners",
    "admin.listeners",
    "rest.",
    "access.control.",
    "response.http.headers.config",
)
# WorkerConfig's required keys, which the REST server does not use.
_REST_ONLY_DEFAULTS = {
    "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
    "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
}


class MirrorMaker:
    def __init__(
        self,
        config: MirrorMakerConfig,
        targets: Sequence[str] | None = None,
        *,
        registry: PluginRegistry | None = None,
    ) -> None:
        """Derive and check every flow's settings; ConfigError names the first bad key (nothing is started)."""
        self.config = config
        self.flows = config.flows(targets or None)
        self._settings = {flow: DistributedSettings.from_props(config.worker_config(flow)) for flow in self.flows}
        self._rest_config = WorkerConfig.from_props(
            {"listeners": DEFAULT_LISTENERS, **_REST_ONLY_DEFAULTS, **config.top_level(_REST_PREFIXES)}
        )
        self._registry = registry
        self.rest: RestServer | None = None
        self.workers: dict[Flow, DistributedWorker] = {}

    @property
    def url(self) -> str:
        if self.rest is None:
            raise RuntimeError("MirrorMaker is not started")
        return self.rest.advertised_url.rstrip("/")

    def flow_url(self, flow: Flow) -> str:
        return self.url + flow_path(flow)

    def start(self, *, on_listening: Callable[[str], None] | None = None) -> None:
        """Bind the REST listener, then start every flow's worker and configure its connectors; raises (after
        stopping what started) if any step fails."""
        apps = {flow: DeferredApp() for flow in self.flows}
        self.rest = rest_server_for(self._rest_config, mirror_app(apps, self._health, self), os.environ)
        self.rest.start()
        if on_listening is not None:
            on_listening(worker_id_of(self.url))
        try:
            registry = self._registry or PluginRegistry.discover()
            for flow in self.flows:
                self._start_flow(flow, registry, apps[flow])
        except BaseException:
            self.stop()
            raise
        flows = ", ".join(str(flow) for flow in self.flows)
        log.info("Kafka MirrorMaker started with %d flows (%s): REST API at %s", len(self.flows), flows, self.url)

    def _start_flow(self, flow: Flow, registry: PluginRegistry, app: DeferredApp) -> None:
        log.info("Starting the worker of %s", flow)
        worker = DistributedWorker(
            self._settings[flow], registry=registry, mounted=MountedRest(self.flow_url(flow), app)
        )
        worker.start()  # cleans up after itself if it fails
        self.workers[flow] = worker
        self._configure_connectors(flow, worker)

    def _configure_connectors(self, flow: Flow, worker: DistributedWorker) -> None:
        """Write the flow's three connector configs where the config log holds another (or none)."""
        herder = worker.herder
        assert herder is not None, "a started worker has its herder"
        for connector_class in CONNECTOR_CLASSES:
            wanted = self.config.connector_config(flow, connector_class)
            name = wanted["name"]
            try:
                current: dict[str, str] | None = herder.connector_config(name)
            except NotFoundError:
                current = None
            if current == wanted:
                log.info("The %s connector of %s is already configured so", name, flow)
                continue
            try:
                herder.put_connector_config(name, wanted, allow_replace=True)
            except ConnectError as exc:
                raise ConnectError(f"The {name} connector of {flow} was refused: {exc}") from exc
            log.info("%s connector configured for %s", name, flow)

    def _health(self, flow: Flow) -> WorkerHealth:
        worker = self.workers.get(flow)
        if worker is None or worker.herder is None:
            return STARTING
        return worker.herder.health()

    # -- the DR runbook's questions (rest_app.FlowQueries) --------------------------------------------------

    def translated_offsets(self, flow: Flow, group: str) -> list[Checkpoint]:
        props = self.config.connector_config(flow, "MirrorCheckpointConnector")
        checkpoints = mirror_client.translated_offsets(props, group, RUNBOOK_TIMEOUT_S)
        checkpoints += self._translated_home(flow, group)
        if not checkpoints:
            raise NotFoundError(
                f"No checkpoint of consumer group {group} from {flow.source} on {flow.target} yet (is the group "
                "taken by the flow's groups filter, and has it committed offsets on mirrored topics?)"
            )
        return checkpoints

    def _translated_home(self, flow: Flow, group: str) -> list[Checkpoint]:
        """When `flow` is the way home of a group that failed over (the opposite flow mirrors topics): the group's
        offsets on the opposite flow's remote topics, on this flow's source, translated back to the topics they
        came from. A source that does not answer soon (it is down during a failover) leaves them out."""
        opposite = self.config.connector_config(Flow(flow.target, flow.source), "MirrorSourceConnector")
        if not _mirrors_topics(opposite):
            return []
        try:
            return mirror_client.translated_back(opposite, group, HOME_TIMEOUT_S)
        except ConnectError as exc:
            log.warning(
                "Consumer group %s's offsets on %s not translated back to %s: %s", group, flow.source, flow.target, exc
            )
            return []

    def apply_translated_offsets(self, flow: Flow, group: str) -> list[Checkpoint]:
        checkpoints = self.translated_offsets(flow, group)
        props = self.config.connector_config(flow, "MirrorCheckpointConnector")
        mirror_client.apply_to_idle_group(props, group, checkpoints, RUNBOOK_TIMEOUT_S)
        log.info(
            "Wrote the translated offsets of consumer group %s to %s (%d partitions)",
            group,
            flow.target,
            len(checkpoints),
        )
        return checkpoints

    def status(self, flow: Flow) -> dict[str, Any]:
        """The flow's connectors and tasks, its lag per mirrored partition (those the source connector has
        stored an offset for) and the age of the newest heartbeat mirrored from the source."""
        props = self.config.connector_config(flow, "MirrorSourceConnector")
        worker = self.workers.get(flow)
        body: dict[str, Any] = {"enabled": _mirrors_topics(props)}
        if worker is None or worker.herder is None:
            return {**body, "state": "starting"}
        herder = worker.herder
        connectors: dict[str, Any] = {}
        for name in CONNECTOR_CLASSES:
            try:
                info = herder.connector_status(name)
            except NotFoundError:
                continue
            connectors[name] = {
                "state": info.connector.state.value,
                "tasks": [task.status.state.value for task in info.tasks],
            }
        next_offsets = {
            (str(o.partition["topic"]), int(o.partition["partition"])): int(o.offset["offset"]) + 1
            for o in herder.connector_offsets("MirrorSourceConnector")
            if o.offset is not None and "offset" in o.offset
        }
        lags = mirror_client.replication_lag(props, next_offsets, RUNBOOK_TIMEOUT_S)
        return {
            **body,
            "connectors": connectors,
            "partitions": [{"topic": x.topic, "partition": x.partition, "lag": x.records} for x in lags],
            "lag": sum(x.records for x in lags),
            "heartbeat_age_ms": mirror_client.heartbeat_age_ms(props, RUNBOOK_TIMEOUT_S),
            "checkpoint_age_ms": mirror_client.checkpoint_age_ms(props, RUNBOOK_TIMEOUT_S),
        }

    def stop(self) -> None:
        """Stop REST, then every flow's worker (each leaves its group: its tasks move to the other processes)."""
        log.info("Kafka MirrorMaker stopping")
        if self.rest is not None:
            self.rest.stop()
        for flow, worker in reversed(list(self.workers.items())):
            try:
                worker.stop()
            except Exception:
                log.exception("Error while stopping the worker of %s", flow)
        self.workers.clear()
        log.info("Kafka MirrorMaker stopped")


def _mirrors_topics(props: Mapping[str, str]) -> bool:
    """Whether a flow's connector config enables it (`<source>-><target>.enabled`), not only its heartbeats."""
    return props.get("enabled", "false").strip().lower() == "true"
