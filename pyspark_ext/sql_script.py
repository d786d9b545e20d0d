"""A SQL script file as statements, for ``verify`` and ``advise``.

The file is read as UTF-8 (a byte-order mark is dropped) with errors that name it; the text is
split at the semicolons sqlglot's tokenizer sees, so a ``;`` inside a string, a quoted identifier
or a comment does not split. Each statement keeps its number and the line and column where its
first token starts, so a bad statement can be reported where the user will find it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import sqlglot
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType


class ScriptError(ValueError):
    """A script file that cannot be read; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Statement:
    text: str
    number: int              # 1-based, in the order of the script
    line: int                # where the statement's first token starts, 1-based
    column: int              # 1-based
    error: str | None = None  # why the tokenizer could not read it (an unclosed quote or comment)


def read_text(path: str | Path) -> str:
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ScriptError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ScriptError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError as e:
        raw: bytes = e.object  # type: ignore[assignment]
        line = raw.count(b"\n", 0, e.start) + 1
        column = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise ScriptError(f"{path}: not UTF-8 text (byte 0x{raw[e.start]:02x} at line {line}, byte "
                          f"{column} of the line); convert it to UTF-8, e.g. "
                          f"iconv -f latin1 -t utf-8") from None
    except OSError as e:
        raise ScriptError(f"{path}: cannot read it ({e.strerror or e})") from None


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of a character offset."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def split_statements(text: str, dialect: str = "spark") -> list[Statement]:
    """The statements of a script, each as its original text (comments before it left out).

    Text the tokenizer cannot read (an unclosed quote or block comment swallows the rest of the
    file) becomes one last statement with ``error`` set; the statements before it are kept."""
    d = sqlglot.Dialect.get_or_raise(dialect)
    tokenizer = d.tokenizer_class(dialect=d)
    try:
        return _statements(text, tokenizer.tokenize(text))
    except TokenError as e:
        error = e
        tokens = list(getattr(tokenizer, "tokens", None) or [])
    # Keep what ends at the last semicolon read; the rest is one statement that cannot be read.
    last = max((i for i, t in enumerate(tokens) if t.token_type == TokenType.SEMICOLON), default=-1)
    complete = _statements(text, tokens[:last + 1])
    rest_start = tokens[last].end + 1 if last >= 0 else 0
    start = tokens[last + 1].start if last + 1 < len(tokens) else rest_start
    while start < len(text) and text[start].isspace():
        start += 1
    line, column = position(text, start)
    return complete + [Statement(text[start:].strip(), len(complete) + 1, line, column,
                                 _token_error(text, start, error))]


def _statements(text: str, tokens: list[Token]) -> list[Statement]:
    out: list[Statement] = []
    start: int | None = None

    def add(end: int) -> None:
        body = text[start:end].strip()
        if body:
            out.append(Statement(body, len(out) + 1, *position(text, start)))

    for tok in tokens:
        if tok.token_type == TokenType.SEMICOLON:
            if start is not None:
                add(tok.start)
            start = None
        elif start is None:
            start = tok.start  # the statement starts at its first token, after any comments
    if start is not None:
        add(len(text))
    return out


def _token_error(text: str, start: int, error: TokenError) -> str:
    # sqlglot says "Missing <delimiter> from <line>:<offset>" for an unclosed quote; an unclosed
    # block comment ends its scan with an IndexError, so that one is found here
    cause = str(error.__cause__ or error)
    missing = re.match(r"Missing (.+?) from \d+:(\d+)", cause)
    if missing:
        return _unclosed(text, missing.group(1), int(missing.group(2)))
    opening = text.rfind("/*", start)
    if opening >= 0 and "*/" not in text[opening + 2:]:
        return _unclosed(text, "*/", opening, "/*")
    return f"cannot read the SQL text ({cause.splitlines()[0]})"


def _unclosed(text: str, closing: str, offset: int, opening: str = "") -> str:
    line, column = position(text, offset)
    return (f"no closing {closing} for the {opening or closing} at line {line}, column {column}: "
            f"the rest of the file is inside it")
