"""Where plug-in classes kconnect ships moved, so that a config naming a class by its former Python path
(in a stored connector config, a properties file, a worker's `config.providers.*.class`) keeps working.

The class itself reports its current path (`GET /connector-plugins`); the former one is only read.
"""

from __future__ import annotations

MOVED_PACKAGES = (
    ("connect.runtime.converters.", "connect.converters."),
    ("connect.runtime.transforms.", "connect.transforms."),
    ("connect.runtime.config_providers.", "connect.runtime.config.providers."),
)


def current_path(dotted: str) -> str:
    """`dotted` with a former package of kconnect's plug-ins replaced by its current one."""
    for former, current in MOVED_PACKAGES:
        if dotted.startswith(former):
            return current + dotted[len(former) :]
    return dotted
