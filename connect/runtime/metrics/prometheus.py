"""Metric groups in Prometheus' text format, named as Strimzi's JMX exporter rules for Kafka Connect name
Kafka's MBeans, so dashboards and alerts made for Java Kafka Connect work unchanged.

The rules (first match wins):
- `connector-metrics` text attributes: `kafka_connect_connector_<attr>{connector, <attr>="<value>"} 1`;
- `connector-task-metrics` `status`: `kafka_connect_connector_task_status{connector, task, status} 1`;
- `connect-worker-rebalance-metrics` text attributes: `kafka_connect_worker_rebalance_<attr>{<attr>} 1`;
- every other attribute: `kafka_connect_<group>_<attr>` with the group's tags as labels, where `<group>`
  is the group's name without `connect-` and `-metrics` (`source_task`, `worker`, `coordinator`);
- clients: `kafka_<consumer|producer>_<attr>{clientId}`;
- a plug-in's tagged groups (`PluginMetrics.tagged`, a domain of its own such as `connect.mirror`):
  `kafka_<domain>_<type>_<attr>` with its tags as labels, every one a gauge, as Strimzi's MirrorMaker 2 rules
  name `kafka.connect.mirror:type=MirrorSourceConnector,...` (`kafka_connect_mirror_mirrorsourceconnector_...`).
Names are lower case with `-` as `_`; an attribute ending in `-total` is a counter, anything else a gauge.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

from connect.runtime.metrics import catalog
from connect.runtime.metrics.groups import MetricGroup, Value

COUNTER = "counter"
GAUGE = "gauge"
_TEXT_GROUPS = frozenset({"connector-metrics", "connect-worker-rebalance-metrics"})
_LABEL_NAMES = {"client-id": "clientId"}
_KAFKA_DOMAINS = frozenset({"connect", "consumer", "producer", "admin"})


def metric_name(
    domain: str, group: str, tag_names: tuple[str, ...], attribute: str, value: Value
) -> tuple[str, str, list[str]]:
    """The Prometheus name, type and label names of one attribute of a group."""
    name, kind, labels = _name(domain, group, tag_names, attribute, isinstance(value, str))
    return name, kind, list(labels)


@functools.lru_cache(maxsize=4096)
def _name(
    domain: str, group: str, tag_names: tuple[str, ...], attribute: str, text: bool
) -> tuple[str, str, tuple[str, ...]]:
    # Cached: a scrape of 400 tasks names the same few hundred attributes thousands of times.
    labels = tuple(_label(tag) for tag in tag_names)
    if domain not in _KAFKA_DOMAINS:
        return _sanitize(f"kafka_{domain}_{group}_{attribute}"), GAUGE, labels
    if domain != "connect":
        kind = COUNTER if attribute.endswith("-total") else GAUGE
        return _sanitize(f"kafka_{domain}_{attribute}"), kind, labels
    if text:
        if group == "connector-task-metrics" and attribute == "status":
            return "kafka_connect_connector_task_status", GAUGE, (*labels, "status")
        if group in _TEXT_GROUPS:
            base = "connector" if group == "connector-metrics" else "worker_rebalance"
            return _sanitize(f"kafka_connect_{base}_{attribute}"), GAUGE, (*labels, _sanitize(attribute))
    base = group.removeprefix("connect-").removesuffix("-metrics")
    kind = COUNTER if attribute.endswith("-total") else GAUGE
    return _sanitize(f"kafka_connect_{base}_{attribute}"), kind, labels


class _Family:
    __slots__ = ("help", "kind", "labels", "samples")

    def __init__(self, kind: str, labels: tuple[str, ...], help_text: str) -> None:
        self.kind = kind
        self.labels = labels
        self.help = help_text
        self.samples: list[str] = []


def render(groups: Iterable[MetricGroup]) -> bytes:
    """Prometheus' text format (version 0.0.4), as prometheus-client writes it: HELP and TYPE per family,
    counters' samples named `_total`. Written here rather than through the client's registry, which
    builds an object per sample and took about twice as long for a worker running 400 tasks."""
    families: dict[str, _Family] = {}
    for group in groups:
        tag_names = tuple(name for name, _ in group.tags)
        tag_values = [_escape_value(value) for _, value in group.tags]
        for attribute, value in group.values.items():
            text = isinstance(value, str)
            name, kind, labels = _name(group.domain, group.group, tag_names, attribute, text)
            family = families.get(name)
            if family is None:
                help_text = group.help.get(attribute) or catalog.description(group.group, tag_names, attribute)
                family = families[name] = _Family(kind, labels, help_text or attribute)
            values = [*tag_values, _escape_value(value)] if text else tag_values
            pairs = ",".join(f'{label}="{v}"' for label, v in zip(family.labels, values, strict=True))
            number = "1.0" if text else _number(float(value))
            family.samples.append(f"{{{pairs}}} {number}\n" if pairs else f" {number}\n")
    out: list[str] = []
    for name, family in families.items():  # a counter's name ends in _total already (its attribute in -total)
        out.append(f"# HELP {name} {_escape_help(family.help)}\n# TYPE {name} {family.kind}\n")
        out.extend(name + sample for sample in family.samples)
    return "".join(out).encode()


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(value)


def _escape_value(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _label(tag: str) -> str:
    return _LABEL_NAMES.get(tag, _sanitize(tag))


def _sanitize(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")
