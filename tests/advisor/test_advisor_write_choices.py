"""The advisor's write choices for skipping (docs/variant-reads.md, "Skipping"): which filters of
the workload are equality and range filters, which shredded leaves get bloom filters, which one
files are sorted by or which two they are clustered by, and, end to end, that ``advise --apply``
writes files in which the workload's equality and range filters read fewer row groups and pages
than in the same sample shredded without them."""
from __future__ import annotations

import io
import json
import random
from collections import Counter
from contextlib import redirect_stdout

import pytest

import pyspark_ext
from pyspark_ext.__main__ import main
from pyspark_ext.advisor import analyze_workload
from pyspark_ext.advisor.recommend import PathStats, choose, write_choices
from pyspark_ext.advisor.recommend import _candidates as candidates_of
from pyspark_ext.advisor.recommend import _filters as filters_of
from pyspark_ext import settings
from tests.support.differential import confs

TABLES = {"t": "id BIGINT, v VARIANT, w VARIANT"}


def kinds(*queries: str) -> Counter:
    analysis = analyze_workload(list(queries), TABLES)
    assert analysis.failures == []
    return Counter({(vp.path, kind): n for (vp, kind), n in analysis.variant_filters.items()})


@pytest.mark.parametrize("query, expected", [
    ("SELECT id FROM t WHERE v:did::string = 'x'", {("$.did", "equality")}),
    ("SELECT id FROM t WHERE 'x' <=> v:did::string", {("$.did", "equality")}),
    ("SELECT id FROM t WHERE variant_get(v, '$.k', 'string') IN ('a', 'b')", {("$.k", "equality")}),
    ("SELECT id FROM t WHERE try_variant_get(v, '$.n', 'int') > 3", {("$.n", "range")}),
    ("SELECT id FROM t WHERE v:ts::bigint BETWEEN 1 AND 5 AND id > 0", {("$.ts", "range")}),
    ("SELECT id FROM t WHERE (v:n::int < -1 OR v:did::string = 'x')", {("$.n", "range"), ("$.did", "equality")}),
    ("SELECT v:k::string, count(*) FROM t GROUP BY 1 HAVING v:k::string = 'a'", {("$.k", "equality")}),
    ("SELECT a.id FROM t a JOIN t b ON a.id = b.id AND b.v:k::string = 'a'", {("$.k", "equality")}),
    ("SELECT v:did::string = 'x' FROM t", set()),
    ("SELECT id FROM t WHERE NOT (v:did::string = 'x')", set()),
    ("SELECT id FROM t WHERE v:did::string = w:did::string", set()),
    ("SELECT id FROM t WHERE v:did::string LIKE 'x%'", set()),
])
def test_filter_kinds(query, expected):
    assert set(kinds(query)) == expected


def test_filters_are_weighted_by_query_count():
    assert kinds(*["SELECT id FROM t WHERE v:did::string = 'x'"] * 3) == Counter({("$.did", "equality"): 3})


def _choices(queries: list[str], stats: dict[str, PathStats], max_leaves: int = 32):
    analysis = analyze_workload(queries, TABLES)
    _, report = choose(candidates_of(analysis, "v", None), stats, max_leaves, 4)
    blooms, sort_by, cluster_by = write_choices(report, filters_of(analysis, "v", None), stats, "v")
    assert not (sort_by and cluster_by)  # each orders the rows: at most one is recommended
    return blooms, sort_by + cluster_by, {r["path"]: r for r in report}


def _stats(distinct: int, typ: str = "STRING", rows: int = 10_000, avg: int = 20) -> PathStats:
    return PathStats(Counter({typ: rows}), rows, rows * avg, distinct)


