"""Money Forward ME's 収入・支出詳細 export (`収入・支出詳細_YYYY-MM-DD_YYYY-MM-DD.csv`, Shift_JIS).

Columns: 計算対象,日付,内容,金額（円）,保有金融機関,大項目,中項目,メモ,振替,ID — every value quoted.
- 日付 `YYYY/MM/DD`; 金額（円） negative: money out of 保有金融機関, positive: money in.
- 振替=1: a transfer between two of the user's accounts. Money Forward writes one row per side
  (the outgoing one negative); the two sides of one transfer have the same date and opposite
  amounts, and become ONE transfer slip. A side whose partner is not in the file (an account
  Money Forward does not follow, e.g. a card not linked) becomes a transfer against the clearing
  account 振替相手（不明）, so the known account's balance is still right.
- 計算対象=0: the user told Money Forward not to count it as income or expense (a duplicate of a
  card's entry, money lent, business use...). The money still moved in that account, so the row
  is kept as a transfer against the clearing account 集計対象外: the account's balance stays
  right and the month's income, expense and category totals stay as Money Forward shows them.
- Otherwise: negative = expense, positive = income; 大項目 = category, 中項目 = subcategory.
- ID identifies the row: the slip's identity is derived from it (a pair: from its outgoing side).
  A file whose IDs repeat (edited by hand, or anonymised) can be read by content instead
  (`by_content`): a row's identity is then its columns but the ID, plus how many identical rows
  came before it in the file, as Zaim's are.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace

from kakeibo import csvio
from kakeibo.csvio import RowError
from kakeibo.importformats.source import (
    NOT_COUNTED,
    UNKNOWN_COUNTERPART,
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

FORMAT = "mf"
NAME = "Money Forward ME"
# as compared (source.column_name: NFKC turns 金額（円） into 金額(円))
COLUMNS = ("計算対象", "日付", "内容", "金額(円)", "保有金融機関", "大項目", "中項目", "メモ", "振替", "ID")
HEADER = "計算対象,日付,内容,金額（円）,保有金融機関,大項目,中項目,メモ,振替,ID"
ALIASES = {"金額": "金額(円)"}
FLAGS = {"0": False, "1": True}


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    counted: bool
    date: str
    content: str | None
    amount: int
    account: str
    category: str | None
    subcategory: str | None
    note: str | None
    transfer: bool
    id: str


def parse(text: str, sha256: str, encoding: str, *, by_content: bool = False) -> SourceFile:
    out = SourceFile(FORMAT, sha256, encoding)
    found: list[_Row] = []
    seen: dict[str, int] = {}
    occurrences: Counter[str] = Counter()
    columns: dict[str, int] | None = None
    for line, fields in csvio.records(text):
        if columns is None:
            columns = header_index(fields, COLUMNS, ALIASES, NAME, HEADER)
            continue
        try:
            row = _row(columns, line, fields)
        except ValueError as exc:
            out.errors.append(RowError(line, str(exc)))
            continue
        if by_content:
            content = "\x1f".join(str(v) for k, v in vars_of(row).items() if k not in ("line", "id"))
            occurrences[content] += 1
            row = replace(row, id=f"content:{content}\x1f{occurrences[content]}")
        elif row.id in seen:
            out.repeated_ids += 1
            out.errors.append(RowError(line, f"ID {row.id!r} repeats line {seen[row.id]}"))
            continue
        seen[row.id] = line
        found.append(row)
    out.rows = _slips(found, by_content=by_content)
    return out


def vars_of(row: _Row) -> dict[str, object]:
    return {name: getattr(row, name) for name in row.__slots__}


def _row(columns: dict[str, int], line: int, fields: list[str]) -> _Row:
    def get(name: str) -> str | None:
        index = columns[name]
        return cell(fields[index]) if index < len(fields) else None

    values = {name: get(name) for name in COLUMNS}
    flags = {}
    for name in ("計算対象", "振替"):
        flag = FLAGS.get(values[name] or "0")
        if flag is None:
            raise ValueError(f"{name}: {values[name]!r} must be 0 or 1")
        flags[name] = flag
    amount = signed_amount(values["金額(円)"], "金額（円）")
    if amount == 0:
        raise ValueError("金額（円）: 0 moves no money; there is nothing to record")
    account = values["保有金融機関"]
    if account is None:
        raise ValueError("保有金融機関: is required (the account the money moved in)")
    row_id = values["ID"]
    if row_id is None:
        raise ValueError("ID: is required (it identifies the row across downloads)")
    return _Row(
        line=line,
        counted=flags["計算対象"],
        date=iso_date(values["日付"]),
        content=values["内容"],
        amount=amount,
        account=account,
        category=values["大項目"],
        subcategory=values["中項目"],
        note=values["メモ"],
        transfer=flags["振替"],
        id=row_id,
    )


def _slips(rows: list[_Row], *, by_content: bool) -> list[SourceRow]:
    """One slip per row, except the two sides of a transfer: one slip per pair. Read by content, a
    row has no app id to keep (`external_id`)."""
    partner = _pairs(rows)
    out = []
    for row in rows:
        if row.transfer and row.line in partner:
            other = partner[row.line]
            if row.amount < 0:
                out.append(_pair(row, other))
            continue
        out.append(_single(row))
    if by_content:
        out = [replace(row, external_id=None) for row in out]
    return out


def _pairs(rows: list[_Row]) -> dict[int, _Row]:
    """Line -> the other side of its transfer: same date, opposite amounts, another account; in
    file order, each outgoing side takes the first incoming side left."""
    incoming: dict[tuple[str, int], list[_Row]] = defaultdict(list)
    for row in rows:
        if row.transfer and row.amount > 0:
            incoming[(row.date, row.amount)].append(row)
    partner: dict[int, _Row] = {}
    for row in rows:
        if not (row.transfer and row.amount < 0):
            continue
        candidates = incoming[(row.date, -row.amount)]
        match = next((c for c in candidates if c.account != row.account), None)
        if match is not None:
            candidates.remove(match)
            partner[row.line], partner[match.line] = match, row
    return partner


def _pair(out: _Row, into: _Row) -> SourceRow:
    return SourceRow(
        line=out.line,
        slip_id=identity(FORMAT, out.id),
        date=out.date,
        kind="transfer",
        amount=-out.amount,
        account=out.account,
        to_account=into.account,
        memo=memo(out.content, out.note),
        payee=payee(out.content),
        external_id=out.id,
        lines=tuple(sorted((out.line, into.line))),
    )


def _single(row: _Row) -> SourceRow:
    origin = Origin(
        line=row.line, slip_id=identity(FORMAT, row.id), date=row.date, lines=(row.line,), external_id=row.id
    )
    if row.transfer or not row.counted:
        counterpart = UNKNOWN_COUNTERPART if row.transfer else NOT_COUNTED
        source, target = (row.account, counterpart) if row.amount < 0 else (counterpart, row.account)
        where = "/".join(p for p in (row.category, row.subcategory) if p) if not row.transfer else None
        return SourceRow(
            kind="transfer",
            amount=abs(row.amount),
            account=source,
            to_account=target,
            memo=memo(row.content, row.note, where),
            payee=payee(row.content),
            counted=row.transfer,
            **origin,
        )
    return SourceRow(
        kind="expense" if row.amount < 0 else "income",
        amount=abs(row.amount),
        account=row.account,
        category=row.category,
        subcategory=row.subcategory if row.category else None,
        memo=memo(row.content, row.note),
        payee=payee(row.content),
        **origin,
    )
