"""A worker's settings as one str → str map: its properties file overlaid with `KCONNECT_*` variables.

The same precedence in both modes, lowest first: the defaults (applied later, by `WorkerConfig`), the
properties file, the environment (`env.py`). Called once by each mode's entry point, on its thread.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from workers.common import env
from workers.common.properties import read_properties

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerProps:
    props: dict[str, str]
    from_env: tuple[str, ...]
    """The keys the environment set (sorted), whether or not the file had them too."""


def load_worker_props(path: Path | None, environ: Mapping[str, str]) -> WorkerProps:
    """The properties file at `path` (optional) overlaid with the `KCONNECT_*` variables of `environ`.

    OSError if the file cannot be read; ConfigError if it is malformed.
    """
    file_props = read_properties(path) if path is not None else {}
    props, from_env = env.merge(file_props, environ)
    if from_env:
        log.info("Worker settings from the environment: %s", ", ".join(from_env))
    return WorkerProps(props, tuple(from_env))
