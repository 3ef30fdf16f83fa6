"""Card and bank statements as the issuers' websites give them: the shared reading. Pure: no HTTP,
no boto3.

An issuer's module (importformats/issuers/) says how its file is recognised (its header row, the
preamble lines some have) and what each row is; this module has what they share:
- `records`: the file's physical records, blank lines included (they are skipped and reported), a
  CSV error (a quote left open: a file cut mid-row) ending the reading with a row error on its line;
- `Cells`: one row's cells found by their column's name (NFKC, no spaces or quotes), never by
  position, with amounts and dates read as the issuers write them (CP932's `\\` for ¥, full-width
  digits, `1,234円`, `△500`, `2026/1/5`, `20260105`, `2026年1月5日`, `R08.01.05`, `1月5日`);
- `Entry` (a row that is a slip), `Skipped` (a line that is none: blank, preamble, section heading,
  note, total, the card's own payment) and `Statement`, what an issuer's reader returns;
- `file_rows`: a statement as the importer's rows on one account, each with its identity.

Identity (§26): a row with the issuer's own id (ゆうちょ's 入出金明細ＩＤ, PayPay銀行's 取引順番号) is
that id; any other row is its date, its payee and the issuer's fields that tell one use from
another (an installment's number, the balance after an IC card's ride), plus its rank among the
rows sharing those, by amount (then by line): the same row read again, from any download that
has its day, is the same slip, and two identical purchases on one day stay two. The amount is not
part of it, so a pending charge that settles at another amount is the same slip, `changed`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Literal

from pydantic import ValidationError

from kakeibo.csvio import CsvFile, Row, RowError, describe
from kakeibo.importformats.source import identity, memo, payee
from kakeibo.models.base import MAX_AMOUNT, parse_date
from kakeibo.models.slips import ImportRow

AccountKind = Literal["card", "bank", "ic"]
SkipReason = Literal["blank", "preamble", "header", "section", "note", "total", "payment", "zero"]
EntryKind = Literal["expense", "income"]
SOURCE = "st"  # identities of statement rows: "S" + 26 (source.PREFIXES)


@dataclass(frozen=True, slots=True)
class Record:
    line: int  # the physical line the record starts on (1-based)
    cells: tuple[str, ...]

    @property
    def blank(self) -> bool:
        return not any(c.strip() for c in self.cells)

    def text(self, limit: int = 60) -> str:
        """The record's non-blank cells, joined: how a skipped line is shown."""
        return " ".join(c.strip() for c in self.cells if c.strip())[:limit]


@dataclass(frozen=True, slots=True)
class Entry:
    """A row that is a slip on the statement's account."""

    line: int
    date: str  # YYYY-MM-DD (a card row: its 利用日)
    amount: int  # > 0, in yen
    kind: EntryKind  # card: expense, a refund income; bank: 出金 expense, 入金 income; IC card: ride, charge
    payee: str | None  # the 利用店名 / 摘要 as the file writes it
    memo: str | None = None
    key: tuple[str, ...] = ()  # the issuer's fields telling this use from another of the same day and payee
    external_id: str | None = None  # the issuer's own id of the row
    refund: bool = False
    local_amount: str | None = None  # a foreign-currency row's amount as charged there ("USD 9.99")
    texts: tuple[str, ...] = ()  # every text of the row a card company's name may be in (banks)

    @property
    def signed(self) -> int:
        """The row's effect on what the card owes (a charge +, a refund -), on what the bank holds (in +)."""
        return self.amount if self.kind == "expense" else -self.amount


@dataclass(frozen=True, slots=True)
class Skipped:
    line: int
    reason: SkipReason
    text: str


