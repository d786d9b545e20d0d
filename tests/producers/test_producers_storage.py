"""The exclusive publish of a version on stores other than the local disk: Hadoop's rename."""
from __future__ import annotations

from pyspark_ext.producers.storage import _hadoop_rename


def test_hadoop_rename_publishes_once_and_never_replaces(spark, tmp_path):
    first, second, target = (tmp_path / n for n in ("first", "second", "target"))
    first.write_text("first")
    second.write_text("second")
    assert _hadoop_rename(first.as_uri(), target.as_uri())
    assert not _hadoop_rename(second.as_uri(), target.as_uri())
    assert target.read_text() == "first" and second.exists()
