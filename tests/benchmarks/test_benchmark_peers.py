"""The peers suite (``python -m benchmarks run --suite peers``) at a tiny scale: DuckDB and Spark
compute the same thing over each DuckDB-written form, so its side-by-side times compare like with
like, and its report renders a row per query."""
import duckdb
import pytest
from pyspark.sql import SparkSession

from benchmarks import datasets, peers
from benchmarks.variant_queries import queries
from pyspark_ext.outcome import canonical_rows, same_rows

pytestmark = pytest.mark.benchmark

# Enough rows that every query finds some (the filter's 0.05% holds 3 ids; prices above 900 and the
# mismatched types, 1% and 0.5% of rows, occur), few enough to stay fast.
ROWS = 4000


@pytest.fixture(scope="module")
def forms(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(tmp_path_factory.mktemp("peers")))
        return peers.write_forms(spark, ROWS)


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    yield con
    con.close()


@pytest.mark.parametrize("form", peers.FORMS)
@pytest.mark.parametrize("name", list(queries(ROWS)))
def test_duckdb_and_spark_return_the_same_rows(spark: SparkSession, con, forms, form: str,
                                               name: str) -> None:
    pick = (lambda q: q.flat) if form == "flat" else (lambda q: q.variant)
    duck = canonical_rows(con.sql(pick(peers.duckdb_queries(ROWS)[name])
                                  .format(t=f"read_parquet('{forms[form]}')")).fetchall())
    ours = canonical_rows(tuple(r) for r in spark.sql(pick(queries(ROWS)[name])
                                                      .format(t=f"parquet.`{forms[form]}`")).collect())
    assert ours and all(v not in (None, 0) for r in ours for v in r), ours  # a query that finds nothing proves nothing
    # Exact, types included (an int is not a Decimal); only DuckDB's 128-bit integer sums differ in
    # width from Spark's longs, and Python's int holds both.
    assert same_rows(duck, ours), (duck[:5], ours[:5])


def test_duckdb_shreds_the_integer_paths(con, forms) -> None:
    # Written as JSON, DuckDB's integers (UBIGINT) stay in the residual, which makes DuckDB read
    # the whole variant for a path: every id must be in its typed leaf instead.
    nulls = dict(con.sql(f"SELECT path_in_schema, sum(stats_null_count) "
                         f"FROM parquet_metadata('{forms['shredded']}') GROUP BY 1").fetchall())
    assert nulls["v, typed_value, id, value"] == ROWS
    assert nulls["v, typed_value, id, typed_value"] == 0


def test_markdown_renders_a_row_per_query_with_the_ratios() -> None:
    names = list(queries(ROWS))
    results = []
    for i, name in enumerate(names):
        seconds = {f"{e}/{f}": 1.0 for e in peers.ENGINES for f in peers.FORMS}
        seconds["spark_ext/shredded"], seconds["duckdb/flat"] = 0.5 + i, 4.0
        results.append(peers.PeerResult(name, seconds, rows_agree_across_engines=i != 1))
    meta = {"rows": ROWS, "cores": 2, "repeat": 3, "command": "python -m benchmarks run --suite peers"}
    lines = peers.markdown(meta, results).splitlines()
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| query")]
    assert [r.split(" | ")[0][2:] for r in rows] == names
    header = [c.strip() for c in lines[2].strip("|").split("|")]
    assert header[-4:] == [f"{e} shredded/flat" for e in peers.ENGINES] + ["engines agree"]
    for i, row in enumerate(rows):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == len(header)
        # duckdb 1.0 / 4.0, stock 1.0 / 1.0, extension (0.5 + i) / 1.0
        assert cells[-4:] == ["0.25", "1.00", f"{0.5 + i:.2f}", "no" if i == 1 else "yes"]


def test_markdown_marks_a_skipped_configuration_not_run() -> None:
    seconds = {f"{e}/{f}": 2.0 for e in peers.ENGINES for f in peers.FORMS if f"{e}/{f}" != "duckdb/unshredded"}
    meta = {"rows": ROWS, "cores": 2, "repeat": 1, "command": "python -m benchmarks run --suite peers"}
    lines = peers.markdown(meta, [peers.PeerResult("one_path_sum", seconds)]).splitlines()
    header = [c.strip() for c in lines[2].strip("|").split("|")]
    cells = [c.strip() for c in lines[4].strip("|").split("|")]
    assert cells[header.index("duckdb unshredded")] == "not run"
    assert cells[header.index("duckdb shredded/flat")] == "1.00"
