"""Run the deep ad-tech query battery differentially, extension off against on.

    cd /work/main && python tests/support/battery/run_battery.py [name-substring ...]

One Spark session, configured as tests/conftest.py does. For every query: identical rows and no
more leaves with the extension on (tests/support/differential.py's ``compare``), then whether the read
schemas equal the hand-worked minimum from queries.py. Not a pytest file.
"""
from __future__ import annotations

import json
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from pyspark.sql import SparkSession  # noqa: E402

from pyspark_ext.data.adtech_deep import DEEP_SCHEMA, leaf_count, write_deep  # noqa: E402
from devtools.deep_queries import QUERIES  # noqa: E402
from tests.support.differential import compare, run, strict_session  # noqa: E402

DATA = "/tmp/battery_data"
RESULTS = "/tmp/battery_results.json"


def session() -> SparkSession:
    return strict_session("pyspark-ext-battery", tempfile.mkdtemp(prefix="battery-warehouse-"))


def dev_label(d):
    """A Python UDF over the whole device struct (uses only some fields, Spark cannot know)."""
    if d is None:
        return None
    screen = d["screen"]
    return f"{d['os']}/{d['model']}/{screen['w'] if screen is not None else '-'}"


_PRIMITIVE = re.compile(
    r"(?<=[:<,])(?:string|bigint|int|double|boolean|date|timestamp|decimal\(\d+,\d+\))(?=[,>]|$)")


def leaves_of(catalog_string: str) -> int:
    """Leaves of a read schema string: primitives after ':' (fields) or '<' / ',' (elements, map keys)."""
    return len(_PRIMITIVE.findall(catalog_string))


def classify(expected, got) -> str:
    if expected is None:
        return "-"
    if got is None:
        return "?"
    if got == expected:
        return "yes"
    if sum(leaves_of(s) for s in got) == sum(leaves_of(s) for s in expected):
        return "~same#"
    return "NO"


def main(filters: list[str]) -> int:
    spark = session()
    spark.udf.register("dev_label", dev_label, "string")
    t0 = time.time()
    write_deep(spark, DATA, rows=3000)
    df = spark.read.parquet(DATA)
    assert df.schema.simpleString() == DEEP_SCHEMA.simpleString()
    df.createOrReplaceTempView("deep")
    print(f"data written to {DATA} in {time.time() - t0:.1f}s, {leaf_count(DEEP_SCHEMA)} leaves per row",
          flush=True)

    results = []
    names = [n for n in QUERIES if not filters or any(f in n for f in filters)]
    for name in names:
        sql, expected = QUERIES[name]
        r = {"name": name, "sql": sql, "expected": expected}
        t = time.time()
        try:
            stock, ext = compare(spark, sql)
            r.update(status="OK", stock=stock.read_schemas, ext=ext.read_schemas,
                     stock_leaves=stock.leaves, ext_leaves=ext.leaves,
                     stock_bytes=sum(s.get("bytes_read") or 0 for s in stock.scans),
                     ext_bytes=sum(s.get("bytes_read") or 0 for s in ext.scans))
        except AssertionError as e:
            msg = str(e)
            r.update(status="ROWS-DIFFER" if "rows differ" in msg else "MORE-LEAVES", error=msg[:2000])
            try:  # details for the report
                s_run, e_run = run(spark, sql, enabled=False), run(spark, sql, enabled=True)
                only_s = sorted(set(s_run.rows) - set(e_run.rows))[:5]
                only_e = sorted(set(e_run.rows) - set(s_run.rows))[:5]
                r.update(stock=s_run.read_schemas, ext=e_run.read_schemas, stock_leaves=s_run.leaves,
                         ext_leaves=e_run.leaves, rows_stock=len(s_run.rows), rows_ext=len(e_run.rows),
                         only_stock=only_s, only_ext=only_e,
                         stock_bytes=sum(s.get("bytes_read") or 0 for s in s_run.scans),
                         ext_bytes=sum(s.get("bytes_read") or 0 for s in e_run.scans))
            except Exception:  # noqa: BLE001
                pass
        except Exception as e:  # noqa: BLE001
            r.update(status="ERROR", error="".join(traceback.format_exception_only(type(e), e))[:3000])
            # which side fails?
            for enabled in (False, True):
                try:
                    run(spark, sql, enabled=enabled)
                    r[f"runs_with_ext_{str(enabled).lower()}"] = True
                except Exception:  # noqa: BLE001
                    r[f"runs_with_ext_{str(enabled).lower()}"] = False
        r["seconds"] = round(time.time() - t, 1)
        r["stock_minimal"] = classify(expected, r.get("stock"))
        r["ext_minimal"] = classify(expected, r.get("ext"))
        results.append(r)
        print(f"{name:38s} {r['status']:11s} stock={r.get('stock_leaves', '?'):>4} "
              f"ext={r.get('ext_leaves', '?'):>4} minimal(stock/ext)={r['stock_minimal']}/{r['ext_minimal']}"
              f"  {r['seconds']}s", flush=True)
        if r["status"] != "OK":
            print("    " + r.get("error", "").strip().splitlines()[0][:300], flush=True)

    Path(RESULTS).write_text(json.dumps(results, indent=1))
    report(results)
    spark.stop()
    return 0 if all(r["status"] == "OK" for r in results) else 1


