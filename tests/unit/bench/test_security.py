"""The security group's pieces: the secured worker's files and keys (read back by kconnect's own readers),
how Java gets the extension and the JAAS option, and the rows with their paired costs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.java_connect import basic_auth
from bench.java_connect.jars import ConnectJars
from bench.results import SystemResult
from bench.scenarios import security, security_rows
from bench.scenarios.rest import EndpointLog
from bench.secured_worker import (
    BASIC_AUTH_EXTENSION,
    LOGIN_MODULE,
    https_rest_properties,
    kafka_client_properties,
    write_secured_rest,
)
from bench.systems import JavaConnect, Kconnect, WorkerMode
from rest.extensions.basic_auth.credentials import CredentialsFile
from rest.extensions.basic_auth.jaas import jaas_file_from_environment, read_jaas_file

SASL_SSL_KEYS = {
    "bootstrap.servers": "127.0.0.1:9292",
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "SCRAM-SHA-512",
    "ssl.truststore.location": "/tmp/truststore.p12",
}


def test_the_secured_rest_files_are_the_ones_kconnects_basic_auth_reads(tmp_path: Path) -> None:
    rest = write_secured_rest(tmp_path)
    setup = rest.worker_setup(SASL_SSL_KEYS)
    jaas = jaas_file_from_environment(setup.environment)
    assert jaas == rest.jaas_file
    (entry,) = read_jaas_file(jaas)["KafkaConnect"]
    assert (entry.class_name, entry.flag) == (LOGIN_MODULE, "required")
    users = CredentialsFile.read(Path(entry.options["file"]), jaas)
    assert users.check(rest.user, rest.password)
    assert not users.check(rest.user, rest.password + "x")
    assert rest.keystore.exists() and rest.ca_file.exists()
    assert setup.access.scheme == "https"
    assert setup.access.credentials == (rest.user, rest.password)


def test_the_rest_key_store_stays_apart_from_the_kafka_clients_ssl_keys() -> None:
    props = https_rest_properties(Path("/tls/rest.p12"), "pw")
    assert props["rest.extension.classes"] == BASIC_AUTH_EXTENSION
    assert props["listeners.https.ssl.keystore.location"] == "/tls/rest.p12"
    assert not [key for key in props if key.startswith("ssl.")]


def test_kafka_client_keys_go_to_the_worker_and_to_every_connector_client_prefix() -> None:
    props = kafka_client_properties(SASL_SSL_KEYS)
    for prefix in ("", "producer.", "consumer.", "admin."):
        assert props[f"{prefix}security.protocol"] == "SASL_SSL"
        assert props[f"{prefix}ssl.truststore.location"] == "/tmp/truststore.p12"
    assert props["bootstrap.servers"] == "127.0.0.1:9292"
    assert "producer.bootstrap.servers" not in props


def test_java_gets_the_extension_jars_and_the_jaas_option_kafka_opts_would_give_it(tmp_path: Path) -> None:
    rest = write_secured_rest(tmp_path / "rest")
    java = JavaConnect(ConnectJars(tmp_path / "libs", tmp_path / "plugins"), "4.3.1")
    secured = security.secured_system(java, rest, tmp_path / "basic-auth")
    assert isinstance(secured, JavaConnect)
    command = secured.command(tmp_path / "worker.properties", tmp_path, WorkerMode.STANDALONE)
    assert f"-Djava.security.auth.login.config={rest.jaas_file}" in command
    assert str(tmp_path / "basic-auth" / "*") in command[command.index("-cp") + 1]
    kconnect = Kconnect()
    assert security.secured_system(kconnect, rest, tmp_path / "basic-auth") is kconnect
    assert security.secured_variant(kconnect, rest) is kconnect


def test_the_extension_keeps_only_the_jars_java_connects_classpath_lacks(tmp_path: Path) -> None:
    extension, classpath = tmp_path / "extension", tmp_path / "libs"
    for directory, names in (
        (
            extension,
            ("connect-basic-auth-extension-4.3.1.jar", "connect-api-4.3.1.jar", "javax.annotation-api-1.3.2.jar"),
        ),
        (classpath, ("connect-api-4.3.1.jar", "connect-runtime-4.3.1.jar")),
    ):
        directory.mkdir()
        for name in names:
            (directory / name).touch()
    assert basic_auth.drop_duplicates(extension, classpath) == ["connect-api-4.3.1.jar"]
    assert sorted(jar.name for jar in extension.iterdir()) == [
        "connect-basic-auth-extension-4.3.1.jar",
        "javax.annotation-api-1.3.2.jar",
    ]


REST_SAMPLES = {
    "http_p50_ms": [2.0, 3.0, 2.5],
    "https_auth_p50_ms": [3.0, 3.5, 5.5],
    "http_p99_ms": [9.0, 9.0, 9.0],
    "https_auth_p99_ms": [12.0, 12.0, 12.0],
}


def test_the_rest_row_pairs_each_repetitions_costs() -> None:
    row = security_rows.rest_row("kconnect", REST_SAMPLES)
    assert row.metrics[security_rows.COST_P50].samples == (1.0, 0.5, 3.0)
    assert row.median(security_rows.COST_P50) == 1.0
    assert not row.metrics[security_rows.COST_P50].higher_is_better


def test_the_pair_row_takes_sasl_ssls_share_within_each_repetition() -> None:
    row = security_rows.pair_row(
        "Java", {security_rows.PLAIN_RATE: [100.0, 200.0], security_rows.SECURED_RATE: [50.0, 150.0]}
    )
    assert row.metrics[security_rows.SECURED_SHARE].samples == (0.5, 0.75)
    assert row.metrics[security_rows.SECURED_RATE].higher_is_better


def test_a_burst_with_a_failed_request_fails_instead_of_reporting_fast_refusals() -> None:
    with pytest.raises(RuntimeError, match="1 of 3 requests failed"):
        security_rows.latency_figures(EndpointLog([1.0, 1.0, 1.0], errors=1), "https_auth")
    figures = security_rows.latency_figures(EndpointLog([1.0, 2.0, 3.0]), "http")
    assert figures["http_p50_ms"] == 2.0


def test_the_rest_target_compares_the_median_costs() -> None:
    cheap = security_rows.rest_row("kconnect", {**REST_SAMPLES, "https_auth_p50_ms": [2.5, 3.5, 3.0]})
    dear = security_rows.rest_row("Java", REST_SAMPLES)
    assert (security_rows.rest_target(cheap, dear) or "").startswith("met, p50 cost 0.50 ms")
    assert (security_rows.rest_target(dear, cheap) or "").startswith("missed")


def test_the_pair_target_compares_the_shares_of_plaintexts_rate_each_system_keeps() -> None:
    kconnect = security_rows.pair_row(
        "kconnect", {security_rows.PLAIN_RATE: [200.0], security_rows.SECURED_RATE: [150.0]}
    )
    java = security_rows.pair_row("Java", {security_rows.PLAIN_RATE: [100.0], security_rows.SECURED_RATE: [50.0]})
    assert (
        security_rows.pair_target(kconnect, java)
        == "met, SASL_SSL \u00f7 PLAINTEXT 0.75\u00d7 against Java's 0.50\u00d7"
    )
    assert (security_rows.pair_target(java, kconnect) or "").startswith("missed")


def test_the_verdict_lands_among_kconnects_details_only_when_both_rows_were_measured() -> None:
    kconnect = security_rows.rest_row("kconnect", REST_SAMPLES)
    java = security_rows.rest_row("Java", REST_SAMPLES)
    rows = security_rows.with_target({"kconnect": kconnect, "java-connect": java}, security_rows.rest_target)
    assert str(rows["kconnect"].details["target"]).startswith("met")
    assert "target" not in rows["java-connect"].details
    failed = SystemResult.failed("Java", "did not start")
    assert (
        security_rows.with_target({"kconnect": kconnect, "java-connect": failed}, security_rows.rest_target)["kconnect"]
        is kconnect
    )
