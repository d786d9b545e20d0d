"""``python -m benchmarks tables``: the extension on a Parquet path, a Delta table and an Iceberg
table of the same data, and beside DataFusion Comet.

Each product runs in a process of its own, in the venv of the Spark line it is built for
(``devtools.table_formats``; venvs as ``.ci/run-lines`` makes them), with its jars and
settings and the extension loaded. In that process the quick suite's nested queries
(``benchmarks.nested_queries``) and the variant suite's queries (``pyspark_ext.data.variant_queries``)
run over the Parquet path first and then over the product's table of the same rows, stock against
the extension, alternating after a warm-up (``benchmarks.runner``): so the Parquet path is the
baseline of each product in the same process. For Comet both run with Comet on; its rows are the
bytes Comet's native scan reads with and without the extension's pruned read schemas. Iceberg's
variant queries also run over a table of 20 smaller files (``iceberg-files``) and over its
branch on which a tenth of those files carry a deletion vector (``iceberg-deletes``): the
extension then reads nine files in ten itself and leaves the rest to Iceberg's reader.

Writes ``benchmarks/out/tables/<product>/results.json`` per product and ``results.md`` for all.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession

from pyspark_ext.jar import carries_variant
from pyspark_ext.session import local_builder
from devtools.table_formats import PRODUCTS, product_confs
from pyspark_ext.data.variant_queries import queries as variant_queries

from . import datasets, variant_data
from .lines import python_for
from .metrics import InputBytes
from .nested_queries import NESTED_QUERIES
from .runner import run_query

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out" / "tables"
NESTED_ROWS, VARIANT_ROWS, PAYLOAD_WIDTH = 100_000, 300_000, 1000


def _session(product: str, warehouse: Path, delta_first: bool = False) -> SparkSession:
    """``delta_first``: the extension's class after Delta's in ``spark.sql.extensions``, the order
    ``pyspark_ext.configure`` used before it put the extension first (docs/table-formats.md)."""
    extra = {}
    if product == "iceberg":
        extra = {"spark.sql.catalog.bench": "org.apache.iceberg.spark.SparkCatalog",
                 "spark.sql.catalog.bench.type": "hadoop",
                 "spark.sql.catalog.bench.warehouse": str(warehouse / "iceberg")}
    builder = local_builder(f"pyspark-ext tables {product}", shuffle_partitions=8, confs={
        "spark.driver.memory": os.environ.get("BENCH_DRIVER_MEMORY", "8g"),
        "spark.sql.warehouse.dir": str(warehouse), **product_confs(PRODUCTS[product], **extra)})
    if delta_first:
        names = [n.strip() for n in builder._options["spark.sql.extensions"].split(",") if n.strip()]
        ours = [n for n in names if n.startswith("pysparkext.")]
        builder = builder.config("spark.sql.extensions", ",".join([n for n in names if n not in ours] + ours))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


#: Iceberg's table properties for the variant table, so that a filter on ``id`` (the path the
#: rows are sorted by) can skip row groups, as on the Parquet path it is compared with.
#: ``write.parquet.shred-variants`` shreds VARIANT columns; Iceberg 1.12's vectorized reader then
#: fails on shredded values ("Unsupported variant: shredded typed_value primitive"), so stock
#: Spark + Iceberg reads them row by row. Iceberg's writer picks each file's shredding types from
#: the rows it buffers first (100 by default), an integer path by the widest value there, and types
#: only values encoded at exactly that width (``parse_json`` encodes each integer in the fewest
#: bytes); every other value goes to the path's untyped column, where no statistics can skip it.
#: With 100 rows the file holding ids from 0 types ``id`` as an 8-bit int and keeps every id from
#: 128 on untyped: none of its row groups can be skipped. A buffer past 32,767 rows types ``id``
#: as a 32-bit int in every file (it also sees the few events whose ``price`` or ``user.id`` is a
#: string and leaves those paths untyped, as Spark's writer does on the Parquet side); the ids
#: below 32,768 stay untyped, so only the row groups holding them are read whatever the filter.
#: Row groups of 1 MiB (the Parquet side's are 16 MiB, one per file at 300k rows) keep those to a
#: few of each file's: at 300k rows, 44 row groups a file, of which the selective filter reads 10
#: of ids below 32,768 and the one it matches. ``write.distribution-mode`` none keeps each task's
#: rows in the order it reads them from its source file, sorted by ``id``.
ICEBERG_VARIANT_PROPERTIES = {
    "format-version": "3",
    "write.parquet.shred-variants": "true",
    "read.parquet.vectorization.enabled": "false",
    "write.parquet.variant-inference-buffer-size": "50000",
    "write.parquet.row-group-size-bytes": str(1024 * 1024),
    "write.distribution-mode": "none",
}


def _copy_table(spark: SparkSession, product: str, source: str, name: str, variant: bool,
                catalog: str = "bench") -> str:
    """The product's table holding the rows of the Parquet files at ``source``; its name for SQL.
    ``catalog``: the Iceberg catalog to create it in."""
    if product == "delta":
        # Delta writes spec-layout shredded files for VARIANT columns with this property
        props = "TBLPROPERTIES ('delta.enableVariantShredding' = 'true')" if variant else ""
        path = Path(spark.conf.get("spark.sql.warehouse.dir")) / "delta" / name
        shutil.rmtree(path, ignore_errors=True)
        spark.sql(f"CREATE TABLE delta.`{path}` USING delta {props} AS SELECT * FROM parquet.`{source}`")
        return f"delta.`{path}`"
    if product == "iceberg":
        table = f"{catalog}.db.{name}"
        properties = ICEBERG_VARIANT_PROPERTIES if variant else {"format-version": "2"}
        listed = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        spark.sql(f"CREATE TABLE {table} USING iceberg TBLPROPERTIES ({listed}) "
                  f"AS SELECT * FROM parquet.`{source}`")
        return table
    return f"parquet.`{source}`"


#: the inserts, so the data files, of the Iceberg table with deletes
ICEBERG_FILES = 20


def _iceberg_with_deletes(spark: SparkSession, source: str, catalog: str = "bench") -> dict[str, str]:
    """The variant events at ``source`` as an Iceberg table written by ``ICEBERG_FILES`` inserts of
    consecutive ids, a data file each: ``iceberg-files`` as written; ``iceberg-deletes`` its branch
    ``deletes``, on which the first row of every tenth insert is deleted, merge-on-read, so that a
    tenth of the files carry a deletion vector (Iceberg's reader reads those, the extension the
    rest). ``catalog``: the Iceberg catalog to create it in."""
    table = f"{catalog}.db.variant_events_files"
    properties = {**ICEBERG_VARIANT_PROPERTIES, "write.delete.mode": "merge-on-read"}
    listed = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(f"CREATE TABLE {table} USING iceberg TBLPROPERTIES ({listed}) "
              f"AS SELECT * FROM parquet.`{source}` WHERE false")
    key = "variant_get(v, '$.id', 'bigint')"
    lo, hi = spark.sql(f"SELECT min({key}), max({key}) + 1 FROM parquet.`{source}`").first()
    bounds = [lo + (hi - lo) * i // ICEBERG_FILES for i in range(ICEBERG_FILES + 1)]
    for a, b in zip(bounds, bounds[1:]):
        spark.sql(f"INSERT INTO {table} SELECT * FROM parquet.`{source}` WHERE {key} >= {a} AND {key} < {b}")
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH deletes")
    chosen = bounds[9:-1:10]  # the first id of the tenth insert, the twentieth...
    spark.sql(f"DELETE FROM {table}.branch_deletes WHERE {key} IN ({', '.join(str(i) for i in chosen)})")
    files = spark.sql(f"SELECT count(*) FROM {table}.files").first()[0]
    with_deletes = spark.sql(f"SELECT count(DISTINCT referenced_data_file) FROM {table}.delete_files "
                             "VERSION AS OF 'deletes'").first()[0]
    print(f"[iceberg] {table}: {with_deletes} of {files} data files carry deletes on branch 'deletes'", flush=True)
    return {"iceberg-files": table, "iceberg-deletes": f"{table} VERSION AS OF 'deletes'"}


def _nested(spark: SparkSession, metrics: InputBytes, product: str, rows: int, repeat: int) -> list[dict]:
    path = datasets.nested_events(spark, rows, payload_width=PAYLOAD_WIDTH)
    forms = {"parquet": f"parquet.`{path}`"}
    if product in ("delta", "iceberg"):
        forms[product] = _copy_table(spark, product, path, "nested_events", variant=False)
    results = []
    for form, table in forms.items():
        spark.sql(f"SELECT * FROM {table}").createOrReplaceTempView("events")
        for name, sql in NESTED_QUERIES.items():
            print(f"[{product}/{form}] {name}", flush=True)
            r = run_query(spark, metrics, form, name, sql, repeat)
            results.append(r.as_dict())
    return results


def _variant(spark: SparkSession, metrics: InputBytes, product: str, rows: int, repeat: int) -> list[dict]:
    if product == "comet" or not carries_variant(spark.version):
        return []
    paths = variant_data.variant_events(spark, rows, sorted_by_id=True)
    forms = {"parquet": f"parquet.`{paths['spec']}`",
             product: _copy_table(spark, product, paths["spec"], "variant_events", variant=True)}
    if product == "iceberg":
        forms.update(_iceberg_with_deletes(spark, paths["spec"]))
    results = []
    for form, table in forms.items():
        spark.sql(f"SELECT * FROM {table}").createOrReplaceTempView("variant_events")
        for name, q in variant_queries(rows).items():
            print(f"[{product}/{form}] variant {name}", flush=True)
            sql = q.variant.format(t="variant_events")
            results.append(run_query(spark, metrics, f"variant-{form}", name, sql, repeat).as_dict())
    return results


def inside(product: str, out: Path, rows: int, variant_rows: int, repeat: int) -> None:
    """One product's run, in its own process and venv."""
    out.mkdir(parents=True, exist_ok=True)
    warehouse = out / "_warehouse"
    shutil.rmtree(warehouse, ignore_errors=True)
    spark = _session(product, warehouse)
    metrics = InputBytes(spark)
    try:
        payload = {"product": product, "spark": spark.version, "rows": rows, "variant_rows": variant_rows,
                   "repeat": repeat, "finished": None,
                   "nested": _nested(spark, metrics, product, rows, repeat),
                   "variant": _variant(spark, metrics, product, variant_rows, repeat)}
        payload["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
        (out / "results.json").write_text(json.dumps(payload, indent=2, default=str))
    finally:
        spark.stop()
        shutil.rmtree(warehouse, ignore_errors=True)


def _execution(r: dict, mode: str) -> float:
    """A query's seconds less its analysis and optimisation (a table format's snapshot and file
    listing happen there, the same with the extension and without)."""
    return max(0.0, r["seconds"][mode] - r["plan_ms"][mode] / 1000)


def _summary(results: list[dict], suite: str) -> tuple[float, float, float, float] | None:
    chosen = [r for r in results if r["suite"] == suite]
    if not chosen:
        return None
    time_ratios = [r["seconds"]["extension"] / r["seconds"]["stock"] for r in chosen]
    stock_bytes = sum(r["input_bytes"]["stock"] for r in chosen)
    ext_bytes = sum(r["input_bytes"]["extension"] for r in chosen)
    total = sum(r["seconds"]["extension"] for r in chosen) / sum(r["seconds"]["stock"] for r in chosen)
    execution = (sum(_execution(r, "extension") for r in chosen) /
                 max(1e-9, sum(_execution(r, "stock") for r in chosen)))
    return statistics.median(time_ratios), total, execution, ext_bytes / max(1, stock_bytes)


def report() -> Path:
    lines = ["| product (Spark) | queries over | median time ratio | total time ratio | "
             "execution time ratio | input MiB, stock → ext | input-bytes ratio | "
             "row groups read, stock → ext |",
             "|---|---|---|---|---|---|---|---|"]
    for folder in sorted(p for p in OUT.iterdir() if (p / "results.json").exists()) if OUT.exists() else []:
        data = json.loads((folder / "results.json").read_text())
        for part in ("nested", "variant"):
            results = data[part]
            for suite in dict.fromkeys(r["suite"] for r in results):
                summary = _summary(results, suite)
                chosen = [r for r in results if r["suite"] == suite]
                groups = [(r["row_groups_read"]["stock"], r["row_groups_read"]["extension"]) for r in chosen
                          if r["row_groups_read"]["stock"] is not None]
                rg = (f"{sum(a for a, _ in groups)} → {sum(b for _, b in groups)}" if groups else "n/a")
                label = f"{part}: {suite.removeprefix('variant-')}"
                mib = [sum(r["input_bytes"][m] for r in chosen) / 2**20 for m in ("stock", "extension")]
                lines.append(f"| {data['product']} ({data['spark']}) | {label} | {summary[0]:.2f} | "
                             f"{summary[1]:.2f} | {summary[2]:.2f} | {mib[0]:.1f} → {mib[1]:.1f} | "
                             f"{summary[3]:.3f} | {rg} |")
    OUT.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    (OUT / "results.md").write_text(text)
    print(text)
    return OUT / "results.md"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks tables")
    parser.add_argument("products", nargs="*", default=list(PRODUCTS), help=f"of {', '.join(PRODUCTS)}")
    parser.add_argument("--rows", type=int, default=NESTED_ROWS, help="nested events")
    parser.add_argument("--variant-rows", type=int, default=VARIANT_ROWS)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--inside", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inside:
        inside(args.inside, OUT / args.inside, args.rows, args.variant_rows, args.repeat)
        return 0
    if not args.report_only:
        for product in args.products:
            python = python_for(PRODUCTS[product].version())
            subprocess.run([python, "-m", "benchmarks", "tables", "--inside", product, "--rows", str(args.rows),
                            "--variant-rows", str(args.variant_rows), "--repeat", str(args.repeat)],
                           cwd=REPO, check=True)
    report()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
