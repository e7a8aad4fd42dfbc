"""An epoch's Arrow table as a Spark DataFrame, through either hand-off (`spark_sink.handoff`). Writer thread.

Both give the DataFrame the same Spark schema, the one `createDataFrame` derives (pyspark's
`from_arrow_schema`), so the files Spark writes do not depend on the hand-off. For the Parquet hand-off
that takes three steps: the table is first brought into the Arrow types pyspark would send the JVM
(its own timestamp localisation and cast); the file is read with that schema given (no inference
job, and types that cannot drift) and dates as written (pyarrow's calendar is the proleptic one
Spark writes, so no rebase); and since Spark's file sources make every column nullable, the
top-level columns the table has as required get it back with `coalesce(column, <zero of its type>)`.
The zero is never used: a null in a required column fails the cast before, on both hand-offs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import accumulate
from typing import Any

import pyarrow as pa

from spark_sink.handoff import HandoffArea

ARROW_BATCH_BYTES = 32 * 1024 * 1024
"""The arrow hand-off's batches stay about this small: each is one task, which must fit Spark's RPC
messages (128 MB by default) on a cluster."""


def arrow_frame(spark: Any, table: pa.Table) -> Any:
    return spark.createDataFrame(bounded_batches(table, ARROW_BATCH_BYTES))


def bounded_batches(table: pa.Table, max_bytes: int) -> pa.Table:
    """`table` in chunks of about `max_bytes` at most (slices, no copy); createDataFrame sends one batch each."""
    counts = bounded_row_counts(table, max_bytes)
    if len(counts) == 1:
        return table
    starts = accumulate(counts[:-1], initial=0)
    return pa.concat_tables([table.slice(start, rows) for start, rows in zip(starts, counts, strict=True)])


def bounded_row_counts(table: pa.Table, max_bytes: int) -> list[int]:
    """The row counts that cut `table`, in order, into pieces of about `max_bytes` at most."""
    rows, size = table.num_rows, table.nbytes
    if size <= max_bytes or rows < 2:
        return [rows]
    step = max(1, rows * max_bytes // size)
    return [min(step, rows - start) for start in range(0, rows, step)]


@contextmanager
def parquet_frame(
    spark: Any, table: pa.Table, area: HandoffArea, name: str, row_groups: Sequence[int]
) -> Iterator[Any]:
    """The table as a DataFrame that reads the hand-off file `name`; the file is deleted on exit.

    `row_groups`: the rows of each of the file's row groups, in table order.
    Spark's scan never cuts a row group: each split reads the row groups whose middle it holds.
    """
    schema = spark_schema(spark, table)
    uri = area.write(as_spark_sends(spark, table, schema), name, row_groups)
    try:
        frame = (
            spark.read.schema(schema)
            .option("datetimeRebaseMode", "CORRECTED")
            .option("int96RebaseMode", "CORRECTED")
            .parquet(uri)
        )
        yield restore_required(frame, schema)
    finally:
        area.delete(name)


def spark_schema(spark: Any, table: pa.Table) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    ntz = str(spark.conf.get("spark.sql.timestampType", "TIMESTAMP_LTZ")).upper() == "TIMESTAMP_NTZ"
    return from_arrow_schema(table.schema, prefer_timestamp_ntz=ntz)


def as_spark_sends(spark: Any, table: pa.Table, schema: Any) -> pa.Table:
    """The table as `createDataFrame` hands it to the JVM (no copy for what the decoders produce).

    The cast also fails, as it does there, on a null in a required column (a Struct that lacks a
    required value), so `restore_required` never has to fill one in."""
    from pyspark.sql.pandas.types import _check_arrow_table_timestamps_localize, to_arrow_schema

    timezone = spark.conf.get("spark.sql.session.timeZone")
    localized = _check_arrow_table_timestamps_localize(table, schema, True, timezone)
    return localized.cast(to_arrow_schema(schema, error_on_duplicated_field_names_in_struct=True, timezone="UTC"))


def restore_required(frame: Any, schema: Any) -> Any:
    if all(field.nullable for field in schema.fields):
        return frame
    from pyspark.sql import functions

    columns = [
        functions.col(_quoted(f.name))
        if f.nullable
        else functions.coalesce(functions.col(_quoted(f.name)), _zero(f.dataType)).alias(f.name)
        for f in schema.fields
    ]
    return frame.select(*columns)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _zero(kind: Any) -> Any:
    """A non-null literal column of Spark type `kind`."""
    from pyspark.sql import functions, types

    if isinstance(kind, types.StructType):
        return functions.struct(*[_zero(f.dataType).alias(f.name) for f in kind.fields])
    if isinstance(kind, types.ArrayType):
        return functions.array().cast(kind)
    if isinstance(kind, types.MapType):
        return functions.create_map().cast(kind)
    if isinstance(kind, types.StringType):
        return functions.lit("")
    if isinstance(kind, types.BinaryType):
        return functions.lit(bytearray())
    if isinstance(kind, types.BooleanType):
        return functions.lit(False)
    if isinstance(kind, types.DateType):
        return functions.lit(dt.date(1970, 1, 1))
    if isinstance(kind, types.TimestampType | types.TimestampNTZType):
        return functions.lit(dt.datetime(1970, 1, 1)).cast(kind)
    return functions.lit(0).cast(kind)
