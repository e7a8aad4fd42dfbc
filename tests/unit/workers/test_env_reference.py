"""docs/containers.md lists every worker setting as its variable, from the worker's own definitions."""

from __future__ import annotations

from pathlib import Path

from workers.common.env import key_of
from workers.distributed.distributed_config import distributed_config_def
from workers.env_reference import environment_table

DOC = Path(__file__).resolve().parents[3] / "docs" / "containers.md"
BEGIN, END = "<!-- environment table: begin -->\n", "<!-- environment table: end -->"


def test_the_containers_page_shows_the_table_the_definitions_make() -> None:
    text = DOC.read_text()
    shown = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    assert shown == environment_table(), "regenerate it: python -m workers.env_reference"


def test_every_defined_key_has_a_row_whose_variable_reads_back_as_that_key() -> None:
    rows = environment_table().splitlines()[2:]
    variables = [row.split("`")[1] for row in rows]
    assert [key_of(v) for v in variables] == list(distributed_config_def().keys)
