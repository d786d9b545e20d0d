"""Read every shredded-variant conformance file with Spark and compare with the expected variants.

    python -m tests.support.conformance.run [--extension] [--verbose] [--only case-032,case-085]

One local[2] session (UI off). With ``--extension`` it is built through
``pyspark_ext.configure(..., strict=True)``, like ``tests.support.differential.strict_session``; without
it the session is stock Spark with the same settings. Each file is read with
``spark.read.parquet(path)``; if ``var`` does not come back as VARIANT it is read again with the
declared schema ``id INT, var VARIANT``. Rows are collected, put in ``id`` order and compared with
the decoded expected variants (``tests.support.conformance.cases``).

Outcomes: valid cases ``pass`` / ``wrong value`` / ``unexpected error``; error cases ``expected
error raised`` / ``missing error``; ``-INVALID`` files ``invalid: error raised`` /
``invalid: read the shredded value`` (both acceptable per the spec) or ``invalid: read another
value``. Failures are put in a cause class (see ``cause``).
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # allow ``python tests/support/conformance/run.py`` too
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.support.conformance.cases import CASES, SKIP_REASON, Case, available, rows_difference  # noqa: E402
from tests.support.variant_codec import VARIANT_NULL, decode_variant  # noqa: E402

PASS = "pass"
WRONG = "wrong value"
UNEXPECTED_ERROR = "unexpected error"
ERROR_RAISED = "expected error raised"
MISSING_ERROR = "missing error"
INVALID_ERROR = "invalid: error raised"
INVALID_SHREDDED = "invalid: read the shredded value"
INVALID_OTHER = "invalid: read another value"

#: Outcomes that conform (for -INVALID files the spec allows either an error or the shredded value).
GOOD = {PASS, ERROR_RAISED, INVALID_ERROR, INVALID_SHREDDED}

DECLARED_SCHEMA = "id INT, var VARIANT"


@dataclass
class Result:
    case: Case
    outcome: str
    detail: str = ""  # the difference, or the error message
    read_as: str = ""  # "inferred" (spark.read.parquet gave VARIANT) or "declared"
    cause: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome in GOOD


# ---------------------------------------------------------------------------------------------
# Reading


def error_message(exc: BaseException) -> str:
    """The most telling line of a Spark error: the root JVM cause when there is one."""
    text = str(exc)
    causes = re.findall(r"Caused by: ([^\n]+)", text)
    if causes:
        return causes[-1].strip()
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
    # "Job aborted due to stage failure: ... (TID n) (host executor driver): java....: message"
    m = re.search(r"\(executor driver\): (.+)$", first)
    return (m.group(1) if m else first).strip()


def _to_python(value: Any) -> Any:
    from pyspark.sql.types import VariantVal

    if value is None:
        return None
    if isinstance(value, VariantVal):
        return decode_variant(bytes(value.metadata), bytes(value.value))
    return ("not a variant", value)


def read_rows(spark, case: Case) -> tuple[list[Any], str]:
    """(decoded ``var`` per row in id order, how the schema was obtained). Raises Spark's error."""
    from pyspark.sql.types import VariantType

    path = str(case.parquet)
    try:
        df = spark.read.parquet(path)
        read_as = "inferred"
        if not isinstance(df.schema["var"].dataType, VariantType):
            raise TypeError(f"var read as {df.schema['var'].dataType.simpleString()}")
    except Exception:  # noqa: BLE001 - inference failed or gave no VARIANT: declare the schema
        df = spark.read.schema(DECLARED_SCHEMA).parquet(path)
        read_as = "declared"
    rows = sorted(df.select("id", "var").collect(), key=lambda r: r["id"])
    return [_to_python(r["var"]) for r in rows], read_as


def run_case(spark, case: Case) -> Result:
    try:
        actual, read_as = read_rows(spark, case)
    except Exception as exc:  # noqa: BLE001 - any failure to read is an outcome
        message = error_message(exc)
        outcome = {"error": ERROR_RAISED, "invalid": INVALID_ERROR}.get(case.kind, UNEXPECTED_ERROR)
        return Result(case, outcome, message)
    if case.kind == "error":
        return Result(case, MISSING_ERROR, f"read {actual!r}", read_as)
    diff = rows_difference(case.expected, actual)
    if case.kind == "invalid":
        return Result(case, INVALID_OTHER if diff else INVALID_SHREDDED, diff or "", read_as)
    return Result(case, WRONG if diff else PASS, diff or "", read_as)


