"""Evicting a group member on its behalf (LeaveGroup v3, KIP-345) on a real broker: the survivors get its
partitions at once instead of after its session timeout, and the evicted member is fenced as after a
session expiry."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping

import pytest
from confluent_kafka import Consumer, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import KafkaClients
from connect.runtime.kafka.client_config import to_librdkafka
from connect.runtime.kafka.group_eviction import GroupEviction, GroupEvictionError
from tests.fixtures.kafka import TopicFactory
from tests.support.partition_recorder import PartitionRecorder
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

SESSION_MS = 30000  # far longer than the test: only the eviction can move the partitions


class Member:
    """A consumer of the group polled on its own thread, recording what it is assigned."""

    def __init__(
        self,
        bootstrap: str,
        group: str,
        topic: str,
        client_id: str,
        strategy: str = "cooperative-sticky",
        security: Mapping[str, str] | None = None,
    ) -> None:
        self.consumer = Consumer(
            {
                **(security or {}),
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "client.id": client_id,
                "group.protocol": "classic",
                "partition.assignment.strategy": strategy,
                "session.timeout.ms": SESSION_MS,
                "heartbeat.interval.ms": 300,
                "enable.auto.commit": False,
            }
        )
        self.assigned: set[int] = set()
        self.lost = threading.Event()
        self.polling = True
        self.consumer.subscribe(
            [topic],
            on_assign=lambda _c, parts: self.assigned.update(p.partition for p in parts),
            on_revoke=lambda _c, parts: self.assigned.difference_update(p.partition for p in parts),
            on_lost=lambda _c, parts: (self.assigned.difference_update(p.partition for p in parts), self.lost.set()),
        )
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while self.polling:
            self.consumer.poll(0.05)

    def close(self) -> None:
        self.polling = False
        self.thread.join(5)
        self.consumer.close()


@pytest.fixture
def members(kafka_bootstrap: str, topic_factory: TopicFactory) -> Iterator[tuple[str, Member, Member]]:
    topic = topic_factory(partitions=4)
    group = f"eviction-{topic}"
    doomed = Member(kafka_bootstrap, group, topic, "connector-consumer-sink-0")
    survivor = Member(kafka_bootstrap, group, topic, "connector-consumer-sink-1")
    wait_until(lambda: len(doomed.assigned) == 2 and len(survivor.assigned) == 2, 30.0, "both members to share")
    yield group, doomed, survivor
    doomed.close()
    survivor.close()


def test_an_evicted_member_s_partitions_go_to_the_survivor_long_before_its_session_expires(
    kafka_bootstrap: str, members: tuple[str, Member, Member]
) -> None:
    group, doomed, survivor = members
    doomed.polling = False  # as a hung process: no more polls (librdkafka still heartbeats)
    doomed.thread.join(5)
    eviction = GroupEviction({"bootstrap.servers": kafka_bootstrap})
    assert eviction.supported()

    started = time.monotonic()
    evicted = eviction.evict(group, lambda member: member.client_id == "connector-consumer-sink-0")

    assert [member.client_id for member in evicted] == ["connector-consumer-sink-0"]
    wait_until(lambda: survivor.assigned == {0, 1, 2, 3}, 10.0, "the survivor to own every partition")
    assert time.monotonic() - started < SESSION_MS / 1000 / 3
    assert [m.client_id for m in eviction.members(group)] == ["connector-consumer-sink-1"]


def test_an_evicted_member_is_fenced_like_one_whose_session_expired(
    kafka_bootstrap: str, members: tuple[str, Member, Member]
) -> None:
    group, doomed, _survivor = members
    eviction = GroupEviction({"bootstrap.servers": kafka_bootstrap})
    eviction.evict(group, lambda member: member.client_id == "connector-consumer-sink-0")
    doomed.polling = False
    doomed.thread.join(5)

    offsets = [KafkaTopicPartition(tp.topic, tp.partition, 1) for tp in doomed.consumer.assignment()]
    fenced: list[str] = []

    def commit_refused() -> bool:
        try:
            doomed.consumer.commit(offsets=offsets, asynchronous=False)
        except KafkaException as exc:
            fenced.append(exc.args[0].name())
            return True
        doomed.consumer.poll(0.1)
        return doomed.lost.is_set()

    wait_until(commit_refused, 10.0, "the evicted member's commit to be refused or its partitions lost")
    assert not fenced or fenced[-1] in {"UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "REBALANCE_IN_PROGRESS"}


def test_an_unknown_member_or_an_empty_choice_evicts_nothing(
    kafka_bootstrap: str, members: tuple[str, Member, Member]
) -> None:
    group, _doomed, _survivor = members
    eviction = GroupEviction({"bootstrap.servers": kafka_bootstrap})
    assert eviction.evict(group, lambda member: member.client_id == "no-such-client") == []
    assert eviction.evict("no-such-group", lambda member: True) == []
    assert sorted(m.client_id for m in eviction.members(group)) == [
        "connector-consumer-sink-0",
        "connector-consumer-sink-1",
    ]


def test_listeners_that_want_a_login_it_cannot_give_are_not_spoken() -> None:
    for mechanism in ("GSSAPI", "OAUTHBEARER"):
        config = {"bootstrap.servers": "h:9093", "security.protocol": "SASL_SSL", "sasl.mechanisms": mechanism}
        assert not GroupEviction({**config, "sasl.username": "u", "sasl.password": "p"}).supported()
    assert not GroupEviction({"bootstrap.servers": "h:9093", "security.protocol": "SASL_PLAINTEXT"}).supported()


@pytest.mark.parametrize("listener", ["secured_kafka_keys", "ssl_kafka_keys"])
def test_eviction_speaks_tls_with_a_client_certificate_and_tls_with_a_scram_login(
    listener: str, request: pytest.FixtureRequest
) -> None:
    """SASL_SSL with SCRAM-SHA-512, and SSL with a required client certificate (PKCS12 stores), in the
    librdkafka settings the worker's clients get from Kafka's keys."""
    config = to_librdkafka(request.getfixturevalue(listener), "consumer")
    bootstrap = config["bootstrap.servers"]
    topic = f"eviction-{listener}-{time.monotonic_ns()}"
    admin = AdminClient(config)
    admin.create_topics([NewTopic(topic, 4, 1)])[topic].result(30)
    group = f"eviction-{topic}"
    doomed = Member(bootstrap, group, topic, "connector-consumer-sink-0", security=config)
    survivor = Member(bootstrap, group, topic, "connector-consumer-sink-1", security=config)
    try:
        wait_until(lambda: len(doomed.assigned) == 2 and len(survivor.assigned) == 2, 30.0, "both members to share")
        doomed.polling = False
        doomed.thread.join(5)
        eviction = GroupEviction(config)
        assert eviction.supported()

        evicted = eviction.evict(group, lambda member: member.client_id == "connector-consumer-sink-0")

        assert [member.client_id for member in evicted] == ["connector-consumer-sink-0"]
        wait_until(lambda: survivor.assigned == {0, 1, 2, 3}, 10.0, "the survivor to own every partition")
    finally:
        doomed.close()
        survivor.close()


def test_a_wrong_password_is_an_eviction_error_saying_so(secured_kafka_keys: dict[str, str]) -> None:
    config = {**to_librdkafka(secured_kafka_keys, "consumer"), "sasl.password": "not-the-password"}
    with pytest.raises(GroupEvictionError, match="uthentication failed"):
        GroupEviction(config).members("any-group")


@pytest.mark.parametrize("client_id", [None, "shared-by-the-user"])
def test_a_sink_task_s_new_consumer_evicts_its_previous_instance_s_unless_the_user_chose_the_client_id(
    kafka_bootstrap: str, topic_factory: TopicFactory, client_id: str | None
) -> None:
    # The previous instance of task sink-0 died with its worker: its consumer is still a member (no polls,
    # no close) with its partitions, and stays one for its 30 s session.
    topic = topic_factory(partitions=2)
    task = ConnectorTaskId(f"sink-{topic}", 0)
    user = {"client.id": client_id} if client_id else {}
    clients = KafkaClients(
        producer_props={"bootstrap.servers": kafka_bootstrap},
        consumer_props={"bootstrap.servers": kafka_bootstrap, "session.timeout.ms": str(SESSION_MS), **user},
        admin_props={"bootstrap.servers": kafka_bootstrap},
    )
    group = f"connect-{task.connector}"
    config = to_librdkafka(clients.consumer_config(task, {}), "consumer")
    strategy = config.get("partition.assignment.strategy", "range,roundrobin")  # librdkafka's default
    previous = Member(kafka_bootstrap, group, topic, client_id or f"connector-consumer-{task.connector}-0", strategy)
    wait_until(lambda: previous.assigned == {0, 1}, 30.0, "the previous instance to own both partitions")
    previous.polling = False
    previous.thread.join(5)

    consumer = clients.sink_consumer(task, {})
    recorder = PartitionRecorder()
    try:
        consumer.subscribe([topic], None, recorder)
        if client_id is None:
            wait_until(lambda: consumer.consume(10, 0.1) is not None and recorder.assigned == {0, 1}, 10.0, "both")
            assert [m.client_id for m in GroupEviction({"bootstrap.servers": kafka_bootstrap}).members(group)] == [
                f"connector-consumer-{task.connector}-0"
            ]
        else:
            # A client id of the user's may be every task's: the other member is left alone.
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                consumer.consume(10, 0.1)
            assert recorder.assigned == set()
            assert len(GroupEviction({"bootstrap.servers": kafka_bootstrap}).members(group)) == 2
    finally:
        consumer.close()
        previous.consumer.close()