def test_bloom_filters_go_on_high_cardinality_equality_leaves_only():
    blooms, _, report = _choices(
        ["SELECT id FROM t WHERE v:did::string = 'x'", "SELECT id FROM t WHERE v:kind::string IN ('a')",
         "SELECT id FROM t WHERE v:on::boolean = true", "SELECT v:name::string FROM t"],
        {"$.did": _stats(9_500), "$.kind": _stats(12), "$.on": _stats(2, "BOOLEAN"),
         "$.name": _stats(9_000)})
    assert blooms == ["did"]
    assert report["$.did"]["write"] == "bloom filter"
    assert "20 bytes" in report["$.did"]["write_cost"] and "6%" in report["$.did"]["write_cost"]
    assert report["$.kind"]["write"] == "-" and "dictionary" in report["$.kind"]["write_cost"]
    assert report["$.name"]["write"] == "-"  # read, never filtered


def test_a_leaf_that_is_not_shredded_gets_no_bloom_filter():
    blooms, _, report = _choices(
        ["SELECT id FROM t WHERE v:did::string = 'x'", "SELECT v:a::bigint, v:b::bigint FROM t",
         "SELECT v:a::bigint, v:b::bigint FROM t"],
        {"$.did": _stats(9_500, avg=2), "$.a": _stats(10, "BIGINT"), "$.b": _stats(10, "BIGINT")},
        max_leaves=2)
    assert report["$.did"]["shred"] is False
    assert blooms == []


def test_files_are_sorted_by_the_one_leaf_filtered_by_range():
    _, order, report = _choices(
        ["SELECT id FROM t WHERE v:ts::bigint > 5"] * 3 + ["SELECT id FROM t WHERE v:n::int = 2"],
        {"$.ts": _stats(9_000, "BIGINT"), "$.n": _stats(50, "INT")})
    assert order == ["try_variant_get(v, '$.ts', 'bigint')"]
    assert report["$.ts"]["write"] == "sort" and report["$.n"]["write"] == "-"
    assert report["$.ts"]["write_cost"] == "sorting: one sort of each file's rows before it is written"


def _clustering(queries: list[str], stats: dict[str, PathStats]):
    analysis = analyze_workload(queries, TABLES)
    _, report = choose(candidates_of(analysis, "v", None), stats, 32, 4)
    _, sort_by, cluster_by = write_choices(report, filters_of(analysis, "v", None), stats, "v")
    return sort_by, cluster_by, {r["path"]: r for r in report}


def test_files_are_clustered_by_the_two_leaves_most_often_filtered_by_range():
    sort_by, cluster_by, report = _clustering(
        ["SELECT id FROM t WHERE v:ts::timestamp > '2026-01-01'"] * 3
        + ["SELECT id FROM t WHERE v:n::int < 2"] * 2 + ["SELECT id FROM t WHERE v:m::double > 1"],
        {"$.ts": _stats(9_000, "TIMESTAMP"), "$.n": _stats(50, "INT"), "$.m": _stats(50, "DOUBLE")})
    assert sort_by == []
    assert cluster_by == ["try_variant_get(v, '$.ts', 'timestamp')", "try_variant_get(v, '$.n', 'int')"]
    assert report["$.ts"]["write"] == report["$.n"]["write"] == "cluster"
    assert report["$.m"]["write"] == "-"
    assert report["$.ts"]["write_cost"] == ("clustering by a z-order of ts and n: one aggregate pass "
                                            "(each path's min and max) and one sort of each file's rows")


def test_a_bloom_filtered_leaf_is_clustered_too():
    _, cluster_by, report = _clustering(
        ["SELECT id FROM t WHERE v:did::bigint = 5", "SELECT id FROM t WHERE v:did::bigint > 5",
         "SELECT id FROM t WHERE v:n::int < 2"],
        {"$.did": _stats(9_500, "BIGINT"), "$.n": _stats(50, "INT")})
    assert cluster_by == ["try_variant_get(v, '$.did', 'bigint')", "try_variant_get(v, '$.n', 'int')"]
    assert report["$.did"]["write"] == "bloom filter, cluster"
    assert "bytes per distinct value" in report["$.did"]["write_cost"]
    assert "z-order of did and n" in report["$.did"]["write_cost"]