@dataclass
class Statement:
    format: str  # the issuer family (its rows' identities are the family's, whatever the layout's version)
    layout: str  # the version of the issuer's layout the file is in
    kind: AccountKind
    sha256: str = ""
    encoding: str = "utf-8"
    entries: list[Entry] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    stated_total: int | None = None  # what the issuer says the statement comes to (a card's 今回お支払金額)
    payment_date: str | None = None  # the statement's payment date, when the file says it
    payment_month: str | None = None  # YYYY-MM of the statement's payment, when that is all it says

    @property
    def rows(self) -> int:
        """Slips the file describes, refused ones included."""
        return len(self.entries) + len(self.errors)

    def skip(self, record: Record, reason: SkipReason) -> None:
        self.skipped.append(Skipped(record.line, reason, record.text()))

    def add(self, record: Record, read: Callable[[], Entry | SkipReason | None]) -> None:
        """The outcome of reading one row: an entry, a skipped line, or the row's error."""
        try:
            got = read()
        except ValueError as exc:
            self.errors.append(RowError(record.line, str(exc)))
            return
        if isinstance(got, Entry):
            self.entries.append(got)
        elif got is not None:
            self.skip(record, got)

    def amend_last(self, **changes: str | None) -> bool:
        """Add to the entry read last (a note line that belongs to it: 楽天's 現地利用額 line)."""
        if not self.entries:
            return False
        last = self.entries[-1]
        self.entries[-1] = replace(last, **changes)  # type: ignore[arg-type]
        return True


@dataclass(frozen=True)
class Context:
    """What a reader may need beyond the file: today's date (JA Bank's dates have no year)."""

    today: dt.date


Reader = Callable[[Sequence["Record"], Context], Statement]


@dataclass(frozen=True)
class Layout:
    """One version of an issuer's file: how it is recognised and read."""

    id: str  # the version ("2023", "confirmed")
    header: str  # the header (or, headerless, the first) line as the issuer writes it
    source: str  # the public source its layout was taken from
    encoding: str  # as the issuer writes the file
    clues: tuple[str, ...]  # column names (as compared) that make a file look like this layout
    recognise: Callable[[Sequence[Record]], bool]
    read: Reader
    preamble: str | None = None  # what comes before the header, described
    delimiter: str = ","


@dataclass(frozen=True)
class Format:
    """An issuer's statement download, in every layout version still in use."""

    id: str  # the issuer family: its rows' identities are the family's, whatever the version
    name: str  # in Japanese, as the issuer names its download
    name_en: str
    kind: AccountKind
    layouts: tuple[Layout, ...]
    notes: str = ""  # what the rows become, where it is not the obvious


# ---- records ---------------------------------------------------------------------------------------


