"""The images stay under their size targets (what a user pulls onto every worker machine)."""

from __future__ import annotations

import pytest

from tests.fixtures.containers.engine import Engine

pytestmark = pytest.mark.containers


MB = 1_000_000


def test_the_images_stay_under_their_size_targets(
    container_engine: Engine, worker_image: str, spark_image: str, kafka_image: str
) -> None:
    sizes = {image: container_engine.image_size(image) / MB for image in (worker_image, spark_image, kafka_image)}
    # The worker: 244 MB before the PostgreSQL CDC connector's psycopg2-binary, which vendors its own libpq,
    # OpenSSL and Kerberos libraries (11 MB; psycopg 3's binary wheel for the SQL connectors has its own copy).
    assert sizes[worker_image] < 265, sizes
    assert sizes[spark_image] < 900, sizes
    # The base, the Spark image's Java runtime and the broker jars: about 250 MB.
    assert sizes[kafka_image] < 300, sizes
