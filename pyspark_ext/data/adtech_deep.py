"""A deeply nested, deterministic ad-tech table for the query battery.

Different from pyspark_ext/data/adtech.py: sessions with page views holding placements holding
items (4 levels of arrays of structs, with a map at the bottom), a map of experiment structs with
arrays of structs inside, a two-level geo struct, billing lines with decimals and a wide
``features`` struct of 150 leaves. Nulls appear at every level: null structs, null arrays, null
array elements, null map values, empty arrays and null leaves.

Every value is a function of ``id`` only, built with Spark SQL expressions from ``spark.range``.
"""
from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (ArrayType, BooleanType, DataType, DateType, DecimalType, DoubleType,
                               IntegerType, LongType, MapType, StringType, StructField, StructType,
                               TimestampType)

FEATURE_FLAT = 144  # f000 .. f143, plus profile (3 leaves), scores (2 leaves), lastSeen = 150 leaves
_FEATURE_TYPES: list[tuple[DataType, str]] = [
    (IntegerType(), "cast(pmod(id * {k} + {i}, 1000) as int)"),
    (LongType(), "id * {k} + {i}"),
    (DoubleType(), "cast(pmod(id + {i}, 997) as double) / 7"),
    (StringType(), "concat('x{i}_', cast(pmod(id * {k}, 101) as string))"),
    (BooleanType(), "pmod(id, {m}) = 0"),
    (DateType(), "date_add(DATE'2024-01-01', cast(pmod(id + {i}, 365) as int))"),
]


def _s(*fields: tuple[str, DataType]) -> StructType:
    return StructType([StructField(n, t, True) for n, t in fields])


def _features_type() -> StructType:
    fields = [(f"f{i:03d}", _FEATURE_TYPES[i % 6][0]) for i in range(FEATURE_FLAT)]
    fields += [
        ("profile", _s(("age", IntegerType()), ("gender", StringType()),
                       ("interests", ArrayType(StringType())))),
        ("scores", MapType(StringType(), DoubleType())),
        ("lastSeen", TimestampType()),
    ]
    return _s(*fields)


ITEM = _s(("itemId", LongType()), ("cpc", DoubleType()), ("clicked", BooleanType()),
          ("meta", MapType(StringType(), StringType())))
PLACEMENT = _s(("slot", IntegerType()), ("items", ArrayType(ITEM)))
PAGE_VIEW = _s(("url", StringType()), ("ts", LongType()), ("placements", ArrayType(PLACEMENT)))
DEEP_SCHEMA = _s(
    ("id", LongType()),
    ("userId", StringType()),
    ("eventTime", TimestampType()),
    ("session", _s(
        ("id", StringType()),
        ("device", _s(("os", StringType()), ("model", StringType()),
                      ("screen", _s(("w", IntegerType()), ("h", IntegerType()))))),
        ("pageViews", ArrayType(PAGE_VIEW)))),
    ("experiments", MapType(StringType(), _s(
        ("variant", StringType()), ("weight", DoubleType()),
        ("params", ArrayType(_s(("k", StringType()), ("v", StringType()))))))),
    ("geo", _s(("country", StringType()),
               ("region", _s(("name", StringType()), ("code", StringType()))))),
    ("billing", _s(("currency", StringType()),
                   ("lines", ArrayType(_s(("amount", DecimalType(10, 2)), ("tax", DoubleType()),
                                          ("sku", StringType())))))),
    ("features", _features_type()),
)


def _pick(values: list[str], expr: str) -> str:
    arr = ", ".join(f"'{v}'" for v in values)
    return f"element_at(array({arr}), cast(pmod({expr}, {len(values)}) as int) + 1)"


def _empty(t: DataType) -> str:
    return f"cast(array() as {t.simpleString()})"