def records(text: str, delimiter: str = ",") -> tuple[list[Record], RowError | None]:
    """Every record of `text` (blank ones too), and the error that stopped the reading, if one did:
    a quote left open (the file is cut inside a quoted cell) or text after a closing quote."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    out: list[Record] = []
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return out, None
        except csv.Error:
            return out, RowError(start, CUT_QUOTE)
        out.append(Record(start, tuple(cells)))
        start = reader.line_num + 1


CUT_QUOTE = "a quoted cell is not closed: the file is cut or damaged from this line on; download it again"
MID_BOM = (
    "this line holds a byte-order mark (U+FEFF) in the middle of the file: two files were joined; download it again"
)


def delimiter_of(text: str) -> str:
    """`\\t` for a tab-separated file (SBI新生銀行's older download), else `,`."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    return "\t" if "\t" in first and "," not in first else ","


def column_key(value: str) -> str:
    """A header cell as compared: NFKC (full-width brackets, ＩＤ, ￥), no BOM, quotes or spaces."""
    return re.sub(r"\s", "", unicodedata.normalize("NFKC", value).replace("\ufeff", "")).strip('"')


def header_columns(record: Record) -> dict[str, int]:
    """Column name -> position; a name written twice (SFCard Viewer's 定期, 鉄道会社名) is also
    `name#2` at its second position."""
    columns: dict[str, int] = {}
    for position, raw in enumerate(record.cells):
        name = column_key(raw)
        if not name:
            continue
        if name in columns:
            count = 2
            while f"{name}#{count}" in columns:
                count += 1
            name = f"{name}#{count}"
        columns[name] = position
    return columns


def resolve(columns: Mapping[str, int], spec: str) -> str | None:
    """The column a spec names: the name itself, else (a spec ending in `*`) the first column whose
    name starts with it (エポス's `ご利用金額(キャッシングでは元金になります)` is `ご利用金額*`)."""
    if not spec.endswith("*"):
        return spec if spec in columns else None
    stem = spec[:-1]
    return next((name for name in columns if name.startswith(stem) and "#" not in name), None)


def has_columns(record: Record, specs: Sequence[str | tuple[str, ...]]) -> bool:
    """Whether the record is a header with every spec (a tuple: one of them) among its columns."""
    columns = header_columns(record)
    return all(any(resolve(columns, one) for one in (spec if isinstance(spec, tuple) else (spec,))) for spec in specs)


def find_header(found: Sequence[Record], specs: Sequence[str | tuple[str, ...]], *, within: int = 40) -> int | None:
    """The index of the first record (of the first `within`) that is a header with every spec."""
    for index, record in enumerate(found[:within]):
        if not record.blank and has_columns(record, specs):
            return index
    return None


def column_names(found: Sequence[Record], within: int = 40) -> set[str]:
    """Every column-like name in the first records: what a file resembling a layout has of its header."""
    return {column_key(c) for record in found[:within] for c in record.cells if column_key(c)}


class Cells:
    """One row's cells by their column's name. A row shorter than the header lacks the last cells:
    a required one then says the row ends before it (the file may be cut)."""

    def __init__(self, record: Record, columns: Mapping[str, int]) -> None:
        self.record = record
        self.columns = columns

    def name(self, spec: str) -> str | None:
        return resolve(self.columns, spec)

    def has(self, spec: str) -> bool:
        return self.name(spec) is not None

    def raw(self, spec: str) -> str | None:
        """The cell as written (None: no such column, or the row ends before it)."""
        name = self.name(spec)
        if name is None:
            return None
        position = self.columns[name]
        return self.record.cells[position] if position < len(self.record.cells) else None

    def text(self, spec: str) -> str | None:
        """The cell's text: NFC, trimmed (full-width spaces too); blank and placeholders (`-`) are None."""
        return clean(self.raw(spec))

    def required(self, spec: str) -> str:
        """A cell the row must have; ValueError naming the column when the row ends before it."""
        value = self.raw(spec)
        if value is None:
            raise ValueError(f"{shown(self.name(spec) or spec)}: {ENDS_BEFORE}")
        return value

    def amount(self, spec: str) -> int | None:
        """The cell as yen (None: blank); a ValueError naming the column when the row ends before it
        (an amount is never a row's optional tail: the file is cut there)."""
        name = shown(self.name(spec) or spec)
        if self.name(spec) is not None and self.raw(spec) is None:
            raise ValueError(f"{name}: {ENDS_BEFORE}")
        return yen(self.raw(spec), name)

    def date(self, spec: str, *, year_for: Callable[[int, int], int] | None = None) -> str:
        return iso_date(self.required(spec), shown(self.name(spec) or spec), year_for=year_for)


ENDS_BEFORE = "the row ends before this column: the file may be cut here"


def shown(name: str) -> str:
    """A column's name as a message shows it (the second of two columns of one name: `name (2)`)."""
    base, _, count = name.partition("#")
    return f"{base} ({count})" if count else base


_PLACEHOLDERS = {"", "-", "－", "−", "ー", "―"}


def clean(value: str | None) -> str | None:
    """A cell's text: NFC, trimmed of spaces and full-width spaces; blank and `-` are None."""
    if value is None:
        return None
    text = unicodedata.normalize("NFC", value).strip().strip("\u3000").strip()
    return None if text in _PLACEHOLDERS else text


# ---- amounts ---------------------------------------------------------------------------------------

_YEN = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)$")
_MINUS = ("-", "△", "▲", "\u2212")


def yen(value: str | None, name: str) -> int | None:
    """An amount as the issuers write it -> yen: `1,234`, `１２３４`, `¥1,234`, `\\1,234` (CP932's ¥),
    `1,234円`, `-500`, `△500` / `▲500` (negative); blank or `-` is None; anything else (a fraction,
    letters) a ValueError naming the column."""
    text = clean(value)
    if text is None:
        return None
    plain = unicodedata.normalize("NFKC", text).replace(" ", "")
    negative = plain[:1] in _MINUS
    plain = plain[1:] if negative or plain[:1] == "+" else plain
    plain = plain.removeprefix("¥").removeprefix("\\").removesuffix("円")
    if not negative and plain[:1] in _MINUS:  # written ¥-500
        negative, plain = True, plain[1:]
    if not _YEN.match(plain):
        raise ValueError(f"{name}: {text!r} is not a whole number of yen")
    amount = int(plain.replace(",", ""))
    if amount > MAX_AMOUNT:
        raise ValueError(f"{name}: must be at most {MAX_AMOUNT}")
    return -amount if negative else amount


# ---- dates -----------------------------------------------------------------------------------------

