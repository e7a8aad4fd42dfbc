"""Metric groups in Prometheus' text format, named as Strimzi's JMX exporter rules for Kafka Connect name
Kafka's MBeans, so dashboards and alerts made for Java Kafka Connect work unchanged.

The rules (first match wins):
- `connector-metrics` text attributes: `kafka_connect_connector_<attr>{connector, <attr>="<value>"} 1`;
- `connector-task-metrics` `status`: `kafka_connect_connector_task_status{connector, task, status} 1`;
- `connect-worker-rebalance-metrics` text attributes: `kafka_connect_worker_rebalance_<attr>{<attr>} 1`;
- every other attribute: `kafka_connect_<group>_<attr>` with the group's tags as labels, where `<group>`
  is the group's name without `connect-` and `-metrics` (`source_task`, `worker`, `coordinator`);
- clients: `kafka_<consumer|producer>_<attr>{clientId}`.
Names are lower case with `-` as `_`; an attribute ending in `-total` is a counter, anything else a gauge.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest

from connect.runtime.metrics import catalog
from connect.runtime.metrics.groups import MetricGroup, Value

COUNTER = "counter"
GAUGE = "gauge"
_TEXT_GROUPS = frozenset({"connector-metrics", "connect-worker-rebalance-metrics"})
_LABEL_NAMES = {"client-id": "clientId"}


def metric_name(
    domain: str, group: str, tag_names: tuple[str, ...], attribute: str, value: Value
) -> tuple[str, str, list[str]]:
    """The Prometheus name, type and label names of one attribute of a group."""
    labels = [_label(tag) for tag in tag_names]
    if domain != "connect":
        kind = COUNTER if attribute.endswith("-total") else GAUGE
        return _sanitize(f"kafka_{domain}_{attribute}"), kind, labels
    if isinstance(value, str):
        if group == "connector-task-metrics" and attribute == "status":
            return "kafka_connect_connector_task_status", GAUGE, [*labels, "status"]
        if group in _TEXT_GROUPS:
            base = "connector" if group == "connector-metrics" else "worker_rebalance"
            return _sanitize(f"kafka_connect_{base}_{attribute}"), GAUGE, [*labels, _sanitize(attribute)]
    base = group.removeprefix("connect-").removesuffix("-metrics")
    kind = COUNTER if attribute.endswith("-total") else GAUGE
    return _sanitize(f"kafka_connect_{base}_{attribute}"), kind, labels


def render(groups: Iterable[MetricGroup]) -> bytes:
    return generate_latest(_Families(groups))


class _Families:
    def __init__(self, groups: Iterable[MetricGroup]) -> None:
        self._groups = groups

    def collect(self) -> Iterator[Metric]:
        families: dict[str, Metric] = {}
        for group in self._groups:
            tag_names = tuple(name for name, _ in group.tags)
            tag_values = [value for _, value in group.tags]
            for attribute, value in group.values.items():
                name, kind, labels = metric_name(group.domain, group.group, tag_names, attribute, value)
                family = families.get(name)
                if family is None:
                    help_text = (
                        group.help.get(attribute) or catalog.description(group.group, tag_names, attribute) or attribute
                    )
                    family_type = CounterMetricFamily if kind == COUNTER else GaugeMetricFamily
                    family = families[name] = family_type(name, help_text, labels=labels)
                if isinstance(value, str):
                    family.add_metric([*tag_values, value], 1.0)  # type: ignore[attr-defined]
                else:
                    family.add_metric(tag_values, float(value))  # type: ignore[attr-defined]
        yield from families.values()


def _label(tag: str) -> str:
    return _LABEL_NAMES.get(tag, _sanitize(tag))


def _sanitize(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")
