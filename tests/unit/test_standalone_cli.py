"""`kconnect standalone` refuses bad input with Kafka's exit codes before it touches the network."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from workers.cli import build_parser


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workers.cli", "standalone", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
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
