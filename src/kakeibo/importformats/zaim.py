"""Zaim's CSV export (Shift_JIS or UTF-8).

Columns: 日付,方法,カテゴリ,カテゴリの内訳,支払元,入金先,品目,メモ,お店,通貨,収入,支出,振替,残高調整,
通貨変換前の金額,集計の設定 (older exports name カテゴリの内訳 ジャンル, 品目 商品 or 品名, お店 場所).
- 方法 payment: 支出 leaves 支払元 (expense); income: 収入 arrives in 入金先; transfer: 振替 moves from
  支払元 to 入金先; balance: 残高調整 (signed) adjusts the account named (入金先, else 支払元) — a
  transfer against the clearing account 残高調整, since an adjustment is neither income nor expense.
- カテゴリ = category, カテゴリの内訳 = subcategory; 品目, お店 and メモ make the memo.
- 集計の設定 集計に含めない: not counted as income or expense — kept as a transfer against the clearing
  account 集計対象外 so the account's balance stays right; 常に集計に含める and 年の集計にのみ含める
  (counted in the year's totals, which are the sum of its months here) are counted.
- 支払元 / 入金先 `-` (users who do not track accounts): the clearing account 口座指定なし.
- 通貨 other than JPY: 収入 / 支出 / 振替 hold the yen amount Zaim counted; the currency and
  通貨変換前の金額 (the amount before conversion) go to the memo. An income or expense whose account
  is in that currency (accounts.resolve) is written in it: 通貨変換前の金額 in its minor unit as the
  amount, the yen as `jpy_amount`; into any other account the yen is imported. A transfer into or out
  of an account in that currency carries it too: between a yen account and the foreign one, the yen
  side is 振替 and the foreign side 通貨変換前の金額 (`amount` and `to_amount` by direction); between two
  accounts of that currency, 通貨変換前の金額 is the amount.
- Older layouts without 残高調整, 通貨変換前の金額 and 集計の設定 (13 or 14 columns) are read: the
  missing columns are blank.
- Zaim has no row id: a row's identity is its content (every column) plus how many identical
  rows came before it in the file, so re-importing the same or an overlapping download creates
  nothing twice, and two identical purchases on one day stay two.
"""

from __future__ import annotations

from collections import Counter

from kakeibo import csvio
from kakeibo.csvio import RowError
from kakeibo.importformats.source import (
    BALANCE_ADJUSTMENT,
    NO_ACCOUNT,
    NOT_COUNTED,
    Origin,
    SourceFile,
    SourceRow,
    cell,
    header_index,
    identity,
    iso_date,
    memo,
    payee,
    signed_amount,
)

FORMAT = "zaim"
NAME = "Zaim"
COLUMNS = (
    "日付",
    "方法",
    "カテゴリ",
    "カテゴリの内訳",
    "支払元",
    "入金先",
    "品目",
    "メモ",
    "お店",
    "通貨",
    "収入",
    "支出",
    "振替",
    "残高調整",
    "通貨変換前の金額",
    "集計の設定",
)
HEADER = ",".join(COLUMNS)
ALIASES = {"ジャンル": "カテゴリの内訳", "商品": "品目", "品名": "品目", "場所": "お店"}
METHODS = {
    "payment": "payment",
    "income": "income",
    "transfer": "transfer",
    "balance": "balance",
    "支出": "payment",
    "収入": "income",
    "振替": "transfer",
    "残高調整": "balance",
}
OPTIONAL = frozenset({"残高調整", "通貨変換前の金額", "集計の設定"})  # absent from 13- and 14-column layouts
NOT_COUNTED_SETTING = "集計に含めない"
COUNTED_SETTINGS = {None, "常に集計に含める", "年の集計にのみ含める", NOT_COUNTED_SETTING}


def parse(text: str, sha256: str, encoding: str) -> SourceFile:
    out = SourceFile(FORMAT, sha256, encoding)
    occurrences: Counter[str] = Counter()
    columns: dict[str, int] | None = None
    for line, fields in csvio.records(text):
        if columns is None:
            columns = header_index(fields, COLUMNS, ALIASES, NAME, HEADER, optional=OPTIONAL)
            continue
        values = {name: _get(fields, columns[name]) if name in columns else None for name in COLUMNS}
        content = "\x1f".join(values[name] or "" for name in COLUMNS)
        occurrences[content] += 1
        slip_id = identity(FORMAT, content, str(occurrences[content]))
        try:
            out.rows.append(_row(line, slip_id, values))
        except ValueError as exc:
            out.errors.append(RowError(line, str(exc)))
    return out


