"""Whether a TCP port on 127.0.0.1 is free: for the local servers the project and its tests start."""

from __future__ import annotations

import socket


def port_free(port: int) -> bool:
    """True when a listener could bind `port` on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
