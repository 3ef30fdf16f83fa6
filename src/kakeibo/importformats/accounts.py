"""Another app's account names -> this ledger's accounts. Pure: no HTTP, no boto3.

An app names an account by its display name (三井住友銀行, モバイルSuica, 財布). It matches, in
this order: the account with exactly that name (trimmed); the account with that id; the one
account whose name is the same after NFKC normalisation (full-width and half-width forms are
one: ｶﾞ and ガ); the account whose id it is after NFKC. An exact name always wins over a
look-alike; a name that only looks like two or more accounts (or is exactly the name of two) is
ambiguous, and its row is refused naming the candidates, never guessed. (This API's own CSV names
accounts by id: `unknown_ids` lists those the ledger has not got.) Names that match none
are the file's unknown accounts: listed, and created on request with
- an id derived from the name, deterministically (the same name always proposes the same id):
  its ASCII letters and digits, lowercased and joined with '-', plus 8 hex digits of the name's
  SHA-256 (so two names never share an id, and Japanese-only names still get a valid one):
  モバイルSuica -> suica-1a2b3c4d, 三井住友銀行 -> acct-5e6f7a8b;
- a type guessed from well-known words (see `guess_type`), else `other`;
- negative balances allowed: the file does not say what an account held before its first row
  (set its opening balance and allow_negative afterwards).
A name no account may have (a control or invisible character: U+0000, U+007F, U+200B...) matches
none and is never created: its rows are refused, saying which character to remove in the app.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from kakeibo.core.units import minor_units
from kakeibo.csvio import CsvFile, Row, RowError, describe
from kakeibo.importformats.source import SourceFile, SourceRow
from kakeibo.models.base import Name
from kakeibo.models.slips import ImportRow

_WORDS = re.compile(r"[A-Za-z0-9]+", re.ASCII)
# checked in this order: the first group with a word in the name gives its type
_TYPES = (
    ("cash", ("財布", "現金", "さいふ", "wallet", "cash")),
    ("bank", ("銀行", "信用金庫", "信金", "ゆうちょ", "bank")),
    ("credit", ("カード", "クレジット", "card")),
    ("emoney", ("suica", "pasmo", "icoca", "nanaco", "waon", "edy", "paypay", "楽天ペイ", "d払い", "電子マネー")),
)


def name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).strip()


def account_id_for(name: str) -> str:
    key = name_key(name)
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    words = "-".join(_WORDS.findall(key)).lower()[:40].strip("-")
    return f"{words or 'acct'}-{digest}"


def guess_type(name: str) -> str:
    key = name_key(name).lower()
    for kind, words in _TYPES:
        if any(word in key for word in words):
            return kind
    return "other"


@cache
def _names() -> TypeAdapter[str]:
    return TypeAdapter(Name)


def account_name(name: str) -> str:
    """The name an account made for the app's `name` gets (its first 100 characters, as an
    account's name is checked); ValueError, in words for the row, when no account may have it."""
    try:
        return _names().validate_python(name.strip()[:100])
    except ValidationError as exc:
        problem = str(exc.errors()[0]["msg"])
    shown = "".join(ch if ch.isprintable() else f"[U+{ord(ch):04X}]" for ch in name.strip())
    codes = re.findall(r"U\+[0-9A-F]{4,}", problem)
    if codes:
        raise ValueError(
            f"account name '{shown}' has a character no account name may have ({codes[0]}): remove it in the app"
        )
    raise ValueError(f"account name '{shown}' cannot be an account's name: rename the account in the app")


@dataclass
class Resolved:
    file: CsvFile
    unknown: list[dict[str, Any]] = field(default_factory=list)  # {name, id, type, rows}


class Ambiguous(Exception):
    """A name that could mean several of the ledger's accounts."""

    def __init__(self, name: str, candidates: list[str]) -> None:
        super().__init__(name)
        self.name = name
        self.candidates = candidates

    @property
    def message(self) -> str:
        ids = ", ".join(self.candidates)
        return f"account '{self.name.strip()}' could be any of the accounts {ids}: name one of them by its id"


class Directory:
    """The ledger's accounts, looked up by exact name, id, or normalised display name."""

    def __init__(self, accounts: Iterable[Mapping[str, Any]]) -> None:
        self.ids: set[str] = set()
        self.exact: dict[str, list[str]] = {}
        self.alike: dict[str, list[str]] = {}
        for account in sorted(accounts, key=lambda a: str(a["id"])):
            self.ids.add(account["id"])
            self.exact.setdefault(str(account["name"]).strip(), []).append(account["id"])
            self.alike.setdefault(name_key(account["name"]), []).append(account["id"])

    def find(self, name: str) -> str | None:
        """The account `name` means; None if none; `Ambiguous` if it could be several."""
        for candidates in (self.exact.get(name.strip()), [name.strip()] if name.strip() in self.ids else None):
            if candidates:
                return _one(name, candidates)
        key = name_key(name)
        if key in self.alike:
            return _one(name, self.alike[key])
        return key if key in self.ids else None


def _one(name: str, candidates: list[str]) -> str:
    if len(candidates) > 1:
        raise Ambiguous(name, candidates)
    return candidates[0]


