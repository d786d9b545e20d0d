"""``python -m pyspark_ext producers run|update|status|vacuum --pipeline module:attribute``."""
from __future__ import annotations

import argparse
import importlib
import json
import time
from typing import Any

from .errors import ProducerError
from .pipeline import Pipeline


def add_parser(sub: Any) -> None:
    cmd = sub.add_parser("producers", help="run, update, inspect or vacuum a producers pipeline")
    cmd.add_argument("action", choices=["run", "update", "status", "vacuum"])
    cmd.add_argument("--pipeline", required=True,
                     help="module:attribute, a Pipeline or a function(spark) returning one")
    cmd.add_argument("--input", action="append", default=[], metavar="SOURCE=PATH",
                     help="a source's Parquet input (run: key, value; update: type, key, value)")
    cmd.add_argument("--keep", type=int, default=1, help="vacuum: versions to keep")


def load(spec: str, spark: Any) -> Pipeline:
    module, _, attr = spec.partition(":")
    if not attr:
        raise ProducerError(f"--pipeline {spec!r}: expected module:attribute")
    obj = getattr(importlib.import_module(module), attr)
    pipeline = obj if isinstance(obj, Pipeline) else obj(spark)
    if not isinstance(pipeline, Pipeline):
        raise ProducerError(f"--pipeline {spec!r} is not a Pipeline nor returns one")
    return pipeline


def main(args: argparse.Namespace) -> int:
    from pyspark.sql import SparkSession
    from tqdm import tqdm

    spark = SparkSession.builder.appName("pyspark-ext producers").getOrCreate()
    p = load(args.pipeline, spark)
    try:
        if args.action in ("run", "update"):
            inputs = {}
            for item in args.input:
                name, _, path = item.partition("=")
                inputs[name] = spark.read.parquet(path)
            bar = tqdm(total=len(p.nodes), unit="stage")
            rows_out: list[tuple] = []

            def progress(stage: str, event: str, stats: dict[str, Any]) -> None:
                if event == "start":
                    bar.set_description(stage)
                else:
                    bar.update(1)
                    rows_out.append((stage, stats))
            started = time.time()
            version = (p.run if args.action == "run" else p.update)(inputs, progress=progress)
            bar.close()
            print(f"committed version {version} in {time.time() - started:.1f}s")
            print(f"{'stage':<20} {'rows':>12} {'update rows':>12} {'written':>8} {'carried':>8} "
                  f"{'MB written':>10} {'seconds':>8}")
            for stage, s in rows_out:
                print(f"{stage:<20} {s['rows']:>12} {s['update_rows']:>12} "
                      f"{s['files_written']:>8} {s['files_carried']:>8} "
                      f"{s['bytes_written'] / 1e6:>10.2f} {s['seconds']:>8.2f}")
        elif args.action == "status":
            versions = p.versions()
            print(f"pipeline {p.store.root}: versions {versions or 'none'}")
            if versions:
                for name, entry in p.manifest()["stages"].items():
                    print(f"  {name:<20} rows {sum(f['rows'] for f in entry['content']):>12}  "
                          f"files {len(entry['content']):>5}  update rows "
                          f"{sum(f['rows'] for f in entry['update']):>10}")
        else:
            print(json.dumps(p.vacuum(keep=args.keep)))
    except ProducerError as e:
        print(f"error: {e}")
        return 1
    return 0