def report(results: list[dict]) -> None:
    print("\n" + "=" * 110)
    print(f"{'query':38s} {'status':11s} {'stock':>6s} {'ext':>6s}  minimal? (ext)  stock minimal?")
    for r in results:
        print(f"{r['name']:38s} {r['status']:11s} {r.get('stock_leaves', '?'):>6} {r.get('ext_leaves', '?'):>6}"
              f"  {r['ext_minimal']:14s}  {r['stock_minimal']}")
    bad = [r for r in results if r["status"] != "OK"]
    for r in bad:
        print(f"\n--- {r['status']}: {r['name']}\n{r['sql']}\n{r.get('error', '')[:1500]}")
        for k in ("runs_with_ext_false", "runs_with_ext_true", "rows_stock", "rows_ext", "only_stock",
                  "only_ext", "stock", "ext"):
            if k in r:
                print(f"  {k}: {r[k]}")
    for r in results:
        if r["ext_minimal"] in ("NO", "~same#"):
            print(f"\n--- NOT MINIMAL ({r['ext_minimal']}): {r['name']}\n{r['sql']}")
            print(f"  ext     : {r.get('ext')}\n  expected: {r['expected']}\n  stock   : {r.get('stock')}")
    judged = [r for r in results if r["expected"] is not None and r["status"] == "OK"]
    n = len(judged) or 1
    s_min = sum(r["stock_minimal"] == "yes" for r in judged)
    e_min = sum(r["ext_minimal"] == "yes" for r in judged)
    ok = [r for r in results if r["status"] == "OK"]
    sb = sum(r["stock_bytes"] for r in ok)
    eb = sum(r["ext_bytes"] for r in ok)
    print("\n" + "=" * 110)
    print(f"queries: {len(results)}, OK: {len(ok)}, ROWS-DIFFER: "
          f"{sum(r['status'] == 'ROWS-DIFFER' for r in results)}, MORE-LEAVES: "
          f"{sum(r['status'] == 'MORE-LEAVES' for r in results)}, ERROR: "
          f"{sum(r['status'] == 'ERROR' for r in results)}")
    print(f"stock minimal: {s_min}/{len(judged)} = {100 * s_min / n:.1f}%   "
          f"extension minimal: {e_min}/{len(judged)} = {100 * e_min / n:.1f}%")
    print(f"leaves read (OK queries): stock {sum(r['stock_leaves'] for r in ok)}, "
          f"ext {sum(r['ext_leaves'] for r in ok)}")
    print(f"bytes_read (OK queries): stock {sb:,}, ext {eb:,} ({100 * eb / (sb or 1):.1f}% of stock)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
