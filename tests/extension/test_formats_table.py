"""docs/table-formats.md's features × formats tables are generated from the jar's TableFormats,
the code every rule asks whether a feature applies to a scan."""
from __future__ import annotations

from pathlib import Path

from pyspark_ext import formats_table


def test_table_formats_doc_tables_are_the_generated_ones(spark):
    doc = (Path(__file__).resolve().parents[2] / "docs" / "table-formats.md").read_text()
    tables = formats_table.markdown_table(formats_table.declared(spark))
    assert tables in doc, "regenerate them with: python -m pyspark_ext formats"


def test_every_format_answers_every_feature_once(spark):
    rows = formats_table.declared(spark)
    formats = {r.format for r in rows}
    features = {r.feature for r in rows}
    assert len(rows) == len(formats) * len(features) == len({(r.format, r.feature) for r in rows})
    assert {r.status for r in rows} <= {"yes", "partly", "no"}
    assert all(r.detail for r in rows if r.status != "yes")
