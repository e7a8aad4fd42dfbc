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

`stop` undoes it: REST first (no new requests), then leaving the group (every slot is revoked, so its
tasks stop and commit before the survivors take over, without waiting for the session timeout), then
the Worker and the logs. Used by `kconnect worker` (cli.py) and tests, on the caller's thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from connect.runtime.domain.info import RestartRequest
from connect.runtime.kafka import KafkaClients
from connect.runtime.kafka.internal_topics import InternalTopicSpec, ensure_internal_topics
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import ConfigLog, KafkaOffsetStore, KafkaStatusStore, internal_topic_specs
from connect.runtime.tasks.transactions import fence_zombie_tasks
from connect.runtime.worker import Worker
from rest.app import create_app
from rest.server import RestServer
from workers.common.deferred_app import DeferredApp
from workers.common.heap import settle_heap
from workers.common.logs import redact_logs
from workers.common.rest_listener import start_rest_listener, worker_id_of
from workers.distributed.clients import connector_clients, internal_clients, membership_consumer_factory
from workers.distributed.cluster_loggers import ClusterLoggers
from workers.distributed.cluster_metrics import RebalanceMetrics, cluster_metric_groups
from workers.distributed.cluster_view import cluster_view
from workers.distributed.coordinator import Coordinator, Identity, Timing
from workers.distributed.distributed_config import SLOTS_STORAGE_TOPIC
from workers.distributed.generations import Generations
from workers.distributed.herder import DistributedHerder
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


class DistributedWorker:
    def __init__(self, settings: DistributedSettings, *, registry: PluginRegistry | None = None) -> None:
        self.settings = settings
        self._registry = registry
        self.rest: RestServer | None = None
        self.herder: DistributedHerder | None = None
        self.coordinator: Coordinator | None = None
        self.membership: Membership | None = None
        self._work: LocalWork | None = None
        self._worker: Worker | None = None
        self._logs: list[ConfigLog | KafkaStatusStore | SlotLog] = []
        self._undo_log_redaction: Callable[[], None] | None = None

    @property
    def url(self) -> str:
        if self.rest is None:
            raise RuntimeError("The worker is not started")
        return self.rest.advertised_url

    def start(self, *, on_listening: Callable[[str], None] | None = None) -> None:
        """Start everything; raises (after cleaning up) if any step fails. `on_listening` gets the worker id
        as soon as the listener is bound (the logs show it from then on)."""
        rest, deferred = start_rest_listener(self.settings.worker)
        self.rest = rest
        if on_listening is not None:
            on_listening(worker_id_of(rest.advertised_url))
        try:
            self._start_parts(deferred, rest.advertised_url)
        except BaseException:
            self.stop()
            raise
        settle_heap()
        log.info("Kafka Connect distributed worker started: REST API at %s, group %s", self.url, self.settings.group_id)

    def _start_parts(self, deferred: DeferredApp, url: str) -> None:
        settings = self.settings
        config = settings.worker
        worker_id = worker_id_of(url)
        registry = self._registry or PluginRegistry.discover()
        internal = internal_clients(config)
        slots = settings.slots_topic
        ensure_internal_topics(
            internal,
            [
                *internal_topic_specs(config),
                InternalTopicSpec(slots.name, slots.partitions, slots.replication_factor, SLOTS_STORAGE_TOPIC),
            ],
        )

        config_log = ConfigLog(settings.config_topic.name, internal)
        self._logs.append(config_log)
        config_log.start(START_TIMEOUT_S)
        status = KafkaStatusStore(settings.status_topic.name, internal, worker_id)
        self._logs.append(status)
        status.start(START_TIMEOUT_S)
        slot_log = SlotLog(slots.name, internal)
        self._logs.append(slot_log)
        slot_log.start(START_TIMEOUT_S)

        guard = StallGuard(stall_threshold(settings.session_timeout_ms / 1000, settings.heartbeat_interval_ms / 1000))
        offsets = KafkaOffsetStore(settings.offset_topic.name, internal)
        clients = connector_clients(settings, guard)
        generations = Generations()
        worker = Worker(
            worker_id=worker_id,
            config=config,
            plugins=registry,
            offset_store=offsets,
            status=StampedStatusListener(status, worker_id, generations),
            clients=clients,
            # The stall threshold: a freeze that long makes this worker drop its work and rejoin (`stall`),
            # and its task processes stop their tasks by then, before other workers may take them over.
            task_process_silence_s=guard.threshold,
        )
        self._worker = worker
        work = LocalWork(worker, generations)
        self._work = work
        graceful = config.task_shutdown_graceful_timeout_ms / 1000
        coordinator = Coordinator(
            Identity(worker_id, url),
            Timing(
                sync_timeout=max(settings.worker_sync_timeout_ms / 1000, 1.0),
                write_timeout=30.0,
                balance_delay=settings.balance_delay_ms / 1000,
                handoff_timeout=graceful + 2.0,
                reclaim_after=(settings.session_timeout_ms + settings.heartbeat_interval_ms) / 1000,
            ),
            config_log=config_log,
            slot_log=slot_log,
            status=status,
            work=work,
            registry=registry,
            fence=self._fencer(clients) if worker.exactly_once_source else None,
        )
        self.coordinator = coordinator
        rebalances = RebalanceMetrics(config.metrics_windows)
        membership = Membership(
            membership_consumer_factory(settings, worker_id),
            slots.name,
            coordinator,
            name="worker",
            guard=guard,
            rebalances=rebalances,
        )
        self.membership = membership

        def ready() -> bool:
            return membership.wait_joined(0) and coordinator.reconciled.is_set()

        self.herder = DistributedHerder(
            worker_id=worker_id,
            config=config,
            group_id=settings.group_id,
            exactly_once_enabled=settings.exactly_once_enabled,
            registry=registry,
            config_log=config_log,
            status=status,
            offset_store=offsets,
            clients=clients,
            ready=ready,
            secrets=worker.secrets,
        )
        herder = self.herder
        # A value from a config provider with a TTL changed: restart the connector and its tasks with it.
        worker.secrets.on_change(lambda name: herder.restart_connector(RestartRequest(name, include_tasks=True)))
        self._undo_log_redaction = redact_logs(worker.secrets.redactor)
        loggers = LoggerLevels()
        ClusterLoggers(config_log, loggers).start()
        worker.start()
        coordinator.start()
        membership.start()
        metrics = cluster_metric_groups(
            worker.metric_groups,
            rebalances,
            lambda: generations.current,
            lambda: slot_log.owners().get(0, ""),
            work.running,
            lambda: len(membership.owned()),
        )
        cluster = cluster_view(slot_log, worker_id, url, config)
        deferred.attach(create_app(self.herder, loggers=loggers, metrics=metrics, cluster=cluster))

    def stop(self) -> None:
        """Stop REST, leave the group (tasks stop and commit), then the Worker and the logs."""
        log.info("Kafka Connect stopping")
        if self.rest is not None:
            self.rest.stop()
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
        log.info("Kafka Connect stopped")

    def _fencer(self, clients: KafkaClients) -> Fencer:
        group = self.settings.group_id

        def fence(connector: str, previous_task_count: int, connector_config: Mapping[str, str]) -> None:
            fence_zombie_tasks(clients, group, connector, previous_task_count, connector_config)

        return fence
