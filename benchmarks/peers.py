"""``--suite peers``: DuckDB, stock Spark 4.3 and Spark with the extension, on the same files.

The benchmark's variant events (``pyspark_ext.data.variant_events``) are written once by DuckDB in three forms:

- ``shredded``: VARIANT in the Parquet spec layout, shredded by DuckDB's own choice;
- ``unshredded``: VARIANT with ``SHREDDING {v: 'VARIANT'}`` (``metadata`` and ``value`` only);
- ``flat``: a relational table of the same values, one column per queried field.

Each engine runs the variant suite's five queries over each form, alternating configurations after
a warm-up round, keeping medians. DuckDB runs with as many threads as Spark has cores (``local[2]``:
2), both in one process. The report gives each engine's absolute time and its time on the shredded
files against the same engine on its flat table. An engine's rows must be equal on every form, or
the run fails; rows that differ between engines are reported, not hidden.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from pyspark_ext.outcome import canonical_rows, same_rows
from pyspark_ext.data.variant_events import json_sql
from pyspark_ext.data.variant_queries import VariantQuery, queries
from pyspark_ext import settings

from .alternating import Run, alternate
from .datasets import _key
from .suites import SuiteOptions

FORMS = ("shredded", "unshredded", "flat")
ENGINES = ("duckdb", "spark_stock", "spark_ext")
#: rows per Parquet row group DuckDB writes (its default), several per file so skipping has a choice
ROW_GROUP_ROWS = 122_880
#: rows whose JSON gives the structure DuckDB's VARIANT is written through (see ``_structure``)
STRUCTURE_ROWS = 2_000_000

#: The flat table's columns, from the JSON text: the types the shredding schema gives the paths
#: (``price`` and ``user.id`` by their majority type; their strings cast, as ``try_variant_get`` does).
_FLAT = {
    "id": "(j->>'$.id')::BIGINT",
    "ts": "(j->>'$.ts')::BIGINT",
    "kind": "j->>'$.kind'",
    "price": "TRY_CAST(j->>'$.price' AS DECIMAL(10, 2))",
    "user_id": "TRY_CAST(j->>'$.user.id' AS INTEGER)",
    "user_name": "j->>'$.user.name'",
    "country": "j->>'$.user.geo.country'",
    "city": "j->>'$.user.geo.city'",
}


def duckdb_queries(rows: int) -> dict[str, VariantQuery]:
    """The variant suite's queries (``pyspark_ext.data.variant_queries``) in DuckDB's SQL: dot paths on the
    VARIANT, ``TRY_CAST`` where Spark uses ``try_variant_get``."""
    spark = queries(rows)
    lo, hi = _bounds(spark["selective_filter"].flat)
    return {
        "one_path_sum": VariantQuery("SELECT sum(TRY_CAST(v.user.id AS INTEGER)) FROM {t}",
                                     "SELECT sum(user_id) FROM {t}"),
        "two_strings": VariantQuery(
            "SELECT count(*) FROM (SELECT DISTINCT v.kind::VARCHAR, v.user.geo.country::VARCHAR FROM {t})",
            "SELECT count(*) FROM (SELECT DISTINCT kind, country FROM {t})"),
        "group_by_two_paths": VariantQuery(
            "SELECT v.user.geo.country::VARCHAR AS c, v.kind::VARCHAR AS k, count(*), "
            "sum(TRY_CAST(v.price AS DECIMAL(10, 2))) FROM {t} GROUP BY 1, 2",
            "SELECT country, kind, count(*), sum(price) FROM {t} GROUP BY 1, 2"),
        "selective_filter": VariantQuery(
            f"SELECT count(*), max(v.user.name::VARCHAR) FROM {{t}} WHERE v.id::BIGINT BETWEEN {lo} AND {hi}",
            f"SELECT count(*), max(user_name) FROM {{t}} WHERE id BETWEEN {lo} AND {hi}"),
        "mismatched_path": VariantQuery(
            "SELECT count(*), sum(TRY_CAST(v.price AS DECIMAL(10, 2))) FROM {t} "
            "WHERE TRY_CAST(v.price AS DECIMAL(10, 2)) > 900",
            "SELECT count(*), sum(price) FROM {t} WHERE price > 900"),
    }


def _bounds(flat_sql: str) -> tuple[str, str]:
    between = flat_sql.split("BETWEEN ")[1].split()
    return between[0], between[2]


def write_forms(spark: SparkSession, rows: int) -> dict[str, str]:
    """The three DuckDB-written files (one file each, sorted by id), written once and cached."""
    import duckdb
    base = _key("peers_events", rows=rows, row_group_rows=ROW_GROUP_ROWS, version=2)
    paths = {form: str(base / f"{form}.parquet") for form in FORMS}
    if all(Path(p).exists() for p in paths.values()):
        return paths
    base.mkdir(parents=True, exist_ok=True)
    json_dir = base / "json"
    if not (json_dir / "_SUCCESS").exists():
        spark.sql(json_sql(rows)).write.mode("overwrite").parquet(str(json_dir))
    con = duckdb.connect()
    source = f"(SELECT id, j FROM read_parquet('{json_dir}/*.parquet') ORDER BY id)"
    options = f"FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP_ROWS}"
    variant = f"json_transform(j, '{_structure(con, json_dir)}')::VARIANT AS v"
    for form, select, extra in [
            ("shredded", variant, ""),
            ("unshredded", variant, ", SHREDDING {v: 'VARIANT'}"),
            ("flat", ", ".join(f"{e} AS {c}" for c, e in _FLAT.items()), "")]:
        tmp = paths[form] + ".tmp"
        con.sql(f"COPY (SELECT {select} FROM {source}) TO '{tmp}' ({options}{extra})")
        Path(tmp).rename(paths[form])  # a crash mid-write never leaves a form that looks complete
    con.close()
    return paths


def _structure(con: Any, json_dir: Path) -> str:
    """The events' JSON structure, for ``json_transform``, with its integers as BIGINT.

    DuckDB 2.0 parses JSON integers as UBIGINT, and its writer shreds them into no INT64
    ``typed_value``: with ``j::JSON::VARIANT`` every integer path (``id``, ``ts``) sits in the
    binary residual, and DuckDB's scan reads the whole variant group for a path whose residual
    holds values (164 MB at 2M rows, 5 s, for ``sum(v.id::BIGINT)``; the SQL form changes
    nothing). Through a structure whose integers are BIGINT, they shred, and DuckDB reads the
    path's typed leaf alone and skips row groups. Fields of several types (``price``,
    ``user.id``) stay JSON in the structure, so their values keep their own types.

    The structure comes from the first ``STRUCTURE_ROWS`` ids: over 20M rows DuckDB's
    ``json_group_structure`` asked for 4 GiB at once and failed. The generator draws every row
    alike, so the sample holds every type a path takes (rare types are 1%); were one missed, its
    values would come out NULL in the shredded and unshredded forms, the engine's rows would
    differ from its flat table's, and the run would fail, not report."""
    [(structure,)] = con.sql(f"SELECT json_group_structure(j::JSON) FROM "
                             f"(SELECT j FROM read_parquet('{json_dir}/*.parquet') "
                             f"WHERE id < {STRUCTURE_ROWS})").fetchall()
    return structure.replace('"UBIGINT"', '"BIGINT"')


