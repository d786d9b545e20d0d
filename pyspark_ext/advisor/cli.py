"""``python -m pyspark_ext advise``: analyse a workload, recommend a shredding schema for one
VARIANT column from a sample, print both (text or one JSON document), optionally write the sample as
recommended (``--apply``)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .schema_on_read import prune
from .workload import WorkloadAnalysis, analyze_workload, read_tables


def add_parser(sub: Any) -> None:
    advise = sub.add_parser("advise", help="recommend what to shred from a SQL workload and a sample")
    advise.add_argument("--queries", required=True,
                        help="a .sql file, a directory of .sql files, or a query log (one query "
                             "per line, or JSON records with 'query' and an optional 'count')")
    advise.add_argument("--table", action="append", default=[], metavar="NAME=SCHEMA",
                        help="a table's schema: a JSON schema file, a DDL file, or DDL (repeatable)")
    advise.add_argument("--sample", help="Parquet path of sample data holding the VARIANT column")
    advise.add_argument("--column", help="the VARIANT column to shred")
    advise.add_argument("--max-leaves", type=int, default=32)
    advise.add_argument("--max-depth", type=int, default=4)
    advise.add_argument("--format", choices=["text", "json"], default="text")
    advise.add_argument("--apply", "--write", dest="apply", metavar="OUT",
                        help="write the sample into OUT (Parquet) as recommended: the shredding "
                             "schema, bloom filters and sort or clustering (--write is the same)")
    advise.add_argument("--layout", choices=["draft", "spec"], default="draft")


def _tables(specs: list[str]) -> dict[str, str]:
    out = {}
    for spec in specs:
        name, sep, schema = spec.partition("=")
        if not sep or not name:
            raise AdviseError(f"--table {spec!r}: expected NAME=SCHEMA_FILE_OR_DDL")
        out[name] = schema
    return out


def _analysis_json(analysis: WorkloadAnalysis, schemas: dict) -> dict[str, Any]:
    return {
        "queries": analysis.queries, "weight": analysis.weight, "analysed": analysis.analysed,
        "failed": analysis.failed,
        "failures": [{"source": f.query.source, "query": f.query.sql, "reason": f.reason}
                     for f in analysis.failures],
        "missing_tables": dict(analysis.missing_tables.most_common()),
        "read_schemas": {t: prune(schemas[t], set(c)).simpleString() for t, c in analysis.leaves.items()},
        "leaf_paths": {t: {".".join(p): n for p, n in c.most_common()} for t, c in analysis.leaves.items()},
        "variant_paths": [{"table": v.table, "column": v.column, "path": v.path, "type": v.type,
                           "frequency": n} for v, n in sorted(  # ties in a stable order
            analysis.variant_paths.items(), key=lambda vn: (-vn[1], vn[0].table, vn[0].column, vn[0].path))],
    }


class AdviseError(Exception):
    """Bad input or arguments: printed as one line, exit code 2."""


def run(args: argparse.Namespace) -> int:
    """Exit codes: 0 analysed (some queries may have failed: listed), 1 no query could be
    analysed, 2 bad arguments or input (a file that cannot be read, a bad schema, no queries,
    no --table)."""
    try:
        return _run(args)
    except AdviseError as e:
        print(f"advise: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.apply and not (args.sample and args.column):
        raise AdviseError("--apply needs --sample and --column")
    if bool(args.sample) != bool(args.column):
        raise AdviseError("--sample and --column go together")
    if not Path(args.queries).exists():
        raise AdviseError(f"--queries {args.queries}: no such file or directory")
    try:
        schemas = read_tables(_tables(args.table))
        analysis = analyze_workload(args.queries, schemas, progress=sys.stderr.isatty() or args.format == "json")
    except ValueError as e:  # bad input names the file, line or table
        raise AdviseError(str(e)) from None
    if analysis.queries == 0:
        raise AdviseError(f"no queries in {args.queries}" + (" (no .sql files in the directory)"
                                                           if Path(args.queries).is_dir() else ""))
    if not args.table:
        # every query's columns are resolved against schemas: without one nothing can be analysed
        read = ", ".join(analysis.missing_tables) or "none found"
        raise AdviseError(f"no --table given: pass --table NAME=SCHEMA (a JSON schema file, a DDL "
                          f"file or DDL) for each table the queries read (here: {read})")
    for table, n in analysis.missing_tables.most_common():
        print(f"advise: no schema for table {table}, read by {n} failed quer{'y' if n == 1 else 'ies'}: "
              f"pass --table {table}=SCHEMA", file=sys.stderr)
    doc = _analysis_json(analysis, schemas)
    recommendation = None
    if args.sample and analysis.analysed:
        recommendation = _recommend(args, analysis, doc)
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=2, default=str)
        print()
    else:
        _print_text(doc, recommendation)
    if not analysis.analysed:
        print(f"advise: none of the {analysis.queries} queries could be analysed (see the failures"
              f"{'' if args.format == 'text' else ' in the JSON'})", file=sys.stderr)
        return 1
    if analysis.failed:
        print(f"advise: {analysis.failed} of {analysis.queries} queries could not be analysed and "
              f"are left out (listed as failures)", file=sys.stderr)
    return 0


def _recommend(args: argparse.Namespace, analysis: WorkloadAnalysis, doc: dict[str, Any]) -> Any:
    from pyspark.sql import SparkSession

    from .. import configure
    from .recommend import recommend_shredding
    spark = configure(SparkSession.builder.appName("pyspark-ext advise")).getOrCreate()
    sample = spark.read.parquet(args.sample)
    if args.column not in sample.columns:
        raise AdviseError(f"{args.sample}: no column {args.column!r} (columns: {', '.join(sample.columns)})")
    recommendation = recommend_shredding(analysis, sample, args.column, args.max_leaves, args.max_depth)
    doc["shredding_schema"] = recommendation.schema
    doc["spec_shredding_schema"] = recommendation.spec_schema
    doc["report"] = recommendation.report
    doc["bloom_filters"] = recommendation.bloom_filters
    doc["sort_by"] = recommendation.sort_by
    doc["cluster_by"] = recommendation.cluster_by
    if args.apply:
        _write(sample, args.column, recommendation, args.layout, args.apply)
        doc["written"] = {"path": args.apply, "layout": args.layout}
    return recommendation


def _write(sample: Any, column: str, recommendation: Any, layout: str, out: str) -> None:
    if not recommendation.schema:
        raise AdviseError("nothing to shred: no variant path of the workload has scalar values in the sample")
    from ..loaded import require_extension
    from ..shredding import write_shredded
    require_extension(sample.sparkSession, "advise --apply")
    # draft: the column becomes its draft-layout struct; spec: the project's spec-layout writer
    # writes Parquet's metadata/value/typed_value with exactly this schema in every file. Bloom
    # filters and the sort or clustering are Parquet's and Spark's own (write_shredded).
    schema = recommendation.schema if layout == "draft" else recommendation.spec_schema
    write_shredded(sample, out, {column: schema}, layout=layout, mode="errorifexists",
                   bloom_filters={column: recommendation.bloom_filters} if recommendation.bloom_filters else None,
                   sort_by=recommendation.sort_by or None, cluster_by=recommendation.cluster_by or None)


def _print_text(doc: dict[str, Any], recommendation: Any) -> None:
    print(f"queries: {doc['queries']} (weight {doc['weight']}), analysed: {doc['analysed']}, "
          f"failed: {doc['failed']}")
    for f in doc["failures"]:
        print(f"  FAILED {f['source'] or f['query'][:60]}: {f['reason']}")
    for table, schema in doc["read_schemas"].items():
        print(f"read schema of {table}: {schema}")
    if doc["variant_paths"]:
        rows = [(f"{v['table']}.{v['column']}", v["path"], v["type"], str(v["frequency"]))
                for v in doc["variant_paths"]]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        print("variant paths (weighted query count):")
        for row in rows:
            print("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[3])
    if recommendation is not None:
        print(f"shredding schema (draft layout, pyspark_ext.shred): {recommendation.schema}")
        print(f"shredding schema (spec layout): {recommendation.spec_schema}")
        print(recommendation.format_report())
        print(f"bloom filters (write_shredded bloom_filters): {', '.join(recommendation.bloom_filters) or 'none'}")
        print(f"sort within files by (write_shredded sort_by): {', '.join(recommendation.sort_by) or 'none'}")
        print(f"cluster within files by a z-order of (write_shredded cluster_by): "
              f"{', '.join(recommendation.cluster_by) or 'none'}")
        for row in recommendation.report:
            if row.get("write_cost"):
                print(f"  {row['path']}: {row['write_cost']}")
