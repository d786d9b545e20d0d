"""Spark confs set for one block and put back after it: the one way the package, the development
tools and the tests change a session's settings for a while."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any


@contextmanager
def scoped_confs(spark: Any, settings: Mapping[str, str | None]) -> Iterator[None]:
    """Set ``settings`` for the block (``None`` unsets a conf), then restore what each was before,
    unsetting those that were unset. ``spark`` may be a Spark Connect session."""
    before = {key: spark.conf.get(key, None) for key in settings}
    try:
        for key, value in settings.items():
            spark.conf.unset(key) if value is None else spark.conf.set(key, value)
        yield
    finally:
        for key, value in before.items():
            spark.conf.unset(key) if value is None else spark.conf.set(key, value)
