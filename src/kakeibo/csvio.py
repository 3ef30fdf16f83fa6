"""CSV files of slips, both ways. Pure: no HTTP, no boto3.

Reading: the bytes are decoded (UTF-8 with or without BOM, or Shift_JIS / CP932, as Japanese banks
export, named by the charset parameter or detected), line endings normalised, and each row is
validated with `models.ImportRow`, which is `models.SlipIn` (the POST /slips body) plus
`external_id`, so the rules cannot diverge. Rows that fail become `RowError`s with their line.

Each row gets a slip id that is the same every time the same row is read again, which is what
makes imports exactly-once: a hash of its `external_id` in the import's own namespace (a generated
slip id, as exports write it, is kept), and for rows without one the file's content hash and the
row's line (see `slip_id_for`). A row whose external_id is itself a slip id also carries it as
`legacy_id`: the importer counts the row as imported when that slip exists (an export, whose
external_id is the slip id, re-imports onto the very same slips), but never creates a slip under it.

Writing: the same header and columns, external_id = slip id, and subcategory last when some
slip of the page has one (it is optional in the header both ways).

Formulas: a spreadsheet opening an export runs a cell that starts with = + - @, TAB or CR as a
formula, so a category `=HYPERLINK(...)` planted by one member would run on another's machine.
Such a cell is written with a leading single quote (OWASP's rule), and so is a cell that starts
with a quote followed by one of those characters or by another quote; reading removes exactly
that one quote again. Writing and reading are inverse for every text, so export -> import is
exact, and a hand-made cell such as `'76` or `-割引後` reads as it is.
"""

from __future__ import annotations

import base64
import codecs
import csv
import hashlib
import io
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from kakeibo import errors, messages
from kakeibo.models.slips import ImportRow

COLUMNS = ("date", "kind", "amount", "account", "to_account", "category", "memo")
EXTERNAL_ID = "external_id"
SUBCATEGORY = "subcategory"
LINE, SLIP_MEMO = "line", "slip_memo"  # a split slip: one row per line, numbered, sharing external_id
EXPORT_COLUMNS = (*COLUMNS, EXTERNAL_ID)
# A slip's medical payment (a split slip's: its line's) and its ふるさと納税 donation, one column per
# field; written last when some slip of the page has one, read back into `medical` / `donation`.
MEDICAL_COLUMNS = ("medical_patient", "medical_provider", "medical_kind", "medical_reimbursed", "medical_otc")
DONATION_COLUMNS = ("donation_municipality", "donation_one_stop")
TAX_COLUMNS = (*MEDICAL_COLUMNS, *DONATION_COLUMNS)
_FLAGS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
PAYEES = ("payee", "imported_payee")  # written last when some slip of the page has one
# accounts in other units: a foreign slip's yen, what a transfer between units brought (written when
# some slip of the page has one, before the sides' states)
UNIT_COLUMNS = ("jpy_amount", "to_amount")
# Each side's state (§17): `cleared` for `account`, `to_cleared` for a transfer's `to_account` (blank
# for other kinds); always written last, so that a bank's uncleared slip stays uncleared in the
# ledger its export is imported into. Read back, reconciled is cleared (only a reconciliation of the
# ledger it is in makes a slip reconciled), and a blank cell (or no column) is unsaid.
CLEARED_COLUMNS = ("cleared", "to_cleared")
# A slip's tags in one cell, separated by ';' (no tag holds one): written when some slip of the page has
# tags, before the sides' states; a split slip's on each of its rows.
TAGS, TAG_SEPARATOR = "tags", ";"
OPTIONAL_COLUMNS = (
    EXTERNAL_ID, SUBCATEGORY, LINE, SLIP_MEMO, *TAX_COLUMNS, *PAYEES, *UNIT_COLUMNS, TAGS, *CLEARED_COLUMNS,
)  # fmt: skip

