"""``python -m pyspark_ext verify``: a workload's queries with the extension off and on."""
from __future__ import annotations

import json
import re

import pytest

from pyspark_ext.__main__ import main
from pyspark_ext.verify import is_query, sort_keys, split_statements
from tests.support.fuzz_fixtures import fuzz_tables  # noqa: F401 - a fixture


def test_statements_split_on_semicolons_outside_strings_and_comments(spark) -> None:
    text = ("-- a workload\nSET spark.sql.shuffle.partitions=4;\n"
            "SELECT 'a;b' AS s, id FROM t -- the; end\nORDER BY s, 2;\n"
            "/* x; */ WITH c AS (SELECT 1 AS x) SELECT x FROM c ORDER BY x + 1;\nUSE default")
    statements = split_statements(text)
    assert statements == ["SET spark.sql.shuffle.partitions=4",
                          "SELECT 'a;b' AS s, id FROM t -- the; end\nORDER BY s, 2",
                          "WITH c AS (SELECT 1 AS x) SELECT x FROM c ORDER BY x + 1", "USE default"]
    assert [is_query(spark, s) for s in statements] == [False, True, True, False]
    # sort keys as output positions; a key that is not an output column: the whole order counts
    assert sort_keys(statements[1]) == [0, 1]
    assert sort_keys(statements[2]) == []
    assert sort_keys("SELECT a FROM t") is None
    # Spark syntax sqlglot cannot parse is still a query; Spark's commands are setup
    assert is_query(spark, "SELECT v:a::int FROM t") and not is_query(spark, "CACHE TABLE t")
    # a statement that does not parse is no setup: it runs as a query, which fails
    assert is_query(spark, "SELEC count(*) FROM t") and is_query(spark, "CREATE TEMP VIEW AS SELECT 1")


def test_a_mistyped_query_fails_where_it_is_and_the_run_goes_on(tmp_path, fuzz_tables, capsys) -> None:
    nested = fuzz_tables["nested"]
    path = tmp_path / "typo.sql"
    path.write_text(f"SET spark.sql.shuffle.partitions=4;\n-- a typo\nSELEC count(*)\n  FROM parquet.`{nested}`;\n"
                    f"SELECT count(*) FROM parquet.`{nested}`")
    assert main(["verify", "--queries", str(path), "--no-progress"]) == 3
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[1].startswith("  1  FAILED ") and lines[3].startswith("  2  same ")
    assert lines[2].strip().startswith(f"{path}:3: failed both ways: PARSE_SYNTAX_ERROR: ")
    assert "1 query failed both ways" in captured.err and "setup statement failed" not in captured.err


@pytest.fixture
def workload(tmp_path, fuzz_tables):
    nested, spec = fuzz_tables["nested"], fuzz_tables["variant_spec"]
    path = tmp_path / "workload.sql"
    path.write_text(f"""
-- setup runs once
SET spark.sql.ansi.enabled=true;
CREATE OR REPLACE TEMP VIEW numbers AS SELECT id FROM range(10);

SELECT user.geo.city, count(*) FROM parquet.`{nested}` GROUP BY 1;
SELECT id, transform(page.views, v -> v.ts) FROM parquet.`{nested}` WHERE user.geo.country = 'US' ORDER BY id LIMIT 20;
SELECT id, v:user.name::string, try_variant_get(v, '$.price', 'double') FROM parquet.`{spec}`;
SELECT count(*) FROM numbers;
-- fails both ways: a name is no int
SELECT variant_get(v, '$.user.name', 'int') FROM parquet.`{spec}`;
""")
    return path


def test_verify_reports_each_query_and_exits_0_when_all_agree(workload, capsys) -> None:
    # the workload's last query fails both ways, on purpose: allowed here
    assert main(["verify", "--queries", str(workload), "--no-progress", "--allow-failing-queries"]) == 0
    captured = capsys.readouterr()
    out = captured.out.strip().splitlines()
    assert re.match(r"verify: 5 queries, 4 same, 0 different, 1 failed both ways; leaves \d+ -> \d+", out[-1])
    assert sum(" same " in line for line in out) == 4
    assert any(line.startswith("  5  FAILED ") for line in out)
    assert any(line.strip().startswith(f"{workload}:11: failed both ways: INVALID_VARIANT_CAST: ") for line in out)
    assert captured.err == ""


def test_verify_fails_on_a_query_that_fails_both_ways(tmp_path, fuzz_tables, capsys) -> None:
    """A misspelt table fails the same way with the extension off and on: that is no pass."""
    path = tmp_path / "typo.sql"
    path.write_text(f"SELECT count(*) FROM parquet.`{fuzz_tables['nested']}`;\nSELECT count(*) FROM evnets")
    assert main(["verify", "--queries", str(path), "--no-progress", "--format", "json"]) == 3
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert [q["result"] for q in report["queries"]] == ["same", "failed both ways"]
    assert [q["same"] for q in report["queries"]] == [True, False]
    assert report["queries"][1]["detail"].startswith("failed both ways: TABLE_OR_VIEW_NOT_FOUND: ")
    assert report["totals"]["failed_both_ways"] == 1 and report["totals"]["same"] == 1
    assert "1 query failed both ways" in captured.err and "--allow-failing-queries" in captured.err


def test_verify_finds_a_difference_and_exits_1(workload, capsys, tmp_path) -> None:
    # A query whose rows honestly depend on the run: Spark substitutes ${conf} into the SQL text,
    # so it returns 'false' with the extension off and 'true' with it on.
    extra = tmp_path / "differs.sql"
    extra.write_text("SELECT '${spark.pyspark_ext.enabled}' AS enabled")
    code = main(["verify", "--queries", str(workload), "--queries", str(extra), "--conf",
                 "spark.sql.variable.substitute=true", "--format", "json", "--no-progress"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [q["result"] for q in report["queries"]] == ["same"] * 4 + ["failed both ways", "different"]
    assert report["queries"][-1]["detail"].startswith("rows differ")
    assert report["totals"]["different"] == 1
    assert report["queries"][0]["where"] == f"{workload}:6"
    assert report["totals"]["timing"].startswith("median of 1 warm run each way, alternating")
    assert report["setup"] == ["SET spark.sql.ansi.enabled=true",
                               "CREATE OR REPLACE TEMP VIEW numbers AS SELECT id FROM range(10)"]
    failing = report["queries"][4]
    assert failing["off"]["error"] == failing["on"]["error"] == "INVALID_VARIANT_CAST"
    # both ways measured: nested leaves (stock Spark 4.3 already prunes these two as far); the
    # shredded variant is read by its shredded leaves, more leaves but fewer bytes
    for q in report["queries"][:2]:
        assert 0 < q["on"]["leaves"] <= q["off"]["leaves"], q
    variant = report["queries"][2]
    assert variant["on"]["leaves"] > variant["off"]["leaves"] > 0, variant
    assert 0 < variant["on"]["bytes_read"] < variant["off"]["bytes_read"], variant
    nested = report["queries"][1]
    assert nested["off"]["seconds"] > 0 and nested["on"]["seconds"] > 0


def test_verify_rejects_a_conf_that_is_not_key_value(workload, capsys) -> None:
    assert main(["verify", "--queries", str(workload), "--conf", "nonsense"]) == 2
    assert "not key=value" in capsys.readouterr().err
