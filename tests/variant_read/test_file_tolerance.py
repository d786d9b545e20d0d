"""Spark's file-tolerance settings with the extension on: the same rows as stock Spark.

`spark.sql.files.ignoreCorruptFiles` and `ignoreMissingFiles` (and the data-source options of
the same names) make Spark skip, when it reads the rows, a file it cannot read. The extension
reads footers at planning (shredded variant layouts) and reads files with readers of its own
(leaf columns, row-group counting); with a setting on, a damaged or vanished file must be
skipped all the same, and the other files' rows returned, in both variant layouts and for plain
nested columns, over a Parquet path and over a catalog table. With the setting off the query
fails, and the extension's error names the file.

The expected rows are the query's rows over the source data of the files left (unshredded
VARIANT, which stock Spark reads); for the spec layout and nested columns stock Spark also reads
the damaged folder itself, with the same setting, and must return them too.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

import pyspark_ext
from pyspark_ext.settings import ROW_GROUP_METRICS
from tests.support.differential import ENABLED, assert_same_rows, confs, rows_of

LAYOUTS = ("draft", "spec", "nested")
SCHEMAS = {"draft": "id BIGINT, v VARIANT", "spec": "id BIGINT, v VARIANT",
           "nested": "id BIGINT, s STRUCT<a: BIGINT, b: STRUCT<c: BIGINT, d: STRING>>"}
QUERIES = {
    "draft": ["SELECT id, to_json(v) FROM {t}", "SELECT v:a::bigint FROM {t} WHERE v:a::bigint > 3"],
    "spec": ["SELECT id, to_json(v) FROM {t}", "SELECT v:a::bigint FROM {t} WHERE v:a::bigint > 3"],
    "nested": ["SELECT s.b.c FROM {t}", "SELECT s.b.c, s.a FROM {t} WHERE s.a > 3"],
}
SETTING = {"corrupt": "spark.sql.files.ignoreCorruptFiles", "missing": "spark.sql.files.ignoreMissingFiles"}
OPTION = {"corrupt": "ignoreCorruptFiles", "missing": "ignoreMissingFiles"}
_names = itertools.count()


def _source(spark: SparkSession, layout: str) -> DataFrame:
    """3,000 rows, as unshredded VARIANT or plain nested structs (what stock Spark reads)."""
    if layout == "nested":
        return spark.sql("SELECT id, named_struct('a', id, 'b', named_struct('c', id * 2, 'd', "
                         "cast(id AS string))) AS s FROM range(3000)")
    return spark.sql("SELECT id, parse_json(concat('{\"a\":', id, ',\"b\":\"x', id, '\"}')) AS v "
                     "FROM range(3000)")


def _write(spark: SparkSession, layout: str, folder: Path) -> list[Path]:
    """Three files of 1,000 rows each, ids in ranges, in `layout`."""
    src = _source(spark, layout).repartitionByRange(3, "id")
    if layout != "nested":
        src = pyspark_ext.shred(src, "v", "a bigint, b string",
                                **({"layout": "spec"} if layout == "spec" else {}))
    src.write.parquet(str(folder))
    files = sorted(folder.glob("*.parquet"))
    assert len(files) == 3
    return files


def _damage(file: Path, damage: str) -> None:
    if damage == "missing":
        file.unlink()
    else:  # the tail, with the footer, cut off: no row of it is readable
        data = file.read_bytes()
        file.write_bytes(data[: len(data) // 2])
        # Hadoop's local checksum file would report the damage first, as a checksum error.
        (file.parent / f".{file.name}.crc").unlink(missing_ok=True)


def _ids(spark: SparkSession, file: Path, layout: str) -> list[int]:
    return [r.id for r in spark.read.schema(SCHEMAS[layout]).parquet(str(file)).select("id").collect()]


class Case:
    """A folder of three files, one of them damaged after it was listed, read as `t`."""

    def __init__(self, spark: SparkSession, tmp_path: Path, layout: str, source: str, damage: str,
                 how: str) -> None:
        self.spark, self.layout, self.source, self.damage, self.how = spark, layout, source, damage, how
        self.folder = tmp_path / "data"
        files = _write(spark, layout, self.folder)
        self.bad = files[1]
        # Read with the extension off, so that no footer of it is cached before the damage.
        with confs(spark, {ENABLED: "false"}):
            gone = set(_ids(spark, self.bad, layout))
        # The files hold ranges of ids, so the damaged file's rows are one range.
        _source(spark, layout).where(f"id NOT BETWEEN {min(gone)} AND {max(gone)}") \
            .createOrReplaceTempView("truth")
        # A file that vanishes from a path read does so after each listing (see `read`).
        self.backup = self.bad.read_bytes()
        if damage == "corrupt":
            _damage(self.bad, damage)
        self.table = f"tolerance_{next(_names)}"
        if source == "table":
            spark.sql(f"CREATE TABLE {self.table} ({SCHEMAS[layout]}) USING parquet "
                      f"LOCATION '{self.folder}'")
            if damage == "missing":
                # Stock Spark lists the table's files now and keeps the listing, as a catalog
                # does; a file deleted then is still in it.
                with confs(spark, {ENABLED: "false"}):
                    spark.table(self.table).count()
                _damage(self.bad, damage)

    def read(self, tolerant: bool) -> None:
        """`t` over the folder, with the setting on or off (a session setting, or an option)."""
        vanishes = self.damage == "missing" and self.source == "path"
        if vanishes:
            self.bad.write_bytes(self.backup)
        reader = self.spark.read
        if self.how == "option":
            reader = reader.option(OPTION[self.damage], str(tolerant).lower())
        df = reader.table(self.table) if self.source == "table" else \
            reader.schema(SCHEMAS[self.layout]).parquet(str(self.folder))
        df.createOrReplaceTempView("t")
        if vanishes:
            _damage(self.bad, self.damage)  # after the listing, before the rows are read

    def settings(self, tolerant: bool) -> dict[str, str]:
        on = str(tolerant).lower()
        return {SETTING[self.damage]: on if self.how == "conf" else "false"}

    def rows(self, query: str, tolerant: bool, enabled: bool) -> list[Any]:
        with confs(self.spark, {**self.settings(tolerant), ENABLED: str(enabled).lower()}):
            self.read(tolerant)
            return rows_of(self.spark, query.format(t="t"))

    def fails(self, query: str, enabled: bool) -> str:
        with confs(self.spark, {**self.settings(False), ENABLED: str(enabled).lower()}):
            with pytest.raises(Exception) as info:
                self.read(False)
                self.spark.sql(query.format(t="t")).collect()
        return str(info.value)

    def close(self) -> None:
        if self.source == "table":
            self.spark.sql(f"DROP TABLE IF EXISTS {self.table}")


@pytest.fixture
def case(spark: SparkSession, tmp_path: Path, request):
    made: list[Case] = []

    def make(layout: str, source: str, damage: str, how: str) -> Case:
        made.append(Case(spark, tmp_path / str(len(made)), layout, source, damage, how))
        return made[-1]
    yield make
    for c in made:
        c.close()


@pytest.mark.parametrize("how", ["conf", "option"])
@pytest.mark.parametrize("damage", ["corrupt", "missing"])
@pytest.mark.parametrize("source", ["path", "table"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_skipped_files_are_skipped_as_stock_spark_skips_them(spark: SparkSession, case, layout: str,
                                                             source: str, damage: str, how: str) -> None:
    c = case(layout, source, damage, how)
    for query in QUERIES[layout]:
        truth = rows_of(spark, query.format(t="truth"))
        assert len(truth) > 0
        if layout != "draft":  # stock Spark reads the spec layout and nested columns itself
            assert_same_rows(c.rows(query, tolerant=True, enabled=False), truth, f"stock Spark: {query}")
        assert_same_rows(c.rows(query, tolerant=True, enabled=True), truth, f"the extension: {query}")


@pytest.mark.parametrize("damage", ["corrupt", "missing"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_row_group_counting_skips_them_too(spark: SparkSession, case, layout: str, damage: str) -> None:
    """The row-group counting reader (off by default) reads each split's footer again."""
    c = case(layout, "table", damage, "conf")
    query = QUERIES[layout][1]
    truth = rows_of(spark, query.format(t="truth"))
    with confs(spark, {ROW_GROUP_METRICS: "true"}):
        assert_same_rows(c.rows(query, tolerant=True, enabled=True), truth, query)