def resolve(source: SourceFile, accounts: Iterable[Mapping[str, Any]], *, create: bool) -> Resolved:
    """The file's rows as the importer's rows. A row naming an unknown account is refused unless
    `create` (then it names the id the account will be created with)."""
    accounts = list(accounts)
    directory = Directory(accounts)
    units = {str(a["id"]): str(a.get("unit") or "JPY") for a in accounts}
    out = Resolved(CsvFile(source.sha256, source.encoding, rows=source.count, errors=list(source.errors)))
    unknown: dict[str, dict[str, Any]] = {}
    for row in source.rows:
        ids: list[str | None] = []
        missing = []
        ambiguous: list[Ambiguous] = []
        unusable: list[str] = []
        for name in (row.account, row.to_account):
            if name is None:
                ids.append(None)
                continue
            try:
                found = directory.find(name)
            except Ambiguous as exc:
                ambiguous.append(exc)
                ids.append(None)
                continue
            if found is None:
                try:
                    usable = account_name(name)
                except ValueError as exc:
                    unusable.append(str(exc))
                    ids.append(None)
                    continue
                key = name_key(name)
                entry = unknown.setdefault(
                    key, {"name": usable, "id": account_id_for(name), "type": guess_type(name), "rows": 0}
                )
                entry["rows"] += 1
                missing.append(name)
                found = entry["id"]
            ids.append(found)
        if ambiguous or unusable:
            out.file.errors.append(RowError(row.line, "; ".join([*(a.message for a in ambiguous), *unusable])))
            continue
        if missing and not create:
            names = ", ".join(f"'{n}'" for n in missing)
            message = f"account {names} is not in the ledger: create it, or import with create_accounts=true"
            out.file.errors.append(RowError(row.line, message))
            continue
        try:
            slip = _slip(row, ids[0], ids[1], units.get(ids[0] or ""), units.get(ids[1] or ""))
        except ValidationError as exc:
            out.file.errors.append(RowError(row.line, describe(exc)))
            continue
        out.file.valid.append(Row(row.line, row.slip_id, slip, counted=row.counted))
    out.unknown = list(unknown.values())
    return out


def unknown_ids(file: CsvFile, accounts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The accounts this API's own CSV names (by id: `account`, `to_account`) that the ledger has not
    got, listed as `resolve` lists an app's ({name, id, type, rows}, in the order the file first
    names them): created on request with that id, the id as their name and a type guessed from it."""
    known = {str(a["id"]) for a in accounts}
    unknown: dict[str, dict[str, Any]] = {}
    for row in file.valid:
        for account in dict.fromkeys(a for a in (row.slip.account, row.slip.to_account) if a):
            if account not in known:
                named = {"name": account, "id": account, "type": guess_type(account), "rows": 0}
                unknown.setdefault(account, named)["rows"] += 1
    return list(unknown.values())


def in_minor_units(text: str, currency: str) -> int | None:
    """An amount as a file writes it ("12.34", "1,234.5") in the currency's minor unit (1234); None
    when it is not a positive amount with at most the currency's digits."""
    try:
        value = Decimal(unicodedata.normalize("NFKC", text).replace(",", "").strip())
    except InvalidOperation:
        return None
    if not value.is_finite() or value <= 0:
        return None
    scaled = value.scaleb(minor_units(currency))
    return int(scaled) if scaled == scaled.to_integral_value() else None


def _in_units(row: SourceRow, foreign: int, unit: str, to_unit: str) -> dict[str, Any]:
    """What a row in a foreign currency (its yen `row.amount`, `foreign` in the currency's minor unit)
    says in its accounts' units: an income or expense of an account in that currency is in it, with
    its yen; a transfer is in the unit of the account it leaves, with what arrived in the other's."""
    if row.kind != "transfer":
        return {"amount": foreign, "jpy_amount": row.amount} if unit == row.currency else {}
    if unit == to_unit:  # both in the currency
        return {"amount": foreign}
    if unit == row.currency and to_unit == "JPY":
        return {"amount": foreign, "to_amount": row.amount}
    if to_unit == row.currency and unit == "JPY":
        return {"amount": row.amount, "to_amount": foreign}
    return {}  # the currency against points or a third currency: the file does not say what arrived


def _slip(
    row: SourceRow, account: str | None, to_account: str | None, unit: str | None = None, to_unit: str | None = None
) -> ImportRow:
    foreign = None
    if row.currency and row.foreign_amount and row.currency in {unit, to_unit}:
        foreign = in_minor_units(row.foreign_amount, row.currency)  # its own account: in its own unit
    values = {
        "date": row.date,
        "kind": row.kind,
        "amount": row.amount,
        "account": account,
        "to_account": to_account,
        "category": row.category,
        "subcategory": row.subcategory,
        "memo": row.memo,
        "payee": row.payee,
        "imported_payee": row.payee,
        "external_id": row.external_id,
    }
    if foreign is not None:
        values.update(_in_units(row, foreign, unit or "JPY", to_unit or "JPY"))
    return ImportRow.model_validate({k: v for k, v in values.items() if v is not None})