SESSION_SQL = f"""CASE WHEN id % 97 = 0 THEN NULL ELSE named_struct(
    'id', concat('s', cast(id DIV 3 as string)),
    'device', CASE WHEN id % 13 = 0 THEN NULL ELSE named_struct(
        'os', {_pick(['ios', 'android', 'windows', 'macos'], 'id')},
        'model', CASE WHEN id % 10 = 0 THEN NULL ELSE concat('m', cast(pmod(id, 7) as string)) END,
        'screen', CASE WHEN id % 7 = 0 THEN NULL ELSE named_struct(
            'w', cast(320 + pmod(id, 5) * 160 as int),
            'h', CASE WHEN id % 9 = 0 THEN NULL ELSE cast(480 + pmod(id, 3) * 240 as int) END) END) END,
    'pageViews', CASE WHEN id % 11 = 0 THEN NULL
        WHEN id % 17 = 0 THEN {_empty(ArrayType(PAGE_VIEW))}
        ELSE transform(sequence(0L, pmod(id, 4)), v -> CASE WHEN pmod(id + v, 19) = 0 THEN NULL ELSE named_struct(
            'url', concat('https://site', cast(pmod(id + v, 5) as string), '.example/p', cast(v as string)),
            'ts', 1700000000000 + id * 1000 + v * 10,
            'placements', CASE WHEN pmod(id + v, 6) = 0 THEN NULL
                WHEN pmod(id + v, 8) = 0 THEN {_empty(ArrayType(PLACEMENT))}
                ELSE transform(sequence(0L, pmod(id + v, 3)), p -> named_struct(
                    'slot', cast(p + 1 as int),
                    'items', CASE WHEN pmod(id + v + p, 10) = 0 THEN NULL
                        ELSE transform(sequence(0L, pmod(id + p, 3)), i ->
                            CASE WHEN pmod(id + v + p + i, 23) = 0 THEN NULL ELSE named_struct(
                                'itemId', id * 100 + v * 10 + p * 3 + i,
                                'cpc', CASE WHEN pmod(id + i, 15) = 0 THEN NULL
                                            ELSE cast(pmod(id * 7 + v + p + i, 97) as double) / 100 END,
                                'clicked', pmod(id + v + p + i, 4) = 0,
                                'meta', CASE WHEN pmod(id + i, 5) = 0 THEN NULL ELSE map(
                                    'campaign', concat('c', cast(pmod(id + i, 6) as string)),
                                    'creative', concat('cr', cast(pmod(id * 3 + i, 11) as string))) END)
                            END) END)) END) END) END) END"""


def _experiment(variants: tuple[str, str], salt: int) -> str:
    return f"""CASE WHEN pmod(id + {salt}, 29) = 0 THEN NULL ELSE named_struct(
        'variant', IF(pmod(id + {salt}, 2) = 0, '{variants[0]}', '{variants[1]}'),
        'weight', cast(pmod(id * {salt + 1}, 10) as double) / 10,
        'params', CASE WHEN pmod(id + {salt}, 4) = 0 THEN NULL
            WHEN pmod(id + {salt}, 4) = 1 THEN cast(array() as array<struct<k:string,v:string>>)
            ELSE array(named_struct('k', 'color', 'v', concat('c', cast(pmod(id, 3) as string))),
                       named_struct('k', 'size', 'v', CASE WHEN pmod(id, 6) = 2 THEN NULL ELSE 'L' END)) END) END"""


EXPERIMENTS_SQL = f"""CASE WHEN id % 23 = 0 THEN NULL ELSE map_filter(map(
        'exp_a', {_experiment(('control', 'treatment'), 0)},
        'exp_b', {_experiment(('blue', 'green'), 1)},
        'exp_c', {_experiment(('old', 'new'), 2)}),
    (k, v) -> (k = 'exp_a' AND id % 3 <> 0) OR (k = 'exp_b' AND id % 2 = 0) OR (k = 'exp_c' AND id % 5 < 2)) END"""

GEO_SQL = f"""CASE WHEN id % 29 = 0 THEN NULL ELSE named_struct(
    'country', {_pick(['US', 'GB', 'DE', 'FR', 'IL', 'JP'], 'id * 7')},
    'region', CASE WHEN id % 31 = 0 THEN NULL ELSE named_struct(
        'name', concat('region', cast(pmod(id, 9) as string)),
        'code', CASE WHEN id % 8 = 0 THEN NULL ELSE concat('R', cast(pmod(id, 9) as string)) END) END) END"""

