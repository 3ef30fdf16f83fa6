"""Reading a sample statement (tests/samples/statements) the way POST /imports reads an upload:
decoded (line by line when its lines are not all of one encoding), normalised, recognised by its
header and preamble, read into entries, each with its identity."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from kakeibo import csvio
from kakeibo.importformats import issuers
from kakeibo.importformats.statement import Entry, Statement, identities

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "statements"
TODAY = dt.date(2026, 12, 1)


def sample_bytes(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def read(data: bytes, *, today: dt.date = TODAY, fmt: str | None = None) -> Statement:
    """The statement `data` is (the test fails if it is none)."""
    found = attempt(data, today=today, fmt=fmt)
    assert found is not None, "not recognised"
    return found


def attempt(data: bytes, *, today: dt.date = TODAY, fmt: str | None = None) -> Statement | None:
    text, encoding, odd = issuers.decode(data)
    return issuers.read(text, encoding, csvio.content_hash(text), fmt=fmt, today=today, odd=odd)


def sample(name: str, *, today: dt.date = TODAY) -> Statement:
    return read(sample_bytes(name), today=today)


def rows(statement: Statement) -> list[tuple[int, str, int, str | None, str]]:
    """Every entry as (line, date, amount, payee, kind)."""
    return [(e.line, e.date, e.amount, e.payee, e.kind) for e in statement.entries]


def skipped(statement: Statement) -> list[tuple[int, str]]:
    return [(s.line, s.reason) for s in statement.skipped]


def entry(statement: Statement, line: int) -> Entry:
    return next(e for e in statement.entries if e.line == line)


def ids(statement: Statement, account: str = "card") -> dict[int, str]:
    """Line -> the row's slip id on `account`."""
    return {e.line: i for e, i in zip(statement.entries, identities(statement, account), strict=True)}


def cp932(text: str) -> bytes:
    """Text as a Japanese issuer's file: Shift_JIS (CP932), CRLF."""
    return text.replace("\n", "\r\n").encode("cp932")
