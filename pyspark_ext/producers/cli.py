"""``python -m pyspark_ext producers run|update|status|vacuum --pipeline module:attribute``.

A user's mistake (a module, attribute, input path or version that does not exist, bad input) is
one line on stderr and exit status 1. ``status`` reads manifests only and starts no Spark: with
``--path`` it never imports the pipeline's module; with ``--pipeline`` a function is called
with ``None`` for the session (``Pipeline(None, path)`` reads manifests), and only if it needs a
real session is one started.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from typing import Any

from .errors import ProducerError


def add_parser(sub: Any) -> None:
    cmd = sub.add_parser("producers", help="run, update, inspect or vacuum a producers pipeline")
    cmd.add_argument("action", choices=["run", "update", "status", "vacuum"])
    cmd.add_argument("--pipeline", help="module:attribute, a Pipeline or a function(spark) "
                                        "returning one (required except for status --path)")
    cmd.add_argument("--path", help="status: the pipeline's directory (reads its manifests only)")
    cmd.add_argument("--input", action="append", default=[], metavar="SOURCE=PATH",
                     help="a source's Parquet input (run: key, value; update: type, key, value)")
    cmd.add_argument("--keep", type=int, default=1, help="vacuum: versions to keep")
    cmd.add_argument("--version", type=int, default=None,
                     help="status: the committed version to describe (default: the newest)")
    cmd.add_argument("--based-on-version", type=int, default=None,
                     help="update: build the new version from this older committed version")


def main(args: argparse.Namespace) -> int:
    try:
        return _main(args)
    except ProducerError as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1


def _target(spec: str | None) -> Any:
    """The object ``module:attribute`` names, imported without Spark."""
    if not spec:
        raise ProducerError("--pipeline module:attribute is required")
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ProducerError(f"--pipeline {spec!r}: expected module:attribute")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        raise ProducerError(f"--pipeline {spec!r}: cannot import {module!r} ({e}; is its "
                            "directory on PYTHONPATH?)") from None
    except Exception as e:  # noqa: BLE001 - the user's module failed to import
        raise ProducerError(f"--pipeline {spec!r}: importing {module!r} raised "
                            f"{type(e).__name__}: {e}") from None
    if not hasattr(mod, attr):
        raise ProducerError(f"--pipeline {spec!r}: module {module!r} has no attribute {attr!r}")
    return getattr(mod, attr)


def _pipeline(spec: str, obj: Any, spark: Any) -> Any:
    from .pipeline import Pipeline
    pipeline = obj if isinstance(obj, Pipeline) else obj(spark) if callable(obj) else obj
    if not isinstance(pipeline, Pipeline):
        raise ProducerError(f"--pipeline {spec!r} is not a Pipeline nor returns one")
    return pipeline


def _inputs(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, eq, path = item.partition("=")
        if not eq or not name or not path:
            raise ProducerError(f"--input {item!r}: expected SOURCE=PATH")
        if "://" not in path and not path.startswith("file:") and not os.path.exists(path):
            raise ProducerError(f"--input {item!r}: {path} does not exist")
        out[name] = path
    return out


def _main(args: argparse.Namespace) -> int:
    if args.action == "status":
        return _status(args)
    inputs = _inputs(args.input)
    obj = _target(args.pipeline)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("pyspark-ext producers").getOrCreate()
    p = _pipeline(args.pipeline, obj, spark)
    if args.action == "vacuum":
        print(json.dumps(p.vacuum(keep=args.keep)))
        return 0
    frames = {}
    for name, path in inputs.items():
        try:
            frames[name] = spark.read.parquet(path)
        except Exception as e:  # noqa: BLE001 - Spark's AnalysisException for a missing path
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ProducerError(f"--input {name}={path}: cannot be read as Parquet: "
                                f"{first}") from None
    _run(p, args, frames)
    return 0


def _run(p: Any, args: argparse.Namespace, frames: dict[str, Any]) -> None:
    from tqdm import tqdm

    bars: list[Any] = []  # made at the first stage, so input rejected up front prints no bar
    rows_out: list[tuple] = []

    def progress(stage: str, event: str, stats: dict[str, Any]) -> None:
        if not bars:
            bars.append(tqdm(total=len(p.nodes), unit="stage"))
        if event == "start":
            bars[0].set_description(stage)
        else:
            bars[0].update(1)
            rows_out.append((stage, stats))
    started = time.time()
    try:
        if args.action == "run":
            version = p.run(frames, progress=progress)
        else:
            version = p.update(frames, progress=progress, based_on_version=args.based_on_version)
    finally:
        for bar in bars:
            bar.close()
    print(f"committed version {version} in {time.time() - started:.1f}s")
    print(f"{'stage':<20} {'rows':>12} {'update rows':>12} {'written':>8} {'carried':>8} "
          f"{'MB written':>10} {'seconds':>8}")
    for stage, s in rows_out:
        print(f"{stage:<20} {s['rows']:>12} {s['update_rows']:>12} "
              f"{s['files_written']:>8} {s['files_carried']:>8} "
              f"{s['bytes_written'] / 1e6:>10.2f} {s['seconds']:>8.2f}")


def _status(args: argparse.Namespace) -> int:
    from .storage import Store
    if args.path:
        store = Store.at(args.path)
    else:
        obj = _target(args.pipeline)
        try:
            store = _pipeline(args.pipeline, obj, None).store
        except ProducerError:
            raise
        except Exception:  # noqa: BLE001 - the definition needs a real session after all
            from pyspark.sql import SparkSession
            spark = SparkSession.builder.appName("pyspark-ext producers").getOrCreate()
            store = _pipeline(args.pipeline, obj, spark).store
    versions = store.versions()
    print(f"pipeline {store.root}: versions {versions or 'none'}")
    if not versions and args.version is None:
        return 0
    n = versions[-1] if args.version is None else args.version
    manifest = store.manifest(n)
    base = f", based on version {manifest['parent']}" if manifest.get("parent") not in (
        None, n - 1) else ""
    print(f"version {n}{base}, committed {manifest.get('created', '?')}")
    for name, entry in manifest["stages"].items():
        print(f"  {name:<20} rows {sum(f['rows'] for f in entry['content']):>12}  "
              f"files {len(entry['content']):>5}  update rows "
              f"{sum(f['rows'] for f in entry['update']):>10}")
    return 0
