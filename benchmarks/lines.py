"""The quick suite on every supported Spark line, one run per release, and a table per release.

``python -m benchmarks lines [VERSION ...]`` runs ``python -m benchmarks run --suite quick`` in
each release's venv (the versions of ``.ci/spark-lines`` and the installed pyspark by default;
venvs as ``.ci/run-lines`` makes them), each into ``benchmarks/out/lines/quick-<version>``, then
writes ``benchmarks/out/lines/results.md``: stock against the extension on that release, side by
side in one run. ``--report-only`` rewrites the table from runs already there.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pyspark

from devtools.table_formats import ci_spark_lines

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out" / "lines"


def versions() -> list[str]:
    return [*ci_spark_lines(), pyspark.__version__]


def python_for(version: str) -> str:
    if version == pyspark.__version__:
        return sys.executable
    venvs = Path(os.environ.get("PYSPARK_EXT_VENVS", Path.home() / ".cache" / "pyspark_ext" / "venvs"))
    python = venvs / f"pyspark-{version}" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"no venv for pyspark {version} at {python.parent.parent}: "
                         f"`.ci/run-lines {version}` makes it")
    return str(python)


def run(version: str, scale: int | None = None, repeat: int | None = None) -> None:
    out = OUT / f"quick-{version}"
    print(f"== Spark {version} -> {out}", flush=True)
    sizes = [*(["--scale", str(scale)] if scale else []), *(["--repeat", str(repeat)] if repeat else [])]
    subprocess.run([python_for(version), "-m", "benchmarks", "run", "--suite", "quick", "--out", str(out), *sizes],
                   cwd=REPO, check=True)


def release_row(version: str, result: dict) -> str:
    queries = result["queries"]
    ratios = [q["seconds"]["extension"] / q["seconds"]["stock"] for q in queries]
    total = sum(q["seconds"]["extension"] for q in queries) / sum(q["seconds"]["stock"] for q in queries)
    stock_bytes = sum(q["input_bytes"]["stock"] for q in queries)
    ext_bytes = sum(q["input_bytes"]["extension"] for q in queries)
    worst = max(queries, key=lambda q: q["seconds"]["extension"] / q["seconds"]["stock"])
    variant = result.get("variant_summary", {}).get("sorted")
    shredded = (f"{variant['spec_ext_vs_spec_stock']:.2f}" if variant else "n/a (variant half off)")
    return (f"| {version} | {statistics.median(ratios):.2f} | {total:.2f} | "
            f"{worst['query']} {worst['seconds']['extension'] / worst['seconds']['stock']:.2f} | "
            f"{ext_bytes / stock_bytes:.3f} | {shredded} |")


def report() -> Path:
    rows = []
    for folder in sorted(OUT.glob("quick-*"), key=lambda p: [int(x) for x in p.name[6:].split(".")]):
        path = folder / "results.json"
        if path.exists():
            rows.append(release_row(folder.name[6:], json.loads(path.read_text())))
    text = "\n".join([
        "| Spark | nested: median time ratio | nested: total time ratio | slowest nested query | "
        "nested: total input-bytes ratio | variant: spec_ext / spec_stock (median) |",
        "|---|---|---|---|---|---|", *rows, ""])
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.md").write_text(text)
    print(text)
    return OUT / "results.md"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks lines")
    parser.add_argument("versions", nargs="*", help="pyspark versions (default: .ci/spark-lines and the installed one)")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--scale", type=int, default=None, help="rows of each run's nested dataset")
    parser.add_argument("--repeat", type=int, default=None, help="timed runs per query and mode")
    args = parser.parse_args(argv)
    if not args.report_only:
        for version in args.versions or versions():
            run(version, args.scale, args.repeat)
    report()
    return 0
