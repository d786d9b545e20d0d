"""Catalog tables with Hive support and an embedded Derby metastore (``tests/support/catalog/run.py``).

Two processes, one after the other (Derby allows one JVM at a time): the first creates the
tables (CREATE TABLE ... USING parquet AS SELECT, STORED AS PARQUET, saveAsTable, CREATE TABLE
then INSERT, CREATE TABLE ... LOCATION, two partitioned tables) and queries them; the second, a
new session, reads them again from the same metastore. Every query ran with the extension off and
on; this module checks what they wrote.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.catalog.run import QUERIES
from tests.support.differential import assert_same_rows, read_stored_rows

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]
PHASES = ["create", "reread"]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict[str, Any]]:
    base = tmp_path_factory.mktemp("catalog")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    out = {}
    for phase in PHASES:
        target = base / f"{phase}.json"
        done = subprocess.run([sys.executable, "-m", "tests.support.catalog.run", "--phase", phase,
                               "--dir", str(base), "--out", str(target)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{phase} failed:\n{done.stderr[-5000:]}"
        out[phase] = json.loads(target.read_text())
    return out


def _rows(run: Any) -> list[Any]:
    """A run's rows, read back from their stored form."""
    assert isinstance(run, dict) and "rows" in run, f"the query failed: {run}"
    return read_stored_rows(run["rows"])


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("name", list(QUERIES))
def test_same_rows_extension_on(results, phase: str, name: str) -> None:
    entry = results[phase]["queries"][name]
    on = _rows(entry["on"])
    # Draft-layout tables are structs to stock Spark: their truth is the unshredded values.
    expected = _rows(entry["truth"]) if "truth" in entry else _rows(entry["off"])
    assert_same_rows(on, expected, f"{phase}: {entry['query']}")
    assert len(on) > 0


NESTED_ONLY = [n for n in QUERIES if n.startswith(("ctas_", "hive_")) or n.endswith("_leaves")]


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("name", NESTED_ONLY)
def test_nested_reads_no_more_than_stock(results, phase: str, name: str) -> None:
    entry = results[phase]["queries"][name]
    if "error" in entry["off"]:  # a draft-layout table: stock Spark cannot read it as VARIANT
        return
    on = sum(s["read_leaves"] for s in entry["on"]["scans"])
    off = sum(s["read_leaves"] for s in entry["off"]["scans"])
    assert on <= off


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("name", ["ctas_nested_deep"])
def test_nested_pruning_through_catalog(results, phase: str, name: str) -> None:
    entry = results[phase]["queries"][name]
    on = sum(s["read_leaves"] for s in entry["on"]["scans"])
    off = sum(s["read_leaves"] for s in entry["off"]["scans"])
    assert on < off  # deep.y[0].d: stock reads every field of the array's structs


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("name", ["parted_spec_leaves", "parted_spec_paths", "parted_draft_paths",
                                  "parted_draft_leaves", "located_draft_paths", "saved_spec_paths"])
def test_leaf_columns_reader_on_catalog_tables(results, phase: str, name: str) -> None:
    """Partitioned or not, variant path reads and nested leaves are read as flat leaf columns."""
    entry = results[phase]["queries"][name]
    assert all(s["format"].endswith("leaf columns") for s in entry["on"]["scans"]), entry["on"]["scans"]
    assert all(not s["format"].endswith("leaf columns") for s in entry["off"].get("scans", []))


@pytest.mark.parametrize("phase", PHASES)
def test_path_reads_read_their_leaves(results, phase: str) -> None:
    for name in ("located_draft_paths", "parted_spec_paths", "saved_spec_paths"):
        scans = results[phase]["queries"][name]["on"]["scans"]
        assert all(s["read_leaves"] < s["full_leaves"] or s["full_leaves"] <= 3 for s in scans), scans
    [scan] = results[phase]["queries"]["parted_spec_paths"]["on"]["scans"]
    assert "items" not in scan["read_schema"] and "name" in scan["read_schema"]


def test_reread_sees_every_table(results) -> None:
    assert set(results["reread"]["tables"]) >= {
        "nested_ctas", "hive_nested", "spec_saved", "spec_using", "draft_located", "spec_parted",
        "draft_parted"}


def test_rewritten_files_need_refresh_table(results) -> None:
    """Files of a table rewritten in place while the session holds its listing: the scan fails
    naming the file and asking for REFRESH TABLE; after it, the new files read right."""
    o = results["create"]["overwrite"]
    expected = read_stored_rows(o["expected"])
    assert_same_rows(read_stored_rows(o["first"]), expected, "before the rewrite")
    assert "error" in o["without_refresh"]
    assert "changed after" in o["without_refresh"]["error"] and "REFRESH TABLE" in o["without_refresh"]["error"]
    assert_same_rows(_rows(o["refreshed"]), expected, "after REFRESH TABLE")
    # The new files shred `user` as a variant: the read takes its residual, not typed leaves.
    assert "user:struct<untyped_value:binary>" in o["read_schema_refreshed"][0]
