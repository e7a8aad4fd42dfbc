"""Single message transforms and predicates, configured with Kafka Connect's keys.

`transforms=a,b` with `transforms.a.type=<class>` and `transforms.a.<setting>=...`; the runtime
calls `configure` with the `transforms.a.` prefix removed. A transform returns a new record, or
None to drop it. `predicates=p` / `predicates.p.type` / `transforms.a.predicate=p` /
`transforms.a.negate=true` gate a transform. Source records are transformed before conversion,
sink records after conversion.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from connect.api.config import ConfigDef
from connect.api.records import SinkRecord, SourceRecord

R = TypeVar("R", SourceRecord, SinkRecord)


class Transformation(abc.ABC, Generic[R]):
    """A single message transform: returns a changed copy of the record, or None to drop it."""

    def version(self) -> str:
        return "undefined"

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None: ...

    @abc.abstractmethod
    def apply(self, record: R) -> R | None: ...

    def config(self) -> ConfigDef:
        return ConfigDef()

    def close(self) -> None:
        """Release resources; called when the task stops."""


class Predicate(abc.ABC, Generic[R]):
    """Decides whether a transform applies to a record (`transforms.<a>.predicate`, optionally negated)."""

    def version(self) -> str:
        return "undefined"

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None: ...

    @abc.abstractmethod
    def test(self, record: R) -> bool: ...

    def config(self) -> ConfigDef:
        return ConfigDef()

    def close(self) -> None:
        """Release resources; called when the task stops."""
