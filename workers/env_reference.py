"""`python -m workers.env_reference`: every worker setting as its `KCONNECT_*` variable, a Markdown table.

Made from the worker's own config definitions (distributed mode's, which include every key standalone
mode reads), so docs/containers.md lists exactly what the worker understands; a test keeps the page in
step with this output.
"""

from __future__ import annotations

from connect.api.config import NO_DEFAULT, ConfigKey, ConfigType, format_value
from workers.common.env import env_name
from workers.distributed.distributed_config import distributed_config_def

HEADER = ("| variable | worker key | type | default | what it sets |", "|---|---|---|---|---|")


def _default(key: ConfigKey) -> str:
    if key.default is NO_DEFAULT:
        return "required"
    shown = format_value(key.type, key.default)
    if shown is None:
        return "none"
    return f"`{shown}`" if shown else '`""`'


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def environment_table() -> str:
    rows = list(HEADER)
    for key in distributed_config_def().keys.values():
        kind = key.type.value.lower() if key.type is not ConfigType.PASSWORD else "password (hidden in logs)"
        rows.append(
            f"| `{env_name(key.name)}` | `{key.name}` | {kind} | {_cell(_default(key))} | {_cell(key.documentation)} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(environment_table())
