"""Iceberg tables the extension does not know (a changelog view, a metadata table) are left to
Iceberg's reader as stock Spark plans them, with one warning per kind; rows are stock rows."""
from tests.tables.iceberg.conftest import compare


def _warnings(spark) -> list[str]:
    seq = spark._jvm.pysparkext.formats.IcebergTables.warnings()
    return [seq.apply(i) for i in range(seq.size())]


def test_unknown_iceberg_tables_are_left_to_iceberg_with_one_warning(spark, iceberg_events):
    t = iceberg_events[2]
    changes = f"SELECT id, user.geo.city, _change_type FROM {t}.changes WHERE id < 50"
    files = f"SELECT file_path, readable_metrics.id.lower_bound FROM {t}.files"
    for _ in range(2):
        for sql in (changes, files):
            stock, ext = compare(spark, sql)
            assert ext.read_schemas == stock.read_schemas, sql
    warnings = _warnings(spark)
    changelog = [w for w in warnings if "SparkChangelogTable" in w]
    metadata = [w for w in warnings if "no format version" in w]
    assert len(changelog) == 1 and len(metadata) == 1, warnings
    assert "read as stock Spark plans them" in changelog[0]
