"""``advise`` with a declared schema: a column or nested field the schema does not have fails
that statement, naming the identifier as the user wrote it and the nearest known name, instead
of widening the read schema to the whole struct. Pure Python, no Spark."""
import json

import pytest

from pyspark_ext.__main__ import main
from pyspark_ext.advisor import UnresolvedQuery, analyze_workload, query_needs, schema_on_read
from pyspark_ext.advisor.workload import parse_ddl

DDL = ("id bigint, Customer struct<name: string, Address: struct<city: string, zip: string>>, "
       "items array<struct<sku: string, qty: int>>, attrs map<string, struct<score: double>>")
TABLES = {"orders": parse_ddl(DDL)}


def failure(sql: str) -> str:
    with pytest.raises(UnresolvedQuery) as caught:
        query_needs(sql, TABLES)
    return str(caught.value)


@pytest.mark.parametrize("sql, message", [
    ("SELECT customer.adress.city FROM orders",
     "unknown field adress in customer.adress.city (line 1, column 17); did you mean Address?"),
    ("SELECT o.CUSTOMER.Adress FROM orders o",
     "unknown field Adress in CUSTOMER.Adress (line 1, column 19); did you mean Address?"),
    ("SELECT id FROM orders WHERE customer.address.cty = 'Oslo'",
     "unknown field cty in customer.address.cty (line 1, column 46); did you mean city?"),
    ("SELECT items.skus FROM orders",
     "unknown field skus in items.skus (line 1, column 14); did you mean sku?"),
    # through a subquery alias, a LATERAL VIEW alias and a lambda: the reference the user wrote
    ("SELECT x.cty FROM (SELECT customer.address AS x FROM orders) s",
     "unknown field cty in x.cty (line 1, column 10); did you mean city?"),
    ("SELECT p.Skuu FROM orders LATERAL VIEW explode(items) t AS p",
     "unknown field Skuu in p.Skuu (line 1, column 10); did you mean sku?"),
    ("SELECT transform(items, i -> i.qtty) FROM orders",
     "unknown field qtty in i.qtty (line 1, column 32); did you mean qty?"),
])
def test_unknown_nested_field_names_it_and_the_nearest(sql, message):
    assert failure(sql) == message


@pytest.mark.parametrize("sql, message", [
    # a misspelt top-level struct: the identifier the user wrote, not the field after it
    ("SELECT Custmer.Address.city FROM orders",
     "unknown column Custmer in Custmer.Address.city (line 1, column 8); did you mean Customer?"),
    ("SELECT o.custmer.address FROM orders o",
     "unknown column custmer in o.custmer.address (line 1, column 10); did you mean Customer?"),
    ("SELECT ID, Idd FROM orders",
     "unknown column Idd (line 1, column 12); did you mean id?"),
])
def test_unknown_column_is_named_as_written(sql, message):
    assert failure(sql) == message


@pytest.mark.parametrize("sql, expected", [
    ("SELECT CUSTOMER.address.CITY FROM orders", {"Customer.Address.city"}),
    # a dot on a map looks a key up, and a subscript is Spark's to check: neither is a field
    ("SELECT attrs.color FROM orders", {"attrs"}),
    ("SELECT attrs['color'].score FROM orders", {"attrs.score"}),
    ("SELECT customer['Address'].city FROM orders", {"Customer"}),
    ("SELECT customer.* FROM orders", {"Customer"}),
])
def test_fields_the_schema_has_or_does_not_check_are_not_failures(sql, expected):
    assert {".".join(p) for p in query_needs(sql, TABLES).leaves["orders"]} == expected


def test_schema_on_read_does_not_widen_to_the_whole_struct():
    with pytest.raises(UnresolvedQuery, match="unknown field adress in customer.adress.city"):
        schema_on_read("SELECT customer.adress.city FROM orders", {"orders": DDL})


def test_a_misspelt_field_fails_its_statement_alone(tmp_path, capsys):
    workload = tmp_path / "w.sql"
    workload.write_text("SELECT customer.address.city FROM orders;\n"
                        "SELECT id,\n  customer.adress.city FROM orders;\n"
                        "SELECT Custmer.name FROM orders;\n")
    analysis = analyze_workload(str(workload), {"orders": DDL})
    assert [(f.query.source, f.reason) for f in analysis.failures] == [
        (f"{workload}:2 (statement 2)",
         "unknown field adress in customer.adress.city (line 3, column 12); did you mean Address?"),
        (f"{workload}:4 (statement 3)",
         "unknown column Custmer in Custmer.name (line 4, column 8); did you mean Customer?")]
    assert analysis.leaves["orders"] == {("Customer", "Address", "city"): 1}

    assert main(["advise", "--queries", str(workload), "--table", f"orders={DDL}",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["read_schemas"] == {"orders": "struct<Customer:struct<Address:struct<city:string>>>"}
    assert [f["reason"] for f in doc["failures"]] == [f.reason for f in analysis.failures]


def test_a_column_sqlglot_cannot_follow_is_not_guessed_at():
    """``inline``'s output columns are not known here: no nearest name is made up for them."""
    message = failure("SELECT sku FROM (SELECT inline(items) FROM orders)")
    assert message == "Column 'sku' could not be resolved (line 1, column 8)"
