"""Writes benchmark results as JSON, a Markdown table and PNG charts."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from .runner import QueryResult
from .variant_runner import VariantResult


def summarise(results: list[QueryResult]) -> dict[str, dict[str, float]]:
    suites: dict[str, list[QueryResult]] = {}
    for r in results:
        suites.setdefault(r.suite, []).append(r)
    summary = {}
    for suite, rs in suites.items():
        limit = [r.column_bytes["extension"] / r.limit_bytes for r in rs if r.limit_bytes]
        summary[suite] = {
            "queries": len(rs),
            "median_time_ratio": statistics.median(r.time_ratio for r in rs),
            "median_bytes_ratio": statistics.median(r.bytes_ratio for r in rs),
            "total_bytes_ratio": sum(r.input_bytes["extension"] for r in rs)
            / max(1, sum(r.input_bytes["stock"] for r in rs)),
            "median_column_bytes_vs_limit": statistics.median(limit) if limit else None,
            "median_added_plan_ms": statistics.median(
                r.plan_ms["extension"] - r.plan_ms["stock"] for r in rs),
        }
    return summary


def summarise_variant(variant: list[VariantResult]) -> dict[str, dict[str, float]]:
    per: dict[str, list[VariantResult]] = {}
    for r in variant:
        per.setdefault(r.dataset, []).append(r)
    return {d: {key: statistics.median(r.as_dict()[key] for r in rs)
                for key in VariantResult.RATIOS if all(key in r.as_dict() for r in rs)}
            for d, rs in per.items()}


#: extension-on form and the same files read by stock Spark
STOCK_PAIRS = {"variant_ext": "variant", "spec_ext": "spec_stock", "spec_forced_ext": "spec_forced_stock"}
#: the slowdown against stock that issue 4 allows where the extension has nothing to gain
PARITY_LIMIT = 1.05


def stock_parity(variant: list[VariantResult]) -> list[dict]:
    """Extension-on time over stock time on the same files, per dataset, query and form."""
    return [{"dataset": r.dataset, "query": r.query, "form": ext, "ratio": r.ratio(ext, stock)}
            for r in variant for ext, stock in STOCK_PAIRS.items()
            if ext in r.seconds and stock in r.seconds]


def write(out: Path, meta: dict, results: list[QueryResult], overhead: list[dict],
          scaling: list[dict], variant: list[VariantResult] | None = None,
          writers: dict | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    variant = variant or []
    summary = summarise(results) if results else {}
    payload = {"meta": meta, "summary": summary, "queries": [r.as_dict() for r in results],
               "overhead": overhead, "scaling": scaling,
               "variant_summary": summarise_variant(variant),
               "variant": [r.as_dict() for r in variant], "stock_parity": stock_parity(variant),
               "writers": writers or {}}
    (out / "results.json").write_text(json.dumps(payload, indent=2))
    (out / "results.md").write_text(markdown(meta, summary, results, overhead, scaling)
                                    + variant_markdown(variant, writers or {}))
    if results:
        _plots(out, results, scaling)
    if variant:
        _variant_plot(out, variant)


def variant_markdown(variant: list[VariantResult], writers: dict) -> str:
    if not variant and not writers:
        return ""
    configs = list(variant[0].seconds) if variant else []
    lines = ["", "## Variant event log", "",
             "Median seconds per storage form. `json`: JSON strings parsed by the query; `variant`: "
             "unshredded VARIANT; `spec_*`: Parquet spec layout written by Spark 4.3's shredding "
             "writer (schema inferred per file), extension off/on; `draft_ext`: the Spark shredding "
             "proposal's draft layout written by `pyspark_ext.shred`, extension on; `flat`: the same values as "
             "relational columns, every event field a column (the physical limit); `flat_narrow`: "
             "only the columns the queries read (row groups of ~3x the rows: a stricter bar).", "",
             "`spec_forced_*`: the same writer with the draft layout's shredding schema forced.", "",
             "| dataset | query | " + " | ".join(configs) + " | "
             + " | ".join(k.replace("_vs_", " / ") for k in VariantResult.RATIOS) + " |",
             "|---|---|" + "---|" * (len(configs) + len(VariantResult.RATIOS))]
    for r in variant:
        d = r.as_dict()
        lines.append(f"| {r.dataset} | {r.query} | " + " | ".join(f"{r.seconds[c]:.2f}" for c in configs)
                     + " | " + " | ".join(_ratio(d, k) for k in VariantResult.RATIOS) + " |")
    if variant:
        lines += ["", "| dataset | " + " | ".join(f"median {k.replace('_vs_', ' / ')}"
                                                   for k in VariantResult.RATIOS) + " |",
                  "|---|" + "---|" * len(VariantResult.RATIOS)]
        for dataset, s in summarise_variant(variant).items():
            lines.append(f"| {dataset} | " + " | ".join(_ratio(s, k) for k in VariantResult.RATIOS) + " |")
    if variant and any(r.task_input_bytes or r.row_groups_read for r in variant):
        lines += ["", "### Bytes and row groups per storage form", "",
                  "| dataset | query | form | seconds | input MiB | task input MiB | row groups read (skipped) |",
                  "|---|---|---|---|---|---|---|"]
        for r in variant:
            for c in configs:
                lines.append(f"| {r.dataset} | {r.query} | {c} | {r.seconds[c]:.2f} | "
                             f"{_mib(r.input_bytes.get(c))} | {_mib(r.task_input_bytes.get(c))} | "
                             f"{_row_groups(r, c)} |")
    parity = stock_parity(variant)
    if parity:
        worst = max(parity, key=lambda p: p["ratio"])
        over = [p for p in parity if p["ratio"] > PARITY_LIMIT]
        lines += ["", "### Extension against stock on the same files", "",
                  f"{len(parity)} query/form pairs; slowest extension / stock: {worst['ratio']:.2f} "
                  f"({worst['dataset']}/{worst['query']}, {worst['form']}); "
                  f"{len(over)} above {PARITY_LIMIT:.2f}.", "",
                  "| dataset | form | " + " | ".join(sorted({p['query'] for p in parity})) + " |",
                  "|---|---|" + "---|" * len({p['query'] for p in parity})]
        for dataset in dict.fromkeys(p["dataset"] for p in parity):
            for form in STOCK_PAIRS:
                cells = {p["query"]: p["ratio"] for p in parity
                         if p["dataset"] == dataset and p["form"] == form}
                if cells:
                    lines.append(f"| {dataset} | {form} | " + " | ".join(
                        f"{cells[q]:.2f}" if q in cells else "n/a"
                        for q in sorted({p['query'] for p in parity})) + " |")
    if writers:
        base = writers.get("unshredded") or 1.0
        lines += ["", "### Writing the same variants", "", "| writer | seconds | vs unshredded |",
                  "|---|---|---|"]
        for name, secs in writers.items():
            if name != "rows":
                lines.append(f"| {name} | {secs:.2f} | {secs / base:.2f}x |")
    return "\n".join(lines) + "\n"


def _ratio(d: dict, key: str) -> str:
    return f"{d[key]:.2f}" if key in d else "n/a"


def _variant_plot(out: Path, variant: list[VariantResult]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = list(variant[0].seconds)
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(variant) * len(configs) / 3 + 2))
    h = 0.8 / len(configs)
    for j, c in enumerate(configs):
        ax.barh([i + j * h for i in range(len(variant))], [r.seconds[c] for r in variant], h, label=c)
    ax.set_yticks([i + 0.4 - h / 2 for i in range(len(variant))],
                  [f"{r.dataset}/{r.query}" for r in variant], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("median seconds (log)")
    _finish(fig, ax, "Variant queries by storage form", out / "variant_time.png", legend_size=7)


def _finish(fig, ax, title: str, path: Path, legend_size: int | None = None) -> None:
    """Title, legend, layout; write the PNG and free the figure."""
    import matplotlib.pyplot as plt
    ax.set_title(title)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _mib(n: float | None) -> str:
    return "n/a" if n is None else f"{n / 2**20:,.2f}"


def _row_groups(r: QueryResult | VariantResult, config: str) -> str:
    read = r.row_groups_read.get(config)
    return "n/a" if read is None else f"{read} ({r.row_groups_skipped[config]})"


def markdown(meta: dict, summary: dict, results: list[QueryResult], overhead: list[dict],
             scaling: list[dict]) -> str:
    lines = ["# Benchmark results", "",
             f"Command: `{meta['command']}`  ", f"Rows: {meta['rows']:,}; repeats: {meta['repeat']} "
             f"(median); machine: {meta['machine']}.", "",
             "Absolute times are of this machine; compare the ratios. *Ratio* is extension-on over "
             f"stock Spark {meta.get('spark', 'of the run')}, measured alternately in one process. *Input MiB* is what Spark's JVM "
             "read through read system calls while the query ran (/proc/PID/io rchar); *task input MiB* "
             "is what Spark's task input metrics counted (Parquet's vectored reads are not all counted "
             "there, so it can fall short of the input); *column MiB* is the compressed size of the column chunks the "
             "scan selects (Parquet footers); the *limit* is the column bytes of exactly the leaves the "
             "query needs. *Row groups* are those the scans read and skipped, judged on Parquet "
             "statistics with the pushed filters.", ""]
    if summary:
        lines += ["## Summary per suite", "",
                  "| suite | queries | median time ratio | median input-bytes ratio | total input-bytes ratio | column bytes vs limit | added planning ms (median) |",
                  "|---|---|---|---|---|---|---|"]
        for suite, s in summary.items():
            vs_limit = "n/a" if s["median_column_bytes_vs_limit"] is None else f"{s['median_column_bytes_vs_limit']:.2f}x"
            lines.append(f"| {suite} | {s['queries']} | {s['median_time_ratio']:.2f} | "
                         f"{s['median_bytes_ratio']:.3f} | {s['total_bytes_ratio']:.3f} | {vs_limit} | "
                         f"{s['median_added_plan_ms']:.1f} |")
        lines += ["", "## Per query", "",
                  "| suite | query | stock s | ext s | time ratio | stock input MiB | ext input MiB | bytes ratio | task input MiB stock / ext | limit column MiB | leaves stock → ext | row groups read (skipped) stock → ext | plan ms stock / ext |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in results:
            lines.append(
                f"| {r.suite} | {r.query} | {r.seconds['stock']:.2f} | {r.seconds['extension']:.2f} | "
                f"{r.time_ratio:.2f} | {_mib(r.input_bytes['stock'])} | {_mib(r.input_bytes['extension'])} | "
                f"{r.bytes_ratio:.3f} | {_mib(r.task_input_bytes.get('stock'))} / "
                f"{_mib(r.task_input_bytes.get('extension'))} | {_mib(r.limit_bytes)} | {r.read_leaves['stock']} → "
                f"{r.read_leaves['extension']} | {_row_groups(r, 'stock')} → {_row_groups(r, 'extension')} | "
                f"{r.plan_ms['stock']:.0f} / {r.plan_ms['extension']:.0f} |")
    if overhead:
        lines += ["", "## Optimizer overhead", "", "| case | stock ms | extension ms | added ms |",
                  "|---|---|---|---|"]
        for o in overhead:
            lines.append(f"| {o['case']} | {o['plan_ms']['stock']:.1f} | "
                         f"{o['plan_ms']['extension']:.1f} | {o['added_ms']:+.1f} |")
    if scaling:
        lines += ["", "## Scaling", "", "| rows | query | stock s | ext s |", "|---|---|---|---|"]
        for s in scaling:
            lines.append(f"| {s['rows']:,} | {s['query']} | {s['seconds']['stock']:.2f} | "
                         f"{s['seconds']['extension']:.2f} |")
    return "\n".join(lines) + "\n"


def _plots(out: Path, results: list[QueryResult], scaling: list[dict]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [f"{r.suite}/{r.query}" for r in results]
    y = range(len(results))
    for metric, title, values in [
        ("time", "Median query time (s)", lambda r, m: r.seconds[m]),
        ("bytes", "Column bytes read (MiB)", lambda r, m: r.column_bytes[m] / 2**20),
    ]:
        fig, ax = plt.subplots(figsize=(10, 0.45 * len(results) + 1.5))
        h = 0.27
        ax.barh([i - h for i in y], [values(r, "stock") for r in results], h, label="stock Spark 4.3")
        ax.barh(list(y), [values(r, "extension") for r in results], h, label="pyspark-ext")
        if metric == "bytes":
            ax.barh([i + h for i in y], [(r.limit_bytes or 0) / 2**20 for r in results], h,
                    label="physical limit")
            ax.set_xscale("symlog", linthresh=0.1)
        ax.set_yticks(list(y), names, fontsize=8)
        ax.invert_yaxis()
        _finish(fig, ax, title, out / f"{metric}_per_query.png")
    if scaling:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for query in sorted({s["query"] for s in scaling}):
            pts = sorted((s["rows"], s["seconds"]) for s in scaling if s["query"] == query)
            for mode, style in (("stock", "--"), ("extension", "-")):
                ax.plot([p[0] for p in pts], [p[1][mode] for p in pts], style, marker="o",
                        label=f"{query} ({mode})")
        ax.set_xlabel("rows")
        ax.set_ylabel("median seconds")
        _finish(fig, ax, "Scaling: time against rows", out / "scaling.png", legend_size=7)
