"""A generated query and how to run and judge it."""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp


@dataclass(frozen=True)
class Snapshot:
    """One snapshot of a catalog table, as recorded when the table was written: its id and its
    commit time as a UTC timestamp literal (``2026-01-31 12:00:00.123Z``, to the millisecond)."""
    id: int
    committed_at: str


class CatalogTable(str):
    """A table's name in a catalog (``cat.db.t``) where ``paths`` maps a logical table to a
    catalog table instead of a Parquet directory (``fuzz_iceberg``), with the snapshots its
    history made, oldest first, and the names of its branches and tags other than ``main`` (what
    a query may read by time travel)."""
    snapshots: tuple[Snapshot, ...]
    refs: tuple[str, ...]

    def __new__(cls, name: str, snapshots: tuple[Snapshot, ...] = (), refs: tuple[str, ...] = ()) -> CatalogTable:
        table = super().__new__(cls, name)
        table.snapshots = tuple(snapshots)
        table.refs = tuple(refs)
        return table


@dataclass
class Case:
    """``ast`` names logical tables (``data.TABLES``); ``order`` is None for a multiset
    comparison, or the output positions of the top-level sort keys ([]: the order is total)."""
    ast: exp.Expression
    kind: str
    table: str
    order: list[int] | None = None
    ansi: bool = False
    reference: str | None = None  # the table whose stock outcome is the truth, if not ``table``
    notes: dict[str, str] = field(default_factory=dict)

    def sql(self, paths: dict[str, str] | None = None, table: str | None = None) -> str:
        """The query in Spark SQL; with ``paths``, over the Parquet files or catalog tables they
        name (``table`` replaces this case's table by another with the same columns)."""
        return render(self.ast, paths, {self.table: table} if table else {})


def render(ast: exp.Expression, paths: dict[str, str] | None = None,
           rename: dict[str, str] | None = None) -> str:
    rename = rename or {}

    def swap(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and not node.args.get("db") and node.name in (paths or rename):
            name = rename.get(node.name, node.name)
            alias = node.args.get("alias")
            # a time-travel clause (``VERSION AS OF``) stays with the table it reads
            version = node.args.get("version")
            if paths is None:
                return exp.Table(this=exp.to_identifier(name), version=version, alias=alias)
            if isinstance(paths[name], CatalogTable):
                named = exp.to_table(paths[name], dialect="spark")
                named.set("version", version)
                named.set("alias", alias)
                return named
            return exp.Table(this=exp.to_identifier(paths[name], quoted=True), db=exp.to_identifier("parquet"),
                             alias=alias)
        return node

    tree = ast.transform(swap) if (paths or rename) else ast
    return tree.sql(dialect="spark")
