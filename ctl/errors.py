"""The errors of `kconnect ctl`, each with the exit code a script sees (documented in docs/monitoring.md)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_CLUSTER_ERROR = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_NOT_FOUND = 4
EXIT_FORBIDDEN = 5


class CtlError(Exception):
    """A failure to report on stderr; `exit_code` says which kind."""

    exit_code = EXIT_CLUSTER_ERROR


class ClusterError(CtlError):
    """The cluster answered with an error (or a result the command counts as failure, e.g. invalid config)."""

    exit_code = EXIT_CLUSTER_ERROR


class InvalidConfigError(ClusterError):
    """The cluster found errors in a connector config: `report` (the per-field errors, or the answer as
    JSON/YAML) is data for stdout, the message a summary for stderr."""

    def __init__(self, message: str, report: str) -> None:
        super().__init__(message)
        self.report = report


class UsageError(CtlError):
    """The command line, a config file or a context is wrong; nothing was sent."""

    exit_code = EXIT_USAGE


class UnreachableError(CtlError):
    """No HTTP answer: connection refused, TLS failure, timeout."""

    exit_code = EXIT_UNREACHABLE


class NotFoundError(CtlError):
    """The cluster answered 404: no such connector, task, logger or plug-in."""

    exit_code = EXIT_NOT_FOUND


class ForbiddenError(ClusterError):
    """The cluster refused the request (403): with permissions, the user lacks the one its message names."""

    exit_code = EXIT_FORBIDDEN
