"""The main job (``python -m pyspark_ext demo``), small: both parts run, every configuration
returns the same rows (the demo checks), the output shows what the extension saves, and a caller's
session is left as it was."""
from __future__ import annotations

import ast
import contextlib
import io
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import demo
from tests.support.differential import ENABLED

pytestmark = pytest.mark.slow

#: Folders of the checkout that a pip install does not hold (``pyproject.toml`` packages
#: ``pyspark_ext`` only).
CHECKOUT_ONLY = ("benchmarks", "devtools", "tests")


def _caller_state(spark: SparkSession) -> dict[str, object]:
    """The temp views (by their schema and files) and the extension's switch."""
    views = {t.name: (spark.table(t.name).schema.simpleString(), sorted(spark.table(t.name).inputFiles()))
             for t in spark.catalog.listTables() if t.isTemporary}
    return {"views": views, ENABLED: spark.conf.get(ENABLED, None)}


@pytest.fixture(scope="module")
def shown(spark: SparkSession, tmp_path_factory, events: str) -> tuple[dict, str, dict, dict]:
    # The caller has a view named like the demo's table (``events``, the shared one) and the
    # extension switched off; the demo switches it on and off for its own runs.
    spark.conf.set(ENABLED, "false")
    before = _caller_state(spark)
    with pytest.MonkeyPatch.context() as mp:
        # As after a pip install: the checkout's benchmarks are not importable while the demo runs.
        for name in [m for m in sys.modules if m.split(".")[0] == "benchmarks"] + ["benchmarks"]:
            mp.setitem(sys.modules, name, None)
        # Small files still get several row groups, so the selective filter has some to skip.
        mp.setattr(demo, "VARIANT_ROW_GROUP_BYTES", 16 * 1024)
        mp.setattr(demo, "TIMED_RUNS", 0)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            results = demo.run_demo(rows=2000, directory=str(tmp_path_factory.mktemp("demo")),
                                    variant_rows=10_000, spark=spark)
    after = _caller_state(spark)
    spark.conf.set(ENABLED, "true")
    return results, out.getvalue(), before, after


def test_nested_part_reads_fewer_bytes(shown) -> None:
    results, out, _, _ = shown
    assert len(results["nested"]) == len(demo.QUERIES)
    for r in results["nested"]:
        assert r["extension"]["bytes_read"] < r["stock"]["bytes_read"], r["query"]
    assert out.count("bytes saved by the extension") == len(demo.QUERIES)


def test_variant_part_shows_both_layouts(shown) -> None:
    results, out, _, _ = shown
    assert [r["query"] for r in results["variant"]] == list(demo.VARIANT_QUERIES)
    for title in demo.VARIANT_QUERIES.values():
        assert f"== {title}" in out
    for label, _, _ in demo.VARIANT_CONFIGS:
        assert out.count(label) >= len(demo.VARIANT_QUERIES)
    for r in results["variant"]:
        c = r["configs"]
        stock, spec, draft = (c["stock, spec layout"], c["pyspark-ext, spec layout"],
                              c["pyspark-ext, draft layout"])
        assert spec["read_leaves"] < stock["read_leaves"] and spec["bytes_read"] < stock["bytes_read"]
        assert draft["read_leaves"] < draft["full_leaves"]
        assert all(v["seconds"] > 0 for v in c.values())


def test_selective_filter_skips_row_groups_with_the_extension_only(shown) -> None:
    results, _, _, _ = shown
    [c] = [r["configs"] for r in results["variant"] if r["query"] == "selective_filter"]
    for label in ("pyspark-ext, spec layout", "pyspark-ext, draft layout"):
        assert c[label]["row_groups"] > 2 and c[label]["row_groups_skipped"] >= c[label]["row_groups"] - 2
    assert c["stock, spec layout"]["row_groups_skipped"] == 0


def test_the_callers_views_and_switch_are_left_as_they_were(shown) -> None:
    _, _, before, after = shown
    assert "events" in before["views"] and before[ENABLED] == "false"
    assert after == before


def test_the_package_imports_nothing_from_the_checkout() -> None:
    """Every import in the package, function-local ones included, stays inside what a pip install
    holds; the run above proves the same for the demo at run time."""
    root = Path(pyspark_ext.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            found += [f"{path.relative_to(root)}: {n}" for n in names if n.split(".")[0] in CHECKOUT_ONLY]
    assert not found
