"""Time ``analyze_workload`` on a synthetic 10,000-query log (pure Python, no Spark):
``python -m benchmarks.advisor_workload [--queries N]``.

The log is the nested battery's queries (tests/battery) and variant path queries, each with a
numbered comment (and the variant ones a varied literal) so that every line is a distinct SQL text (no caching by text helps), written as
JSON records with counts, as a query log holds them."""
from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from pyspark_ext.advisor import analyze_workload
from pyspark_ext.data.adtech_deep import DEEP_SCHEMA

VARIANT_TABLE = "id bigint, ts timestamp, v variant"
VARIANT_QUERIES = [
    "SELECT v:user.id::bigint, count(*) FROM ev WHERE id > {n} GROUP BY 1",
    "SELECT sum(variant_get(v, '$.amount', 'decimal(10,2)')) FROM ev WHERE v:kind::string = 'k{n}'",
    "WITH x AS (SELECT id, v AS p FROM ev) SELECT p:items[0].sku::string FROM x WHERE id < {n}",
    "SELECT a.id FROM ev a JOIN ev b ON a.v:session::string = b.v:session::string WHERE a.id = {n}",
]


def synthetic_log(path: Path, queries: int, seed: int = 7) -> None:
    from devtools.deep_queries import QUERIES
    rng = random.Random(seed)
    templates = [sql for sql, _ in QUERIES.values()] + VARIANT_QUERIES
    with path.open("w") as f:
        for i in range(queries):
            sql = rng.choice(templates)
            sql = sql.replace("{n}", str(i))  # and a numbered comment: every text differs
            f.write(json.dumps({"query": f"{sql} /* q{i} */", "count": rng.randint(1, 50)}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.advisor_workload")
    parser.add_argument("--queries", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "queries.log"
        synthetic_log(log, args.queries)
        start = time.perf_counter()
        analysis = analyze_workload(str(log), {"deep": DEEP_SCHEMA, "ev": VARIANT_TABLE})
        seconds = time.perf_counter() - start
    print(f"{analysis.queries} queries analysed in {seconds:.1f} s "
          f"({1000 * seconds / analysis.queries:.2f} ms per query); failed: {analysis.failed}; "
          f"variant paths: {len(analysis.variant_paths)}")


if __name__ == "__main__":
    main()
