"""`/validate` output of a config whose placeholders were resolved to validate it: every value shown as the
user wrote it (the placeholder), and any resolved secret quoted in an error message hidden.

Kafka validates resolved values and shows them, so a non-PASSWORD key given through `${file:...}` comes
back in clear; kconnect never shows what a provider resolved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from connect.runtime.config.providers import SecretRedactor
from connect.runtime.domain.info import ConfigInfo, ConfigInfos


def with_raw_values(
    infos: ConfigInfos, raw: Mapping[str, str], resolved: Mapping[str, str], redactor: SecretRedactor
) -> ConfigInfos:
    """`infos` showing `raw` values for keys that were resolved, errors redacted."""
    changed = {key for key, value in raw.items() if resolved.get(key) != value}
    configs = [_hide(info, raw, changed, redactor) for info in infos.configs]
    return replace(infos, configs=configs)


def _hide(info: ConfigInfo, raw: Mapping[str, str], changed: set[str], redactor: SecretRedactor) -> ConfigInfo:
    value = info.value
    if value is None:
        return info
    shown = raw[value.name] if value.name in changed and value.value != "[hidden]" else value.value
    errors = [redactor.redact(error) for error in value.errors]
    if shown == value.value and errors == value.errors:
        return info
    return replace(info, value=replace(value, value=shown, errors=errors))
