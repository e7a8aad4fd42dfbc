"""Config providers with Kafka's names and keys: the built-in providers, declaring them, resolving
placeholders, putting them back into task configs, worker properties, TTL reloads and redaction."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from connect.api.errors import ConfigError
from connect.runtime.config.providers import (
    HIDDEN,
    ConfigProviders,
    ConfigTransformer,
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
    RedactingFilter,
    SecretRedactor,
)
from connect.runtime.config.providers.reload import ConfigReloads
from connect.runtime.config.worker_config import WorkerConfig
from tests.support.waiting import wait_until

KAFKA_PACKAGE = "org.apache.kafka.common.config.provider."
CONVERTERS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}


def _providers(**extra: str) -> dict[str, str]:
    return {
        "config.providers": "file,dir,env",
        "config.providers.file.class": KAFKA_PACKAGE + "FileConfigProvider",
        "config.providers.dir.class": KAFKA_PACKAGE + "DirectoryConfigProvider",
        "config.providers.env.class": KAFKA_PACKAGE + "EnvVarConfigProvider",
        **extra,
    }


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    (tmp_path / "db.properties").write_text("password=file-s3cret\nuser = app\n")
    (tmp_path / "mounted").mkdir()
    (tmp_path / "mounted" / "token").write_text("dir-t0ken")
    (tmp_path / "outside.properties").write_text("password=outside\n")
    return tmp_path


def test_file_provider_reads_properties_within_allowed_paths(secrets: Path) -> None:
    provider = FileConfigProvider()
    assert provider.get(str(secrets / "db.properties"), {"password", "user", "nope"}).data == {
        "password": "file-s3cret",
        "user": "app",
    }
    assert provider.get("", {"password"}).data == {}
    provider.configure({"allowed.paths": str(secrets / "db.properties")})
    assert provider.get(str(secrets / "outside.properties"), {"password"}).data == {}
    assert provider.get(f"{secrets}/nowhere/../db.properties", {"password"}).data == {"password": "file-s3cret"}
    assert provider.get(f"{secrets}/../{secrets.name}/outside.properties", {"password"}).data == {}
    with pytest.raises(ConfigError, match="Could not read properties from file"):
        FileConfigProvider().get(str(secrets / "missing.properties"), {"x"})
    with pytest.raises(ConfigError, match="absolute paths"):
        FileConfigProvider().configure({"allowed.paths": "relative/dir"})


def test_directory_provider_reads_files_of_the_directory_only(secrets: Path) -> None:
    provider = DirectoryConfigProvider()
    mounted = str(secrets / "mounted")
    assert provider.get(mounted, {"token", "absent"}).data == {"token": "dir-t0ken"}
    assert provider.get(mounted, {"../db.properties", ".."}).data == {}
    assert provider.get(str(secrets / "db.properties"), {"token"}).data == {}


def test_env_provider_with_its_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KC_SECRET_A", "env-a")
    monkeypatch.setenv("OTHER_VAR", "other")
    provider = EnvVarConfigProvider()
    assert provider.get("", {"KC_SECRET_A", "OTHER_VAR", "UNSET_VAR_X"}).data == {
        "KC_SECRET_A": "env-a",
        "OTHER_VAR": "other",
    }
    provider.configure({"allowlist.pattern": "KC_.*"})
    assert provider.get("", {"KC_SECRET_A", "OTHER_VAR"}).data == {"KC_SECRET_A": "env-a"}
    with pytest.raises(ConfigError, match="takes no path"):
        provider.get("/some/path", {"KC_SECRET_A"})
    with pytest.raises(ConfigError, match=r"Invalid allowlist\.pattern"):
        EnvVarConfigProvider().configure({"allowlist.pattern": "("})


def test_resolution_groups_keys_and_leaves_unknowns_as_written(secrets: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KC_TOPIC", "orders")
    transformer = ConfigTransformer(ConfigProviders.from_props(_providers()))
    db = secrets / "db.properties"
    resolved = transformer.transform(
        {
            "connection.url": f"jdbc:postgresql://db/app?user=${{file:{db}:user}}&password=${{file:{db}:password}}",
            "token": f"${{dir:{secrets / 'mounted'}:token}}",
            "topic": "${env:KC_TOPIC}",
            "unknown.alias": "${vault:/secret:key}",
            "missing.key": f"${{file:{db}:nope}}",
            "plain": "value",
        }
    )
    assert resolved.config == {
        "connection.url": "jdbc:postgresql://db/app?user=app&password=file-s3cret",
        "token": "dir-t0ken",
        "topic": "orders",
        "unknown.alias": "${vault:/secret:key}",
        "missing.key": f"${{file:{db}:nope}}",
        "plain": "value",
    }
    assert resolved.secrets == {"app", "file-s3cret", "dir-t0ken", "orders"}
    assert resolved.ttls == {}
    assert "file-s3cret" not in repr(resolved)


def test_task_configs_get_the_placeholders_back() -> None:
    raw = {"password": "${file:/s.properties:password}", "user": "app", "tasks.max": "2"}
    task = {"password": "resolved", "user": "app", "task.only": "x"}
    assert ConfigTransformer.reverse(raw, task) == {
        "password": "${file:/s.properties:password}",
        "user": "app",
        "task.only": "x",
    }


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"config.providers": "file"}, r'Missing required configuration "config\.providers\.file\.class"'),
        (
            {"config.providers": "v", "config.providers.v.class": "com.example.VaultConfigProvider"},
            r"Invalid value com\.example\.VaultConfigProvider for configuration config\.providers\.v\.class",
        ),
        (
            {"config.providers": "v", "config.providers.v.class": "NoSuchProvider"},
            r"config\.providers\.v\.class: no such config provider",
        ),
        (
            {"config.providers": "v", "config.providers.v.class": "tests.support.fake_herder.FakeHerder"},
            r"not a ConfigProvider",
        ),
        (
            {**_providers(), "config.providers.env.param.allowlist.pattern": "["},
            r"Config provider env \(config\.providers\.env\.class=.*\): Invalid allowlist\.pattern",
        ),
    ],
)
def test_bad_provider_declarations_name_the_key(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ConfigProviders.from_props(props)
    with pytest.raises(ConfigError, match=message):
        WorkerConfig.from_props({**CONVERTERS, **props})


def test_user_providers_by_import_path_with_params(secrets: Path) -> None:
    props = {
        "config.providers": "vault",
        "config.providers.vault.class": "tests.support.ttl_provider.TtlFileConfigProvider",
        "config.providers.vault.param.ttl.ms": "250",
    }
    resolved = ConfigTransformer(ConfigProviders.from_props(props)).transform(
        {"password": f"${{vault:{secrets / 'db.properties'}:password}}"}
    )
    assert resolved.config == {"password": "file-s3cret"}
    assert resolved.min_ttl_ms == 250


def test_a_builtin_provider_named_by_its_former_python_path_still_loads(secrets: Path) -> None:
    props = {
        "config.providers": "file",
        "config.providers.file.class": "connect.runtime.config_providers.builtin.FileConfigProvider",
    }
    resolved = ConfigTransformer(ConfigProviders.from_props(props)).transform(
        {"password": f"${{file:{secrets / 'db.properties'}:password}}"}
    )
    assert resolved.config == {"password": "file-s3cret"}


def test_worker_properties_are_resolved_with_their_own_providers(secrets: Path) -> None:
    config = WorkerConfig.from_props(
        {
            **CONVERTERS,
            **_providers(),
            "producer.sasl.jaas.config": f"${{file:{secrets / 'db.properties'}:password}}",
            "listeners.https.ssl.keystore.password": f"${{dir:{secrets / 'mounted'}:token}}",
        }
    )
    assert config.producer_props()["sasl.jaas.config"] == "file-s3cret"
    assert config.originals["listeners.https.ssl.keystore.password"] == "dir-t0ken"


def test_a_ttl_reload_restarts_only_when_a_value_changed(secrets: Path) -> None:
    props = {
        "config.providers": "vault",
        "config.providers.vault.class": "tests.support.ttl_provider.TtlFileConfigProvider",
        "config.providers.vault.param.ttl.ms": "100",
    }
    transformer = ConfigTransformer(ConfigProviders.from_props(props))
    restarted: list[str] = []
    changed = threading.Event()

    def restart(name: str) -> None:
        restarted.append(name)
        changed.set()

    reloads = ConfigReloads(transformer, restart)
    raw = {"password": f"${{vault:{secrets / 'db.properties'}:password}}"}
    quiet = {**raw, "config.action.reload": "none"}
    try:
        reloads.watch("watched", raw, transformer.transform(raw))
        reloads.watch("not-watched", quiet, transformer.transform(quiet))
        # Several TTLs pass without a change: nothing is restarted.
        assert not changed.wait(0.5)
        (secrets / "db.properties").write_text("password=rotated\n")
        wait_until(changed.is_set, timeout=10, what="the restart after the secret changed")
        assert restarted == ["watched"]
    finally:
        reloads.close()


def test_redaction_of_text_and_log_records(caplog: pytest.LogCaptureFixture) -> None:
    redactor = SecretRedactor()
    redactor.add({"file-s3cret", "ab", "file-s3cret-longer"})
    assert redactor.redact("pw=file-s3cret-longer and file-s3cret, ab") == f"pw={HIDDEN} and {HIDDEN}, ab"
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "login with %s failed", ("file-s3cret",), None)
    try:
        raise ValueError("bad password file-s3cret")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    assert RedactingFilter(redactor).filter(record)
    assert record.getMessage() == f"login with {HIDDEN} failed"
    assert record.exc_text is not None
    assert "file-s3cret" not in record.exc_text
    assert f"bad password {HIDDEN}" in record.exc_text
