"""`MetricGroup`: one of Kafka Connect's metric groups for one set of tags, as plain values.

This is what a runner, a task process or the worker hands to whoever renders metrics: Kafka's group
name (`source-task-metrics`), its tags (`connector`, `task`; `client-id` for Kafka clients) and its
attributes by Kafka's names (`source-record-poll-total`), numbers or strings (`status`). Plain data, so
a task process can send it over its channel.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

Value = float | int | str


@dataclass(frozen=True)
class MetricGroup:
    group: str
    tags: tuple[tuple[str, str], ...]
    values: dict[str, Value] = field(default_factory=dict)
    domain: str = "connect"
    """Kafka's JMX domain without `kafka.`: `connect`, or `consumer`/`producer` for client metrics."""
    help: dict[str, str] = field(default_factory=dict)
    """Descriptions of attributes the catalog does not know (a plug-in's own)."""

    @property
    def key(self) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        return (self.domain, self.group, self.tags)

    def tag(self, name: str) -> str | None:
        return dict(self.tags).get(name)


def merged(groups: Iterable[MetricGroup]) -> list[MetricGroup]:
    """One group per domain, group and tags, with the values of every part given (the first wins a clash):
    a task's `connector-task-metrics` come partly from its runner and partly from the worker."""
    by_key: dict[tuple[str, str, tuple[tuple[str, str], ...]], MetricGroup] = {}
    for group in groups:
        known = by_key.get(group.key)
        if known is None:
            by_key[group.key] = MetricGroup(group.group, group.tags, dict(group.values), group.domain, dict(group.help))
        else:
            for name, value in group.values.items():
                known.values.setdefault(name, value)
            for name, text in group.help.items():
                known.help.setdefault(name, text)
    return list(by_key.values())


def task_tags(connector: str, task: int) -> tuple[tuple[str, str], ...]:
    return (("connector", connector), ("task", str(task)))


def percentage(part: int, whole: int) -> float:
    """Kafka's `*-percentage` attributes are shares between 0 and 1; NaN before anything happened."""
    return part / whole if whole else float("nan")
