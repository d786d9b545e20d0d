"""The fuzzer's tables as Iceberg tables with a history (``python -m devtools.fuzz
--table-format iceberg``).

The same generated data as ``data`` (the nested event log, the variant events) is written by stock
Spark + Iceberg into a Hadoop catalog under the fuzz directory, then changed before any query runs,
so that queries read tables with delete files, evolved schemas and rewritten files:

- ``nested`` (format version 2): two inserts; a global equality delete on the top-level ``grp``;
  partition evolution (unpartitioned, then ``bucket(4, id)``); nested fields added
  (``user.geo.zip``, ``page.views.element.dwell``); ``payload.f0015`` dropped and re-added (older
  rows read it as null); ``user.geo.city`` renamed; a copy-on-write ``MERGE`` (delete, update,
  insert) over the second insert's rows (its files rewritten, the first's keep the equality
  delete); merge-on-read ``DELETE`` and ``UPDATE`` (position deletes, rows written under the new
  name); ``user.geo.city`` renamed back, so files hold the field under two names and only
  Iceberg's field ids tell them apart. A tag ``first_insert`` marks the first insert; a branch
  ``side``, made before the rename back, has a merge-on-read ``DELETE`` of its own.
- ``variant_truth`` (v3, unshredded): merge-on-read ``DELETE`` and ``UPDATE`` (deletion vectors).
- ``variant_spec`` (v3): one insert per part, each file shredded by Iceberg's writer from its own
  rows, one part unshredded; an equality delete on the top-level ``grp``; merge-on-read
  ``DELETE`` and ``UPDATE`` (deletion vectors).
- ``variant_draft``: Iceberg has no draft layout, so the name stands for a third v3 table whose
  history leaves no delete file and no column change (copy-on-write ``DELETE``, ``UPDATE`` and
  ``MERGE``; partition evolution from ``bucket(2, id)`` to ``bucket(3, id)``): the table the
  extension reads itself, by its shredded leaves (docs/table-formats.md). A tag ``inserted``
  marks the inserts; a branch ``side`` has a copy-on-write ``DELETE`` of its own.

Every query is judged against stock Spark + Iceberg on the same table. No top-level column is
renamed (stock Spark 4.1 + Iceberg 1.12 then fail to read the table), and no equality delete is on
a nested field (stock Spark + Iceberg 1.12 then answer inconsistently from run to run).

About one query in three (``TRAVEL``) reads older snapshots by time travel (``travel``):
``VERSION AS OF <snapshot id>`` or ``TIMESTAMP AS OF '<commit time>'`` (or their
``FOR SYSTEM_VERSION`` / ``FOR SYSTEM_TIME`` spellings), the snapshot drawn among those each
table's history made, recorded from ``<table>.snapshots`` as the table was written
(``CatalogTable.snapshots``, a branch's own commits among them), so drawing runs no query; or,
on a table with branches and tags (``CatalogTable.refs``, from ``<table>.refs``), about one in
four of those by name (``VERSION AS OF 'side'``). A snapshot is read with the schema it was
written under: ``nested``'s snapshots before the column changes lack ``user.geo.zip`` and
``page.views.element.dwell`` and read the first ``payload.f0015`` (the re-added one is another
field), and those after them name ``user.geo.city`` ``town`` (the rename back made no snapshot),
so a query reading ``user.geo.city`` there fails. It must fail alike with the extension on
(counted as failed alike both ways); a failure with the extension on alone is a mismatch. Where
a query names its table more than once (self-joins, subqueries, set operations), either every
reference reads the same snapshot, or each draws its own (the current state among them).

Snapshot ids and commit times are new with every set of tables written, so a seed reproduces the
same SQL text over the same tables only (``fuzz.fuzz`` called again with them). A new run writes
new tables with new ids and times; the queries that seed draws then read the same snapshot by
position (the table's first, second, ... commit), and so the same data and schema.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from pyspark.sql import SparkSession
from sqlglot import exp

from pyspark_ext.scoped_confs import scoped_confs
from pyspark_ext.settings import ENABLED

from .case import Case, CatalogTable, Snapshot
from .data import variant_json
from .data import write_tables as write_parquet_tables
from .table_formats import PRODUCTS

CATALOG = "fuzz_ice"
NAMESPACE = f"{CATALOG}.fuzz"
ICEBERG = PRODUCTS["iceberg"]
#: Iceberg 1.12's vectorized reader fails on shredded values ("Unsupported variant: shredded
#: typed_value primitive"), stock and with the extension alike; its row-by-row reader reads them.
#: Small row groups, so that filters on paths have row groups to skip.
SHREDDED = ("'write.parquet.shred-variants'='true', 'read.parquet.vectorization.enabled'='false', "
            "'write.parquet.row-group-size-bytes'='8192'")
MERGE_ON_READ = "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read'"
COPY_ON_WRITE = ("'write.delete.mode'='copy-on-write', 'write.update.mode'='copy-on-write', "
                 "'write.merge.mode'='copy-on-write'")
#: what an UPDATE writes into a variant: an object of another shape than the events'
UPDATED = ("parse_json(to_json(named_struct('id', id, 'kind', 'updated', 'price', id / 4, "
           "'user', named_struct('id', id % 50, 'name', 'upd'))))")


def unsupported_line(line: str) -> str | None:
    """Why Iceberg mode cannot run on Spark ``line``, or None."""
    if line in ICEBERG.lines:
        return None
    return (f"--table-format iceberg: Iceberg is tested on Spark {', '.join(ICEBERG.lines)} ({ICEBERG.poms()}), "
            f"this is Spark {line}; run it in a venv of one of those lines")


def session_confs(line: str) -> dict[str, str]:
    """What a new session needs for Iceberg on Spark ``line``: the runtime's jars (fetched by
    Maven on first use) and Iceberg's session extension."""
    from . import maven
    return {"spark.jars": maven.spark_jars(ICEBERG.name, line), **ICEBERG.confs}


