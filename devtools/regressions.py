"""Reduced failing queries saved as regression tests (``tests/harness/fuzz_regressions/<kind>.sql``).

One entry per query: header comments ``-- key: value`` (seed, query number, table, reference
table, ANSI, order, finding, status), then the statement over the fuzzer's logical table names,
ending with ``;``. ``tests/harness/test_fuzz_regressions.py`` runs every entry differentially; an entry
whose status is ``open`` (a bug not fixed yet) is expected to fail, strictly, so fixing it flips
the test until the status is changed to ``fixed``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlglot

from .case import Case


@dataclass
class Regression:
    case: Case
    header: dict[str, str]
    source: str

    @property
    def status(self) -> str:
        return self.header.get("status", "open")


def save(directory: str | Path, case: Case, finding: str, seed: int, number: int) -> Path:
    path = Path(directory) / f"{case.kind}.sql"
    path.parent.mkdir(parents=True, exist_ok=True)
    order = "none" if case.order is None else ",".join(map(str, case.order)) or "total"
    header = {"seed": seed, "query": number, "table": case.table, "reference": case.reference or case.table,
              "ansi": str(case.ansi).lower(), "order": order, "finding": " ".join(finding.split())[:400],
              "status": "open"}
    sql = case.sql()
    if path.exists() and f"\n{sql};\n" in path.read_text():
        return path  # already saved
    text = "".join(f"-- {k}: {v}\n" for k, v in header.items()) + sql + ";\n\n"
    with path.open("a") as f:
        f.write(text)
    return path


def load(directory: str | Path) -> list[Regression]:
    out = []
    for path in sorted(Path(directory).glob("*.sql")):
        for block in path.read_text().split("\n\n"):
            lines = [line for line in block.strip().splitlines() if line.strip()]
            if not lines:
                continue
            header = dict(line[3:].split(": ", 1) for line in lines if line.startswith("-- "))
            sql = "\n".join(line for line in lines if not line.startswith("--")).strip().rstrip(";")
            order = header.get("order", "none")
            case = Case(ast=sqlglot.parse_one(sql, dialect="spark"), kind=path.stem, table=header["table"],
                        order=None if order == "none" else [] if order == "total" else [int(i) for i in order.split(",")],
                        ansi=header.get("ansi") == "true",
                        reference=None if header.get("reference", header["table"]) == header["table"] else header["reference"])
            out.append(Regression(case, header, f"{path.name}: seed {header.get('seed')} query {header.get('query')}"))
    return out
