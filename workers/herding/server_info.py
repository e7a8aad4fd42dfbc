"""`GET /`'s version and commit: read from the installed package's metadata, as Kafka reads its own from the
version file its build writes. The commit comes from pip's `direct_url.json` when a VCS install recorded it,
else from the git HEAD of the source tree this code runs from (an editable install or a checkout; files
only, no git process). Anything else gives "unknown", Kafka's own fallback.

The Kafka cluster id is looked up through the worker's admin client; Kafka refuses to start without it,
here a broker that is not up yet only leaves `kafka_cluster_id` null until a later `GET /` finds it.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from importlib import metadata
from pathlib import Path

from connect.api.errors import ConnectError
from connect.runtime.domain.info import ServerInfo
from connect.runtime.kafka import KafkaClients

log = logging.getLogger(__name__)

DISTRIBUTION = "kconnect"
UNKNOWN = "unknown"
CLUSTER_ID_TIMEOUT_S = 10.0


def build_info(kafka_cluster_id: str | None) -> ServerInfo:
    version, commit = _version_and_commit()
    return ServerInfo(version, commit, kafka_cluster_id)


def lookup_cluster_id(clients: KafkaClients | None, timeout: float = CLUSTER_ID_TIMEOUT_S) -> str | None:
    """The Kafka cluster's id, or None (logged) if there are no clients or Kafka did not answer in time."""
    if clients is None:
        return None
    admin = clients.admin("kconnect-herder-admin")
    try:
        return admin.cluster_id(timeout=timeout)
    except (ConnectError, TimeoutError) as exc:
        log.warning("Could not look up the Kafka cluster id: %s", str(exc) or "timed out")
        return None
    finally:
        admin.close()


@cache
def _version_and_commit() -> tuple[str, str]:
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN, git_head(_SOURCE_ROOT) or UNKNOWN
    return dist.version, _recorded_commit(dist.read_text("direct_url.json")) or git_head(_SOURCE_ROOT) or UNKNOWN


# workers/herding/server_info.py → the directory holding the top-level packages.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _recorded_commit(direct_url: str | None) -> str | None:
    try:
        info = json.loads(direct_url or "")
    except ValueError:
        return None
    commit = info.get("vcs_info", {}).get("commit_id") if isinstance(info, dict) else None
    return commit if isinstance(commit, str) and commit else None


def git_head(source: Path) -> str | None:
    """The commit that `source/.git/HEAD` points at, or None if it cannot be read."""
    git = source / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head or None
        ref = head[len("ref: ") :]
        ref_file = git / ref
        if ref_file.is_file():
            return ref_file.read_text().strip() or None
        for line in (git / "packed-refs").read_text().splitlines():
            parts = line.split(" ", 1)
            if len(parts) == 2 and parts[1] == ref:
                return parts[0]
    except OSError:
        return None
    return None
