"""Errors a pipeline reports in its user's terms (pipeline, stage, key)."""
from __future__ import annotations

MARK = "PRODUCERS-ERROR:"


class ProducerError(Exception):
    """A pipeline could not do what was asked; the message names the stage and key. The committed
    version is unchanged."""


def in_worker(message: str) -> Exception:
    """An error raised in a Python worker, marked so the driver can report it without Spark's
    wrapping (``from_spark``)."""
    return RuntimeError(f"{MARK}{message}{MARK}")


def from_spark(exc: BaseException) -> ProducerError | None:
    text = str(exc)
    start = text.find(MARK)
    if start < 0:
        return None
    end = text.find(MARK, start + len(MARK))
    return ProducerError(text[start + len(MARK):end if end > 0 else None])