_ERAS = {"R": 2018, "令和": 2018, "H": 1988, "平成": 1988, "S": 1925, "昭和": 1925}
_YMD = re.compile(r"^(\d{4})[/\-.](\d{1,2})[/\-.](\d{1,2})$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_KANJI = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})日$")
_ERA = re.compile(r"^(R|H|S|令和|平成|昭和)(\d{1,2}|元)[.年/](\d{1,2})[.月/](\d{1,2})日?$")
_MONTH_DAY = re.compile(r"^(\d{1,2})(?:月|/)(\d{1,2})日?$")


def iso_date(value: str, name: str, *, year_for: Callable[[int, int], int] | None = None) -> str:
    """A date as the issuers write it -> YYYY-MM-DD: `2026/1/5`, `2026-01-05`, `20260105`,
    `2026年1月5日`, `R08.01.05` / `H30.01.15` / `令和8年1月5日`, and, where the layout has no year
    (`year_for` gives it), `1月5日` / `1/5`. A time after the date (`2026/01/05 12:30`) is ignored."""
    text = unicodedata.normalize("NFKC", clean(value) or "").replace(" ", "")
    text = re.sub(r"(\d)(\d{1,2}:\d{2}(:\d{2})?)$", r"\1", text)
    found = _YMD.match(text) or _COMPACT.match(text) or _KANJI.match(text)
    if found:
        year, month, day = (int(g) for g in found.groups())
    elif era := _ERA.match(text):
        number = 1 if era.group(2) == "元" else int(era.group(2))
        year, month, day = _ERAS[era.group(1)] + number, int(era.group(3)), int(era.group(4))
    elif (short := _MONTH_DAY.match(text)) and year_for is not None:
        month, day = int(short.group(1)), int(short.group(2))
        year = year_for(month, day)
    else:
        raise ValueError(f"{name}: {clean(value)!r} is not a date")
    iso = f"{year:04d}-{month:02d}-{day:02d}"
    try:
        parse_date(iso)
    except ValueError:
        raise ValueError(f"{name}: {clean(value)!r} is not a real date") from None
    return iso


def latest_year(today: dt.date) -> Callable[[int, int], int]:
    """For dates written without a year: the latest year in which month/day is not after today."""

    def year_for(month: int, day: int) -> int:
        year = today.year
        try:
            return year if dt.date(year, month, day) <= today else year - 1
        except ValueError:  # 29 February of a year that has none: the last year that had one before
            year -= 1
            while not _leap(year):
                year -= 1
            return year

    return year_for


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def looks_like_date(value: str | None) -> bool:
    """Whether a cell reads as a date (with a year): what tells a data row from a note or total."""
    try:
        iso_date(value or "", "date")
    except ValueError:
        return False
    return True


# ---- installments, refunds, foreign currency ---------------------------------------------------------

_SPLIT = re.compile(r"分割|リボ|ボーナス|(?<![0-9])0*(?:[2-9]|[1-9][0-9])回")


def is_installment(method: str | None) -> bool:
    """Whether a 支払方法 / 支払区分 is paid over months (分割, リボ, ボーナス, 3回払い...), not at once."""
    text = unicodedata.normalize("NFKC", method or "")
    return bool(_SPLIT.search(text)) and not re.search(r"(?<![0-9])0*1回", text)


def installments(text: str | None) -> int:
    """A count of payments as written (`3`, `３`, `03`); 0 when it is none."""
    digits = unicodedata.normalize("NFKC", text or "").strip().removesuffix("回")
    return int(digits) if digits.isdigit() else 0


def charge(
    line: int,
    date: str,
    amount: int | None,
    payee_text: str | None,
    *,
    name: str,
    refund: bool = False,
    memo_text: str | None = None,
    key: tuple[str, ...] = (),
    local_amount: str | None = None,
) -> Entry | SkipReason:
    """A card row: a charge (an expense of the card), or a refund (income) when it is one or its
    amount is negative; a row of 0 yen is skipped (`zero`)."""
    if amount is None:
        raise ValueError(f"{name}: is required (the amount the card was charged)")
    if amount == 0:
        return "zero"
    back = refund or amount < 0
    return Entry(
        line=line,
        date=date,
        amount=abs(amount),
        kind="income" if back else "expense",
        payee=payee(payee_text),
        memo=memo(memo_text, f"現地通貨 {local_amount}" if local_amount else None),
        key=("refund" if back else "charge", *key),
        refund=back,
        local_amount=local_amount,
    )


