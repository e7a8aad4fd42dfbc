"""The status store's housekeeping on a real broker: statuses carry the generation their instance started
under, and `tombstone` returns once Kafka has the tombstones, which every worker then reads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.kafka import KafkaClients
from connect.runtime.stores import KafkaStatusStore
from tests.fixtures.kafka import TopicFactory
from tests.support.waiting import wait_until
from workers.distributed.generations import Generations
from workers.distributed.stamped_status import StampedStatusListener

pytestmark = pytest.mark.integration


@pytest.fixture
def stores(kafka_bootstrap: str, topic_factory: TopicFactory) -> Iterator[tuple[KafkaStatusStore, KafkaStatusStore]]:
    props = {"bootstrap.servers": kafka_bootstrap}
    clients = KafkaClients(producer_props=props, consumer_props=props, admin_props=props)
    topic = topic_factory(partitions=5, config={"cleanup.policy": "compact"})
    owner = KafkaStatusStore(topic, clients, "w1:8083")
    other = KafkaStatusStore(topic, clients, "w2:8083")
    owner.start(30)
    other.start(30)
    yield owner, other
    owner.stop()
    other.stop()


@pytest.fixture
def owner_status(stores: tuple[KafkaStatusStore, KafkaStatusStore]) -> StampedStatusListener:
    """The owner's Worker reports through this: at generation 40, with orders-0 started under 7."""
    generations = Generations()
    generations.advance(40)
    generations.started(ConnectorTaskId("orders", 0), 7)
    return StampedStatusListener(stores[0], "w1:8083", generations)


def test_statuses_carry_their_instances_generation_and_tombstones_reach_every_worker(
    stores: tuple[KafkaStatusStore, KafkaStatusStore], owner_status: StampedStatusListener
) -> None:
    owner, other = stores
    kept, gone = ConnectorTaskId("orders", 0), ConnectorTaskId("orders", 1)
    owner_status.on_connector_startup("orders")
    owner_status.on_task_startup(kept)
    owner_status.on_task_startup(gone)
    owner_status.on_topic_used(kept, "t")

    wait_until(lambda: len(other.stored().tasks) == 2 and other.stored().topics, 15, "the statuses on the other worker")
    stored = other.stored()
    assert stored.tasks[kept].generation == 7  # the generation it started under
    assert stored.tasks[gone].generation == 40  # none known: the worker's current one
    assert stored.connectors["orders"].status.state is State.RUNNING
    assert list(stored.topics) == [("t", "orders")]

    other.tombstone(connectors=["orders"], tasks=[gone], topics=[("t", "orders")], timeout=15)

    owner.read_to_end(15)
    assert owner.stored().connectors == {}
    assert list(owner.stored().tasks) == [kept]
    assert owner.stored().topics == {}