UTF8, SHIFT_JIS = "utf-8", "shift_jis"
# Shift_JIS as Windows and Japanese banks write it is CP932 (a superset: NEC/IBM extensions such
# as ① and ㈱, and its own mapping of ～), so every Shift_JIS name is decoded as CP932.
_CODECS = {"utf-8": UTF8, "utf-8-sig": UTF8, "ascii": UTF8, "shift_jis": SHIFT_JIS, "cp932": SHIFT_JIS}
_PYTHON_CODEC = {UTF8: "utf-8-sig", SHIFT_JIS: "cp932"}
_AMOUNT_RE = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)$", re.ASCII)
_SLIP_ID_RE = re.compile(r"^[A-Za-z0-9]{1,64}$", re.ASCII)
_ULID_RE = re.compile(r"^0[0-9A-HJKMNP-TV-Z]{25}$", re.ASCII)  # services.slips.new_slip_id's ids
FORMULA_STARTS = frozenset("=+-@\t\r")
_QUOTE = "'"


@dataclass(frozen=True, slots=True)
class Row:
    line: int  # physical line where the row starts (the header is line 1)
    slip_id: str
    slip: ImportRow
    # False: the source app did not count it as income or expense (Money Forward's 計算対象=0,
    # Zaim's 集計に含めない); it is imported as a transfer against a clearing account instead
    counted: bool = True
    # another id the same row may already exist under: only looked up, never created (legacy_slip_id)
    legacy_id: str | None = None


@dataclass(frozen=True, slots=True, order=True)
class RowError:
    line: int
    message: str


@dataclass
class CsvFile:
    sha256: str  # of the decoded, normalised text: the same rows in UTF-8 or Shift_JIS are one file
    encoding: str
    rows: int = 0  # each created, skipped or refused once: the rows of one split slip count as one
    valid: list[Row] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)