BILLING_SQL = f"""CASE WHEN id % 43 = 0 THEN NULL ELSE named_struct(
    'currency', {_pick(['USD', 'EUR', 'GBP'], 'id')},
    'lines', CASE WHEN id % 37 = 0 THEN NULL
        WHEN id % 5 = 0 THEN cast(array() as array<struct<amount:decimal(10,2),tax:double,sku:string>>)
        ELSE transform(sequence(1L, pmod(id, 3) + 1), l -> named_struct(
            'amount', CASE WHEN pmod(id + l, 13) = 0 THEN NULL
                           ELSE cast(cast(pmod(id * l, 10000) as double) / 100 as decimal(10,2)) END,
            'tax', cast(pmod(id + l, 20) as double) / 100,
            'sku', concat('SKU-', cast(pmod(id + l, 50) as string)))) END) END"""


def _features_sql() -> str:
    parts = []
    for i in range(FEATURE_FLAT):
        value = _FEATURE_TYPES[i % 6][1].format(i=i, k=i + 3, m=(i % 7) + 2)
        parts.append(f"'f{i:03d}', CASE WHEN pmod(id + {i}, 53) = 0 THEN NULL ELSE {value} END")
    parts.append("""'profile', CASE WHEN id % 19 = 0 THEN NULL ELSE named_struct(
        'age', cast(18 + pmod(id, 50) as int),
        'gender', CASE WHEN id % 7 = 3 THEN NULL ELSE IF(id % 2 = 0, 'f', 'm') END,
        'interests', CASE WHEN id % 12 = 0 THEN NULL WHEN id % 12 = 1 THEN cast(array() as array<string>)
            ELSE slice(array('sports', 'news', 'tech', 'travel', 'food'), cast(pmod(id, 3) as int) + 1,
                       cast(pmod(id, 4) as int) + 1) END) END""")
    parts.append("""'scores', CASE WHEN id % 14 = 0 THEN NULL ELSE map(
        'ctr', cast(pmod(id, 100) as double) / 1000, 'cvr', cast(pmod(id * 3, 100) as double) / 5000) END""")
    parts.append("'lastSeen', timestamp_millis(1699000000000 + id * 3600000)")
    return "CASE WHEN id % 41 = 0 THEN NULL ELSE named_struct(" + ",\n ".join(parts) + ") END"


def deep(spark: SparkSession, rows: int, partitions: int = 4) -> DataFrame:
    base = spark.range(0, rows, 1, partitions)
    df = base.selectExpr(
        "id",
        "concat('u', cast(pmod(id * 7, 500) as string)) AS userId",
        "timestamp_millis(1700000000000 + id * 60000) AS eventTime",
        f"{SESSION_SQL} AS session",
        f"{EXPERIMENTS_SQL} AS experiments",
        f"{GEO_SQL} AS geo",
        f"{BILLING_SQL} AS billing",
        f"{_features_sql()} AS features",
    )
    if df.schema.simpleString() != DEEP_SCHEMA.simpleString():
        raise AssertionError(f"generated schema drifted:\n{df.schema.simpleString()}\n"
                             f"{DEEP_SCHEMA.simpleString()}")
    return df


def write_deep(spark: SparkSession, path: str, rows: int = 3000, partitions: int = 4) -> str:
    """Write ``rows`` deterministic rows of the deep table as Parquet at ``path``."""
    deep(spark, rows, partitions).write.mode("overwrite").parquet(path)
    return path


def leaf_count(t: DataType) -> int:
    if isinstance(t, StructType):
        return sum(leaf_count(f.dataType) for f in t.fields)
    if isinstance(t, ArrayType):
        return leaf_count(t.elementType)
    if isinstance(t, MapType):
        return leaf_count(t.keyType) + leaf_count(t.valueType)
    return 1


def pruned(*paths: str, schema: StructType = DEEP_SCHEMA) -> str:
    """The catalogString of ``schema`` pruned to dotted ``paths`` (``pyspark_ext.advisor.prune``,
    strict: a path naming no field raises ``KeyError``)."""
    from pyspark_ext.advisor.schema_on_read import prune

    return prune(schema, {tuple(p.split(".")) for p in paths}, strict=True).simpleString()
