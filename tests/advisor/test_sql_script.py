"""Reading a SQL script file and splitting it into numbered statements with their positions
(``pyspark_ext.sql_script``, used by ``verify`` and ``advise``). Pure Python, no Spark."""
import pytest

from pyspark_ext.sql_script import ScriptError, Statement, read_text, split_statements


def test_statements_keep_number_line_and_column_and_semicolons_in_strings():
    text = ("-- a header; with a semicolon\nSELECT 1;\n\n  SELECT 'a;b',\n  `c;d`\nFROM t; SELECT 3 /* x; */;"
            "\n;\n")
    assert split_statements(text) == [
        Statement("SELECT 1", 1, 2, 1),
        Statement("SELECT 'a;b',\n  `c;d`\nFROM t", 2, 4, 3),
        Statement("SELECT 3 /* x; */", 3, 6, 9),
    ]


@pytest.mark.parametrize("tail, message", [
    ("SELECT 'abc;\nSELECT 3", "no closing ' for the ' at line 3, column 8"),
    ("SELECT `abc", "no closing ` for the ` at line 3, column 8"),
    ("SELECT 3 /* open;\nSELECT 4", "no closing */ for the /* at line 3, column 10"),
])
def test_unreadable_rest_is_one_statement_with_the_reason(tail, message):
    statements = split_statements(f"SELECT 1;\nSELECT 2;\n{tail}")
    assert [s.text for s in statements[:2]] == ["SELECT 1", "SELECT 2"]
    assert statements[2].text == tail and (statements[2].number, statements[2].line) == (3, 3)
    assert statements[2].error.startswith(message) and "rest of the file" in statements[2].error


def test_nothing_but_comments_and_semicolons_is_no_statement():
    assert split_statements("") == split_statements("-- x\n;;\n/* y */") == []


def test_read_text_names_the_file_and_what_is_wrong(tmp_path):
    bom = tmp_path / "bom.sql"
    bom.write_bytes("\ufeffSELECT 'é'".encode("utf-8"))
    assert read_text(bom) == "SELECT 'é'"
    latin1 = tmp_path / "latin1.sql"
    latin1.write_bytes("SELECT 1;\nSELECT 'café'".encode("latin-1"))
    with pytest.raises(ScriptError, match=rf"^{latin1}: not UTF-8 text \(byte 0xe9 at line 2, byte 12 "):
        read_text(latin1)
    with pytest.raises(ScriptError, match=rf"^{tmp_path / 'nope.sql'}: no such file$"):
        read_text(tmp_path / "nope.sql")
    with pytest.raises(ScriptError, match=rf"^{tmp_path}: is a directory"):
        read_text(tmp_path)
