#!/bin/sh
# Makes the image's virtual environment smaller without changing what a worker runs, then proves it still
# loads: every native extension module is imported once at the end, so a library the stripping broke fails
# the build, not a worker.
set -eu

site="$(python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"

# The build backend: kconnect's own wheel is built in an isolated environment, and nothing runs it after.
pip uninstall --quiet --yes setuptools

# Debug symbols of the native libraries (uvloop's, SQLAlchemy's, zstandard's and pyarrow's are most of
# their size). Not of the libraries that auditwheel vendored into `<package>.libs/`: patchelf rewrote their
# headers, and strip leaves some of them unloadable ("ELF load command address/offset not page-aligned").
find "$VIRTUAL_ENV" -type f \( -name '*.so' -o -name '*.so.*' \) -not -path '*.libs/*' \
    -exec strip --strip-unneeded {} +

# Test suites, C headers and examples: never imported by a worker.
rm -rf "$site"/pandas/tests "$site"/numpy/tests "$site"/numpy/*/tests "$site"/pyarrow/tests \
    "$site"/pyarrow/include "$site"/pyspark/examples

# pyarrow's Flight RPC: neither the Spark sink nor pyspark uses it.
rm -f "$site"/pyarrow/_flight.* "$site"/pyarrow/flight.py "$site"/pyarrow/libarrow_flight.so* \
    "$site"/pyarrow/libarrow_python_flight.so*

# Spark's jars for what the Spark sink never runs in a worker: RocksDB (streaming state stores), MLlib and
# GraphX with their linear algebra, Hive with its metastore (the sink's sessions use Spark's in-memory
# catalog; hive-storage-api stays: ORC needs it), the Spark Connect server and the Scala shell of Spark
# Connect (the sink reaches a remote server, `sc://`, through pyspark's Python client).
if [ -d "$site/pyspark/jars" ]; then
    (
        cd "$site/pyspark/jars"
        rm -f rocksdbjni-*.jar \
            spark-mllib_*.jar spark-mllib-local_*.jar spark-graphx_*.jar breeze_*.jar breeze-macros_*.jar \
            spire_*.jar spire-*_*.jar algebra_*.jar cats-kernel_*.jar arpack-*.jar arpack_combined_all-*.jar \
            blas-*.jar lapack-*.jar JTransforms-*.jar \
            spark-hive_*.jar spark-hive-thriftserver_*.jar hive-beeline-*.jar hive-cli-*.jar hive-common-*.jar \
            hive-exec-*.jar hive-jdbc-*.jar hive-metastore-*.jar hive-serde-*.jar hive-service-rpc-*.jar \
            hive-shims-*.jar datanucleus-*.jar derby-*.jar derbyshared-*.jar derbytools-*.jar javax.jdo-*.jar \
            jdo-api-*.jar libfb303-*.jar libthrift-*.jar \
            spark-connect_*.jar
        rm -rf connect-repl
    )
fi

python - <<'EOF'
import importlib
import pathlib
import sysconfig

site = pathlib.Path(sysconfig.get_path("purelib"))
# The packages first (psycopg_binary, for one, insists on psycopg before it); what fails here is checked below.
for package in sorted(site.glob("*/__init__.py")):
    try:
        importlib.import_module(package.parent.name)
    except Exception:
        pass
for library in sorted(site.rglob("*.so")):
    name = library.name.split(".")[0]
    if ".cpython-" not in library.name and ".abi3." not in library.name:
        continue  # a shared library, loaded by the extension modules that need it
    parts = library.relative_to(site).parent.parts
    importlib.import_module(".".join([*parts, name]))
EOF
