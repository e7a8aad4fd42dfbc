"""The Spark benchmark's cells: every mode's files fit the sink's buffer, so none closes early by size."""

from __future__ import annotations

import pytest

from bench.spark_kafka.cells import Cell
from bench.spark_sink import PARTITION_COUNTS, RECORDS, VALUE_SIZES, check_file_sizes


@pytest.mark.parametrize("mode", sorted(RECORDS))
def test_every_modes_cells_make_files_the_sink_closes_by_count(mode: str) -> None:
    cells = [Cell(s, VALUE_SIZES[s], p, RECORDS[mode][s], "t") for s in VALUE_SIZES for p in PARTITION_COUNTS]
    check_file_sizes(cells)


def test_a_cell_whose_files_would_close_early_by_size_is_refused() -> None:
    # 200,000 records of 1 KB in one partition: the sink would close the file at about 130,000.
    with pytest.raises(ValueError, match="spark-1KB-1p"):
        check_file_sizes([Cell("1KB", 1024, 1, 600_000, "t")])
