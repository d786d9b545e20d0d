"""Code names the extension's settings by the constants of ``pyspark_ext.settings``, never by a
string of its own: a renamed key then changes in one place, and ``test_switches`` checks that place
against the jar. A misspelt, made-up or older key is not one of those constants and may be spelt out.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from pyspark_ext import settings

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("pyspark_ext", "devtools", "benchmarks", "tests")
_KEY = re.compile(re.escape(settings.PREFIX) + r"[A-Za-z0-9_.]*")

#: Files whose strings may start with a key, each with why: the key is part of the text under test.
ALLOWED = {
    "pyspark_ext/settings.py": "declares the keys",
    "tests/extension/test_settings_at_start.py": "the jar's messages about bad values, word for word",
    "tests/extension/test_switches.py": "the message about a bad value, word for word",
}


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Each string constant, and each f-string's leading text, with its line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            found.append((node.lineno, str(node.values[0].value)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


def spelt_out_keys(root: Path = ROOT) -> list[str]:
    """``file:line: key`` for each string that starts with a key settings.py holds, or with the
    start of one (``spark.pyspark_ext.producers.``), outside ``ALLOWED``."""
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            name = path.relative_to(root).as_posix()
            if name in ALLOWED:
                continue
            for line, text in _strings(ast.parse(path.read_text(), filename=name)):
                key = _KEY.match(text)
                if key and any(k.startswith(key.group()) for k in settings.KEYS):
                    found.append(f"{name}:{line}: {key.group()}")
    return sorted(set(found))


def test_code_names_setting_keys_by_their_constants() -> None:
    found = spelt_out_keys()
    assert not found, ("use the constants of pyspark_ext.settings for these keys (or, where the "
                       "spelling is what is tested, list the file in ALLOWED):\n" + "\n".join(found))


def test_allowed_files_exist() -> None:
    assert [name for name in ALLOWED if not (ROOT / name).is_file()] == []
