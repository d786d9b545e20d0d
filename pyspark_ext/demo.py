"""The main job: generated nested ad-tech events, a few analyst queries, and what each reads with
the extension off (stock Spark) and on."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

from . import adtech_data
from .explain import explain_read_schema
from .session import configure

QUERIES = {
    "clicked-item revenue (chained explode + filter)":
        "SELECT sum(item.cpc) FROM events LATERAL VIEW explode(page.views) v AS view "
        "LATERAL VIEW explode(view.items) i AS item WHERE item.clicked",
    "views per country (ROLLUP over nested fields)":
        "SELECT user.geo.country, sum(size(page.views)) FROM events GROUP BY ROLLUP(user.geo.country)",
    "pages with a sponsored item (higher-order function)":
        "SELECT count(*) FROM events WHERE exists(page.views, v -> exists(v.items, i -> i.cpc > 0.9))",
    "previous city per country (window over a struct)":
        "SELECT w.city FROM (SELECT lag(user.geo) OVER (PARTITION BY user.geo.country ORDER BY id) AS w "
        "FROM events) WHERE w IS NOT NULL",
}


def run_demo(rows: int = 100_000, directory: str | None = None) -> list[dict]:
    root = Path(directory or os.environ.get("PYSPARK_EXT_DEMO_DIR")
                or Path(tempfile.gettempdir()) / "pyspark_ext_demo")
    path = root / f"events_{rows}"
    builder = (SparkSession.builder.master("local[2]").appName("pyspark-ext demo")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4"))
    spark = configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if not (path / "_SUCCESS").exists():
        print(f"writing {rows:,} nested events to {path} ...")
        adtech_data.write_events(spark, str(path), rows=rows, payload_width=200, partitions=4)
    spark.read.parquet(str(path)).createOrReplaceTempView("events")

    results = []
    for title, sql in QUERIES.items():
        measured = {}
        for label, enabled in (("stock", "false"), ("pyspark-ext", "true")):
            spark.conf.set("spark.pyspark_ext.enabled", enabled)
            df = spark.sql(sql)
            measured[label] = (df.collect(), explain_read_schema(df)[0])
        spark.conf.set("spark.pyspark_ext.enabled", "true")
        (stock_rows, stock), (ext_rows, ext) = measured["stock"], measured["pyspark-ext"]
        if sorted(map(repr, stock_rows)) != sorted(map(repr, ext_rows)):
            raise AssertionError(f"results differ with the extension on: {title}")
        print(f"\n== {title}\n   {sql}")
        for label, scan in (("stock", stock), ("pyspark-ext", ext)):
            print(f"   {label:<12} reads {scan['read_leaves']:>4} of {scan['full_leaves']} leaves, "
                  f"{scan['bytes_read'] / 2**20:8.2f} MiB of {scan['bytes_full'] / 2**20:.2f} MiB: "
                  f"{scan['read_schema']}")
        saved = 1 - ext["bytes_read"] / stock["bytes_read"]
        print(f"   bytes saved by the extension: {saved:.1%}  (same {len(ext_rows)} result rows)")
        results.append({"query": title, "stock": stock, "extension": ext})
    spark.stop()
    return results
