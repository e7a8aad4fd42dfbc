"""Named clusters (contexts) in a JSON file, and which cluster a command talks to.

The file is `$KCONNECT_CTL_CONFIG`, else `~/.config/kconnect/ctl.json` (`$XDG_CONFIG_HOME` honoured):
`{"current-context": NAME, "contexts": {NAME: {"url", "user"?, "password"?, "ca-file"?}}}`. It may hold
a basic-auth password, so it is written with mode 0600 (through a temporary file, never readable by
others even for a moment) and the password is never printed.

The cluster of a command: `--url`, else `--context NAME`, else `$KCONNECT_URL`, else the current
context, else Kafka Connect's default `http://localhost:8083` (as kcctl does without a config): what the
command line says explicitly wins over the environment, which wins over the file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ctl.errors import UsageError

DEFAULT_URL = "http://localhost:8083"


@dataclass(frozen=True)
class Context:
    """Where a cluster's REST API is and how to authenticate to it."""

    url: str
    user: str | None = None
    password: str | None = None
    ca_file: str | None = None

    def to_json(self) -> dict[str, str]:
        fields = {"url": self.url, "user": self.user, "password": self.password, "ca-file": self.ca_file}
        return {key: value for key, value in fields.items() if value is not None}

    @staticmethod
    def from_json(name: str, raw: object) -> Context:
        if not isinstance(raw, dict) or not isinstance(raw.get("url"), str):
            raise UsageError(f"Context '{name}' in the ctl config file has no 'url'")
        return Context(raw["url"], raw.get("user"), raw.get("password"), raw.get("ca-file"))

    def updated(self, **changes: str | None) -> Context:
        """This context with the given fields replaced (None leaves a field as it is)."""
        return replace(self, **{key: value for key, value in changes.items() if value is not None})


@dataclass
class ContextFile:
    """The contexts of the config file and the name of the current one."""

    contexts: dict[str, Context] = field(default_factory=dict)
    current: str | None = None


def config_path(environ: Mapping[str, str]) -> Path:
    """Where the contexts are kept."""
    if explicit := environ.get("KCONNECT_CTL_CONFIG"):
        return Path(explicit)
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    return Path(base) / "kconnect" / "ctl.json"


def load(path: Path) -> ContextFile:
    """The contexts in `path`; an empty set if the file does not exist; UsageError if it is unreadable."""
    try:
        raw = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return ContextFile()
    except (OSError, ValueError) as exc:
        raise UsageError(f"Cannot read the ctl config file {path}: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("contexts", {}), dict):
        raise UsageError(f"The ctl config file {path} is not a JSON object with 'contexts'")
    contexts = {name: Context.from_json(name, value) for name, value in raw.get("contexts", {}).items()}
    current = raw.get("current-context")
    return ContextFile(contexts, current if isinstance(current, str) else None)


def save(path: Path, file: ContextFile) -> None:
    """Write `file` to `path` with mode 0600, replacing it atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "current-context": file.current,
        "contexts": {name: context.to_json() for name, context in sorted(file.contexts.items())},
    }
    # mkstemp creates the file 0600 already, so the password is never readable by others.
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".ctl-", suffix=".json")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=2)
            out.write("\n")
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def resolve(url: str | None, context_name: str | None, environ: Mapping[str, str], file: ContextFile) -> Context:
    """The cluster a command talks to (the order is in the module docstring)."""
    if url:
        return Context(url)
    if context_name is None and (env_url := environ.get("KCONNECT_URL")):
        return Context(env_url)
    name = context_name or file.current
    if name is None:
        return Context(DEFAULT_URL)
    if name not in file.contexts:
        raise UsageError(f"No context named '{name}' (see `kconnect ctl config get-contexts`)")
    return file.contexts[name]