@pytest.mark.parametrize("damage", ["corrupt", "missing"])
@pytest.mark.parametrize("source", ["path", "table"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_without_the_setting_the_query_fails_naming_the_file(spark: SparkSession, case, layout: str,
                                                            source: str, damage: str) -> None:
    c = case(layout, source, damage, "conf")
    query = QUERIES[layout][0]
    if layout != "draft":
        c.fails(query, enabled=False)
    message = c.fails(query, enabled=True)
    assert c.bad.name in message, message[:2000]


@pytest.mark.parametrize("layout", ["draft", "spec"])
def test_a_file_back_by_read_time_fails_rather_than_reads_unplanned(spark: SparkSession, case,
                                                                  layout: str) -> None:
    """A file missing at planning, planned as lacking the column, then back as it was listed
    (same length and modification time): read by the plan it would give nulls for its values;
    the scan fails naming it instead (under ignoreCorruptFiles Spark's scan skips it)."""
    import os
    c = case(layout, "path", "missing", "conf")
    listed = os.stat(c.bad)
    c.source = "table"  # read through the catalog's listing, which still holds the file
    spark.sql(f"CREATE TABLE {c.table} ({SCHEMAS[layout]}) USING parquet LOCATION '{c.folder}'")
    with confs(spark, {ENABLED: "false"}):
        spark.table(c.table).count()
    c.bad.unlink()
    with confs(spark, {SETTING["missing"]: "true"}):
        df = spark.table(c.table).selectExpr("id", "to_json(v)")
        c.bad.write_bytes(c.backup)
        os.utime(c.bad, ns=(listed.st_atime_ns, listed.st_mtime_ns))
        with pytest.raises(Exception) as info:
            df.collect()
    message = str(info.value)
    assert c.bad.name in message and "Rerun the query" in message, message[:2000]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_explain_read_schema_leaves_out_a_skipped_footer(spark: SparkSession, case, layout: str) -> None:
    """The report reads footers for bytes and row groups: one the scan skips is left out."""
    c = case(layout, "path", "corrupt", "conf")
    with confs(spark, {SETTING["corrupt"]: "true"}):
        c.read(True)
        [scan] = pyspark_ext.explain_read_schema(spark.sql(QUERIES[layout][1].format(t="t")))
    assert scan["files"] == 3 and scan["bytes_full"] > 0
    assert scan["row_groups"] == scan["row_groups_read"] + scan["row_groups_skipped"] > 0
