"""The metric list in docs/monitoring.md is the catalog's, as generated."""

from __future__ import annotations

from pathlib import Path

from connect.runtime.metrics.catalog_docs import markdown

DOC = Path(__file__).resolve().parents[4] / "docs" / "monitoring.md"


def test_the_documented_metric_list_is_the_catalog() -> None:
    text = DOC.read_text()
    documented = text.split("<!-- metrics:begin -->\n", 1)[1].split("<!-- metrics:end -->", 1)[0]
    assert documented == markdown(), "regenerate it: python -m connect.runtime.metrics.catalog_docs"