def test_a_string_range_leaf_is_sorted_not_clustered():
    # clustering scales numbers, dates and timestamps only: the top range leaf gets the sort
    sort_by, cluster_by, report = _clustering(
        ["SELECT id FROM t WHERE v:name::string > 'm'"] * 2 + ["SELECT id FROM t WHERE v:n::int < 2"],
        {"$.name": _stats(9_000), "$.n": _stats(50, "INT")})
    assert (sort_by, cluster_by) == (["try_variant_get(v, '$.name', 'string')"], [])
    assert report["$.name"]["write"] == "sort" and report["$.n"]["write"] == "-"


def test_paths_through_arrays_get_neither():
    blooms, sort_by, _ = _choices(
        ["SELECT id FROM t WHERE v:items[0].sku::string = 'x' AND v:items[0].ts::bigint > 3"],
        {"$.items[0].sku": _stats(9_000), "$.items[0].ts": _stats(9_000, "BIGINT")})
    assert blooms == [] and sort_by == []


ROWS, GROUP, PAGE = 4000, 200, 25
# row groups of GROUP rows with pages of PAGE rows; page sizes are checked after every row
WRITE = {"parquet.block.row.count.limit": str(GROUP), "parquet.page.row.count.limit": str(PAGE),
         "parquet.page.size.row.check.min": "1", "parquet.page.size.check.estimate": "false"}


