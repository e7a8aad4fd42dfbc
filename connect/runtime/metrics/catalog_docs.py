"""The metric list of docs/monitoring.md, generated from the catalog and the Prometheus names
(`python -m connect.runtime.metrics.catalog_docs`); a test checks the page holds exactly this."""

from __future__ import annotations

import sys

from connect.runtime.metrics import catalog
from connect.runtime.metrics.prometheus import metric_name


def markdown() -> str:
    """The metric list of docs/monitoring.md: Prometheus name, labels, type and meaning."""
    lines = ["| Prometheus name | labels | type | Kafka attribute | meaning |", "|---|---|---|---|---|"]
    for key, (tags, attributes) in catalog.GROUPS.items():
        group = key.split(",")[0]
        for attribute, meaning in attributes.items():
            name, kind, labels = metric_name("connect", group, tags, attribute, "" if _is_text(attribute) else 0)
            lines.append(f"| `{name}` | {', '.join(labels)} | {kind} | `{group}` `{attribute}` | {meaning} |")
    for group, attributes in catalog.CLIENT_GROUPS.items():
        domain = group.removesuffix("-metrics")
        for attribute, meaning in attributes.items():
            name, kind, labels = metric_name(domain, group, ("client-id",), attribute, 0)
            lines.append(f"| `{name}` | {', '.join(labels)} | {kind} | `{group}` `{attribute}` | {meaning} |")
    return "\n".join(lines) + "\n"


def _is_text(attribute: str) -> bool:
    return attribute in {
        "status",
        "connector-type",
        "connector-class",
        "connector-version",
        "connect-protocol",
        "leader-name",
    }


if __name__ == "__main__":
    sys.stdout.write(markdown())
