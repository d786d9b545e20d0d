"""Reading workloads and schemas, the analysis's counts and failures, recommendation choices and
the advise CLI without a sample (pure Python, no Spark)."""
import json
from collections import Counter

import pytest

from pyspark_ext.__main__ import main
from pyspark_ext.advisor import analyze_workload, read_queries
from pyspark_ext.advisor.recommend import PathStats, choose, parse_json_path, render, widest_type
from pyspark_ext.advisor.workload import parse_ddl, read_table_schema

DDL = "id bigint, s struct<x: int, y: string>, v variant"


def test_query_log_lines_and_json_records_with_counts(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text('SELECT s.x FROM t\n\n{"query": "SELECT v:a::int FROM t", "count": 5}\n'
                   '{"sql": "SELECT s.y FROM t"}\nSELECT nope FROM t\n')
    analysis = analyze_workload(str(log), {"t": DDL})
    assert (analysis.queries, analysis.weight, analysis.failed) == (4, 7, 1)
    assert analysis.failures[0].query.source == f"{log}:5" and "nope" in analysis.failures[0].reason
    assert analysis.leaves["t"] == Counter({("v",): 5, ("s", "x"): 1, ("s", "y"): 1})
    assert [(v.path, v.type, n) for v, n in analysis.variant_paths.items()] == [("$.a", "int", 5)]


def test_sql_files_and_directories(tmp_path):
    (tmp_path / "a.sql").write_text("SELECT s.x FROM t; -- a comment; with semicolons\n"
                                    "SELECT ';' AS c, s.y FROM t;")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.sql").write_text("SELECT id FROM t")
    queries = read_queries(str(tmp_path))
    assert len(queries) == 3
    assert analyze_workload(str(tmp_path), {"t": DDL}).leaves["t"] == \
        Counter({("s", "x"): 1, ("s", "y"): 1, ("id",): 1})


def test_bad_log_record_names_the_line(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"query": "SELECT id FROM t"}\n{"count": 2}\n')
    with pytest.raises(ValueError, match=r"log.jsonl:2: .*'query'"):
        read_queries(str(log))


def test_schemas_from_ddl_json_file_and_struct_type(tmp_path):
    schema = parse_ddl(DDL)
    (tmp_path / "t.json").write_text(schema.json())
    (tmp_path / "t.ddl").write_text(DDL)
    assert read_table_schema(str(tmp_path / "t.json")) == schema
    assert read_table_schema(str(tmp_path / "t.ddl")) == schema
    assert read_table_schema(schema) is schema
    assert isinstance(schema["v"].dataType.__class__(), type(schema["v"].dataType))
    with pytest.raises(ValueError, match="table t: not a DDL schema"):
        read_table_schema("id bogus_type", "t")


def test_failures_are_counted_never_lost():
    analysis = analyze_workload(["SELECT s.x FROM t", "SELEC", "SELECT q FROM t"], {"t": DDL})
    assert analysis.failed == 2 and analysis.weight == 1


def test_json_paths_and_seed_number_rule():
    assert parse_json_path("$.a.b[0]['c d']") == ["a", "b", 0, "c d"]
    assert parse_json_path("$") == [] and parse_json_path("a.b") is None
    # integers and decimals are one number type; the widest exact type wins
    assert widest_type(Counter({"INT": 5, "DECIMAL(5,2)": 3, "STRING": 4})) == ("decimal(12,2)", 8)
    assert widest_type(Counter({"TINYINT": 5, "BIGINT": 1})) == ("bigint", 6)
    # float and double stay distinct, strings are never numbers
    assert widest_type(Counter({"STRING": 5, "INT": 1, "DOUBLE": 2})) == ("string", 5)


def test_choice_by_frequency_times_bytes_within_limits():
    freq = Counter({"$.a": 10, "$.b.c": 5, "$.items[0].sku": 3, "$.items[2].sku": 1, "$": 2,
                    "$.o": 1, "$.d.e.f.g.h": 100})
    stats = {"$.a": PathStats(Counter({"BIGINT": 90, "STRING": 10}), 100, 500),
             "$.b.c": PathStats(Counter({"STRING": 50}), 100, 600),
             "$.items[0].sku": PathStats(Counter({"STRING": 80}), 100, 800),
             "$.items[2].sku": PathStats(Counter({"STRING": 8}), 100, 80),
             "$.o": PathStats(Counter({"OBJECT<x: INT>": 8}), 100, 80),
             "$.d.e.f.g.h": PathStats(Counter({"INT": 100}), 100, 100)}
    chosen, report = choose(freq, stats, max_leaves=2, max_depth=4)
    # items[*].sku: (3 + 1) x 10 bytes x 0.8 present = 32 beats b.c: 5 x 12 x 0.5 = 30
    assert render(chosen) == "a bigint, items array<struct<sku: string>>"
    rows = {r["path"]: r for r in report}
    # [0] and [2] are the same shredded leaf: one row, frequencies added
    assert rows["$.items[0].sku"]["frequency"] == 4 and "$.items[2].sku" not in rows
    assert rows["$.a"]["residual"] == pytest.approx(0.1) and rows["$.a"]["score"] == 50.0
    assert "max_leaves" in rows["$.b.c"]["reason"]
    assert "max_depth" in rows["$.d.e.f.g.h"]["reason"]
    chosen, _ = choose(freq, stats, max_leaves=10, max_depth=4)
    assert render(chosen) == "a bigint, items array<struct<sku: string>>, b struct<c: string>"


def test_cli_without_sample_prints_one_json_document(tmp_path, capsys):
    log = tmp_path / "q.log"
    log.write_text("SELECT s.x, v:a.b::string FROM t\nSELECT broken FROM t\n")
    (tmp_path / "t.json").write_text(parse_ddl(DDL).json())
    assert main(["advise", "--queries", str(log), "--table", f"t={tmp_path / 't.json'}",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["failed"] == 1 and doc["read_schemas"]["t"] == "struct<s:struct<x:int>,v:variant>"
    assert doc["variant_paths"] == [{"table": "t", "column": "v", "path": "$.a.b", "type": "string",
                                     "frequency": 1}]


def test_cli_text_names_failures(tmp_path, capsys):
    log = tmp_path / "q.log"
    log.write_text("SELECT id FROM t\nSELECT broken FROM t\n")
    assert main(["advise", "--queries", str(log), "--table", f"t={DDL}"]) == 0
    captured = capsys.readouterr()
    assert "failed: 1" in captured.out and f"{log}:2" in captured.out and "broken" in captured.out
    assert "1 of 2 queries could not be analysed" in captured.err


@pytest.mark.parametrize("args, message", [
    (["--queries", "/nonexistent/q.log"], "no such file"),
    (["--table", "t"], "expected NAME=SCHEMA"),
    (["--table", "t=id bogus_type"], "table t: not a DDL schema"),
])
def test_cli_bad_input_is_a_clear_error(tmp_path, capsys, args, message):
    log = tmp_path / "q.log"
    log.write_text("SELECT id FROM t\n")
    argv = ["advise", "--queries", str(log), "--table", f"t={DDL}"]
    for i in range(0, len(args), 2):
        argv[argv.index(args[i]) + 1] = args[i + 1]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("advise: ") and message in err and len(err.splitlines()) == 1
