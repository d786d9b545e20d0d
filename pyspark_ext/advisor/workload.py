"""Reading a workload: queries (strings, .sql files, query logs) and table schemas (StructType,
DDL or a JSON schema file), and analysing it: what each table's queries need, weighted by count."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Iterable, Mapping, Union

import sqlglot
from sqlglot import exp
from pyspark.sql.types import (ArrayType, BinaryType, BooleanType, ByteType, DataType, DateType,
                               DecimalType, DoubleType, FloatType, IntegerType, LongType, MapType,
                               ShortType, StringType, StructField, StructType, TimestampNTZType,
                               TimestampType)

from .._variant_types import variant_type
from ..sql_script import read_text, split_statements
from .paths import DIALECT, Path, QueryNeeds, UnresolvedQuery, VariantPath, query_needs

Tables = Mapping[str, Union[StructType, str]]


@dataclass(frozen=True)
class Query:
    sql: str
    count: int = 1
    source: str = ""  # file:line, for failure reports
    line: int | None = None  # where the query starts in its file, to place syntax errors there
    column: int = 1
    error: str | None = None  # the file's text could not be read as SQL here (an unclosed quote)


@dataclass(frozen=True)
class Failure:
    query: Query
    reason: str


@dataclass
class WorkloadAnalysis:
    """Per table, how often (queries times their counts) each nested path and variant path is needed."""
    leaves: dict[str, Counter[Path]] = field(default_factory=dict)
    variant_paths: Counter[VariantPath] = field(default_factory=Counter)
    #: how often each variant path is filtered by equality (``=``, ``IN``) or by range
    variant_filters: Counter[tuple[VariantPath, str]] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    queries: int = 0      # queries read
    weight: int = 0       # their counts summed (analysed ones only)
    #: tables queries read that no schema was given for, with how many queries read each
    missing_tables: Counter[str] = field(default_factory=Counter)

    @property
    def failed(self) -> int:
        return len(self.failures)

    @property
    def analysed(self) -> int:
        return self.queries - self.failed


def read_queries(queries: str | Iterable[str] | Iterable[Query]) -> list[Query]:
    """SQL strings, Query objects, or a path: a directory of .sql files, a .sql file (statements
    separated by ``;``), or a log with one query per line, or one JSON record per line with
    ``query`` (or ``sql``) and an optional ``count``. Raises ValueError naming a file that cannot
    be read (not UTF-8) or a log line that is not a query record."""
    if isinstance(queries, str) and FsPath(queries).exists():
        return _read_path(FsPath(queries))
    if isinstance(queries, str):
        return [Query(queries)]
    return [q if isinstance(q, Query) else Query(q) for q in queries]


def _read_path(path: FsPath) -> list[Query]:
    if path.is_dir():
        return [q for f in sorted(path.rglob("*.sql")) for q in _read_path(f)]
    text = read_text(path)
    if path.suffix == ".sql":
        # split by sqlglot's tokenizer (a ';' in a string or comment does not split) and parsed
        # one statement at a time, so a bad statement fails alone
        return [Query(s.text, 1, f"{path}:{s.line} (statement {s.number})", s.line, s.column, s.error)
                for s in split_statements(text, DIALECT)]
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        source = f"{path}:{number}"
        if line.startswith("{"):
            try:
                record = json.loads(line)
                sql = record.get("query", record.get("sql"))
                count = int(record.get("count", 1))
            except (ValueError, AttributeError, TypeError) as e:
                raise ValueError(f"{source}: not a JSON query record ({e})") from None
            if not isinstance(sql, str):
                raise ValueError(f"{source}: the JSON record has no 'query' or 'sql' string")
            out.append(Query(sql, count, source))
        else:
            out.append(Query(line, 1, source, number, len(raw) - len(raw.lstrip()) + 1))
    return out


_PRIMITIVES: dict[exp.DataType.Type, DataType] = {
    exp.DataType.Type.BOOLEAN: BooleanType(), exp.DataType.Type.TINYINT: ByteType(),
    exp.DataType.Type.SMALLINT: ShortType(), exp.DataType.Type.INT: IntegerType(),
    exp.DataType.Type.BIGINT: LongType(), exp.DataType.Type.FLOAT: FloatType(),
    exp.DataType.Type.DOUBLE: DoubleType(), exp.DataType.Type.DATE: DateType(),
    exp.DataType.Type.TIMESTAMP: TimestampType(), exp.DataType.Type.TIMESTAMPLTZ: TimestampType(),
    exp.DataType.Type.TIMESTAMPTZ: TimestampType(),
    exp.DataType.Type.TIMESTAMPNTZ: TimestampNTZType(), exp.DataType.Type.BINARY: BinaryType(),
    exp.DataType.Type.VARBINARY: BinaryType(),
    exp.DataType.Type.TEXT: StringType(), exp.DataType.Type.VARCHAR: StringType(),
    exp.DataType.Type.CHAR: StringType(),
}
# pyspark 3.5 has no VARIANT: a workload's VARIANT column is then an unknown type, as in Spark 3.5.
if variant_type() is not None:
    _PRIMITIVES[exp.DataType.Type.VARIANT] = variant_type()


def _spark_type(t: exp.DataType, where: str) -> DataType:
    kind = t.this
    if kind in _PRIMITIVES:
        return _PRIMITIVES[kind]
    if kind == exp.DataType.Type.DECIMAL:
        p, s = [int(e.name) for e in t.expressions] + [10, 0][len(t.expressions):]
        return DecimalType(p, s)
    if kind == exp.DataType.Type.ARRAY:
        return ArrayType(_spark_type(t.expressions[0], where))
    if kind == exp.DataType.Type.MAP:
        return MapType(_spark_type(t.expressions[0], where), _spark_type(t.expressions[1], where))
    if kind == exp.DataType.Type.STRUCT:
        return StructType([StructField(f.name, _spark_type(f.args["kind"], where)) for f in t.expressions])
    raise ValueError(f"{where}: unsupported type {t.sql('spark')}")


def parse_ddl(ddl: str, where: str = "schema") -> StructType:
    """``id BIGINT, s STRUCT<a: INT>, v VARIANT`` as a StructType, without a Spark session."""
    try:
        struct = exp.DataType.build(f"STRUCT<{ddl}>", dialect="spark")
    except sqlglot.errors.SqlglotError as e:
        raise ValueError(f"{where}: not a DDL schema ({str(e).splitlines()[0]})") from None
    result = _spark_type(struct, where)
    # sqlglot accepts some malformed DDL silently (an unknown type drops the field list)
    if not isinstance(result, StructType) or len(result.fields) != len(top_level_fields(ddl)):
        raise ValueError(f"{where}: not a DDL schema: {ddl!r}")
    return result


def top_level_fields(ddl: str) -> list[str]:
    """The top-level `name type` items of a DDL field list, split at commas outside <> and ()."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(ddl):
        depth += ch in "<("
        depth -= ch in ">)"
        if ch == "," and depth == 0:
            out.append(ddl[start:i])
            start = i + 1
    return [p.strip() for p in out + [ddl[start:]] if p.strip()]