def charset_of(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type header, if any."""
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').strip() or None
    return None


def encoding_for(charset: str) -> str:
    """UTF8 or SHIFT_JIS for a charset name; 415 for any other."""
    try:
        name = codecs.lookup(charset).name
    except LookupError:
        name = charset.lower()
    if name in _CODECS:
        return _CODECS[name]
    raise errors.UnsupportedMediaType(
        f"charset {charset!r} is not supported; send utf-8 or shift_jis", accepted=["utf-8", "shift_jis"]
    )


def decode(data: bytes, charset: str | None = None) -> tuple[str, str]:
    """(text, encoding): as declared, else UTF-8 (BOM or not), else Shift_JIS (CP932)."""
    if charset is not None:
        encoding = encoding_for(charset)
        try:
            return data.decode(_PYTHON_CODEC[encoding]), encoding
        except UnicodeDecodeError as exc:
            raise errors.BadRequest(
                f"the file is not valid {charset} (byte {exc.start}); check the charset parameter"
            ) from None
    for encoding in (UTF8, SHIFT_JIS):
        try:
            return data.decode(_PYTHON_CODEC[encoding]), encoding
        except UnicodeDecodeError:
            continue
    raise errors.BadRequest("the file is neither UTF-8 nor Shift_JIS; save it as UTF-8 and retry")


def normalise(text: str) -> str:
    """No BOM, LF line endings, no trailing blank lines: what the content hash is taken over."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text.rstrip("\n")


def parse(data: bytes, charset: str | None = None) -> CsvFile:
    """Decode and validate a whole file. Problems with the file itself (encoding, header, CSV
    syntax) raise; problems with single rows are collected with their line numbers."""
    raw, encoding = decode(data, charset)
    return parse_text(normalise(raw), encoding)


def content_hash(text: str) -> str:
    """The import id of a file: sha256 of its normalised text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_text(text: str, encoding: str) -> CsvFile:
    """`parse` of text already decoded and normalised."""
    parsed = CsvFile(content_hash(text), encoding)
    seen: dict[str, int] = {}
    split_rows: list[tuple[int, ImportRow]] = []
    columns: tuple[str, ...] | None = None
    for line, fields in records(text):
        if columns is None:
            columns = _header(fields)
            continue
        parsed.rows += 1
        try:
            row = _row(columns, fields)
        except ValueError as exc:
            parsed.errors.append(RowError(line, str(exc)))
            continue
        if row.line is not None:
            split_rows.append((line, row))
            continue
        slip_id = slip_id_for(parsed.sha256, line, row.external_id)
        if slip_id in seen:
            parsed.errors.append(RowError(line, f"external_id {row.external_id!r} repeats line {seen[slip_id]}"))
            continue
        seen[slip_id] = line
        parsed.valid.append(Row(line, slip_id, row, legacy_id=legacy_slip_id(row.external_id)))
    if columns is None:
        raise errors.ValidationFailed(
            "the file is empty: the first line must be the header " + ",".join(COLUMNS),
            errors=[{"loc": ["body", "header"], "msg": "missing"}],
        )
    grouped = Counter(row.external_id for _, row in split_rows if row.external_id is not None)
    parsed.rows -= sum(n - 1 for n in grouped.values())  # a split's rows are one slip: one outcome
    for row_or_error in _join_lines(parsed.sha256, split_rows):
        if isinstance(row_or_error, RowError):
            parsed.errors.append(row_or_error)
        elif row_or_error.slip_id in seen:
            parsed.errors.append(RowError(row_or_error.line, "external_id repeats another row's"))
        else:
            seen[row_or_error.slip_id] = row_or_error.line
            parsed.valid.append(row_or_error)
    parsed.valid.sort(key=lambda r: r.line)
    return parsed


def _join_lines(file_sha256: str, rows: list[tuple[int, ImportRow]]) -> Iterator[Row | RowError]:
    """The rows of split slips (a `line` number each) joined into their slips, by external_id."""
    groups: dict[str, list[tuple[int, ImportRow]]] = {}
    for line, row in rows:
        if row.external_id is None:
            yield RowError(line, "line: a split slip's rows need the slip's external_id")
            continue
        groups.setdefault(row.external_id, []).append((line, row))
    for external_id, members in groups.items():
        first_line, first = members[0]
        shared = {(r.date, r.kind, r.account, r.to_account, r.slip_memo, r.donation, r.cleared) for _, r in members}
        numbers = sorted(r.line or 0 for _, r in members)
        if len(shared) != 1:
            yield RowError(
                first_line,
                "line: the rows of one split slip must share date, kind, account, slip_memo, donation and cleared",
            )
            continue
        if numbers != list(range(1, len(members) + 1)):
            yield RowError(first_line, "line: a split slip's lines are numbered 1, 2, 3... once each")
            continue
        ordered = sorted(members, key=lambda m: m[1].line or 0)
        lines = [
            {
                k: v
                for k, v in {
                    "amount": r.amount,
                    "category": r.category or "",
                    "subcategory": r.subcategory,
                    "memo": r.memo,
                    "medical": r.medical.model_dump() if r.medical else None,
                }.items()
                if v is not None
            }
            for _, r in ordered
        ]
        donation = first.donation.model_dump() if first.donation else None
        body = {"date": first.date, "kind": first.kind, "account": first.account, "external_id": external_id,
                "amount": sum(r.amount for _, r in members), "memo": first.slip_memo, "lines": lines,
                "donation": donation, "payee": first.payee, "imported_payee": first.imported_payee,
                "cleared": first.cleared, "tags": first.tags}  # fmt: skip
        try:
            slip = ImportRow.model_validate({k: v for k, v in body.items() if v is not None})
        except ValidationError as exc:
            yield RowError(first_line, describe(exc))
            continue
        yield Row(
            first_line, slip_id_for(file_sha256, first_line, external_id), slip, legacy_id=legacy_slip_id(external_id)
        )


def records(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line where the record starts, fields), skipping blank lines. RFC 4180: a quoted field may
    hold commas, quotes (doubled) and line breaks, so a memo with a newline and a date in it reads
    back as it was written."""
    # strict: a quote left open to the end of the file, or text right after a closing quote, is an
    # error, not one huge last field
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise errors.BadRequest(f"line {start}: the CSV is malformed ({exc})") from None
        if fields and any(f.strip() for f in fields):
            yield start, fields
        start = reader.line_num + 1


def _header(fields: list[str]) -> tuple[str, ...]:
    names = tuple(unicodedata.normalize("NFKC", f).strip().lower() for f in fields)
    while names and not names[-1]:  # trailing empty cells, as spreadsheets write them
        names = names[:-1]
    allowed = {*COLUMNS, *OPTIONAL_COLUMNS}
    problems = []
    if missing := [c for c in COLUMNS if c not in names]:
        problems.append("missing " + ", ".join(missing))
    if unknown := [c for c in names if c not in allowed]:
        problems.append("unknown " + ", ".join(repr(c) for c in unknown))
    if len(set(names)) != len(names):
        problems.append("repeated columns")
    if problems:
        expected = ",".join(COLUMNS) + "".join(f"[,{c}]" for c in OPTIONAL_COLUMNS)
        raise errors.ValidationFailed(
            f"line 1 must be the header {expected}: " + "; ".join(problems),
            errors=[{"loc": ["body", "header"], "msg": "; ".join(problems)}],
        )
    return names


def _row(columns: tuple[str, ...], fields: list[str]) -> ImportRow:
    if len(fields) > len(columns) and not any(f.strip() for f in fields[len(columns) :]):
        fields = fields[: len(columns)]
    if len(fields) != len(columns):
        raise ValueError(f"expected {len(columns)} fields, found {len(fields)}")
    values: dict[str, Any] = {}
    for name, raw in zip(columns, fields, strict=True):
        value = unquote_cell(raw.strip())
        if value:
            values[name] = value
    if "amount" in values:
        values["amount"] = _amount(values["amount"])
    for name in UNIT_COLUMNS:
        if name in values:
            values[name] = _amount(values[name], name)
    if TAGS in values:
        values[TAGS] = [tag for tag in values[TAGS].split(TAG_SEPARATOR) if tag.strip()]
    if LINE in values:
        if not values[LINE].isascii() or not values[LINE].isdigit():
            raise ValueError("line: must be a whole number (1, 2, 3... within a split slip)")
        values[LINE] = int(values[LINE])
    if "kind" in values:
        values["kind"] = values["kind"].lower()
    for column in CLEARED_COLUMNS:
        if column in values:
            state = unicodedata.normalize("NFKC", values[column]).strip().lower()
            values[column] = "cleared" if state == "reconciled" else state
    _nest_tax(values)
    try:
        return ImportRow.model_validate(values)
    except ValidationError as exc:
        raise ValueError(describe(exc)) from None


def _nest_tax(values: dict[str, Any]) -> None:
    """The medical_* and donation_* cells of a row as its `medical` and `donation` (a row with none of
    them has neither); the model then checks them as a POST /slips body's."""
    for prefix, columns, nested in (
        ("medical_", MEDICAL_COLUMNS, "medical"),
        ("donation_", DONATION_COLUMNS, "donation"),
    ):
        given = {column.removeprefix(prefix): values.pop(column) for column in columns if column in values}
        if not given:
            continue
        if "reimbursed" in given:
            given["reimbursed"] = _amount(given["reimbursed"], "medical_reimbursed")
        for flag in ("otc", "one_stop"):
            if flag in given:
                given[flag] = _flag(given[flag], prefix + flag)
        values[nested] = given


def _flag(text: str, column: str) -> bool:
    got = _FLAGS.get(unicodedata.normalize("NFKC", text).strip().lower())
    if got is None:
        raise ValueError(f"{column}: must be true or false")
    return got


def _amount(text: str, column: str = "amount") -> int:
    """'1200', '1,200' or full-width digits -> 1200 (the model then checks its range)."""
    plain = unicodedata.normalize("NFKC", text).strip()
    if not _AMOUNT_RE.match(plain):
        raise ValueError(f"{column}: must be a whole number in the currency's minor unit, e.g. 1200")
    return int(plain.replace(",", ""))


def describe(exc: ValidationError) -> str:
    """A model's validation errors as one line, each worded by the message catalogue in English
    (`amount must be at least 1; ...`): stored so, and shown in the caller's language by
    messages.row_message."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False):
        item = {"loc": [str(p) for p in err["loc"]], "type": err["type"], "msg": err["msg"], "ctx": err.get("ctx")}
        parts.append(messages.field_error(item, "en"))
    return "; ".join(parts)


def slip_id_for(file_sha256: str, line: int, external_id: str | None) -> str:
    """The row's slip id: the same whenever the same row is imported again. ASCII alnum, <= 64.

    Each origin of an id has a space of its own, so no value a user supplies can produce an id
    another origin will derive: Idempotency-Key slips (services/slips.py) and recurring occurrences
    (core/recurrence.py) are 26 characters of RFC 4648 base32 (A-Z, 2-7), domain-separated by what they
    hash; imported rows are "U" + 26 (an external_id, hashed), "I" + 21 (file hash + line),
    "M"/"Z"/"S" + 26 (Money Forward, Zaim, card and bank statement rows); generated ids are ULIDs, 26
    Crockford characters starting with "0" (a time below 2^45 ms), a shape no hash above produces.
    An external_id used to become the slip id verbatim whenever it was a valid one, so a row could
    take a recurrence's occurrence id before it was posted (the occurrence then counted as
    posted). Now only a ULID is kept verbatim (an export's external_id: the slip keeps its id in
    the ledger it is imported into, and nothing derives ULIDs, which are random); every other
    external_id is hashed. Rows imported before keep working through `legacy_slip_id`.
    """
    if external_id is not None:
        if _ULID_RE.match(external_id):
            return external_id
        digest = hashlib.sha256(b"external_id\0" + external_id.encode("utf-8")).digest()
        return "U" + _b32(digest)[:26]
    return "I" + _b32(bytes.fromhex(file_sha256))[:13] + f"{line:08d}"


def legacy_slip_id(external_id: str | None) -> str | None:
    """The id the row had before external_ids were namespaced: the external_id itself, when it is a
    valid slip id. Backward compatibility without rewriting anything stored: the importer counts a
    row as already imported when a slip (live or deleted) has either id, and creates it only under
    `slip_id_for`'s. So a file imported before the change is not imported again, an export (whose
    external_id is the slip id) still re-imports onto its own slips, and a user-chosen value can
    at most make its own row a duplicate of an existing slip, never take an id another origin
    has yet to use."""
    if external_id is not None and _SLIP_ID_RE.match(external_id):
        return external_id
    return None


def _b32(data: bytes) -> str:
    return base64.b32encode(data).decode("ascii").rstrip("=")


# ---- writing ----------------------------------------------------------------------------------


def header_line(
    *,
    subcategory: bool = False,
    lines: bool = False,
    tax: bool = False,
    payees: bool = False,
    units: bool = False,
    tags: bool = False,
) -> str:
    columns = (*EXPORT_COLUMNS, SUBCATEGORY) if subcategory or lines else EXPORT_COLUMNS
    columns = (*columns, LINE, SLIP_MEMO) if lines else columns
    columns = (*columns, *TAX_COLUMNS) if tax else columns
    columns = (*columns, *PAYEES) if payees else columns
    columns = (*columns, *UNIT_COLUMNS) if units else columns
    columns = (*columns, TAGS) if tags else columns
    return _line((*columns, *CLEARED_COLUMNS))


def has_units(slip: Mapping[str, Any]) -> bool:
    """The slip says its yen or what a transfer brought (an account in another unit): its page needs
    the unit columns."""
    return slip.get("to_amount") is not None or slip.get("jpy_amount") is not None


def has_tax(slip: Mapping[str, Any]) -> bool:
    """The slip carries a medical payment (on itself or a line) or a donation: its page needs the
    tax columns."""
    return bool(slip.get("medical") or slip.get("donation") or any(x.get("medical") for x in slip.get("lines") or ()))


def slip_line(
    slip: Mapping[str, Any],
    *,
    subcategory: bool = False,
    lines: bool = False,
    tax: bool = False,
    payees: bool = False,
    units: bool = False,
    tags: bool = False,
) -> str:
    """One exported slip; external_id is its id, so importing the export is idempotent. A split slip
    is one row per line (`lines`: the line number and the slip's own memo; then, with `tax`, the
    line's medical payment and the slip's donation; then, with `payees`, the slip's payees; then its
    sides' states)."""
    if slip.get("lines"):
        out = []
        for number, part in enumerate(slip["lines"], start=1):
            row = {**slip, "amount": part["amount"], "category": part["category"], "memo": part.get("memo"),
                   "subcategory": part.get("subcategory"), "lines": None, "medical": part.get("medical")}  # fmt: skip
            extra = (str(number), slip.get("memo") or "", *(_tax_cells(row) if tax else ()), *_payees(slip, payees))
            extra = (*extra, *_unit_cells(slip, units), *_tags_cell(slip, tags), *_cleared(slip))
            out.append(_values(row, subcategory=True, extra=extra))
        return "".join(out)
    extra = ("", "") if lines else ()
    extra = (*extra, *(_tax_cells(slip) if tax else ()), *_payees(slip, payees), *_unit_cells(slip, units))
    return _values(slip, subcategory=subcategory or lines, extra=(*extra, *_tags_cell(slip, tags), *_cleared(slip)))


def _tags_cell(slip: Mapping[str, Any], tags: bool) -> tuple[str, ...]:
    return (TAG_SEPARATOR.join(slip.get("tags") or ()),) if tags else ()


def _cleared(slip: Mapping[str, Any]) -> tuple[str, ...]:
    return (
        slip.get("cleared") or "uncleared",
        (slip.get("to_cleared") or "uncleared") if slip.get("to_account") else "",
    )


def _unit_cells(slip: Mapping[str, Any], units: bool) -> tuple[str, ...]:
    """A slip's jpy_amount and to_amount (a split slip's on each of its rows), when the page has them."""
    if not units:
        return ()
    return tuple("" if slip.get(name) is None else str(int(slip[name])) for name in UNIT_COLUMNS)


def _tax_cells(slip: Mapping[str, Any]) -> tuple[str, ...]:
    medical, donation = slip.get("medical") or {}, slip.get("donation") or {}
    return (
        medical.get("patient") or "",
        medical.get("provider") or "",
        medical.get("kind") or "",
        str(int(medical.get("reimbursed") or 0)) if medical else "",
        ("true" if medical.get("otc") else "false") if medical else "",
        donation.get("municipality") or "",
        ("true" if donation.get("one_stop") else "false") if donation else "",
    )


def _payees(slip: Mapping[str, Any], payees: bool) -> tuple[str, ...]:
    return tuple(slip.get(name) or "" for name in PAYEES) if payees else ()


def _values(slip: Mapping[str, Any], *, subcategory: bool, extra: tuple[str, ...]) -> str:
    values = [
        slip["date"],
        slip["kind"],
        str(int(slip["amount"])),
        slip["account"],
        slip.get("to_account") or "",
        slip.get("category") or "",
        slip.get("memo") or "",
        slip["id"],
    ]
    if subcategory:
        values.append(slip.get("subcategory") or "")
    return _line([*values, *extra])


def quote_cell(value: str) -> str:
    """A cell a spreadsheet will show as text, never run as a formula (see the module's doc)."""
    if value[:1] in FORMULA_STARTS or (value[:1] == _QUOTE and value[1:2] in FORMULA_STARTS | {_QUOTE}):
        return _QUOTE + value
    return value


def unquote_cell(value: str) -> str:
    """The cell `quote_cell` was given: the inverse of it, for any text."""
    if value[:1] == _QUOTE and value[1:2] and value[1:2] in FORMULA_STARTS | {_QUOTE}:
        return value[1:]
    return value


def _line(values: Iterable[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow([quote_cell(v) for v in values])
    return out.getvalue()