def _get(fields: list[str], index: int) -> str | None:
    return cell(fields[index]) if index < len(fields) else None


def _row(line: int, slip_id: str, values: dict[str, str | None]) -> SourceRow:
    method = METHODS.get((values["方法"] or "").lower())
    if method is None:
        raise ValueError(f"方法: {values['方法']!r} must be payment, income, transfer or balance")
    setting = values["集計の設定"]
    if setting not in COUNTED_SETTINGS:
        raise ValueError(f"集計の設定: {setting!r} is not one of Zaim's settings")
    counted = setting != NOT_COUNTED_SETTING
    date = iso_date(values["日付"])
    note = memo(values["品目"], values["お店"], values["メモ"], _converted(values))
    origin = Origin(line=line, slip_id=slip_id, date=date, lines=(line,))
    shop = payee(values["お店"])
    currency = (values["通貨"] or "JPY").strip().upper()
    foreign = currency != "JPY" and bool((values["通貨変換前の金額"] or "").strip("0., "))
    in_currency = currency if foreign else None  # what 通貨変換前の金額 is in, when it says anything
    before = (values["通貨変換前の金額"] or "").strip() if foreign else None
    if method == "transfer":
        return SourceRow(
            kind="transfer",
            currency=in_currency,
            foreign_amount=before,
            amount=_positive(values, "振替"),
            account=_account(values, "支払元"),
            to_account=_account(values, "入金先"),
            payee=shop,
            memo=note,
            **origin,
        )
    if method == "balance":
        change = signed_amount(values["残高調整"], "残高調整")
        if change == 0:
            raise ValueError("残高調整: 0 adjusts nothing; there is nothing to record")
        account = values["入金先"] or values["支払元"]
        if account is None:
            raise ValueError("残高調整: names no account (入金先 or 支払元) to adjust")
        source, target = (BALANCE_ADJUSTMENT, account) if change > 0 else (account, BALANCE_ADJUSTMENT)
        return SourceRow(
            kind="transfer",
            amount=abs(change),
            account=source,
            to_account=target,
            payee=shop,
            memo=memo(BALANCE_ADJUSTMENT, note),
            counted=False,
            **origin,
        )
    payment = method == "payment"
    amount = _positive(values, "支出" if payment else "収入")
    account = _account(values, "支払元" if payment else "入金先")
    category, subcategory = values["カテゴリ"], values["カテゴリの内訳"]
    if not counted:
        source, target = (account, NOT_COUNTED) if payment else (NOT_COUNTED, account)
        where = "/".join(p for p in (category, subcategory) if p)
        return SourceRow(
            kind="transfer",
            amount=amount,
            account=source,
            to_account=target,
            payee=shop,
            memo=memo(note, where),
            counted=False,
            **origin,
        )
    return SourceRow(
        kind="expense" if payment else "income",
        amount=amount,
        account=account,
        category=category,
        subcategory=subcategory if category else None,
        memo=note,
        payee=shop,
        currency=in_currency,
        foreign_amount=before,
        **origin,
    )


def _positive(values: dict[str, str | None], name: str) -> int:
    amount = signed_amount(values[name], name)
    if amount <= 0:
        raise ValueError(f"{name}: must be a positive amount for {values['方法']}")
    return amount


def _account(values: dict[str, str | None], name: str) -> str:
    """The account a row names; `-` (or blank): the clearing account of rows without one."""
    return values[name] or NO_ACCOUNT


def _converted(values: dict[str, str | None]) -> str | None:
    """A foreign-currency row's currency and amount before conversion, for its memo."""
    currency = (values["通貨"] or "JPY").upper()
    if currency == "JPY":
        return None
    before = values["通貨変換前の金額"]
    return f"{currency} {before}" if before and before.strip("0.,") else currency