@pytest.fixture(scope="module")
def workload_and_sample(spark, tmp_path_factory):
    """Unsorted events (random ``did``, ``ts`` in shuffled order) and a workload that looks up
    one ``did`` and a range of ``ts``."""
    base = tmp_path_factory.mktemp("advise_write")
    rnd = random.Random(7)
    order = list(range(ROWS))
    rnd.shuffle(order)
    texts = [json.dumps({"did": f"did:{rnd.randrange(10 ** 9):09d}", "ts": ts, "kind": f"k{ts % 4}"})
             for ts in order]
    sample = str(base / "sample")
    spark.createDataFrame(list(enumerate(texts)), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v").coalesce(1).write.parquet(sample)
    target = json.loads(texts[1234])["did"]
    queries = base / "workload.sql"
    queries.write_text(f"SELECT id FROM t WHERE v:did::string = '{target}';\n"
                       f"SELECT id FROM t WHERE v:did::string IN ('did:1', 'did:2');\n"
                       f"SELECT count(*) FROM t WHERE v:ts::bigint BETWEEN 100 AND 150;\n"
                       f"SELECT v:kind::string, count(*) FROM t GROUP BY 1;\n")
    return base, sample, str(queries), target


def _advise(spark, base, sample, queries, out, layout):
    buffer = io.StringIO()
    sizes = {**WRITE, "parquet.bloom.filter.max.bytes": "4096"}
    with confs(spark, sizes), redirect_stdout(buffer):
        code = main(["advise", "--queries", queries, "--table", "t=id BIGINT, v VARIANT",
                     "--sample", sample, "--column", "v", "--layout", layout, "--format", "json",
                     "--apply", out])
    assert code == 0
    return json.loads(buffer.getvalue())


@pytest.mark.parametrize("layout", ["draft", "spec"])
def test_advise_write_skips_row_groups_for_the_workloads_filters(spark, workload_and_sample, layout):
    base, sample, queries, target = workload_and_sample
    out = str(base / f"advised_{layout}")
    doc = _advise(spark, base, sample, queries, out, layout)
    assert doc["bloom_filters"] == ["did"]
    assert doc["sort_by"] == ["try_variant_get(v, '$.ts', 'bigint')"] and doc["cluster_by"] == []
    assert doc["written"] == {"path": out, "layout": layout}
    # the same sample and schema, written without the advisor's write choices
    plain = str(base / f"plain_{layout}")
    schema = doc["shredding_schema"] if layout == "draft" else doc["spec_shredding_schema"]
    with confs(spark, WRITE):
        pyspark_ext.write_shredded(spark.read.parquet(sample), plain, {"v": schema}, layout)
    read, pages = {}, {}
    with confs(spark, {settings.ROW_GROUP_METRICS: "true"}):
        for kind, where in (("lookup", f"v:did::string = '{target}'"),
                            ("range", "v:ts::bigint BETWEEN 100 AND 150")):
            query = "SELECT id, v:ts::bigint AS ts FROM {t} WHERE " + where
            with confs(spark, {settings.ENABLED: "false"}):  # stock, on the sample itself
                truth = sorted(spark.sql(query.format(t=f"parquet.`{sample}`")).collect())
            assert len(truth) == (1 if kind == "lookup" else 51)
            for name, path in (("advised", out), ("plain", plain)):
                # a draft-layout column is a VARIANT where the schema says so
                spark.read.schema("id bigint, v variant").parquet(path).createOrReplaceTempView("advised")
                df = spark.sql(query.format(t="advised"))
                assert sorted(df.collect()) == truth
                scans = pyspark_ext.explain_read_schema(df)
                read[name, kind] = (sum(s["row_groups_read_metric"] for s in scans),
                                    sum(s["row_groups"] for s in scans))
                pages[name, kind] = (sum(s["pages_read"] for s in scans),
                                     sum(s["pages_skipped"] for s in scans))
    groups = ROWS // GROUP
    assert read["plain", "lookup"] == (groups, groups)
    assert read["plain", "range"] == (groups, groups)  # unsorted ts: every row group spans it
    assert read["advised", "lookup"] == (1, groups)
    assert read["advised", "range"][0] <= 2
    # pages of the leaves read: sorted by ts, the page index skips pages inside the row groups read,
    # and the advised files read a tenth of the pages the plain ones do, or fewer
    assert pages["advised", "range"][1] > 0
    assert pages["advised", "range"][0] * 10 <= pages["plain", "range"][0], pages
    assert pages["advised", "lookup"][0] * 10 <= pages["plain", "lookup"][0], pages


def test_advise_write_clusters_for_two_range_paths(spark, tmp_path):
    """Two independent random paths, each filtered by range: ``advise --write`` clusters by both,
    and a range on either reads fewer row groups than the same sample shredded without order."""
    rnd = random.Random(3)
    texts = [json.dumps({"a": rnd.randrange(10_000), "b": rnd.randrange(10_000)}) for _ in range(ROWS)]
    sample = str(tmp_path / "sample")
    spark.createDataFrame(list(enumerate(texts)), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v").coalesce(1).write.parquet(sample)
    queries = tmp_path / "workload.sql"
    queries.write_text("SELECT id FROM t WHERE v:a::bigint BETWEEN 1000 AND 1499;\n"
                       "SELECT count(*) FROM t WHERE v:b::bigint < 500;\n")
    out = str(tmp_path / "advised")
    doc = _advise(spark, tmp_path, sample, str(queries), out, "spec")
    assert doc["sort_by"] == []
    assert doc["cluster_by"] == ["try_variant_get(v, '$.a', 'bigint')", "try_variant_get(v, '$.b', 'bigint')"]
    plain = str(tmp_path / "plain")
    with confs(spark, WRITE):
        pyspark_ext.write_shredded(spark.read.parquet(sample), plain, {"v": doc["spec_shredding_schema"]})
    for where in ("v:a::bigint BETWEEN 1000 AND 1499", "v:b::bigint < 500"):
        query = "SELECT id FROM {t} WHERE " + where
        with confs(spark, {settings.ENABLED: "false"}):
            truth = sorted(spark.sql(query.format(t=f"parquet.`{sample}`")).collect())
        read = {}
        for name, path in (("advised", out), ("plain", plain)):
            df = spark.sql(query.format(t=f"parquet.`{path}`"))
            assert sorted(df.collect()) == truth
            scan, = pyspark_ext.explain_read_schema(df)
            read[name] = scan["row_groups_read"]
        assert read["plain"] == ROWS // GROUP
        assert read["advised"] <= ROWS // GROUP // 2, (where, read)
