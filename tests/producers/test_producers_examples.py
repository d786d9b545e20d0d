"""Parquet.Producers' worked examples, bad input, key and value types, and the layout
(sorted files, carried-over files, selective row groups), on small data."""
from __future__ import annotations

import datetime
import json
from collections import Counter, defaultdict

import pyarrow.parquet as pq
import pytest
from pyspark.sql import Row

import pyspark_ext
from pyspark_ext.producers import Add, Delete, Pipeline, ProducerError, Update, next_id

pytestmark = pytest.mark.slow


def rows(df):
    return [tuple(r) for r in df.collect()]


def pipeline(spark, tmp_path, name="p", **kw):
    kw.setdefault("rows_per_row_group", 4)
    kw.setdefault("rows_per_file", 16)
    return Pipeline(spark, str(tmp_path / name), **kw)


# -- Parquet.Producers' examples --------------------------------------------------------

PEOPLE = [Row(id=i, name=f"p{i}", email=f"e{i % 7}@x" if i % 3 else f"u{i}@x", age=20 + i % 45,
              salary=1000.0 + 37 * i) for i in range(60)]


def age_range(age):
    return f"{age // 10 * 10}s"


def test_average_salary_by_age_range_with_partitioning_factor(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    persons = p.source("persons")

    def by_range(_, people):  # the constant key: every person in one call
        for person in people:
            yield Row(age_range=age_range(person.age), r=person.id % 10), person.salary

    def partial(key, salaries):
        count = total = 0
        for s in salaries:
            count, total = count + 1, total + s
        yield key.age_range, Row(n=count, total=total)

    def average(key, partials):
        count = total = 0
        for x in partials:
            count, total = count + x.n, total + x.total
        yield key, total / count

    keyed = p.stage("keyed", by_range, persons,
                    key_type="struct<age_range:string, r:int>", value_type="double")
    partials = p.stage("partials", partial, keyed)
    p.stage("average", average, partials)
    df = spark.createDataFrame([(1, x) for x in PEOPLE],
                               "key int, value struct<id:int,name:string,email:string,age:int,"
                               "salary:double>")
    assert p.run({"persons": df}) == 1
    expected = defaultdict(list)
    for x in PEOPLE:
        expected[age_range(x.age)].append(x.salary)
    got = dict(rows(p.content("average")))
    assert got == pytest.approx({k: sum(v) / len(v) for k, v in expected.items()})
    # the partitioning factor: up to 10 keys per age range in the keyed stage
    keys = [k for k, _ in rows(p.content("keyed"))]
    assert len(set(keys)) > len(expected) and keys == sorted(keys)
    assert [t for t, _, _ in rows(p.changes("average"))] == ["Add"] * len(expected)


def test_duplicate_email_finder(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    people = p.source("people")
    by_email = p.stage("by_email", lambda _, ps: ((x.email, x) for x in ps), people)

    def keep_duplicates(email, persons):
        first = next(persons, None)
        second = next(persons, None)
        if second is not None:
            yield email, first
            yield email, second
            yield from ((email, x) for x in persons)

    p.stage("dupes", keep_duplicates, by_email)
    schema = "key int, value struct<id:int,name:string,email:string,age:int,salary:double>"
    p.run({"people": spark.createDataFrame([(1, x) for x in PEOPLE], schema)})
    counts = Counter(x.email for x in PEOPLE)
    got = rows(p.content("dupes"))
    assert sorted((e, x.id) for e, x in got) == sorted(
        (x.email, x.id) for x in PEOPLE if counts[x.email] > 1)
    assert [e for e, _ in got] == sorted(e for e, _ in got)
    # the constant key's group is replaced as a whole: one person changes email
    changed = [x if x.id != 1 else Row(**{**x.asDict(), "email": "u1@x"}) for x in PEOPLE]
    p.update({"people": spark.createDataFrame([(Update, 1, x) for x in changed],
                                              "type string, " + schema)})
    counts = Counter(x.email for x in changed)
    assert sorted((e, x.id) for e, x in rows(p.content("dupes"))) == sorted(
        (x.email, x.id) for x in changed if counts[x.email] > 1)
    # e1@x lost a member (still a duplicate): an Update with all its remaining members
    ch = rows(p.changes("dupes"))
    assert {t for t, e, _ in ch if e == "e1@x"} == {Update}
    assert sorted(x.id for t, e, x in ch if e == "e1@x") == sorted(
        x.id for x in changed if x.email == "e1@x")


FRUIT = "struct<kt:int, fruit:string>"


def fruit_pipeline(spark, tmp_path):
    p = pipeline(spark, tmp_path, rows_per_row_group=1, rows_per_file=2)
    src = p.source("src")
    p.stage("fruit", lambda k, vs: ((v.kt, v.fruit) for v in vs), src)
    df = spark.createDataFrame([(4, (108, "mango")), (6, (105, "apple")), (9, (105, "banana"))],
                               f"key int, value {FRUIT}")
    p.run({"src": df})
    return p


def test_apple_banana_mango(spark, tmp_path):
    p = fruit_pipeline(spark, tmp_path)
    stages = p.manifest()["stages"]
    assert [(r["key"], r["source_key"], r["value"]) for f in stages["fruit"]["content"]
            for r in pq.read_table(tmp_path / "p" / f["path"]).to_pylist()] == [
        (105, 6, "apple"), (105, 9, "banana"), (108, 4, "mango")]
    assert [(r["source_key"], r["key"]) for f in stages["fruit"]["key_mappings"]
            for r in pq.read_table(tmp_path / "p" / f["path"]).to_pylist()] == [
        (4, 108), (6, 105), (9, 105)]
    # the update replaces source key 6: downstream sees every value of 105, and 108 is untouched
    p.update({"src": spark.createDataFrame([(Update, 6, (105, "apple"))],
                                           f"type string, key int, value {FRUIT}")})
    assert rows(p.changes("fruit")) == [(Update, 105, "apple"), (Update, 105, "banana")]
    after = p.manifest()["stages"]["fruit"]
    carried = [f["path"] for f in after["content"] if f in stages["fruit"]["content"]]
    assert any(r["first"] == 108 for r in after["content"] if r["path"] in carried), \
        "the file holding 108 is carried over unchanged"
    assert after["stats"]["files_carried"] >= 1
    p.update({"src": spark.createDataFrame([(Delete, 4, None), (Add, 7, (105, "cherry"))],
                                           f"type string, key int, value {FRUIT}")})
    assert sorted(rows(p.changes("fruit")), key=repr) == [
        (Delete, 108, None), (Update, 105, "apple"), (Update, 105, "banana"),
        (Update, 105, "cherry")]
    assert rows(p.content("fruit", version=1)) == [(105, "apple"), (105, "banana"), (108, "mango")]
    assert p.versions() == [1, 2, 3] and p.version == 3


@pytest.mark.producers_lines
def test_join(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    customers, orders = p.source("customers"), p.source("orders")
    by_customer = p.stage("orders_by_customer", lambda _, os: ((o.customer, o) for o in os), orders,
                          key_type="int")

    def join(customer_id, custs, ords):
        cust = next(custs, None)  # one-to-many: one value cached, the other side streamed
        for o in ords:
            yield o.id, Row(order=o.id, amount=o.amount, name=cust.name if cust else None)

    p.stage("joined", join, customers, by_customer,
            value_type="struct<order:int, amount:double, name:string>")
    cdf = spark.createDataFrame([(c, Row(name=f"c{c}")) for c in range(5)],
                                "key int, value struct<name:string>")
    ords = [Row(id=i, customer=i % 6, amount=float(i)) for i in range(20)]
    odf = spark.createDataFrame([(0, o) for o in ords],
                                "key int, value struct<id:int, customer:int, amount:double>")
    p.run({"customers": cdf, "orders": odf})
    assert rows(p.content("joined")) == [
        (o.id, (o.id, o.amount, f"c{o.customer}" if o.customer < 5 else None)) for o in ords]
    # a change on either side re-runs the join for the keys it touches
    p.update({"customers": spark.createDataFrame([(Update, 2, Row(name="two")),
                                                  (Add, 5, Row(name="five"))],
                                                 "type string, key int, value struct<name:string>")})
    changed = {o.id for o in ords if o.customer in (2, 5)}
    assert {k for _, k, _ in rows(p.changes("joined"))} == changed
    names = {0: "c0", 1: "c1", 2: "two", 3: "c3", 4: "c4", 5: "five"}
    assert rows(p.content("joined")) == [(o.id, (o.id, o.amount, names[o.customer])) for o in ords]


def test_merge_of_two_feeders(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    a, b = p.source("a"), p.source("b")
    fa = p.stage("from_a", lambda k, vs: ((v % 5, f"a{v}") for v in vs), a)
    fb = p.stage("from_b", lambda k, vs: ((v % 5, f"b{v}") for v in vs), b)
    p.stage("merged", lambda k, vs: [(k, ",".join(sorted(vs)))], [fa, fb])
    schema = "key int, value int"
    p.run({"a": spark.createDataFrame([(i, i) for i in range(8)], schema),
           "b": spark.createDataFrame([(i, 10 + i) for i in range(3)], schema)})

    def expected(av, bv):
        out = defaultdict(list)
        for v in av:
            out[v % 5].append(f"a{v}")
        for v in bv:
            out[v % 5].append(f"b{v}")
        return [(k, ",".join(sorted(v))) for k, v in sorted(out.items())]
    assert rows(p.content("merged")) == expected(range(8), [10, 11, 12])
    # only b changes; the merged key 0 must still see a's values (the augmented update)
    p.update({"b": spark.createDataFrame([(Update, 0, 15)], "type string, key int, value int")})
    assert rows(p.content("merged")) == expected(range(8), [15, 11, 12])
    assert rows(p.changes("merged")) == [(Update, 0, "a0,a5,b15")]


def test_preserved_ids_across_three_updates(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    urls = p.source("urls")

    def keep_id(new, previous):
        return Row(url=new.url, id=previous.id if previous is not None else next_id())

    p.stage("ids", lambda k, vs: ((v, Row(url=v, id=0)) for v in vs), urls,
            key_type="string", value_type="struct<url:string, id:bigint>", preserve=keep_id)
    schema = "type string, key int, value string"
    p.run({"urls": spark.createDataFrame([(i, u) for i, u in enumerate(["c", "a", "b", "a"])],
                                         "key int, value string")})

    def ids():
        got = rows(p.content("ids"))
        assert all(v.url == k for k, v in got)
        return {k: v.id for k, v in got}, [v.id for _, v in got]
    first, _ = ids()
    assert sorted(first.values()) == [1, 2, 3]          # dense, in key order
    assert first == {"a": 1, "b": 2, "c": 3}
    p.update({"urls": spark.createDataFrame([(Update, 1, "d"), (Delete, 2, None)], schema)})
    second, all_ids = ids()                               # "a" still held by key 3
    assert second == {"a": 1, "c": 3, "d": 4}
    p.update({"urls": spark.createDataFrame([(Delete, 3, None), (Add, 7, "e"), (Add, 8, "b")],
                                            schema)})
    third, _ = ids()
    assert third == {"c": 3, "d": 4, "b": 5, "e": 6}      # a gone; b comes back with a new id
    p.update({"urls": spark.createDataFrame([(Add, 9, "c"), (Update, 0, "c")], schema)})
    fourth, all_ids = ids()
    assert fourth == third and all_ids.count(3) == 2      # every row of key c carries its id
    assert p.manifest()["stages"]["ids"]["next_id"] == 7


# -- bad input ----------------------------------------------------------------------------------

def test_delete_mixed_with_upsert_is_rejected_and_nothing_written(spark, tmp_path):
    p = fruit_pipeline(spark, tmp_path)
    before = sorted(x.name for x in (tmp_path / "p").rglob("*"))
    bad = spark.createDataFrame([(Delete, 6, None), (Update, 6, (1, "x")), (Add, 1, (2, "y"))],
                                f"type string, key int, value {FRUIT}")
    with pytest.raises(ProducerError, match=r"source 'src', key 6: a Delete is mixed"):
        p.update({"src": bad})
    assert p.version == 1
    assert sorted(x.name for x in (tmp_path / "p").rglob("*")) == before


def test_update_of_a_pipeline_never_run(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    p.stage("s", lambda k, vs: [], p.source("src"))
    with pytest.raises(ProducerError, match="was never run"):
        p.update({"src": spark.createDataFrame([(Add, 1, 1)], "type string, key int, value int")})
    with pytest.raises(ProducerError, match="'nope' is not a source"):
        p.update({"nope": spark.createDataFrame([(Add, 1, 1)], "type string, key int, value int")})


def test_produce_that_raises_names_stage_and_key(spark, tmp_path):
    def fussy(key, values):
        for v in values:
            if key == 105:
                raise ValueError("no 105 please")
            yield key, len(v)
    p2 = pipeline(spark, tmp_path, name="p2")
    src = p2.source("src")
    fr = p2.stage("fruit", lambda k, vs: ((v.kt, v.fruit) for v in vs), src)
    p2.stage("fussy", fussy, fr)
    df = spark.createDataFrame([(6, (105, "apple"))], f"key int, value {FRUIT}")
    with pytest.raises(ProducerError, match=r"stage 'fussy', key 105: produce raised ValueError: "
                                            r"no 105 please"):
        p2.run({"src": df})
    assert p2.version is None
    # on an existing version: N stays readable and intact, the lease is released
    p3 = fruit_pipeline(spark, tmp_path / "p3")

    def fussy_about_6(key, values):
        if key == 6:
            raise ValueError("no 6 please")
        return ((v.kt, v.fruit) for v in values)
    p3.nodes["fruit"].fn = fussy_about_6
    with pytest.raises(ProducerError, match=r"stage 'fruit', key 6: produce raised ValueError"):
        p3.update({"src": spark.createDataFrame([(Update, 6, (105, "x"))],
                                                f"type string, key int, value {FRUIT}")})
    assert p3.version == 1
    assert rows(p3.content("fruit")) == [(105, "apple"), (105, "banana"), (108, "mango")]
    p3.nodes["fruit"].fn = lambda k, vs: ((v.kt, v.fruit) for v in vs)
    assert p3.update({"src": spark.createDataFrame([(Update, 6, (105, "x"))],
                                                   f"type string, key int, value {FRUIT}")}) == 2


def test_wrong_output_type_names_stage_and_key(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    p.stage("typed", lambda k, vs: ((k, "not a number") for _ in vs), p.source("src"),
            key_type="int", value_type="bigint")
    with pytest.raises(ProducerError, match=r"stage 'typed', key 3: produce emitted \(3, 'not a "
                                            r"number'\), which does not fit .* value bigint"):
        p.run({"src": spark.createDataFrame([(3, 1)], "key int, value int")})
    assert p.version is None


# -- types --------------------------------------------------------------------------------------

@pytest.mark.producers_lines
def test_dates_and_compound_struct_keys(spark, tmp_path):
    p = pipeline(spark, tmp_path, rows_per_row_group=2, rows_per_file=3)
    days = p.source("days")
    p.stage("by_month", lambda d, vs: ((Row(year=d.year, month=d.month), v) for v in vs), days,
            key_type="struct<year:int, month:int>", value_type="string")
    base = datetime.date(2024, 11, 20)
    data = [(base + datetime.timedelta(days=7 * i), f"v{i}") for i in range(12)]
    p.run({"days": spark.createDataFrame(data, "key date, value string")})
    p.update({"days": spark.createDataFrame([(Update, data[3][0], "new"),
                                             (Delete, data[4][0], None)],
                                            "type string, key date, value string")})
    final = {d: v for d, v in data if d != data[4][0]}
    final[data[3][0]] = "new"
    got = rows(p.content("by_month"))
    assert sorted(got) == sorted(((d.year, d.month), v) for d, v in final.items())
    assert [k for k, _ in got] == sorted(k for k, _ in got)


@pytest.mark.producers_lines
def test_timestamp_keys_and_values(spark, tmp_path):
    """Timestamps reach Produce as PySpark gives them to a UDF and are stored as Spark stores
    them (with and without a time zone), on every Spark line (each asks Arrow for UTC in its own
    words)."""
    p = pipeline(spark, tmp_path)
    hours = p.stage("by_hour", lambda at, vs: ((at.replace(minute=0), Row(at=at, local=v))
                                               for v in vs), p.source("events"),
                    key_type="timestamp", value_type="struct<at:timestamp, local:timestamp_ntz>")
    base = datetime.datetime(2024, 11, 20, 10, 15)
    data = {base + datetime.timedelta(minutes=25 * i): base + datetime.timedelta(days=i)
            for i in range(10)}
    schema = "key timestamp, value timestamp_ntz"
    p.run({"events": spark.createDataFrame(list(data.items()), schema)})
    changed = sorted(data)[2]
    data[changed] = datetime.datetime(2000, 1, 1, 12, 30, 5, 7)
    p.update({"events": spark.createDataFrame([(Update, changed, data[changed])],
                                              f"type string, {schema}")})
    assert rows(p.content(hours.name)) == [(at.replace(minute=0), (at, local))
                                           for at, local in sorted(data.items())]
    hour = changed.replace(minute=0)  # the update re-derives its hour's key, all its values
    assert rows(p.changes(hours.name)) == [(Update, hour, (at, local))
                                           for at, local in sorted(data.items())
                                           if at.replace(minute=0) == hour]


@pytest.mark.producers_lines
def test_variant_values(spark, tmp_path):
    p = pipeline(spark, tmp_path)
    src = p.source("events")
    p.stage("by_kind", lambda k, vs: ((v.toPython()["kind"], v) for v in vs), src,
            key_type="string", value_type="variant")
    df = spark.sql("select id as key, parse_json(concat('{\"kind\":\"k', id % 3, '\",\"n\":', id, '}')) "
                   "as value from range(9)")
    p.run({"events": df})
    got = rows(p.content("by_kind"))
    assert sorted((k, v.toPython()["n"]) for k, v in got) == sorted(
        (f"k{i % 3}", i) for i in range(9))


# -- layout -------------------------------------------------------------------------------------

def test_files_globally_sorted_and_point_lookup_reads_one_or_two_row_groups(spark, tmp_path):
    p = pipeline(spark, tmp_path, rows_per_row_group=50, rows_per_file=400)
    p.stage("squares", lambda k, vs: ((k * 7919 % 2000, v * v) for v in vs), p.source("n"))
    p.run({"n": spark.sql("select id as key, id as value from range(2000)")})
    files = p.manifest()["stages"]["squares"]["content"]
    assert len(files) >= 4
    assert all(a["last"] < b["first"] for a, b in zip(files, files[1:]))
    for f in files:
        keys = pq.read_table(tmp_path / "p" / f["path"], columns=["key"])["key"].to_pylist()
        assert keys == sorted(keys) and keys[0] == f["first"] and keys[-1] == f["last"]
    df = p.content("squares").filter("key = 1234")
    assert [r.value for r in df.collect()] == [v * v for v in range(2000) if v * 7919 % 2000 == 1234]
    scan = pyspark_ext.explain_read_schema(df)[0]
    assert scan["row_groups"] >= 2000 // 50
    assert 1 <= scan["row_groups_read"] <= 2


def test_concurrent_run_fails_clearly_and_loses_nothing(spark, tmp_path):
    p = fruit_pipeline(spark, tmp_path)
    lease = tmp_path / "p" / "_lease.json"
    lease.write_text(json.dumps({"host": "another-host", "pid": 1, "since": "now",
                                 "purpose": "update", "token": "t"}))
    with pytest.raises(ProducerError, match="is busy: update by pid 1 on another-host"):
        p.update({"src": spark.createDataFrame([(Delete, 6, None)],
                                               f"type string, key int, value {FRUIT}")})
    assert lease.exists() and p.version == 1
    p.break_lease()
    assert p.update({"src": spark.createDataFrame([(Delete, 6, None)],
                                                  f"type string, key int, value {FRUIT}")}) == 2


def test_versions_listed_and_vacuumed(spark, tmp_path):
    p = fruit_pipeline(spark, tmp_path)
    for i in range(2):
        p.update({"src": spark.createDataFrame([(Update, 6, (105 + i, "x"))],
                                               f"type string, key int, value {FRUIT}")})
    (tmp_path / "p" / "v00000009" / "fruit").mkdir(parents=True)
    (tmp_path / "p" / "v00000009" / "fruit" / "orphan.parquet").write_text("uncommitted")
    assert p.versions() == [1, 2, 3]
    expected = rows(p.content("fruit"))
    stats = p.vacuum(keep=1)
    assert p.versions() == [3] and stats["versions_dropped"] == 2 and stats["files_removed"] > 0
    assert not (tmp_path / "p" / "v00000009").exists()
    assert rows(p.content("fruit")) == expected
    with pytest.raises(ProducerError, match="has no version 1"):
        p.content("fruit", version=1)
