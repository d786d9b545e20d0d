"""The comparison both variant shredding batteries make (tests/variant_read/
test_variant_shredding_suite.py and test_parquet_variant_shredding_suite.py): a check's outcome
with the extension off (stock Spark) against its outcome with the extension on."""
from __future__ import annotations

from typing import Protocol


class Outcome(Protocol):
    """Rows, or the error a check failed with and the error classes that error names."""
    rows: list[str] | None
    error: str | None

    @property
    def error_classes(self) -> set[str]: ...


def assert_same_outcome(stock: Outcome, ext: Outcome) -> bool:
    """Fails unless the extension gives stock Spark's outcome: where stock Spark fails, a failure
    naming (at least) its error classes; else no failure and the same rows. Returns whether both
    ran, so that a battery can compare more of them."""
    if stock.error is not None:
        assert ext.error is not None, f"stock Spark fails, the extension does not: {stock.error[:300]}"
        assert ext.error_classes >= stock.error_classes, (
            f"other error: {ext.error[:600]}\nstock: {stock.error[:600]}")
        return False
    assert ext.error is None, f"fails with the extension on, not without: {ext.error[:1500]}"
    assert ext.rows == stock.rows
    return True