def movement(
    line: int,
    date: str,
    out: int | None,
    into: int | None,
    payee_text: str | None,
    *,
    names: tuple[str, str],
    memo_text: str | None = None,
    key: tuple[str, ...] = (),
    external_id: str | None = None,
    texts: tuple[str | None, ...] = (),
) -> Entry | SkipReason:
    """A bank row from its 出金 and 入金 cells (one of them filled; a signed one in `out` = -in):
    出金 an expense, 入金 income."""
    if (out or 0) and (into or 0):
        raise ValueError(f"{names[0]}, {names[1]}: a row moves money one way: it has both")
    if not out and not into:
        if out is None and into is None:
            raise ValueError(f"{names[0]}, {names[1]}: the row has no amount")
        return "zero"
    amount = out if out else -(into or 0)
    kind: EntryKind = "expense" if amount > 0 else "income"
    return Entry(
        line=line,
        date=date,
        amount=abs(amount),
        kind=kind,
        payee=payee(payee_text),
        memo=memo(memo_text),
        key=(kind, *key),
        external_id=external_id,
        texts=tuple(t for t in (payee_text, *texts) if t),
    )


# ---- the importer's rows ----------------------------------------------------------------------------


def norm(text: str | None) -> str:
    """Text as an identity compares it: NFKC, case folded, without spaces."""
    return re.sub(r"\s", "", unicodedata.normalize("NFKC", text or "").casefold())


def identities(statement: Statement, account: str) -> list[str]:
    """Each entry's slip id (see the module's doc), in the entries' order."""
    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for index, entry in enumerate(statement.entries):
        if entry.external_id is None:
            groups[(entry.date, norm(entry.payee), *entry.key)].append(index)
    ids: list[str] = [""] * len(statement.entries)
    for key, members in groups.items():
        ordered = sorted(members, key=lambda i: (statement.entries[i].amount, statement.entries[i].line))
        for rank, index in enumerate(ordered, start=1):
            ids[index] = identity(SOURCE, statement.format, account, *key, str(rank))
    for index, entry in enumerate(statement.entries):
        if entry.external_id is not None:
            ids[index] = identity(SOURCE, statement.format, account, "id", entry.external_id)
    return ids


def file_rows(statement: Statement, account: str) -> CsvFile:
    """The statement's entries as the importer's rows on `account`: payee and imported_payee the
    file's text, no category (the ledger's rules give one, §18)."""
    out = CsvFile(statement.sha256, statement.encoding, rows=statement.rows, errors=list(statement.errors))
    seen: dict[str, int] = {}
    for entry, slip_id in zip(statement.entries, identities(statement, account), strict=True):
        if slip_id in seen:  # only an issuer's own id can repeat (a file edited by hand, or two joined)
            out.errors.append(RowError(entry.line, f"the issuer's id of this row repeats line {seen[slip_id]}'s"))
            continue
        seen[slip_id] = entry.line
        body = {
            "date": entry.date,
            "kind": entry.kind,
            "amount": entry.amount,
            "account": account,
            "payee": entry.payee,
            "imported_payee": entry.payee,
            "memo": entry.memo,
        }
        try:
            slip = ImportRow.model_validate({k: v for k, v in body.items() if v is not None})
        except ValidationError as exc:
            out.errors.append(RowError(entry.line, describe(exc)))
            continue
        out.valid.append(Row(entry.line, slip_id, slip))
    return out


RowReader = Callable[["Cells", "Reading"], "Entry | SkipReason | None"]


@dataclass
class Reading:
    """A statement being read, and what a row may need of the rows before it."""

    statement: Statement
    section: str | None = None  # a heading within the rows (楽天's ■ご利用キャンセルなど, Vpass's card)
    context: Context | None = None


def read_table(
    found: Sequence[Record],
    statement: Statement,
    header: Sequence[str | tuple[str, ...]],
    row: RowReader,
    *,
    preamble: Callable[[Record, Statement], None] | None = None,
    context: Context | None = None,
) -> Statement:
    """The rows under the header (the first record with every `header` column): each row read by
    `row`; the records before the header are its preamble (each given to `preamble`, which may read
    a total or a payment date from it), skipped and reported like blank lines."""
    at = find_header(found, header)
    if at is None:  # recognised by its header, so there is one
        raise ValueError("no header")
    for record in found[:at]:
        if record.blank:
            statement.skip(record, "blank")
            continue
        if preamble is not None:
            preamble(record, statement)
        statement.skip(record, "preamble")
    statement.skip(found[at], "header")
    columns = header_columns(found[at])
    reading = Reading(statement, context=context)
    for record in found[at + 1 :]:
        if record.blank:
            statement.skip(record, "blank")
            continue
        statement.add(record, partial(row, Cells(record, columns), reading))
    return statement


