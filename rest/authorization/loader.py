"""`rest.authorizer.class`: build and configure the authorizer the worker's properties name, if any."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata

from rest.authorization.api import ENTRY_POINT_GROUP, Authorizer
from rest.extensions.loader import instantiate_plugin

REST_AUTHORIZER_CLASS = "rest.authorizer.class"


def load_authorizer(name: str | None, worker_config: Mapping[str, str]) -> Authorizer | None:
    """The configured authorizer, or None when `name` is empty (authorization off); ConfigError naming the key."""
    if name is None or not name.strip():
        return None
    available = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    authorizer: Authorizer = instantiate_plugin(
        name.strip(), available, REST_AUTHORIZER_CLASS, Authorizer, "REST authorizer"
    )
    try:
        authorizer.configure(worker_config)
    except BaseException:
        authorizer.close()
        raise
    return authorizer
