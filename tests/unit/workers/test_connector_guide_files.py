"""docs/connectors.md shows the example package's files as they are in docs/examples/my-connectors (which
the integration tests run, install and type-check), so the page cannot drift from tested code."""

from __future__ import annotations

from tests.support.connector_guide import EXAMPLE_PROJECT, PACKAGE, guide_files, guide_packaging


def test_every_file_the_guide_shows_is_the_example_package_s_file_as_it_is() -> None:
    shown = guide_files()
    assert {f"{PACKAGE}/http_source.py", f"{PACKAGE}/jsonl_sink.py", "tests/test_connectors.py"} <= set(shown)
    for path, text in shown.items():
        assert (EXAMPLE_PROJECT / path).read_text(encoding="utf-8") == text, f"docs/connectors.md's {path} differs"


def test_the_guide_s_packaging_section_is_part_of_the_example_s_pyproject() -> None:
    assert guide_packaging() in (EXAMPLE_PROJECT / "pyproject.toml").read_text(encoding="utf-8")
