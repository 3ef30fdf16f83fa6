"""What a household-ledger app's export says, before it meets a ledger. Pure: no HTTP, no boto3.

A format module (moneyforward, zaim) reads its rows into `SourceRow`s: the slip each row describes,
still naming accounts the way the app does (display names), with an identity that is the same
every time the same row is read again — which is what makes an overlapping download import each
row once. `accounts.resolve` then turns them into the importer's `csvio.Row`s.
"""

from __future__ import annotations

import base64
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from kakeibo import errors
from kakeibo.core.posting import Kind
from kakeibo.csvio import RowError
from kakeibo.models.base import MAX_AMOUNT, parse_date

# Counterparts of the rows that move one account's money without being income or expense.
UNKNOWN_COUNTERPART = "振替相手（不明）"  # a Money Forward transfer whose other side is not in the file
NOT_COUNTED = "集計対象外"  # Money Forward 計算対象=0, Zaim 集計に含めない
BALANCE_ADJUSTMENT = "残高調整"  # Zaim balance adjustments
NO_ACCOUNT = "口座指定なし"  # Zaim rows of users who do not track accounts: 支払元 / 入金先 "-"
CLEARING_ACCOUNTS = (UNKNOWN_COUNTERPART, NOT_COUNTED, BALANCE_ADJUSTMENT, NO_ACCOUNT)

MAX_MEMO = 500


@dataclass(frozen=True, slots=True)
class SourceRow:
    line: int  # where the row starts (the header is line 1); a transfer pair: its outgoing side
    slip_id: str
    date: str  # YYYY-MM-DD
    kind: Kind
    amount: int  # > 0
    account: str  # the app's display name
    to_account: str | None = None
    category: str | None = None
    subcategory: str | None = None
    memo: str | None = None
    counted: bool = True
    external_id: str | None = None  # the app's own row id, where it has one
    lines: tuple[int, ...] = ()  # every line the slip comes from (both sides of a transfer pair)
    payee: str | None = None  # where the money went, as the file wrote it (MF 内容, Zaim お店)
    # an income, expense or transfer in another currency (Zaim 通貨 / 通貨変換前の金額): its ISO code and the amount
    # before conversion as the file wrote it (`amount` is the yen it came to)
    currency: str | None = None
    foreign_amount: str | None = None


class Origin(TypedDict):
    """Where a slip comes from: the SourceRow fields every row of a format fills the same way."""

    line: int
    slip_id: str
    date: str
    lines: tuple[int, ...]
    external_id: NotRequired[str | None]


@dataclass
class SourceFile:
    format: str  # "mf" | "zaim"
    sha256: str
    encoding: str
    rows: list[SourceRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    repeated_ids: int = 0  # rows whose app id another row of the file has already (they are refused)

    @property
    def count(self) -> int:
        """Slips the file describes (a transfer pair is one), refused ones included."""
        return len(self.rows) + len(self.errors)


def cell(value: str) -> str | None:
    """A cell's text: NFC, trimmed; blank (and Zaim's '-' placeholder) is None."""
    text = unicodedata.normalize("NFC", value).strip()
    return None if text in {"", "-"} else text


def column_name(value: str) -> str:
    """A header cell compared loosely: NFKC (full-width brackets), no BOM, quotes or spaces."""
    return unicodedata.normalize("NFKC", value).strip().strip('"').replace(" ", "")


_DATE_RE = re.compile(r"^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$")


def iso_date(value: str | None) -> str:
    """'2026/11/03', '2026/11/3' or '2026-11-03' -> '2026-11-03' (a real calendar date)."""
    found = _DATE_RE.match(unicodedata.normalize("NFKC", value or "").strip())
    if not found:
        raise ValueError(f"date: {value!r} is not a date YYYY/MM/DD")
    text = f"{found.group(1)}-{int(found.group(2)):02d}-{int(found.group(3)):02d}"
    try:
        parse_date(text)
    except ValueError as exc:
        raise ValueError(f"date: {value!r} {exc}") from None
    return text


_AMOUNT_RE = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)$")


def signed_amount(value: str | None, name: str) -> int:
    """'-1,200', '1200', '１２００' or '¥1,200' -> int (yen); blank is 0."""
    text = unicodedata.normalize("NFKC", value or "").strip().replace("¥", "").replace("円", "")
    text = text.replace("\u2212", "-").strip()  # a minus sign as spreadsheets write it
    if not text:
        return 0
    if not _AMOUNT_RE.match(text):
        raise ValueError(f"{name}: {value!r} is not a whole number of yen")
    amount = int(text.replace(",", ""))
    if abs(amount) > MAX_AMOUNT:
        raise ValueError(f"{name}: must be at most {MAX_AMOUNT}")
    return amount


MAX_PAYEE = 100


def payee(text: str | None) -> str | None:
    """A file's payee cell as a slip keeps it: one line of printable text (control and format
    characters a payee may not hold dropped; the memo keeps the cell whole), NFC, cut to what a
    payee holds (None: empty)."""
    kept = "".join(
        " " if ch in "\t\n\r" else ch
        for ch in unicodedata.normalize("NFC", text or "")
        if ch in "\t\n\r" or unicodedata.category(ch)[0] != "C"
    )
    cut = kept.strip()[:MAX_PAYEE].strip()
    return cut or None


def memo(*parts: str | None) -> str | None:
    """The non-empty parts joined with ' / ', cut to what a slip's memo holds."""
    text = " / ".join(p for p in parts if p)
    return text[:MAX_MEMO] or None


PREFIXES = {"mf": "M", "zaim": "Z", "st": "S"}  # st: card and bank statements (importformats/statement.py)


def identity(source: str, *parts: str) -> str:
    """A slip id (ASCII alnum, 27 chars) that is the same whenever the same parts are given."""
    digest = hashlib.sha256("\0".join((source, *parts)).encode("utf-8")).digest()
    return identity_prefix(source) + base64.b32encode(digest).decode("ascii").rstrip("=")[:26]


def identity_prefix(source: str) -> str:
    """How the ids of one app's rows begin (no generated id begins so: they are 26 characters)."""
    return PREFIXES[source]


def header_index(
    fields: list[str],
    columns: tuple[str, ...],
    aliases: dict[str, str],
    app: str,
    header: str,
    *,
    optional: frozenset[str] = frozenset(),
) -> dict[str, int]:
    """Column name -> position (in any order); every column is required but the `optional` ones
    (older layouts lack them: they read as blank)."""
    index: dict[str, int] = {}
    for position, raw in enumerate(fields):
        name = column_name(raw)
        index.setdefault(aliases.get(name, name), position)
    if missing := [c for c in columns if c not in index and c not in optional]:
        problem = "missing " + ", ".join(missing)
        raise errors.ValidationFailed(
            f"line 1 must be {app}'s header {header}: {problem}",
            errors=[{"loc": ["body", "header"], "msg": problem}],
        )
    return index
