"""The local Kafka manager's errors; the CLI maps them to exit codes (tool missing 2, other 1)."""

import shutil


class LocalKafkaError(Exception):
    """The local cluster could not be fetched, started, or stopped; the message says why."""


class ToolMissingError(LocalKafkaError):
    """A program the manager shells out to (`java`, `mvn`) is not on PATH."""

    def __init__(self, tool: str, install_hint: str) -> None:
        super().__init__(f"`{tool}` not found: install {install_hint}")
        self.tool = tool


_INSTALL_HINTS = {
    "java": "a Java 17+ runtime (Debian: apt-get install openjdk-17-jre-headless)",
    "mvn": "Apache Maven 3.6+ (Debian: apt-get install maven)",
}


def require_tool(tool: str) -> str:
    """The absolute path of `tool` on PATH, or ToolMissingError naming what to install."""
    path = shutil.which(tool)
    if path is None:
        raise ToolMissingError(tool, _INSTALL_HINTS.get(tool, f"`{tool}`"))
    return path