def read_table_schema(schema: StructType | str, name: str = "table") -> StructType:
    """A StructType, DDL, or the path of a JSON schema file (``StructType.json()``) or DDL file."""
    if isinstance(schema, StructType):
        return schema
    path = FsPath(schema)
    if len(schema) < 4096 and path.is_file():
        text = read_text(path).strip()
        if text.startswith("{"):
            try:
                return StructType.fromJson(json.loads(text))
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"{path}: table {name}: not a Spark JSON schema ({e})") from None
        return parse_ddl(text, f"{path}: table {name}")
    return parse_ddl(schema, f"table {name}")


def read_tables(tables: Tables) -> dict[str, StructType]:
    return {name: read_table_schema(schema, name) for name, schema in tables.items()}


def analyze_workload(queries: str | Iterable[str] | Iterable[Query], tables: Tables,
                     progress: bool = False) -> WorkloadAnalysis:
    """Each query's nested leaf paths and variant paths per table, weighted by the query's count.
    A query that cannot be parsed or resolved is recorded in ``failures`` with the reason."""
    schemas = read_tables(tables)
    workload = read_queries(queries)
    analysis = WorkloadAnalysis(queries=len(workload))
    items: Iterable[Query] = workload
    if progress:
        from tqdm import tqdm
        items = tqdm(workload, desc="analysing queries", unit="query")
    seen: dict[str, QueryNeeds | UnresolvedQuery] = {}  # logs repeat queries: analyse each text once
    for query in items:
        if query.error is not None:
            analysis.failures.append(Failure(query, query.error))
            continue
        needs = seen.get(query.sql)
        if needs is None:
            try:
                needs = query_needs(query.sql, schemas)
            except UnresolvedQuery as e:
                needs = e
            except Exception as e:  # noqa: BLE001 - a bug on one query must not lose the workload
                needs = UnresolvedQuery(f"internal error: {type(e).__name__}: {e}")
            seen[query.sql] = needs
        if isinstance(needs, UnresolvedQuery):
            reason = needs.at(query.line, query.column) if query.line is not None else str(needs)
            analysis.failures.append(Failure(query, reason))
            analysis.missing_tables.update(needs.tables)
            continue
        analysis.weight += query.count
        for table, paths in needs.leaves.items():
            counter = analysis.leaves.setdefault(table, Counter())
            for path in paths:
                counter[path] += query.count
        for vp in set(needs.variant_paths):
            analysis.variant_paths[vp] += query.count
        for filtered in set(needs.variant_filters):
            analysis.variant_filters[filtered] += query.count
    return analysis
