"""Spark's own nested schema pruning tests (``SchemaPruningSuite`` and its Parquet and ORC, V1 and
V2 subclasses), restated as data: the tables the suite writes, and its queries with the settings
each runs under. ``tests/pruning/test_schema_pruning_suite.py`` runs every case with the extension off and
on, over every format, reader and table layout the suite covers.

The suite's DataFrame-built queries are written here as SQL that builds the same operators
(``REPARTITION`` hints for ``repartition``, a subquery for a filter above a projection). Its one
hand-built ``Expand`` is written as ``GROUPING SETS``, which plans an ``Expand`` too. Left out: the
case over an empty in-memory DataFrame (no file scan, so nothing to prune).

Source: Spark 4.1's suite (4.1.1). Spark 3.5's suite (3.5.9) has the same 55 tests, queries and
expected scans, SPARK-51831 included (backported to 3.5), so every line runs the same cases. 4.0's
suite (4.0.1) lacks SPARK-51831; its case runs on 4.0 all the same, stock Spark against the extension.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import SparkSession

# ----------------------------------------------------------------------------------------- tables

FULL_NAME = "struct<first:string,middle:string,last:string>"
EMPLOYER = "struct<id:int,company:struct<name:string,address:string>>"

# The schema every read of ``contacts`` uses: the suite gives it, since formats infer differently.
CONTACTS_SCHEMA = (
    f"id int, name {FULL_NAME}, address string, pets int, friends array<{FULL_NAME}>, "
    f"relatives map<string,{FULL_NAME}>, employer {EMPLOYER}, relations map<{FULL_NAME},string>, "
    "p int")
# The files under p=1 have every column of ``contacts``; those under p=2 lack most of them,
# ``name.middle`` included: the case that reads fields some files do not have.
FULL_CONTACT_FILE = (
    f"id int, name {FULL_NAME}, address string, pets int, friends array<{FULL_NAME}>, "
    f"relatives map<string,{FULL_NAME}>, employer {EMPLOYER}, relations map<{FULL_NAME},string>")
BRIEF_CONTACT_FILE = "id int, name struct<first:string,last:string>, address string"

JANE = ("Jane", "X.", "Doe")
JOHN = ("John", "Y.", "Doe")
SUSAN = ("Susan", "Z.", "Smith")
COMPANY = ("abc", "123 Business Street")

FULL_CONTACTS: list[tuple[Any, ...]] = [
    (0, JANE, "123 Main Street", 1, [SUSAN], {"brother": JOHN}, (0, COMPANY), {JOHN: "brother"}),
    (1, JOHN, "321 Wall Street", 3, [], {"sister": JANE}, (1, None), {JANE: "sister"}),
]
BRIEF_CONTACTS: list[tuple[Any, ...]] = [
    (2, ("Janet", "Jones"), "567 Maple Drive"),
    (3, ("Jim", "Jones"), "6242 Ash Street"),
]

DEPARTMENTS_SCHEMA = f"depId int, depName string, contactId int, employer {EMPLOYER}"
DEPARTMENTS = [
    (0, "Engineering", 0, (0, COMPANY)),
    (1, "Marketing", 1, (1, None)),
    (2, "Operation", 4, (2, None)),
]

EMPLOYEES_SCHEMA = f"id int, name {FULL_NAME}, employer struct<name:string,address:string>"
EMPLOYEES = [(0, JANE, COMPANY), (1, JOHN, COMPANY)]

MIXED_CASE_SCHEMA = "id int, CoL1 string, coL2 struct<a:string,B:int>"
MIXED_CASE = [(0, "r0c1", ("abc", 1)), (1, "r1c1", ("123", 2))]

# Tables of one case each, written by SQL (their values are easiest to state as expressions).
SQL_TABLES = {
    "nested_array": "SELECT * FROM VALUES array(array(named_struct('a', 1, 'b', 3), "
                    "named_struct('a', 2, 'b', 4))) T(items)",
    "struct_map": "SELECT * FROM VALUES map(1, named_struct('a', 1, 'b', 3), "
                  "2, named_struct('a', 2, 'b', 4)) T(items)",
    # The suite reads this one from JSON, so its fields come in JSON's sorted order, ids as long.
    "items": "SELECT array(named_struct('itemData', 'a', 'itemId', 1L), "
             "named_struct('itemData', 'b', 'itemId', 2L)) AS items",
}

# Views over plain values that some cases join with (no file scan of their own).
VALUE_VIEWS = {
    "ids": "SELECT * FROM VALUES (1), (2), (3) AS t(value)",
    "first_names": "SELECT * FROM VALUES ('John'), ('Bob') AS t(value)",
    "more_first_names": "SELECT * FROM VALUES ('John'), ('Janet'), ('Jim'), ('Bob') AS t(value)",
    "temp": "SELECT * FROM VALUES (2) AS t(col2)",
}


@dataclass(frozen=True)
class Layout:
    """How ``contacts`` is laid out: partitioned by ``p`` only, or with ``p`` also a column of the
    files (the suite's 'with partition data column')."""
    name: str
    p_in_files: bool


LAYOUTS = {"partitioned": Layout("partitioned", False), "p_in_files": Layout("p_in_files", True)}


def write_tables(spark: SparkSession, root: str, fmt: str) -> dict[str, str]:
    """Writes every table in ``fmt`` under ``root``; returns table name -> path. ``contacts`` is
    written once per layout, as ``contacts_<layout>``."""
    paths: dict[str, str] = {}

    def write(rows: list[tuple[Any, ...]], schema: str, path: str) -> None:
        spark.createDataFrame(rows, schema).coalesce(1).write.format(fmt).save(path)

    for layout in LAYOUTS.values():
        base = f"{root}/contacts_{layout.name}"
        for p, rows, schema in ((1, FULL_CONTACTS, FULL_CONTACT_FILE),
                                (2, BRIEF_CONTACTS, BRIEF_CONTACT_FILE)):
            if layout.p_in_files:
                rows, schema = [r + (p,) for r in rows], f"{schema}, p int"
            write(rows, schema, f"{base}/p={p}")
        paths[f"contacts_{layout.name}"] = base
    for name, rows, schema in (("departments", DEPARTMENTS, DEPARTMENTS_SCHEMA),
                               ("employees", EMPLOYEES, EMPLOYEES_SCHEMA),
                               ("mixedcase", MIXED_CASE, MIXED_CASE_SCHEMA)):
        write(rows, schema, f"{root}/{name}")
        paths[name] = f"{root}/{name}"
    for name, sql in SQL_TABLES.items():
        spark.sql(sql).coalesce(1).write.format(fmt).save(f"{root}/{name}")
        paths[name] = f"{root}/{name}"
    return paths


def register_views(spark: SparkSession, fmt: str, paths: dict[str, str], layout: Layout) -> None:
    """Temp views over the files, under the current settings: whether a view scans with DSv1 or
    DSv2 is fixed when it is created."""
    schemas = {"departments": DEPARTMENTS_SCHEMA, "employees": EMPLOYEES_SCHEMA}
    reader = spark.read.format(fmt)
    reader.schema(CONTACTS_SCHEMA).load(paths[f"contacts_{layout.name}"]) \
        .createOrReplaceTempView("contacts")
    for name, path in paths.items():
        if name.startswith("contacts_"):
            continue
        r = spark.read.format(fmt)
        (r.schema(schemas[name]) if name in schemas else r).load(path).createOrReplaceTempView(name)
    for name, sql in VALUE_VIEWS.items():
        spark.sql(sql).createOrReplaceTempView(name)


# ------------------------------------------------------------------------------------------ cases

NESTED_PRUNING = "spark.sql.optimizer.nestedSchemaPruning.enabled"
PRUNING_ON_EXPRESSIONS = "spark.sql.optimizer.expression.nestedPruning.enabled"
CASE_SENSITIVE = "spark.sql.caseSensitive"


@dataclass(frozen=True)
class Case:
    """One query of the suite. ``confs``: settings the suite sets for it; ``setup``: statements run
    first (temp views over ``contacts``); ``same_rows``: False where the query is not
    deterministic (only the read schemas and the absence of failures are compared)."""
    suite_test: str
    sql: str
    confs: dict[str, str] = field(default_factory=dict)
    setup: tuple[str, ...] = ()
    same_rows: bool = True


CASES: dict[str, Case] = {}


def case(name: str, suite_test: str, sql: str, **kw: Any) -> None:
    if name in CASES:
        raise ValueError(f"duplicate case {name}")
    CASES[name] = Case(suite_test, " ".join(sql.split()), **kw)


def cases(prefix: str, suite_test: str, *sqls: str, **kw: Any) -> None:
    for i, sql in enumerate(sqls, 1):
        case(f"{prefix}_{i}" if len(sqls) > 1 else prefix, suite_test, sql, **kw)


cases("top_level", "select only top-level fields", "select address from contacts")
cases("disabled_pruning", "select a single complex field with disabled nested schema pruning",
      "select name.middle from contacts", confs={NESTED_PRUNING: "false"})
cases("input_file_name", "select only input_file_name()", "select input_file_name() from contacts")
cases("no_references", "select only expressions without references",
      "select count(*) from contacts")
cases("complex_field", "select a single complex field", "select name.middle from contacts")
cases("field_and_parent", "select a single complex field and its parent struct",
      "select name.middle, name from contacts")
cases("array_field_and_parent", "select a single complex field array and its parent struct array",
      "select friends.middle, friends from contacts where p=1")
cases("map_field_and_parent",
      "select a single complex field from a map entry and its parent map entry",
      "select relatives['brother'].middle, relatives['brother'] from contacts where p=1")
cases("field_and_partition", "select a single complex field and the partition column",
      "select name.middle, p from contacts")
cases("missing_subfield", "partial schema intersection - select missing subfield",
      "select name.middle, address from contacts where p=2")
cases("no_unnecessary_pruning", "no unnecessary schema pruning",
      """select id, name.last, name.middle, name.first, relatives[''].last, relatives[''].middle,
         relatives[''].first, friends[0].last, friends[0].middle, friends[0].first, pets, address
         from contacts where p=2""")
cases("empty_intersection", "empty schema intersection",
      "select name.middle from contacts where p=2")
cases("field_in_where", "select a single complex field and in where clause",
      "select name.first from contacts where name.first = 'Jane'",
      "select name.first, name.last from contacts where name.first = 'Jane'",
      "select name.first from contacts where employer.company.name = 'abc' and p = 1",
      "select name.first, employer.company.name from contacts "
      "where employer.company is not null and p = 1")
cases("nullable_is_not_null", "select nullable complex field and having is not null predicate",
      "select employer.company from contacts where employer is not null and p = 1")
cases("is_null_in_project", "select a single complex field and is null expression in project",
      "select name.first, address is not null from contacts")
cases("array_in_where", "select a single complex field array and in clause",
      "select friends.middle from contacts where friends.first[0] = 'Susan'")
cases("map_in_where", "select a single complex field from a map entry and in clause",
      "select relatives['brother'].middle from contacts where relatives['brother'].first = 'John'")
cases("is_null_on_other_field",
      "select one complex field and having is null predicate on another complex field",
      """select count(id) from (select id, name.first as first, name.middle as middle,
         name.last as last from contacts where name.middle is not null) where last = 'Jones'""")
cases("deep_is_null_on_other_field",
      "select one deep nested complex field and having is null predicate on another deep nested "
      "complex field",
      """select count(id) from (select id, name.first, name.middle, name.last,
         employer.id as employer_id from contacts where employer.company.address is not null)
         where employer_id = 0""")
cases("map_keys", "select nested field from a complex map key using map_keys",
      "select map_keys(relations).middle[0], p from contacts")
cases("map_values", "select nested field from a complex map value using map_values",
      "select map_values(relatives).middle[0], p from contacts")
for nested in ("true", "false"):
    for on_expressions in ("true", "false"):
        cases(f"explode_field_pruning_{nested}_expressions_{on_expressions}",
              "select explode of nested field of array of struct",
              "select explode(friends.first) from contacts",
              "select explode(friends.first), friends.middle from contacts",
              "select explode(friends.first), friends.middle, friends.last from contacts",
              confs={NESTED_PRUNING: nested, PRUNING_ON_EXPRESSIONS: on_expressions})
EXPLODED = "(select explode(friends) as friend from contacts)"
cases("generator_output", "SPARK-34638: nested column prune on generator output",
      f"select friend.first from {EXPLODED}",
      f"select friend.first, friend.middle from {EXPLODED}",
      f"select friend.first, friend.middle, friend from {EXPLODED}")
cases("generator_output_case", "SPARK-34638: nested column prune on generator output - "
      "case-sensitivity",
      f"select friend.First from {EXPLODED}", f"select friend.MIDDLE from {EXPLODED}",
      confs={CASE_SENSITIVE: "false"})
LATERAL = "from contacts, lateral explode(friends) t(friend)"
cases("lateral_generator", "SPARK-41961: nested schema pruning on table-valued generator functions",
      f"select friend.first {LATERAL}", f"select friend.first, friend.middle {LATERAL}",
      f"select friend.first, friend.middle, friend {LATERAL}")
cases("after_repartition", "select one deep nested complex field after repartition",
      """select employer.id as employer_id from (select /*+ REPARTITION(100) */ * from contacts)
         where employer.company.address is not null""")
REPARTITIONED = "(select /*+ REPARTITION(100, {}) */ * from contacts)"
cases("after_repartition_by", "select one deep nested complex field after repartition by expression",
      f"""select employer.id as employer_id from {REPARTITIONED.format('id')}
          where employer.company.address is not null""",
      f"""select employer.id as employer_id from {REPARTITIONED.format('employer')}
          where employer.company.address is not null""",
      f"""select employer.company as employer_company from {REPARTITIONED.format('employer.company')}
          where employer.company.address is not null""",
      f"""select employer.company.address as employer_company_addr
          from {REPARTITIONED.format('employer.company.address')}
          where employer.company.address is not null""")
cases("after_join", "select one deep nested complex field after join",
      "select contacts.name.middle from contacts, departments "
      "where contacts.id = departments.contactId",
      "select contacts.name.middle from contacts, departments "
      "where contacts.employer = departments.employer",
      "select contacts.employer.company.name from contacts, departments "
      "where contacts.employer = departments.employer")
cases("after_outer_join", "select one deep nested complex field after outer join",
      "select departments.contactId, contacts.name.middle from departments "
      "left outer join contacts on departments.contactId = contacts.id",
      "select contacts.name.first, departments.employer.company.name "
      "from contacts right outer join departments on contacts.id = departments.contactId")
cases("in_aggregate", "select nested field in aggregation function of Aggregate",
      "select count(name.first) from contacts group by name.last",
      "select count(name.first), sum(pets) from contacts group by id",
      "select count(name.first), first(name) from contacts group by id",
      "select count(name.first), sum(pets) from contacts group by name.last")
cases("in_window", "select nested field in window function",
      """with contact_rank as (select row_number() over (partition by address order by id desc)
         as rank, contacts.* from contacts)
         select name.first, rank from contact_rank where name.first = 'Jane' AND rank = 1""")
cases("window_then_order_by", "select nested field in window function and then order by",
      """with contact_rank as (select row_number() over (partition by address order by id desc)
         as rank, contacts.* from contacts order by name.last, name.first)
         select name.first, rank from contact_rank""")
cases("in_sort", "select nested field in Sort",
      "select name.first, name.last from contacts order by name.first, name.last",
      "select name.first, name.last from tmp_contacts sort by name.first, name.last",
      setup=("create or replace temp view tmp_contacts as "
             "select /*+ REPARTITION(1) */ * from contacts",))
cases("in_expand", "select nested field in Expand",
      "select name.first, name.last, count(*) from contacts "
      "group by grouping sets ((name.first, name.last), (name.last))",
      "select name, name.last, count(*) from contacts group by grouping sets ((name), (name.last))")
cases("cosmetic_variations", "SPARK-32163: nested pruning should work even with cosmetic variations",
      "select name.first from contact_alias",
      setup=("create or replace temp view contact_alias as select name from "
             "(select /*+ REPARTITION(100, name.first, name.last) */ * from contacts)",))
cases("cosmetic_variations_explode",
      "SPARK-32163: nested pruning should work even with cosmetic variations",
      "select friends.middle, col from contact_explode",
      setup=("create or replace temp view contact_explode as "
             "select explode(friends.first) as col, friends from contacts",))
cases("correlated_subqueries", "SPARK-38918: nested schema pruning with correlated subqueries",
      """select count(*) from contacts c where not exists (select null from employees e
         where e.name.first = c.name.first and e.employer.name = c.employer.company.name)""")
cases("exists_join", "SPARK-51831: Column pruning with exists Join",
      """select sum(t1.id) as sum_id from contacts as t1
         where exists(select * from contacts as t2 where t1.id == t2.id)""")
for sensitive in ("true", "false"):
    cases(f"exact_case_names_sensitive_{sensitive}", "select with exact column names",
          "select CoL1, coL2.B from mixedcase", confs={CASE_SENSITIVE: sensitive})
INSENSITIVE = {CASE_SENSITIVE: "false"}
cases("lowercase_names", "select with lowercase column names",
      "select col1, col2.b from mixedcase", confs=INSENSITIVE)
cases("different_case_names", "select with different-case column names",
      "select cOL1, cOl2.b from mixedcase", confs=INSENSITIVE)
cases("different_case_filter", "filter with different-case column names",
      "select id from mixedcase where Col2.b = 2", confs=INSENSITIVE)
cases("different_case_subquery", "subquery filter with different-case column names",
      "select id from mixedcase where Col2.b IN (select col2 from temp)", confs=INSENSITIVE)
cases("output_names", "SPARK-36352: Spark should check result plan's output schema name",
      "select cOL1, cOl2.B from mixedcase", confs=INSENSITIVE)
cases("insensitive_array_field", "SPARK-34963: extract case-insensitive struct field from array",
      "select friends.First, friends.MiDDle from contacts",
      "select friends.First, friends.MiDDle from contacts where friends.First is not null",
      confs=INSENSITIVE)
cases("insensitive_struct_field", "SPARK-34963: extract case-insensitive struct field from struct",
      "select Name.First, NAME.MiDDle from contacts",
      "select Name.First, NAME.MiDDle from contacts where Name.MIDDLE is not null",
      confs=INSENSITIVE)
cases("unsupported_cases", "SPARK-34638: queries should not fail on unsupported cases",
      "select d.a from (select explode(c) d from (select explode(items) c from nested_array))",
      "select d.a from (select explode(items) (c, d) from struct_map)")
cases("explode_count", "SPARK-37450: Prunes unnecessary fields from Explode for count aggregation",
      "select count(*) from (select explode(items) as item from items)")
cases("correlated_exists", "SPARK-38977: schema pruning with correlated EXISTS subquery",
      """SELECT name FROM contacts c WHERE EXISTS (SELECT 1 FROM ids i WHERE i.value = c.id)
         AND EXISTS (SELECT 1 FROM first_names n WHERE c.name.first = n.value)""")
cases("correlated_not_exists", "SPARK-38977: schema pruning with correlated NOT EXISTS subquery",
      """SELECT name FROM contacts c WHERE NOT EXISTS (SELECT 1 FROM ids i WHERE i.value = c.id)
         AND NOT EXISTS (SELECT 1 FROM first_names n WHERE c.name.first = n.value)""")
cases("correlated_in", "SPARK-38977: schema pruning with correlated IN subquery",
      """SELECT name FROM contacts c WHERE id IN (SELECT * FROM ids i WHERE c.pets > i.value)
         AND name.first IN (SELECT * FROM first_names n WHERE c.name.last < n.value)""")
cases("correlated_not_in", "SPARK-38977: schema pruning with correlated NOT IN subquery",
      """SELECT name FROM contacts c WHERE id NOT IN (SELECT * FROM ids i WHERE c.pets > i.value)
         AND name.first NOT IN (SELECT * FROM more_first_names n WHERE c.name.last > n.value)""")
cases("element_at", "SPARK-40033: Schema pruning support through element_at",
      "SELECT element_at(friends, 1).first, element_at(friends, 1).last FROM contacts WHERE id = 0",
      "SELECT element_at(relatives, 'brother').first, element_at(relatives, 'brother').middle "
      "FROM contacts WHERE id = 0")
cases("two_filters", "SPARK-41017: column pruning through 2 filters",
      "select id, name.first from (select * from contacts where rand() > 0.5) where rand() < 0.8",
      same_rows=False)
cases("non_foldable_index", "SPARK-42163: GetArrayItem and GetMapItem with non-foldable index",
      "SELECT employer.company, friends[employer.id].first FROM contacts",
      "SELECT employer.id, relatives[employer.company.name].first FROM contacts")


# --------------------------------------------------------------------------- formats and readers

@dataclass(frozen=True)
class Variant:
    """A format, its DSv1 or DSv2 source, and its reader, as the suite's subclasses set them."""
    name: str
    fmt: str
    confs: dict[str, str]


def _variant(fmt: str, v2: bool, vectorized: bool) -> Variant:
    reader = "vectorized" if vectorized else ("parquet_mr" if fmt == "parquet" else "row")
    return Variant(f"{fmt}_{'v2' if v2 else 'v1'}_{reader}", fmt, {
        "spark.sql.sources.useV1SourceList": "" if v2 else "parquet,orc",
        f"spark.sql.{fmt}.enableVectorizedReader": str(vectorized).lower(),
    })


VARIANTS = {v.name: v for v in (_variant(f, v2, vec) for f in ("parquet", "orc")
                                for v2 in (False, True) for vec in (True, False))}

# The suite's session settings (it runs with ANSI mode off: some cases index past an array's end).
SUITE_CONFS = {"spark.sql.ansi.enabled": "false"}
