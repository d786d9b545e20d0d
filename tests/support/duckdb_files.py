"""Spec-layout VARIANT files written by DuckDB, an independent writer with its own shredding.

One logical dataset of ``ROWS`` events (``id bigint, v VARIANT``, sorted by ``id``), written by
DuckDB as:

- ``truth``: unshredded (``SHREDDING {v: 'VARIANT'}``), the ground truth stock Spark reads;
- ``auto``: one file with DuckDB's automatic shredding, ``GROUP``-row row groups;
- ``explicit``: one file with an explicit ``SHREDDING`` schema that types every path of the
  common event (nested objects, an array of objects, a decimal, timestamps, a date);
- ``mixed``: one table of three files that shred differently: automatic, an explicit schema
  that conflicts with it (``id`` and ``user.id`` as strings, a partial ``user``), and unshredded.

The events hold nested objects, arrays of objects and of strings, decimals, timestamps, dates,
fields whose type varies between rows (``val``: integer, string, double or object; ``price`` a
string in the odd shape), fields missing from some rows, variant nulls inside objects and arrays
(``note``, ``tags``) and SQL NULL rows. DuckDB writes a top-level variant null as SQL NULL, so a
top-level variant null cannot be written with it.
"""
from __future__ import annotations

from pathlib import Path

ROWS = 8192
GROUP = 2048  # DuckDB's smallest row group (its vector size); ROWS / GROUP row groups per file

_COMMON = """{
  'id': i,
  'kind': ['view', 'click', 'buy'][i % 3 + 1],
  'price': (i % 1000 / 8)::DECIMAL(10, 2),
  'ts': TIMESTAMP '2024-01-01 00:00:00' + to_minutes(i),
  'tz': TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_minutes(i),
  'day': DATE '2024-01-01' + (i % 365)::INTEGER,
  'user': {'id': (i * 7 % 500)::INTEGER, 'name': 'u' || (i % 50),
           'geo': {'country': 'c' || (i % 8), 'city': 'city' || (i % 31)}},
  'items': list_transform(range(i % 3 + 1), lambda k: {'sku': 'sku' || ((i + k) % 9), 'qty': k + 1}),
  'tags': CASE WHEN i % 6 = 0 THEN ['a', NULL] ELSE ['a', 'b' || (i % 4)] END,
  'val': CASE i % 4 WHEN 0 THEN i::VARIANT WHEN 1 THEN ('s' || i)::VARIANT
              WHEN 2 THEN (i / 4)::DOUBLE::VARIANT ELSE {'x': i}::VARIANT END,
  'note': CASE WHEN i % 5 = 0 THEN NULL ELSE 'n' || i END
}"""
# Every tenth event has another shape: a string price, a partial user with an extra field,
# items whose qty is a string, no timestamp, date, tags or note.
_ODD = """{
  'id': i,
  'kind': 'odd',
  'price': 'p' || i,
  'user': {'name': 'u' || (i % 50), 'extra': i},
  'items': [{'sku': 'sku' || (i % 9), 'qty': 'many'}],
  'val': [i, i + 1]
}"""
EVENTS = f"""
SELECT i::BIGINT AS id,
       CASE WHEN i % 101 = 7 THEN NULL
            WHEN i % 10 = 9 THEN {_ODD}::VARIANT
            ELSE {_COMMON}::VARIANT END AS v
FROM range(START, STOP) r(i)
ORDER BY i"""

#: DuckDB's explicit shredding schemas.
EXPLICIT = ("STRUCT(id BIGINT, kind VARCHAR, price DECIMAL(10, 2), ts TIMESTAMP, tz TIMESTAMPTZ, "
            "day DATE, "
            "\"user\" STRUCT(id INTEGER, name VARCHAR, geo STRUCT(country VARCHAR, city VARCHAR)), "
            "items STRUCT(sku VARCHAR, qty BIGINT)[], tags VARCHAR[], note VARCHAR)")
CONFLICTING = "STRUCT(id VARCHAR, \"user\" STRUCT(id VARCHAR, name VARCHAR), items STRUCT(sku VARCHAR)[])"
UNSHREDDED = "VARIANT"


def _copy(con, path: Path, start: int, stop: int, shredding: str | None) -> None:
    options = f"FORMAT parquet, ROW_GROUP_SIZE {GROUP}"
    if shredding is not None:
        options += f", SHREDDING {{v: '{shredding}'}}"
    events = EVENTS.replace("START", str(start)).replace("STOP", str(stop))
    con.execute(f"COPY ({events}) TO '{path}' ({options})")


def write_tables(base: Path) -> dict[str, str]:
    """Write the tables under ``base``; returns each table's directory."""
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads = 1")  # files and row groups in id order
    con.execute("SET variant_minimum_shredding_size = 0")  # shred the small row groups too
    paths = {name: base / name for name in ("truth", "auto", "explicit", "mixed")}
    for path in paths.values():
        path.mkdir(parents=True)
    _copy(con, paths["truth"] / "part-0.parquet", 0, ROWS, UNSHREDDED)
    _copy(con, paths["auto"] / "part-0.parquet", 0, ROWS, None)
    _copy(con, paths["explicit"] / "part-0.parquet", 0, ROWS, EXPLICIT)
    third = ROWS // 2
    _copy(con, paths["mixed"] / "part-0.parquet", 0, third, None)
    _copy(con, paths["mixed"] / "part-1.parquet", third, third + ROWS // 4, CONFLICTING)
    _copy(con, paths["mixed"] / "part-2.parquet", third + ROWS // 4, ROWS, UNSHREDDED)
    con.close()
    return {name: str(path) for name, path in paths.items()}
