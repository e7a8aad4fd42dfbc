"""The Spark image (`kconnect-spark:local`): the Spark Parquet sink runs in it, on its own Java runtime."""

from __future__ import annotations

import getpass
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.containers.support import post_connector, start_worker
from tests.fixtures.containers.plugin import ContainerRunner
from tests.fixtures.hdfs.plugin import HdfsEndpoint
from tests.fixtures.s3.plugin import S3Endpoint
from tests.fixtures.spark_cds import BASE_OPTIONS
from tests.support.spark_sink_workers import (
    FLUSH_SIZE,
    PARTITIONS,
    SPARK_OPTIONS,
    Output,
    SequenceProducer,
    all_committed,
    assert_exactly_once,
    new_bucket,
)
from tests.support.waiting import wait_until

# The image's own JVM: no archive of this machine's (a host path) in its options.
SPARK_OPTIONS_IN_CONTAINER = {**SPARK_OPTIONS, "spark.driver.extraJavaOptions": BASE_OPTIONS}

pytestmark = pytest.mark.containers

BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
OUTPUT_IN_CONTAINER = "/var/lib/kconnect/data/out"
IMAGE_USER = 1000


def test_the_spark_image_writes_parquet_that_pyarrow_reads_back_exactly_once(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    spark_image: str,
    containers: ContainerRunner,
    tmp_path: Path,
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    out = tmp_path / "out"
    out.mkdir()
    os.chown(out, IMAGE_USER, IMAGE_USER)  # the image's user writes there
    producer = SequenceProducer(kafka_bootstrap, topic)
    producer.send(2 * FLUSH_SIZE * PARTITIONS)
    container, url = start_worker(
        containers,
        spark_image,
        kafka_bootstrap,
        volumes=((out, OUTPUT_IN_CONTAINER, "rw"),),
        extra_env={"KCONNECT_KEY_CONVERTER": BYTES, "KCONNECT_VALUE_CONVERTER": BYTES},
    )

    post_connector(
        url,
        "parquet",
        {
            "connector.class": "SparkParquetSinkConnector",
            "tasks.max": "1",
            "topics": topic,
            "path": f"file://{OUTPUT_IN_CONTAINER}",
            "flush.size": str(FLUSH_SIZE),
            "store.kafka.metadata": "true",
            **SPARK_OPTIONS_IN_CONTAINER,
        },
    )

    def committed() -> bool:
        if not container.state().get("Running"):
            raise AssertionError(f"the worker container stopped:\n{container.logs()}")
        return all_committed(out, topic, producer.per_partition())

    try:
        wait_until(committed, 240, "every record committed as Parquet", interval=1)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- the worker's log, last lines:\n{container.logs()[-6000:]}") from None
    assert_exactly_once(out, topic, producer)


@pytest.mark.slow
def test_the_spark_image_writes_to_hdfs_and_s3a_with_no_jars_or_classpath_of_the_users(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    spark_image: str,
    containers: ContainerRunner,
    hdfs: HdfsEndpoint,
    local_s3: S3Endpoint,
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    producer = SequenceProducer(kafka_bootstrap, topic)
    producer.send(2 * FLUSH_SIZE * PARTITIONS)
    hdfs_url = f"{hdfs.url}/kconnect-container/{uuid.uuid4().hex[:12]}"
    bucket = new_bucket(local_s3)
    outputs = {
        "to-hdfs": (hdfs_url, Output(hdfs.pyarrow_fs(), hdfs.path_of(hdfs_url))),
        "to-s3a": (f"s3a://{bucket}/sink", Output(local_s3.pyarrow_fs(), f"{bucket}/sink")),
    }
    container, url = start_worker(
        containers,
        spark_image,
        kafka_bootstrap,
        extra_env={
            "KCONNECT_KEY_CONVERTER": BYTES,
            "KCONNECT_VALUE_CONVERTER": BYTES,
            # HDFS without Kerberos takes the client's word for its user: the cluster's own, who may write.
            "HADOOP_USER_NAME": getpass.getuser(),
        },
    )
    # The endpoint and credentials only: the S3A jars come with the image, so no classpath of the host's.
    s3a = {k: v for k, v in local_s3.spark_options.items() if k != "spark.driver.extraClassPath"}
    for name, (path, _) in outputs.items():
        post_connector(
            url,
            name,
            {
                "connector.class": "SparkParquetSinkConnector",
                "tasks.max": "1",
                "topics": topic,
                "path": path,
                "flush.size": str(FLUSH_SIZE),
                "store.kafka.metadata": "true",
                **SPARK_OPTIONS_IN_CONTAINER,
                **s3a,  # both connectors share the worker's one SparkSession: the same settings for both
            },
        )

    for name, (_, output) in outputs.items():

        def committed(output: Output = output) -> bool:
            if not container.state().get("Running"):
                raise AssertionError(f"the worker container stopped:\n{container.logs()}")
            return all_committed(output, topic, producer.per_partition())

        try:
            wait_until(committed, 240, f"{name}: every record committed as Parquet", interval=1)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- the worker's log, last lines:\n{container.logs()[-6000:]}") from None
        assert_exactly_once(output, topic, producer)
