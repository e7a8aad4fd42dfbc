# The commands developers and CI both call. `run` and `test` set everything up first.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test test-unit lint bench bench-quick bench-quick-all clean kafka-jars hadoop-jars s3a-jars sql-servers \
	prometheus chromium schema-registry container-engine images spark-cds

setup: $(STAMP) kafka-jars hadoop-jars s3a-jars sql-servers prometheus chromium schema-registry container-engine spark-cds

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,spark,sql,registry,cdc]'
	@touch $(STAMP)

# Resolves the Apache Kafka broker jars from Maven Central into a cache outside the repo.
kafka-jars: $(STAMP)
	$(BIN)/kconnect kafka fetch

# Resolves Hadoop's MiniDFSCluster jars (the integration tests' HDFS) from Maven Central into a cache outside the repo.
hadoop-jars: $(STAMP)
	$(BIN)/python -m tests.fixtures.hdfs fetch

# Resolves Hadoop's S3A connector (hadoop-aws and the AWS SDK's S3 client) for the s3a:// tests.
s3a-jars: $(STAMP)
	$(BIN)/python -m tests.fixtures.s3 fetch

# Apicurio Registry (the Schema Registry converter tests' registry) from Maven Central, and Apicurio's own Java
# Kafka serdes (the interoperability tests' other side, resolved with mvn), into a cache outside the repo.
schema-registry: $(STAMP)
	$(BIN)/python -m tests.fixtures.schema_registry fetch

# The class-data archive that makes the tests' Spark driver JVMs start in half the CPU (tests/fixtures/spark_cds.py),
# made once per machine (about a minute) into a cache outside the repo.
spark-cds: $(STAMP)
	$(BIN)/python -m tests.fixtures.spark_cds

# The PostgreSQL and MariaDB servers the SQL connector tests start (tests/fixtures/sql): Debian's packages.
sql-servers:
	@bash tests/fixtures/sql/install_servers.sh

# The Prometheus server the metrics tests scrape workers with (tests/fixtures/prometheus): Debian's package.
prometheus:
	@bash tests/fixtures/prometheus/install.sh

# The headless browser the dashboard tests drive (tests/fixtures/browser): Debian's chromium, never a downloaded one.
chromium:
	@bash tests/fixtures/browser/install.sh

# podman, buildah, runc and debootstrap from Debian's packages (tests/fixtures/containers): the image builds
# and container tests run on them.
container-engine:
	@bash tests/fixtures/containers/install_engine.sh

# kconnect:local, kconnect-spark:local and kafka:local (the broker jars of `kafka-jars`) from docker/Dockerfile,
# with podman (on a Debian base made locally with debootstrap, cached) or docker. Prints each step's time and
# each image's size.
images: $(STAMP) container-engine kafka-jars
	$(BIN)/python -m tests.fixtures.containers images

run: setup
	$(BIN)/python -m workers.demo

# The images are built first, so the tests' own builds find every layer cached. Then the suite runs on both
# cores (pytest-xdist; tests/fixtures/groups.py keeps each server's tests on one worker), except the tests that
# assert time bounds or load the whole machine (markers `timed`, `heavy`): they run after it, one at a time.
# Both parts always run; the target fails if either did.
PARALLEL ?= -n 2 --dist loadgroup --no-loadscope-reorder
ALONE := timed or heavy
test: setup images
	@$(BIN)/pytest tests -m "not ($(ALONE))" $(PARALLEL) --durations=40; parallel=$$?; \
	$(BIN)/pytest tests -m "$(ALONE)" --durations=10; alone=$$?; \
	test $$parallel -eq 0 && test $$alone -eq 0

test-unit: $(STAMP)
	$(BIN)/pytest tests/unit -n 2

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	# Every test module imports: a name moved between test helpers fails here in seconds, not in CI.
	$(BIN)/python -m pytest --collect-only -q -m "" -p no:cacheprovider tests > /dev/null

bench: setup
	$(BIN)/python -m bench

# The Java Kafka Connect comparisons (about 6 minutes on 2 cores); the join/restart, Spark-sink and
# security groups take about 12 minutes more in quick mode: `make bench-quick-all` (about 17 minutes).
QUICK_GROUPS = raw,source,datagen,sink,latency,rest,memory,startup,failover

bench-quick: setup
	$(BIN)/python -m bench --quick --only $(QUICK_GROUPS)

bench-quick-all: setup
	$(BIN)/python -m bench --quick

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