# ---------------------------------------------------------------------------------------------
# Why a case fails


def file_features(path: Path) -> set[str]:
    """What is special about a file's layout and data, from pyarrow (no Spark)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    var_type = table.schema.field("var").type
    found: set[str] = set()

    def scan_type(t: pa.DataType, where: str) -> None:
        if not pa.types.is_struct(t):
            return
        names = [t.field(i).name for i in range(t.num_fields)]
        if "typed_value" in names and "value" not in names:
            found.add(f"no value column ({where})")
        if "typed_value" not in names:
            return
        typed = t.field("typed_value").type
        if pa.types.is_time(typed):
            found.add("typed_value TIME")
        elif isinstance(typed, pa.ExtensionType) and "uuid" in str(typed):
            found.add("typed_value UUID")
        elif pa.types.is_timestamp(typed) and typed.unit == "ns":
            found.add("typed_value timestamp(NANOS)")
        elif pa.types.is_unsigned_integer(typed):
            found.add("typed_value unsigned int")
        elif pa.types.is_fixed_size_binary(typed):
            found.add("typed_value fixed_len_byte_array")
        elif pa.types.is_struct(typed):
            for i in range(typed.num_fields):
                scan_type(typed.field(i).type, "field")
        elif pa.types.is_list(typed) or pa.types.is_large_list(typed):
            scan_type(typed.value_type, "element")

    scan_type(var_type, "top")

    def scan_value(v: Any, where: str) -> None:
        if not isinstance(v, dict) or "typed_value" not in v and "value" not in v:
            return
        value, typed = v.get("value"), v.get("typed_value")
        if value is None and typed is None:
            found.add(f"null/null ({where})")
        if value is not None and typed is not None:
            found.add(f"value and typed_value both set ({where})")
        if isinstance(typed, dict):
            for field_value in typed.values():
                scan_value(field_value, "field")
        elif isinstance(typed, list):
            for element in typed:
                scan_value(element, "element")

    for row in table.column("var").to_pylist():
        if row is not None:
            scan_value(row, "top")
    return found


def _has_null_element(value: Any) -> bool:
    if isinstance(value, list):
        return any(v is VARIANT_NULL or _has_null_element(v) for v in value)
    if isinstance(value, dict):
        return any(_has_null_element(v) for v in value.values())
    return False


def cause(result: Result) -> str:
    """A best-effort cause class for a case that does not conform ("" for one that does)."""
    if result.ok:
        return ""
    case, message = result.case, result.detail
    features = file_features(case.parquet)
    types = case.types
    if "TIME" in types or "typed_value TIME" in features or re.search(r"\bTIME\b|Time\(", message):
        return "TIME"
    if "UUID" in types or "typed_value UUID" in features:
        return "UUID"
    if any(t.endswith("_NANOS") for t in types) or "typed_value timestamp(NANOS)" in features:
        return "nanosecond timestamps"
    if case.kind == "error" and "typed_value unsigned int" in features:
        return "unsupported typed_value type accepted (unsigned int)"
    if case.kind == "error" and "typed_value fixed_len_byte_array" in features:
        return "unsupported typed_value type accepted (fixed_len_byte_array)"
    if case.kind == "error" and any(f.startswith("value and typed_value both set") for f in features):
        return "conflicting value and typed_value accepted"
    if case.kind in ("error", "invalid"):
        return "invalid shredding accepted"
    # value and typed_value both null: a missing field inside a shredded object (normal), else a
    # variant null at the top level or as an array element.
    null_null = [w for w in ("top", "element") if f"null/null ({w})" in features]
    if null_null:
        return "null/null leaves: " + " and ".join(
            {"top": "top level", "element": "array element"}[w] for w in null_null)
    if case.expected and any(_has_null_element(v) for v in case.expected if v is not None):
        return "array with null elements"
    missing = sorted(f for f in features if f.startswith("no value column"))
    if missing:
        return "missing value column: " + ", ".join(f[len("no value column "):].strip("()")
                                                     for f in missing)
    return "other: " + (message[:120] or "?")


# ---------------------------------------------------------------------------------------------
# Session and main


def make_session(extension: bool, warehouse: str):
    from pyspark_ext.session import local_session

    return local_session("shredded-variant-conformance" + ("-ext" if extension else ""), extension=extension,
                         strict=True, confs={"spark.sql.warehouse.dir": warehouse, "spark.driver.memory": "1g"})


def run_all(spark, cases: list[Case]) -> list[Result]:
    results = []
    for case in cases:
        result = run_case(spark, case)
        result.cause = cause(result)
        results.append(result)
    return results


def report(results: list[Result], verbose: bool, out=sys.stdout) -> None:
    for r in results:
        c = r.case
        line = f"{c.name:<17} {c.kind:<7} {r.outcome:<33} {c.test}"
        if r.cause:
            line += f"  [{r.cause}]"
        print(line, file=out)
        if r.detail and (verbose or not r.ok or r.outcome in (ERROR_RAISED, INVALID_ERROR)):
            print(f"{'':<18}{r.detail[:300]}", file=out)
    by_kind: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        by_kind[r.case.kind][r.outcome] += 1
    valid, error, invalid = by_kind["valid"], by_kind["error"], by_kind["invalid"]
    n_valid, n_error, n_invalid = sum(valid.values()), sum(error.values()), sum(invalid.values())
    print("\nTotals", file=out)
    print(f"  files: {len(results)} ({n_valid} valid, {n_error} error, {n_invalid} -INVALID)", file=out)
    print(f"  valid cases read correctly: {valid[PASS]}/{n_valid}"
          f" (wrong value {valid[WRONG]}, unexpected error {valid[UNEXPECTED_ERROR]})", file=out)
    print(f"  error cases that raise: {error[ERROR_RAISED]}/{n_error}"
          f" (missing error {error[MISSING_ERROR]})", file=out)
    print(f"  -INVALID files: {n_invalid}: error {invalid[INVALID_ERROR]}, shredded value read"
          f" {invalid[INVALID_SHREDDED]}, another value read {invalid[INVALID_OTHER]}", file=out)
    print(f"  conforming overall: {sum(r.ok for r in results)}/{len(results)}", file=out)
    read_as = Counter(r.read_as for r in results if r.read_as)
    print(f"  files read: {read_as['inferred']} with spark.read.parquet(path) as VARIANT,"
          f" {read_as['declared']} only with the declared schema '{DECLARED_SCHEMA}',"
          f" {sum(not r.read_as for r in results)} raised", file=out)
    causes = Counter(r.cause for r in results if r.cause)
    if causes:
        print("\nNon-conforming by cause", file=out)
        for name, n in causes.most_common():
            members = ", ".join(r.case.name for r in results if r.cause == name)
            print(f"  {n:3d}  {name}: {members}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--extension", action="store_true",
                        help="load the pyspark_ext extension (strict mode) into the session")
    parser.add_argument("--verbose", "-v", action="store_true", help="print details of passing cases")
    parser.add_argument("--only", default="", help="comma-separated case names (e.g. case-032)")
    args = parser.parse_args(argv)
    if not available():
        print(f"SKIPPED: {SKIP_REASON}")
        return 0
    cases = CASES
    if args.only:
        wanted = {n.strip() for n in args.only.split(",")}
        cases = [c for c in CASES if c.name in wanted or f"case-{c.number:03d}" in wanted]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="conformance-warehouse-") as warehouse:
        spark = make_session(args.extension, warehouse)
        try:
            import pyspark
            print(f"Spark {spark.version} (pyspark {pyspark.__version__}),"
                  f" extension {'ON' if args.extension else 'off'}, {len(cases)} files\n")
            results = run_all(spark, cases)
        finally:
            spark.stop()
    report(results, args.verbose)
    print(f"\n{time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