def preamble_value(record: Record, label: str) -> str | None:
    """The value after `label` on a preamble line (`お支払日,2026/05/07`, `"","","今回のお支払日","2026/01/10"`)."""
    cells = list(record.cells)
    for index, cell in enumerate(cells):
        if column_key(cell).startswith(column_key(label)):
            rest = [clean(c) for c in cells[index + 1 :]]
            found = next((c for c in rest if c), None)
            if found is None:  # 現在高：,"12,345",円  or  お支払日：2026/05/07 in one cell
                tail = unicodedata.normalize("NFKC", cell).split(":", 1)
                return clean(tail[1]) if len(tail) == 2 else None
            return found
    return None


def mid_file_boms(text: str) -> Iterator[int]:
    """Lines (1-based) that hold a byte-order mark: a file joined from two downloads."""
    for number, line in enumerate(text.split("\n"), start=1):
        if "\ufeff" in line:
            yield number


# ---- encodings ---------------------------------------------------------------------------------------

_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
UTF8_LINE = "this line is in UTF-8 while the file is in Shift_JIS: two files were joined; download it again"
SJIS_LINE = "this line is in Shift_JIS while the file is in UTF-8: two files were joined; download it again"
UNREADABLE_LINE = "this line is neither UTF-8 nor Shift_JIS: the file is damaged here; download it again"


def decode_lines(data: bytes) -> tuple[str, str, dict[int, str]] | None:
    """A file that is not all of one encoding, line by line: (its text, the encoding most of its
    lines are in, line -> why that line cannot be trusted); None when it is all one encoding (or
    no line tells: then the strict decoding decides)."""
    pieces = [m.group(0) for m in _LINE.finditer(data) if m.group(0)]
    kinds: list[str] = []
    for piece in pieces:
        if piece.isascii():
            kinds.append("ascii")
            continue
        try:
            piece.decode("utf-8")
            kinds.append("utf-8")
            continue
        except UnicodeDecodeError:
            pass
        try:
            piece.decode("cp932")
            kinds.append("shift_jis")
        except UnicodeDecodeError:
            kinds.append("neither")
    utf8, sjis = kinds.count("utf-8"), kinds.count("shift_jis")
    if kinds.count("neither") == 0 and (utf8 == 0 or sjis == 0):
        return None
    main = "utf-8" if utf8 > sjis else "shift_jis"
    texts: list[str] = []
    odd: dict[int, str] = {}
    for number, (piece, kind) in enumerate(zip(pieces, kinds, strict=True), start=1):
        if kind in ("ascii", main):
            texts.append(piece.decode("utf-8" if main == "utf-8" else "cp932"))
            continue
        odd[number] = {"utf-8": UTF8_LINE, "shift_jis": SJIS_LINE}.get(kind, UNREADABLE_LINE)
        texts.append(piece.decode("utf-8" if kind == "utf-8" else "cp932", errors="replace"))
    return "".join(texts), main, odd


def payment_month(entries: Sequence[Entry], month: int) -> str | None:
    """YYYY-MM of a payment in `month` (a file that names only the month: 楽天's `10月支払金額`): the
    first such month on or after the latest row's month."""
    if not entries or not 1 <= month <= 12:
        return None
    latest = max(e.date for e in entries)
    year, last = int(latest[:4]), int(latest[5:7])
    return f"{year if month >= last else year + 1:04d}-{month:02d}"


_MONTH_COLUMN = re.compile(r"^(\d{1,2})月(支払金額|繰越残高|以降請求額)$")


def month_column(columns: Mapping[str, int], kind: str) -> tuple[str, int] | None:
    """A column named by a month (楽天's `10月支払金額`, `11月繰越残高`): (its name, the month)."""
    for name in columns:
        found = _MONTH_COLUMN.match(name)
        if found and found.group(2) == kind:
            return name, int(found.group(1))
    return None