@dataclass
class PeerResult:
    query: str
    seconds: dict[str, float] = field(default_factory=dict)  # "engine/form" -> median seconds
    rows_agree_across_engines: bool = True

    def ratio(self, engine: str) -> float:
        return self.seconds[f"{engine}/shredded"] / self.seconds[f"{engine}/flat"]


def _spark_run(spark: SparkSession, sql: str, extension: bool) -> Callable[[], list[Any]]:
    def run() -> list[Any]:
        spark.conf.set(settings.ENABLED, str(extension).lower())
        return [tuple(r) for r in spark.sql(sql).collect()]
    return run


def _duckdb_run(con: Any, sql: str) -> Callable[[], list[Any]]:
    return lambda: con.sql(sql).fetchall()


def run_peers(spark: SparkSession, rows: int, out: Path, repeat: int = 5,
              skip: frozenset[str] = frozenset()) -> list[PeerResult]:
    """Time every engine on every form, per query, but the ``engine/form`` configurations in
    ``skip``; write ``peers.json``, ``peers.md`` and a chart. Skipping ``duckdb/unshredded`` keeps a
    20M run to about half an hour: DuckDB reads a whole unshredded group for any path (220 s for
    one run of ``two_strings``), and no ratio the suite reports needs that form."""
    import duckdb
    paths = write_forms(spark, rows)
    cores = spark.sparkContext.defaultParallelism
    con = duckdb.connect()
    con.sql(f"SET threads = {cores}")
    spark_sql, duck_sql = queries(rows), duckdb_queries(rows)
    results = []
    for name in spark_sql:
        print(f"[peers] {name}", flush=True)
        runs: dict[str, Callable[[], list[Any]]] = {}
        for form, path in paths.items():
            table = f"read_parquet('{path}')"
            duck = duck_sql[name].flat if form == "flat" else duck_sql[name].variant
            sql = (spark_sql[name].flat if form == "flat" else spark_sql[name].variant) \
                .format(t=f"parquet.`{path}`")
            for config, run in [(f"duckdb/{form}", _duckdb_run(con, duck.format(t=table))),
                                (f"spark_stock/{form}", _spark_run(spark, sql, False)),
                                (f"spark_ext/{form}", _spark_run(spark, sql, True))]:
                if config not in skip:
                    runs[config] = run
        results.append(_alternate(name, runs, repeat))
    # Each engine's fixed cost per query: a count of the flat table, which reads no column.
    flat = paths["flat"]
    fixed = _alternate("fixed_cost", {
        "duckdb/flat": _duckdb_run(con, f"SELECT count(*) FROM read_parquet('{flat}')"),
        "spark_stock/flat": _spark_run(spark, f"SELECT count(*) FROM parquet.`{flat}`", False),
        "spark_ext/flat": _spark_run(spark, f"SELECT count(*) FROM parquet.`{flat}`", True)}, repeat)
    spark.conf.unset(settings.ENABLED)
    con.close()
    _write(out, rows, cores, repeat, results, {c.split("/")[0]: t for c, t in fixed.seconds.items()},
           skip)
    return results


