"""`kconnect standalone` refuses bad input with Kafka's exit codes before it touches the network, and takes
worker settings from `KCONNECT_*` environment variables over its worker file, as `kconnect worker` does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from workers.cli import build_parser
from workers.common.worker_props import load_worker_props
from workers.standalone.process import StandaloneWorker


def _run(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workers.cli", "standalone", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=None if env is None else {**os.environ, **env},
    )


def _worker_file(path: Path, **extra: str) -> Path:
    props = {
        "bootstrap.servers": "127.0.0.1:1",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "offset.storage.file.filename": str(path.parent / "offsets"),
        **extra,
    }
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def test_parser_takes_a_worker_file_and_any_number_of_connector_files() -> None:
    args = build_parser().parse_args(["standalone", "worker.properties", "a.properties", "b.json"])
    assert args.worker_properties == Path("worker.properties")
    assert args.connector_files == [Path("a.properties"), Path("b.json")]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["standalone"])


def test_missing_worker_file_exits_2(tmp_path: Path) -> None:
    result = _run(str(tmp_path / "absent.properties"))
    assert result.returncode == 2
    assert "Stopping due to error" in result.stderr and "absent.properties" in result.stderr


def test_worker_file_without_offsets_file_exits_2(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text("bootstrap.servers=127.0.0.1:1\nkey.converter=StringConverter\nvalue.converter=StringConverter\n")
    result = _run(str(worker))
    assert result.returncode == 2
    assert 'Missing required configuration "offset.storage.file.filename"' in result.stderr


def test_invalid_worker_value_exits_2(tmp_path: Path) -> None:
    result = _run(str(_worker_file(tmp_path / "worker.properties", **{"offset.flush.interval.ms": "soon"})))
    assert result.returncode == 2
    assert "offset.flush.interval.ms" in result.stderr


def test_unreadable_connector_file_exits_3(tmp_path: Path) -> None:
    worker = _worker_file(tmp_path / "worker.properties")
    nameless = tmp_path / "connector.properties"
    nameless.write_text("connector.class=FileStreamSource\n")
    result = _run(str(worker), str(nameless))
    assert result.returncode == 3
    assert "missing the mandatory 'name' configuration" in result.stderr


def test_environment_variables_override_the_worker_file_and_the_defaults(tmp_path: Path) -> None:
    worker = _worker_file(tmp_path / "worker.properties", **{"offset.flush.interval.ms": "1000"})
    loaded = load_worker_props(
        worker,
        {
            "KCONNECT_OFFSET_FLUSH_INTERVAL_MS": "250",
            "KCONNECT_TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS": "750",
            "KCONNECT_VALUE_CONVERTER_SCHEMAS_ENABLE": "false",
            "KCONNECT_CACHE_DIR": "/somewhere",
            "HOME": "/root",
        },
    )

    config = StandaloneWorker.from_props(loaded.props).config
    assert config.offset_flush_interval_ms == 250
    assert config.task_shutdown_graceful_timeout_ms == 750
    assert config.converter_props("value.converter") == {"schemas.enable": "false"}
    assert config.bootstrap_servers == "127.0.0.1:1", "keys the environment does not set keep the file's value"
    assert loaded.from_env == (
        "offset.flush.interval.ms",
        "task.shutdown.graceful.timeout.ms",
        "value.converter.schemas.enable",
    )


def test_the_command_reads_the_environment_over_its_worker_file(tmp_path: Path) -> None:
    worker = _worker_file(tmp_path / "worker.properties", **{"offset.flush.interval.ms": "1000"})
    result = _run(str(worker), env={"KCONNECT_OFFSET_FLUSH_INTERVAL_MS": "soon"})
    assert result.returncode == 2
    assert "Worker settings from the environment: offset.flush.interval.ms" in result.stderr
    assert "Invalid value soon for configuration offset.flush.interval.ms" in result.stderr


def test_a_required_worker_key_can_come_from_the_environment(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text("bootstrap.servers=127.0.0.1:1\nkey.converter=StringConverter\nvalue.converter=StringConverter\n")
    nameless = tmp_path / "connector.properties"
    nameless.write_text("connector.class=FileStreamSource\n")
    offsets = str(tmp_path / "offsets")

    result = _run(str(worker), str(nameless), env={"KCONNECT_OFFSET_STORAGE_FILE_FILENAME": offsets})

    # Past the worker config (exit 2 without the offsets file), on to the connector file (exit 3).
    assert result.returncode == 3, result.stderr
    assert "missing the mandatory 'name' configuration" in result.stderr
