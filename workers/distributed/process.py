"""`DistributedWorker`: one distributed worker process's parts, wired and started in order.

1. REST is bound first: its advertised `host:port` is the worker id every status shows; until the
   herder is attached it answers 503 "starting".
2. The internal topics are created when missing and verified (a wrong cleanup policy or partition
   count stops the worker with a message naming the topic and the fix).
3. The config, status and slots logs are read to their end; the Worker (with the offsets store) starts.
   It reports statuses through a listener that stamps each with its generation (`stamped_status.py`),
   kept by `Generations`, which `LocalWork` and the coordinator, built after the Worker, update.
4. The cluster-wide logger levels of the config log are applied, and followed from then on.
5. The coordinator thread starts, then the membership thread joins the group; `/health` says healthy
   once the first assignment has been reconciled.

Each part is built after the parts it uses and gets them as it is built: nothing calls back into a part
built later (the coordinator hands what it owns down when it starts work, as Kafka's herder does).

A worker may instead be served from a REST server it does not own (`MountedRest`: dedicated mirroring serves
every flow's worker from one listener, under `/<source>/<target>`); then step 1 is the mount point given.

`stop` undoes it: REST first (no new requests), then leaving the group (every slot is revoked, so its
tasks stop and commit before the survivors take over, without waiting for the session timeout), then
the Worker and the logs. Used by `kconnect worker` (cli.py) and tests, on the caller's thread.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from connect.runtime.domain.info import RestartRequest
from connect.runtime.kafka import KafkaClients
from connect.runtime.kafka.internal_topics import InternalTopicSpec, ensure_internal_topics
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import ConfigLog, KafkaOffsetStore, KafkaStatusStore, internal_topic_specs
from connect.runtime.tasks.transactions import fence_zombie_tasks
from connect.runtime.worker import Worker
from rest.app import create_app
from rest.audit.trail import AuditTrail
from rest.listeners.server import RestServer
from workers.common.audit import audit_trail
from workers.common.deferred_app import DeferredApp
from workers.common.heap import settle_heap
from workers.common.logs import redact_logs
from workers.common.rest_listener import start_rest_listener, worker_id_of
from workers.distributed.clients import (
    connector_clients,
    internal_clients,
    membership_client_id,
    membership_consumer_factory,
)
from workers.distributed.cluster_loggers import ClusterLoggers
from workers.distributed.cluster_metrics import RebalanceMetrics, cluster_metric_groups
from workers.distributed.cluster_view import cluster_view
from workers.distributed.coordinator import Coordinator
from workers.distributed.coordinator_settings import Identity, Timing
from workers.distributed.dead_peers import DeadPeerEviction
from workers.distributed.distributed_config import SLOTS_STORAGE_TOPIC
from workers.distributed.generations import Generations
from workers.distributed.herder import DistributedHerder
from workers.distributed.liveness import LivenessListener, PeerWatcher, silence_stall_threshold
from workers.distributed.local_work import LocalWork
from workers.distributed.membership import Membership
from workers.distributed.settings import DistributedSettings
from workers.distributed.slot_log import SlotLog
from workers.distributed.stall import StallGuard, stall_threshold
from workers.distributed.stamped_status import StampedStatusListener
from workers.distributed.task_configs import Fencer

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
LEAVE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class MountedRest:
    """Where a worker is served from a REST server that another part owns: its advertised URL there, and the
    app the owner routes to it, attached once the worker is built."""

    url: str
    app: DeferredApp


class DistributedWorker:
    def __init__(
        self,
        settings: DistributedSettings,
        *,
        registry: PluginRegistry | None = None,
        mounted: MountedRest | None = None,
    ) -> None:
        self.settings = settings
        self._registry = registry
        self._mounted = mounted
        self._url: str | None = None
        self.rest: RestServer | None = None
        self.herder: DistributedHerder | None = None
        self.coordinator: Coordinator | None = None
        self.membership: Membership | None = None
        self._work: LocalWork | None = None
        self._worker: Worker | None = None
        self._logs: list[ConfigLog | KafkaStatusStore | SlotLog] = []
        self._undo_log_redaction: Callable[[], None] | None = None
        self._audit: AuditTrail | None = None
        self._liveness: LivenessListener | None = None
        self.peers: PeerWatcher | None = None

    @property
    def url(self) -> str:
        if self._url is None:
            raise RuntimeError("The worker is not started")
        return self._url

    def start(self, *, on_listening: Callable[[str], None] | None = None) -> None:
        """Start everything; raises (after cleaning up) if any step fails. `on_listening` gets the worker id
        as soon as the listener is bound (the logs show it from then on)."""
        if self._mounted is None:
            self.rest, deferred = start_rest_listener(self.settings.worker)
            self._url = self.rest.advertised_url
        else:
            deferred, self._url = self._mounted.app, self._mounted.url
        if on_listening is not None:
            on_listening(worker_id_of(self._url))
        try:
            self._start_parts(deferred, self._url)
        except BaseException:
            self.stop()
            raise
        settle_heap()
        log.info("Kafka Connect distributed worker started: REST API at %s, group %s", self.url, self.settings.group_id)

    def _start_parts(self, deferred: DeferredApp, url: str) -> None:
        """The start, one phase a step (the module docstring's numbers), each given what it uses."""
        worker_id = worker_id_of(url)
        incarnation = uuid.uuid4().hex[:8]
        registry = self._registry or PluginRegistry.discover()
        internal = internal_clients(self.settings.worker)
        self._ensure_internal_topics(internal)
        logs = self._start_logs(internal, worker_id)
        engine = self._build_engine(internal, worker_id, registry, logs.status)
        liveness = self._start_liveness(worker_id, incarnation)
        coordinator = self._build_coordinator(Identity(worker_id, url, liveness), logs, engine, registry)
        rebalances = RebalanceMetrics(self.settings.worker.metrics_windows)
        membership = self._build_membership(worker_id, incarnation, coordinator, engine.guard, rebalances)
        self._build_peer_watcher(internal, worker_id, logs.slots)
        herder = self._build_herder(worker_id, registry, logs, engine, membership, coordinator)
        loggers = self._start_running(logs, engine, herder, coordinator, membership)
        metrics = cluster_metric_groups(
            engine.worker.metric_groups,
            rebalances,
            lambda: engine.generations.current,
            lambda: logs.slots.owners().get(0, ""),
            engine.work.running,
            lambda: len(membership.owned()),
        )
        cluster = cluster_view(logs.slots, worker_id, url, self.settings.worker)
        # A dedicated MirrorMaker's flows write no audit topic to the clusters they mirror unless told to.
        audit_topic = None if self._mounted is not None else f"{self.settings.group_id}-audit"
        self._audit = audit_trail(self.settings.worker, internal, worker_id, audit_topic)
        deferred.attach(create_app(herder, loggers=loggers, metrics=metrics, cluster=cluster, audit=self._audit))

    def _ensure_internal_topics(self, internal: KafkaClients) -> None:
        """2. Create the missing internal topics, and verify every one."""
        slots = self.settings.slots_topic
        slots_spec = InternalTopicSpec(slots.name, slots.partitions, slots.replication_factor, SLOTS_STORAGE_TOPIC)
        ensure_internal_topics(internal, [*internal_topic_specs(self.settings.worker), slots_spec])

    def _start_logs(self, internal: KafkaClients, worker_id: str) -> _InternalLogs:
        """3. Read the config, status and slots logs to their end (each stopped by `stop` once started)."""
        settings = self.settings
        config_log = ConfigLog(settings.config_topic.name, internal)
        status = KafkaStatusStore(settings.status_topic.name, internal, worker_id)
        slot_log = SlotLog(settings.slots_topic.name, internal)
        for internal_log in (config_log, status, slot_log):
            self._logs.append(internal_log)
            internal_log.start(START_TIMEOUT_S)
        return _InternalLogs(config_log, status, slot_log)

    def _build_engine(
        self, internal: KafkaClients, worker_id: str, registry: PluginRegistry, status: KafkaStatusStore
    ) -> _Engine:
        """3. The Worker, with the offsets store and a status listener that stamps generations."""
        settings = self.settings
        guard = StallGuard(
            min(
                stall_threshold(settings.session_timeout_ms / 1000, settings.heartbeat_interval_ms / 1000),
                silence_stall_threshold(settings.silence_limit_s),
            )
        )
        offsets = KafkaOffsetStore(settings.offset_topic.name, internal)
        clients = connector_clients(settings, guard)
        generations = Generations()
        worker = Worker(
            worker_id=worker_id,
            config=settings.worker,
            plugins=registry,
            offset_store=offsets,
            status=StampedStatusListener(status, worker_id, generations),
            clients=clients,
            # The stall threshold: a freeze that long makes this worker drop its work and rejoin (`stall`),
            # and its task processes stop their tasks by then, before other workers may take them over.
            task_process_silence_s=guard.threshold,
        )
        self._worker = worker
        self._work = LocalWork(worker, generations)
        return _Engine(worker, self._work, offsets, clients, guard, generations)

    def _build_coordinator(
        self, identity: Identity, logs: _InternalLogs, engine: _Engine, registry: PluginRegistry
    ) -> Coordinator:
        """5. The coordinator (started with the rest in `_start_running`)."""
        settings = self.settings
        graceful = settings.worker.task_shutdown_graceful_timeout_ms / 1000
        self.coordinator = Coordinator(
            identity,
            Timing(
                sync_timeout=max(settings.worker_sync_timeout_ms / 1000, 1.0),
                write_timeout=30.0,
                balance_delay=settings.balance_delay_ms / 1000,
                handoff_timeout=graceful + 2.0,
                reclaim_after=(settings.session_timeout_ms + settings.heartbeat_interval_ms) / 1000,
            ),
            config_log=logs.config,
            slot_log=logs.slots,
            status=logs.status,
            work=engine.work,
            registry=registry,
            fence=self._fencer(engine.clients) if engine.worker.exactly_once_source else None,
        )
        return self.coordinator

    def _start_liveness(self, worker_id: str, incarnation: str) -> str:
        """5. The listener peers watch this process through (`liveness.py`); its `host:port` for the claims."""
        client_id = membership_client_id(self.settings, worker_id, incarnation)
        self._liveness = LivenessListener(client_id, self.settings.liveness_port)
        self._liveness.start()
        host = worker_id.rpartition(":")[0]
        return f"{host}:{self._liveness.port}"

    def _build_peer_watcher(self, internal: KafkaClients, worker_id: str, slots: SlotLog) -> None:
        """5. The watcher of the other slot owners' processes (started with the rest in `_start_running`)."""

        def peers() -> dict[str, str]:
            claims = slots.claims().values()
            return {claim.worker: claim.liveness for claim in claims if claim.worker != worker_id and claim.liveness}

        eviction = DeadPeerEviction(
            internal.internal_config("admin", "kconnect-liveness"), self.settings.membership_group
        )
        if eviction.supported():
            self.peers = PeerWatcher(peers, eviction, time.monotonic, silence_limit=self.settings.silence_limit_s)

    def _build_membership(
        self,
        worker_id: str,
        incarnation: str,
        coordinator: Coordinator,
        guard: StallGuard,
        rebalances: RebalanceMetrics,
    ) -> Membership:
        """5. The membership of the slots group (started with the rest in `_start_running`)."""
        self.membership = Membership(
            membership_consumer_factory(self.settings, worker_id, incarnation),
            self.settings.slots_topic.name,
            coordinator,
            name="worker",
            guard=guard,
            rebalances=rebalances,
        )
        return self.membership

    def _build_herder(
        self,
        worker_id: str,
        registry: PluginRegistry,
        logs: _InternalLogs,
        engine: _Engine,
        membership: Membership,
        coordinator: Coordinator,
    ) -> DistributedHerder:
        """The herder REST asks; healthy once the group is joined and the first assignment reconciled."""

        def ready() -> bool:
            return membership.wait_joined(0) and coordinator.reconciled.is_set()

        settings = self.settings
        self.herder = DistributedHerder(
            worker_id=worker_id,
            config=settings.worker,
            group_id=settings.group_id,
            exactly_once_enabled=settings.exactly_once_enabled,
            registry=registry,
            config_log=logs.config,
            status=logs.status,
            offset_store=engine.offsets,
            clients=engine.clients,
            ready=ready,
            secrets=engine.worker.secrets,
        )
        return self.herder

    def _start_running(
        self,
        logs: _InternalLogs,
        engine: _Engine,
        herder: DistributedHerder,
        coordinator: Coordinator,
        membership: Membership,
    ) -> LoggerLevels:
        """4 and 5. Secrets and logger levels followed, then the Worker, the coordinator and the membership
        started, in that order; returns the worker's logger levels (REST's `/admin/loggers`)."""
        worker = engine.worker
        # A value from a config provider with a TTL changed: restart the connector and its tasks with it.
        worker.secrets.on_change(lambda name: herder.restart_connector(RestartRequest(name, include_tasks=True)))
        self._undo_log_redaction = redact_logs(worker.secrets.redactor)
        loggers = LoggerLevels()
        ClusterLoggers(logs.config, loggers).start()
        worker.start()
        coordinator.start()
        membership.start()
        if self.peers is not None:
            self.peers.start()
        return loggers

    def stop(self) -> None:
        """Stop REST, leave the group (tasks stop and commit), then the Worker and the logs."""
        log.info("Kafka Connect stopping")
        if self.rest is not None:
            self.rest.stop()
        if self._audit is not None:
            self._audit.close()
        if self.peers is not None:
            self.peers.stop()
        if self.membership is not None and not self.membership.stop(LEAVE_TIMEOUT_S):
            log.warning("Leaving the group took longer than %.0f s", LEAVE_TIMEOUT_S)
        if self.coordinator is not None:
            self.coordinator.stop()
        for step, action in (
            ("stopping what still runs", self._work.stop_all if self._work else None),
            ("stopping the worker", self._worker.stop if self._worker else None),
        ):
            if action is None:
                continue
            try:
                action()
            except Exception:
                log.exception("Error while %s", step)
        for store in reversed(self._logs):
            try:
                store.stop()
            except Exception:
                log.exception("Error while stopping the %s log", type(store).__name__)
        if self._undo_log_redaction is not None:
            self._undo_log_redaction()
        if self._liveness is not None:
            self._liveness.stop()  # last: peers that see it closed take this process for gone
        log.info("Kafka Connect stopped")

    def _fencer(self, clients: KafkaClients) -> Fencer:
        group = self.settings.group_id

        def fence(connector: str, previous_task_count: int, connector_config: Mapping[str, str]) -> None:
            fence_zombie_tasks(clients, group, connector, previous_task_count, connector_config)

        return fence


@dataclass(frozen=True)
class _InternalLogs:
    """The compacted internal topics this worker follows."""

    config: ConfigLog
    status: KafkaStatusStore
    slots: SlotLog


@dataclass(frozen=True)
class _Engine:
    """The Worker and what it was built with."""

    worker: Worker
    work: LocalWork
    offsets: KafkaOffsetStore
    clients: KafkaClients
    guard: StallGuard
    generations: Generations