def _alternate(name: str, runs: dict[str, Callable[[], list[Any]]], repeat: int) -> PeerResult:
    """Medians over ``repeat`` alternating rounds after a warm-up (``benchmarks.alternating``);
    every form of one engine must return the same rows, and the engines' rows are compared."""
    rows: dict[str, list[Any]] = {}

    def one(config: str) -> Run:
        started = time.perf_counter()
        result = canonical_rows(runs[config]())
        elapsed = time.perf_counter() - started
        rows.setdefault(config.split("/")[0], result)
        return result, elapsed, {}

    _, seconds, _ = alternate(list(runs), repeat, one, name, group=lambda config: config.split("/")[0])
    agree = all(same_rows(_plain(rows[e]), _plain(rows["spark_stock"])) for e in rows)
    return PeerResult(name, seconds, agree)


def _plain(rows: list[Any]) -> list[Any]:
    """Rows with numbers as floats: DuckDB's HUGEINT sums and Spark's longs compare as values."""
    def plain(v: Any) -> Any:
        if isinstance(v, tuple):
            return tuple(plain(i) for i in v)
        return float(v) if isinstance(v, (int, float)) or type(v).__name__ == "Decimal" else v
    return canonical_rows(plain(r) for r in rows)


def _write(out: Path, rows: int, cores: int, repeat: int, results: list[PeerResult],
           fixed_cost: dict[str, float], skip: frozenset[str] = frozenset()) -> None:
    out.mkdir(parents=True, exist_ok=True)
    meta = {"suite": "peers", "rows": rows, "repeat": repeat, "cores": cores, "fixed_cost": fixed_cost,
            "command": f"python -m benchmarks run --suite peers --scale {rows} --repeat {repeat}"
                       + "".join(f" --skip {c}" for c in sorted(skip)),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
    (out / "peers.json").write_text(json.dumps({"meta": meta, "results": [asdict(r) for r in results]},
                                               indent=2))
    (out / "peers.md").write_text(markdown(meta, results))
    _plot(out, results)


def markdown(meta: dict, results: list[PeerResult]) -> str:
    lines = [f"Peers at {meta['rows']:,} rows, DuckDB at {meta['cores']} threads, Spark local[{meta['cores']}]; "
             f"medians of {meta['repeat']} alternating runs, seconds (`{meta['command']}`).", "",
             "| query | " + " | ".join(f"{e} {f}" for e in ENGINES for f in FORMS)
             + " | " + " | ".join(f"{e} shredded/flat" for e in ENGINES) + " | engines agree |",
             "|---" * (len(ENGINES) * len(FORMS) + len(ENGINES) + 2) + "|"]
    for r in results:
        times = [f"{r.seconds[f'{e}/{f}']:.3f}" if f"{e}/{f}" in r.seconds else "not run"
                 for e in ENGINES for f in FORMS]
        ratios = [f"{r.ratio(e):.2f}" for e in ENGINES]
        lines.append(f"| {r.query} | " + " | ".join(times + ratios)
                     + f" | {'yes' if r.rows_agree_across_engines else 'no'} |")
    if meta.get("fixed_cost"):
        lines += ["", "Fixed cost per query (`SELECT count(*)` of the flat table, no column read): "
                  + ", ".join(f"{e} {meta['fixed_cost'][e]:.3f} s" for e in ENGINES if e in meta["fixed_cost"]) + "."]
    return "\n".join(lines) + "\n"


def _plot(out: Path, results: list[PeerResult]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(ENGINES)
    for i, engine in enumerate(ENGINES):
        ax.bar([q + i * width for q in range(len(results))], [r.ratio(engine) for r in results],
               width, label=engine)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks([q + width for q in range(len(results))], [r.query for r in results], rotation=15)
    ax.set_ylabel("shredded / flat time (log)")
    ax.set_title("Each engine on DuckDB-shredded files against its own flat table")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "peers.png", dpi=120)
    plt.close(fig)


def run_suite(spark: SparkSession, o: SuiteOptions) -> None:
    run_peers(spark, o.scale or 2_000_000, o.out, o.repeat or 5, o.skip)
