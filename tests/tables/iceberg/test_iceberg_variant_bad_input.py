"""Bad input under the extension's own reads of an Iceberg table's shredded VARIANT files: a data
file deleted from storage and a corrupt manifest fail the query with the extension on, as they do
with stock Spark + Iceberg, naming the file, even where Spark's own settings would have Spark's
reader skip a file it cannot read. Never fewer rows."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from pyspark.errors import PySparkException
from py4j.protocol import Py4JJavaError

from tests.support.differential import ENABLED, confs
from tests.tables.iceberg.test_iceberg_variant_reads import _by_extension, _create, _insert, compare

QUERY = "SELECT count(*), sum(v:a::int), max(v:b::string) FROM {t} WHERE v:c.d::double >= 0"
FAILURES = (PySparkException, Py4JJavaError)


def _error(spark, sql: str, enabled: bool, **settings: str) -> str:
    """The message of the error ``sql`` fails with, with the extension on or off."""
    with confs(spark, {ENABLED: str(enabled).lower(), **settings}), pytest.raises(FAILURES) as failure:
        spark.sql(sql).collect()
    return str(failure.value)


def _data_files(spark, t: str) -> list[str]:
    return sorted(r[0].removeprefix("file:") for r in spark.sql(f"SELECT file_path FROM {t}.files").collect())


@pytest.fixture
def table(spark, request):
    """A fresh shredded table of two data files, both read by the extension."""
    t = f"ice.db.vr_bad_{request.node.name.split('[')[0].removeprefix('test_')[:20]}"
    _create(spark, t)
    _insert(spark, t, 0, 400)
    _insert(spark, t, 400, 800)
    _, ext = compare(spark, QUERY.format(t=t))
    assert _by_extension(ext), ext.read_schemas
    yield t
    spark.sql(f"DROP TABLE IF EXISTS {t}")


@pytest.mark.parametrize("ignore", ["false", "true"])
def test_a_missing_data_file_fails_the_query_as_with_stock(spark, table, ignore):
    """With ``spark.sql.files.ignoreMissingFiles`` on, Spark's reader would skip a missing file and
    return the other file's rows; Iceberg's reader fails, so the extension's reads of Iceberg's
    files keep the setting off."""
    missing = _data_files(spark, table)[0]
    os.remove(missing)
    sql = QUERY.format(t=table)
    confs = {"spark.sql.files.ignoreMissingFiles": ignore}
    stock = _error(spark, sql, enabled=False, **confs)
    ext = _error(spark, sql, enabled=True, **confs)
    name = Path(missing).name
    assert name in stock and name in ext, (stock[:600], ext[:600])


def test_a_corrupt_data_file_fails_the_query_as_with_stock(spark, table):
    """``spark.sql.files.ignoreCorruptFiles`` would have Spark's reader skip an unreadable file."""
    corrupt = _data_files(spark, table)[1]
    size = os.path.getsize(corrupt)
    with open(corrupt, "r+b") as f:
        f.seek(size - 12)
        f.write(b"\xff" * 4)  # the footer's length: the footer cannot be read
    sql = QUERY.format(t=table)
    confs = {"spark.sql.files.ignoreCorruptFiles": "true"}
    _error(spark, sql, enabled=False, **confs)
    ext = _error(spark, sql, enabled=True, **confs)
    assert Path(corrupt).name in ext, ext[:600]


def test_a_corrupt_manifest_fails_the_query_with_icebergs_error(spark, table):
    manifests = [r[0].removeprefix("file:") for r in spark.sql(f"SELECT path FROM {table}.manifests").collect()]
    Path(manifests[0]).write_bytes(b"not an avro manifest")
    sql = QUERY.format(t=table)
    stock = _error(spark, sql, enabled=False)
    ext = _error(spark, sql, enabled=True)
    name = Path(manifests[0]).name
    assert name in stock and name in ext, (stock[:600], ext[:600])
