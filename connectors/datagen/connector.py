"""DatagenConnector: generated records for demos, tests and benchmarks (after Confluent's kafka-connect-datagen).

The connector splits `max.records` and `records.per.second` across up to `tasks.max` tasks and gives
each task its number; each task then generates its own numbered sequence (see `task.py`). The keys
are documented in `config.py`.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect.api import Config, ConfigDef, ConnectError, ExactlyOnceSupport, OffsetsToAlter, SourceConnector, SourceTask
from connect.api.version import distribution_version
from connectors.datagen.config import (
    CONFIG_DEF,
    MAX_RECORDS_CONFIG,
    RECORDS_PER_SECOND_CONFIG,
    TASK_ID_CONFIG,
    TASK_MAX_RECORDS_CONFIG,
    TASK_RECORDS_PER_SECOND_CONFIG,
    UNLIMITED,
    split_evenly,
)
from connectors.datagen.task import SEQ_FIELD, TASK_FIELD, DatagenTask


class DatagenConnector(SourceConnector):
    """Generates records of a built-in quickstart shape into one topic, with up to `tasks.max` tasks."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}
        self._max_records = UNLIMITED
        self._records_per_second = 0.0

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG_DEF, props)
        self._props = dict(props)
        self._max_records = config.get_int(MAX_RECORDS_CONFIG)
        self._records_per_second = config.get_float(RECORDS_PER_SECOND_CONFIG)

    def task_class(self) -> type[SourceTask]:
        return DatagenTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        tasks = max(1, max_tasks)
        if self._max_records != UNLIMITED:
            # A task without a single record to make would only idle.
            tasks = max(1, min(tasks, self._max_records))
            shares = split_evenly(self._max_records, tasks)
        else:
            shares = [UNLIMITED] * tasks
        rate = self._records_per_second / tasks
        return [
            {
                **self._props,
                TASK_ID_CONFIG: str(task),
                TASK_MAX_RECORDS_CONFIG: str(share),
                TASK_RECORDS_PER_SECOND_CONFIG: repr(rate),
            }
            for task, share in enumerate(shares)
        ]

    def stop(self) -> None:
        pass  # no background work to end

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        # A task resumes right after the sequence number committed with its last transaction.
        return ExactlyOnceSupport.SUPPORTED

    def alter_offsets(self, props: Mapping[str, str], offsets: OffsetsToAlter) -> bool:
        for partition, offset in offsets:
            if partition is None or not _is_int(partition.get(TASK_FIELD)):
                raise ConnectError(
                    f"Partition objects should contain the key '{TASK_FIELD}' with an integer task number"
                )
            if offset is None:
                continue  # a reset: the task starts again at seq 0
            seq = offset.get(SEQ_FIELD)
            if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
                raise ConnectError(
                    f"Offset objects should either be null or contain the key '{SEQ_FIELD}' with a non-negative "
                    "integer (the last sequence number written; the task continues after it)"
                )
        return True


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