#: The history is made by stock Spark + Iceberg: the extension is off while it is written, and so
#: is the fuzzer's plan-change validation, which checks the queries' plans, not the setup's.
SETUP = {ENABLED: "false", "spark.sql.planChangeValidation": "false"}


def _catalog(spark: SparkSession, warehouse: Path) -> None:
    key = f"spark.sql.catalog.{CATALOG}"
    known = spark.conf.get(f"{key}.warehouse", None)
    if known is not None and known != str(warehouse):
        # a catalog is loaded once per session, with the warehouse it had then
        raise RuntimeError(f"this session already has Iceberg catalog {CATALOG} at {known}; "
                           "write the fuzzer's Iceberg tables once per session")
    spark.conf.set(key, "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(f"{key}.type", "hadoop")
    spark.conf.set(f"{key}.warehouse", str(warehouse))
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NAMESPACE}")


def write_tables(spark: SparkSession, directory: str | Path, rows: int = 1200, seed: int = 7,
                 variant: bool = True) -> dict[str, str]:
    """Write every table as an Iceberg table with its history (see the module's docstring) under
    ``directory``; return logical name -> catalog table. Without ``variant``, the nested table
    only (Spark 3.5 has no VARIANT)."""
    base = Path(directory)
    _catalog(spark, base / "warehouse")
    with scoped_confs(spark, SETUP):
        source = write_parquet_tables(spark, base / "parquet", rows=rows, seed=seed, variant=False)["nested"]
        tables = {"nested": _nested(spark, source, rows)}
        if variant:
            events = str(base / "parquet" / "variant_events")
            spark.createDataFrame(list(enumerate(variant_json(max(rows // 3, 50), seed))), "id bigint, j string") \
                .selectExpr("id", "parse_json(j) AS v").coalesce(1).write.parquet(events)
            tables["variant_truth"] = _variant_truth(spark, events)
            tables["variant_spec"] = _variant_spec(spark, events)
            tables["variant_draft"] = _variant_draft(spark, events, max(rows // 3, 50))
    return {name: CatalogTable(table, snapshots(spark, table), refs(spark, table)) for name, table in tables.items()}


def snapshots(spark: SparkSession, table: str) -> tuple[Snapshot, ...]:
    """The table's snapshots, oldest first, with their commit times as UTC literals."""
    rows = spark.sql(f"SELECT snapshot_id, unix_millis(committed_at) FROM {table}.snapshots").collect()
    return tuple(Snapshot(int(sid), _utc(ms)) for sid, ms in sorted(rows, key=lambda r: r[1]))


def refs(spark: SparkSession, table: str) -> tuple[str, ...]:
    """The names of the table's branches and tags other than ``main``, sorted."""
    return tuple(sorted(r[0] for r in spark.sql(f"SELECT name FROM {table}.refs WHERE name != 'main'").collect()))


def _utc(millis: int) -> str:
    # to the millisecond, as Iceberg records commit times; the zone is explicit so the literal
    # means the same instant in every session time zone
    second = datetime.fromtimestamp(millis // 1000, tz=timezone.utc)
    return f"{second:%Y-%m-%d %H:%M:%S}.{millis % 1000:03d}Z"


#: The share of drawn queries that read older snapshots.
TRAVEL = 1 / 3
#: The share of those that name a branch or tag, where the table has some.
BY_REF = 1 / 4
#: Spark's spellings of time travel by snapshot id and by timestamp.
BY_VERSION = ("VERSION", "FOR SYSTEM_VERSION")
BY_TIME = ("TIMESTAMP", "FOR SYSTEM_TIME")


def travel(rnd: random.Random, case: Case, history: Sequence[Snapshot], names: Sequence[str] = ()) -> None:
    """With chance ``TRAVEL``, make ``case`` read its table at snapshots of ``history`` (the
    module's docstring says how); its ``notes["travel"]`` then says whether its references read
    one snapshot (``together``) or each its own (``apart``). The draws are made whether or not
    there is a history, so the rest of a seed's query is the same either way."""
    go = rnd.random() < TRAVEL
    together = rnd.random() < 0.5
    refs = [t for t in case.ast.find_all(exp.Table) if t.name == case.table and not t.args.get("db")]
    if not (go and history and refs):
        return
    shared = _clause(rnd, history, names)
    for number, ref in enumerate(refs):
        if number == 0 or together:
            ref.set("version", shared.copy())
        elif (own := rnd.choice([*history, None])) is not None:
            ref.set("version", _clause(rnd, [own], names))
    case.notes["travel"] = "together" if together or len(refs) == 1 else "apart"


def _clause(rnd: random.Random, history: Sequence[Snapshot], names: Sequence[str] = ()) -> exp.Version:
    # only a table with branches or tags draws once more, so the draws over other tables stay
    if names and rnd.random() < BY_REF:
        return exp.Version(this="VERSION", kind="AS OF", expression=exp.Literal.string(rnd.choice(names)))
    snapshot = rnd.choice(history)
    if rnd.random() < 0.5:
        return exp.Version(this=rnd.choice(BY_VERSION), kind="AS OF", expression=exp.Literal.number(snapshot.id))
    return exp.Version(this=rnd.choice(BY_TIME), kind="AS OF", expression=exp.Literal.string(snapshot.committed_at))


def _nested(spark: SparkSession, source: str, rows: int) -> str:
    t = f"{NAMESPACE}.nested"
    cut = rows * 2 // 3
    sql = spark.sql
    sql(f"CREATE TABLE {t} USING iceberg TBLPROPERTIES ('format-version'='2', {COPY_ON_WRITE}) "
        f"AS SELECT *, CAST(id % 7 AS INT) AS grp FROM parquet.`{source}` WHERE id < {cut}")
    sql(f"ALTER TABLE {t} CREATE TAG first_insert")
    sql(f"INSERT INTO {t} SELECT *, CAST(id % 7 AS INT) FROM parquet.`{source}` WHERE id >= {cut}")
    # while the table is unpartitioned, so the delete is global
    equality_delete(spark, t, "grp", [3])
    sql(f"ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id)")
    sql(f"ALTER TABLE {t} ADD COLUMN user.geo.zip string")
    sql(f"ALTER TABLE {t} ADD COLUMN page.views.element.dwell int")
    sql(f"ALTER TABLE {t} RENAME COLUMN user.geo.city TO town")
    sql(f"ALTER TABLE {t} DROP COLUMN payload.f0015")
    sql(f"ALTER TABLE {t} ADD COLUMN payload.f0015 boolean")
    # copy-on-write on the second insert's rows only: it rewrites those files (under the new
    # names), and the first insert's files keep the equality delete
    sql(f"MERGE INTO {t} t USING (SELECT * FROM {t} WHERE id >= {cut} AND id % 13 = 4 UNION ALL "
        f"SELECT id + {rows} AS id, user, page, attrs, payload, grp FROM {t} WHERE id % 17 = 5) s "
        "ON t.id = s.id WHEN MATCHED AND t.id % 2 = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET grp = -1, payload.f0015 = true WHEN NOT MATCHED THEN INSERT *")
    sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({MERGE_ON_READ})")
    sql(f"DELETE FROM {t} WHERE id % 11 = 3")
    sql(f"UPDATE {t} SET user.geo.zip = concat('z', id), user.geo.town = concat(user.geo.town, '+'), "
        "payload.f0015 = (id % 3 = 0) WHERE id % 5 = 2")
    # a branch with a commit of its own, under the name town
    sql(f"ALTER TABLE {t} CREATE BRANCH side")
    sql(f"DELETE FROM {t}.branch_side WHERE id % 19 = 1")
    sql(f"ALTER TABLE {t} RENAME COLUMN user.geo.town TO city")
    return t


def _variant_truth(spark: SparkSession, events: str) -> str:
    t = f"{NAMESPACE}.variant_truth"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v VARIANT) USING iceberg TBLPROPERTIES ('format-version'='3', "
              f"'write.parquet.shred-variants'='false', {MERGE_ON_READ})")
    for part in range(2):
        spark.sql(f"INSERT INTO {t} SELECT id, v FROM parquet.`{events}` WHERE id % 2 = {part}")
    spark.sql(f"DELETE FROM {t} WHERE id % 11 = 3")
    spark.sql(f"UPDATE {t} SET v = {UPDATED} WHERE id % 9 = 4")
    return t


def _variant_spec(spark: SparkSession, events: str) -> str:
    t = f"{NAMESPACE}.variant_spec"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v VARIANT, grp INT) USING iceberg TBLPROPERTIES "
              f"('format-version'='3', {SHREDDED}, {MERGE_ON_READ})")
    insert = f"INSERT INTO {t} SELECT id, v, CAST(id % 7 AS INT) FROM parquet.`{events}` WHERE id % 5 = {{part}}"
    for part in range(4):
        spark.sql(insert.format(part=part))
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.parquet.shred-variants'='false')")
    spark.sql(insert.format(part=4))
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.parquet.shred-variants'='true')")
    equality_delete(spark, t, "grp", [2])
    spark.sql(f"DELETE FROM {t} WHERE id % 11 = 3")
    spark.sql(f"UPDATE {t} SET v = {UPDATED} WHERE id % 9 = 4")
    return t


def _variant_draft(spark: SparkSession, events: str, rows: int) -> str:
    t = f"{NAMESPACE}.variant_draft"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v VARIANT) USING iceberg PARTITIONED BY (bucket(2, id)) "
              f"TBLPROPERTIES ('format-version'='3', {SHREDDED}, {COPY_ON_WRITE})")
    for part in range(3):
        spark.sql(f"INSERT INTO {t} SELECT id, v FROM parquet.`{events}` WHERE id % 3 = {part} ORDER BY id")
    spark.sql(f"ALTER TABLE {t} CREATE TAG inserted")
    spark.sql(f"DELETE FROM {t} WHERE id % 11 = 3")
    spark.sql(f"ALTER TABLE {t} REPLACE PARTITION FIELD bucket(2, id) WITH bucket(3, id)")
    spark.sql(f"UPDATE {t} SET v = {UPDATED} WHERE id % 9 = 4")
    spark.sql(f"MERGE INTO {t} t USING (SELECT id, v FROM parquet.`{events}` WHERE id % 13 = 4 UNION ALL "
              f"SELECT id + {rows} AS id, v FROM parquet.`{events}` WHERE id % 17 = 5) s ON t.id = s.id "
              "WHEN MATCHED AND t.id % 2 = 0 THEN DELETE "
              "WHEN MATCHED THEN UPDATE SET v = variant_get(s.v, '$.user') "
              "WHEN NOT MATCHED THEN INSERT *")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH side")
    spark.sql(f"DELETE FROM {t}.branch_side WHERE id % 19 = 1")
    return t


def equality_delete(spark: SparkSession, table: str, column: str, values: list[int]) -> None:
    """Commit one equality-delete file on the top-level int ``column`` of the unpartitioned
    ``table`` through Iceberg's Java API (Spark's own writes never make equality deletes; Flink
    and Kafka Connect do)."""
    jvm = spark._jvm
    ice = jvm.org.apache.iceberg
    tbl = ice.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, table)
    schema = tbl.schema()
    ids = spark.sparkContext._gateway.new_array(jvm.int, 1)
    ids[0] = schema.findField(column).fieldId()
    names = jvm.java.util.ArrayList()
    names.add(column)
    deleted = schema.select(names)
    factory = getattr(ice.data, "GenericFileWriterFactory$Builder")(tbl) \
        .equalityFieldIds(ids).equalityDeleteRowSchema(deleted).build()
    out = tbl.io().newOutputFile(f"{tbl.location()}/data/equality-deletes-{column}.parquet")
    writer = factory.newEqualityDeleteWriter(ice.encryption.EncryptedFiles.plainAsEncryptedOutput(out),
                                             tbl.spec(), None)
    for value in values:
        record = ice.data.GenericRecord.create(deleted)
        record.setField(column, value)
        writer.write(record)
    writer.close()
    tbl.newRowDelta().addDeletes(writer.toDeleteFile()).commit()
