"""``advise`` on bad input: a bad statement fails alone and says where it is, a workload with
nothing to analyse or no table schema is an error, unreadable files are named, and the text output
shows the variant paths. Pure Python, no Spark."""
import json

import pytest

from pyspark_ext.__main__ import main
from pyspark_ext.advisor import analyze_workload

DDL = "id bigint, s struct<x: int, y: string>, v variant"

NINE = """-- nine statements, the fifth misspelt
SELECT s.x FROM t;
SELECT s.y FROM t WHERE id > 3;
SELECT v:a::int FROM t;
SELECT 'semi;colon' AS c, id FROM t;
SELEC broken FROM t;
SELECT s.x, s.y FROM t;
SELECT count(*) FROM t;
SELECT v:b.c::string
FROM t
WHERE id IN (1, 2;
SELECT id FROM t
"""


def advise(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["advise", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_bad_statement_fails_alone_with_its_number_and_line(tmp_path):
    workload = tmp_path / "w.sql"
    workload.write_text(NINE)
    analysis = analyze_workload(str(workload), {"t": DDL})
    assert (analysis.queries, analysis.analysed, analysis.failed) == (9, 7, 2)
    (misspelt, unclosed) = analysis.failures
    assert misspelt.query.source == f"{workload}:6 (statement 5)"
    assert misspelt.reason == "syntax error at line 6, column 14: near 'FROM': Invalid expression / Unexpected token"
    # a statement over several lines: the error's own line in the file
    assert unclosed.query.source == f"{workload}:9 (statement 8)"
    assert unclosed.reason.startswith("syntax error at line 11, column 17: near ")
    # the statements after the bad ones are analysed, the ';' inside a string did not split
    assert analysis.leaves["t"][("id",)] == 3
    assert analysis.leaves["t"][("s", "x")] == 2


def test_a_syntax_error_after_another_statement_on_its_line_counts_columns_in_the_file(tmp_path):
    workload = tmp_path / "w.sql"
    workload.write_text("SELECT id FROM t; SELECT s.x FROM t WHERE")
    (failure,) = analyze_workload(str(workload), {"t": DDL}).failures
    assert failure.reason == "syntax error at line 1, column 37: near 'WHERE': incomplete expression"
    assert failure.query.source == f"{workload}:1 (statement 2)"


def test_an_unclosed_quote_fails_the_rest_and_keeps_what_came_before(tmp_path):
    workload = tmp_path / "w.sql"
    workload.write_text("SELECT s.x FROM t;\nSELECT 'oops FROM t;\nSELECT id FROM t;\n")
    analysis = analyze_workload(str(workload), {"t": DDL})
    assert (analysis.queries, analysis.analysed) == (2, 1)
    assert analysis.failures[0].query.source == f"{workload}:2 (statement 2)"
    assert analysis.failures[0].reason.startswith("no closing ' for the ' at line 2, column 8")


def test_cli_exits_0_when_some_queries_fail_and_says_so(tmp_path, capsys):
    workload = tmp_path / "w.sql"
    workload.write_text(NINE)
    code, out, err = advise(capsys, "--queries", str(workload), "--table", f"t={DDL}")
    assert code == 0
    assert out.splitlines()[0] == "queries: 9 (weight 7), analysed: 7, failed: 2"
    assert f"FAILED {workload}:6 (statement 5): syntax error at line 6, column 14" in out
    assert err.strip() == "advise: 2 of 9 queries could not be analysed and are left out (listed as failures)"


def test_cli_text_shows_the_variant_paths_as_json_does(tmp_path, capsys):
    log = tmp_path / "q.log"
    log.write_text('SELECT v:a.b::string FROM t\n{"query": "SELECT v:c::int, s.x FROM t", "count": 3}\n')
    code, out, _ = advise(capsys, "--queries", str(log), "--table", f"t={DDL}")
    assert code == 0
    lines = out.splitlines()
    at = lines.index("variant paths (weighted query count):")
    assert [line.split() for line in lines[at + 1:at + 3]] == [["t.v", "$.c", "int", "3"],
                                                              ["t.v", "$.a.b", "string", "1"]]
    code, out, _ = advise(capsys, "--queries", str(log), "--table", f"t={DDL}", "--format", "json")
    assert [(v["path"], v["frequency"]) for v in json.loads(out)["variant_paths"]] == [("$.c", 3), ("$.a.b", 1)]


@pytest.mark.parametrize("content", ["", "-- nothing but a comment\n;\n"])
def test_cli_empty_workload_is_an_error(tmp_path, capsys, content):
    workload = tmp_path / "w.sql"
    workload.write_text(content)
    assert advise(capsys, "--queries", str(workload), "--table", f"t={DDL}") == \
        (2, "", f"advise: no queries in {workload}\n")


def test_cli_directory_without_sql_files_is_an_error(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("SELECT id FROM t")
    code, _, err = advise(capsys, "--queries", str(tmp_path), "--table", f"t={DDL}")
    assert code == 2 and err == f"advise: no queries in {tmp_path} (no .sql files in the directory)\n"


def test_cli_no_analysable_query_exits_1_and_lists_the_failures(tmp_path, capsys):
    workload = tmp_path / "w.sql"
    workload.write_text("SELECT nope FROM t;\nSELEC id FROM t")
    code, out, err = advise(capsys, "--queries", str(workload), "--table", f"t={DDL}")
    assert code == 1
    assert "analysed: 0, failed: 2" in out
    assert f"FAILED {workload}:1 (statement 1): unknown column nope (line 1, column 8); did you mean id?" in out
    assert err.strip() == "advise: none of the 2 queries could be analysed (see the failures)"


def test_cli_without_table_names_the_tables_to_give(tmp_path, capsys):
    workload = tmp_path / "w.sql"
    workload.write_text("SELECT id FROM events; SELECT a.x FROM users a JOIN events b ON a.id = b.id")
    code, out, err = advise(capsys, "--queries", str(workload))
    assert (code, out) == (2, "")
    assert err.startswith("advise: no --table given: pass --table NAME=SCHEMA")
    assert err.rstrip().endswith("(here: events, users)")


def test_cli_names_a_table_without_schema(tmp_path, capsys):
    workload = tmp_path / "w.sql"
    workload.write_text("SELECT id FROM t; SELECT id FROM u; SELECT id FROM u")
    code, out, err = advise(capsys, "--queries", str(workload), "--table", f"t={DDL}")
    assert code == 0
    assert f"FAILED {workload}:1 (statement 2): unknown table u (no schema given for it)" in out
    assert "advise: no schema for table u, read by 2 failed queries: pass --table u=SCHEMA" in err


def test_cli_names_a_file_that_is_not_utf8(tmp_path, capsys):
    workload = tmp_path / "w.sql"
    workload.write_bytes("SELECT id FROM t WHERE s.y = 'café'".encode("latin-1"))
    code, out, err = advise(capsys, "--queries", str(workload), "--table", f"t={DDL}")
    assert (code, out) == (2, "")
    assert err.startswith(f"advise: {workload}: not UTF-8 text (byte 0xe9 at line 1, byte 34 of the line)")
    schema = tmp_path / "t.ddl"
    schema.write_bytes("id bigint, caf\xe9 string".encode("latin-1"))
    workload.write_text("SELECT id FROM t")
    code, _, err = advise(capsys, "--queries", str(workload), "--table", f"t={schema}")
    assert code == 2 and err.startswith(f"advise: {schema}: not UTF-8 text")
