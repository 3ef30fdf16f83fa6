"""The card issuers' and banks' statement downloads, one module per issuer family, each a
`statement.Format` with its layout versions; `FORMATS` is the registry detect.py recognises them by
(in this order: a layout whose header is a superset of another's comes first)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from kakeibo import csvio
from kakeibo.csvio import RowError
from kakeibo.importformats.issuers import (
    aeon_card,
    amex,
    epos,
    ja_bank,
    jcb,
    mufg_bank,
    nicos,
    paypay_bank,
    paypay_card,
    rakuten_bank,
    rakuten_card,
    saison,
    sbi_shinsei,
    sbi_sumishin,
    sfcard_viewer,
    smbc_bank,
    view_card,
    vpass,
    yucho,
)
from kakeibo.importformats.statement import (
    MID_BOM,
    Context,
    Format,
    Layout,
    Record,
    Statement,
    column_names,
    decode_lines,
    delimiter_of,
    mid_file_boms,
    records,
    shown,
)

FORMATS: tuple[Format, ...] = (
    rakuten_card.FORMAT,
    vpass.FORMAT,
    jcb.FORMAT,
    paypay_card.FORMAT,
    epos.FORMAT,
    saison.FORMAT,
    view_card.FORMAT,
    nicos.FORMAT,
    aeon_card.FORMAT,
    amex.FORMAT,
    yucho.FORMAT,
    mufg_bank.FORMAT,
    smbc_bank.FORMAT,
    sbi_sumishin.FORMAT,
    rakuten_bank.FORMAT,
    sbi_shinsei.FORMAT,
    paypay_bank.FORMAT,
    ja_bank.FORMAT,
    sfcard_viewer.FORMAT,
)
BY_ID = {f.id: f for f in FORMATS}


@dataclass(frozen=True)
class Recognised:
    format: Format
    layout: Layout
    records: list[Record]
    cut: RowError | None  # where the file stops being readable CSV (a quote left open)


def recognise(text: str, fmt: str | None = None) -> Recognised | None:
    """The statement format and layout `text` is in (only `fmt`'s, when forced), or None."""
    parsed: dict[str, tuple[list[Record], RowError | None]] = {}
    for candidate in FORMATS if fmt is None else (BY_ID[fmt],):
        for layout in candidate.layouts:
            if layout.delimiter not in parsed:
                parsed[layout.delimiter] = records(text, layout.delimiter)
            found, cut = parsed[layout.delimiter]
            if layout.recognise(found):
                return Recognised(candidate, layout, found, cut)
    return None


def resembles(text: str, *, limit: int = 3) -> list[dict[str, Any]]:
    """The statement layouts whose columns the file's first lines have most of (at least two):
    `{format, name, layout, missing}`, best first."""
    found, _ = records(text, delimiter_of(text))
    names = column_names(found)
    scored = []
    for candidate in FORMATS:
        for layout in candidate.layouts:
            have = [c for c in layout.clues if c in names]
            if len(have) >= 2:
                missing = [shown(c) for c in layout.clues if c not in names]
                scored.append((len(have) / len(layout.clues), candidate, layout, missing))
    scored.sort(key=lambda s: -s[0])
    out: list[dict[str, Any]] = []
    for _, candidate, layout, missing in scored:
        if any(o["format"] == candidate.id for o in out):
            continue
        out.append({"format": candidate.id, "name": candidate.name, "layout": layout.id, "missing": missing})
        if len(out) == limit:
            break
    return out


def decode(data: bytes, charset: str | None = None) -> tuple[str, str, dict[int, str]]:
    """(the text, normalised; its encoding; line -> why that line cannot be trusted): as csvio
    decodes any upload, except that a file whose lines are not all of one encoding (two downloads
    joined) is decoded line by line, its odd lines named."""
    mixed = None if charset is not None or _utf8(data) else decode_lines(data)
    if mixed is not None:
        raw, encoding, odd = mixed
    else:
        raw, encoding = csvio.decode(data, charset)
        odd = {}
    return csvio.normalise(raw), encoding, odd


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read(
    text: str, encoding: str, sha256: str, *, fmt: str | None, today: dt.date, odd: dict[int, str] | None = None
) -> Statement | None:
    """The statement `text` is (None: no layout this API reads): rows, skipped lines and row errors,
    with the lines a broken file cannot be trusted on (`odd`: line -> why; a byte-order mark in the
    middle; a quote left open) refused as row errors."""
    found = recognise(text, fmt)
    if found is None:
        return None
    statement = found.layout.read(found.records, Context(today))
    statement.sha256, statement.encoding = sha256, encoding
    broken = dict(odd or {})
    for line in mid_file_boms(text):
        broken.setdefault(line, MID_BOM)
    if found.cut is not None:
        broken.setdefault(found.cut.line, found.cut.message)
    if broken:
        statement.entries = [e for e in statement.entries if e.line not in broken]
        statement.errors = [e for e in statement.errors if e.line not in broken]
        statement.skipped = [s for s in statement.skipped if s.line not in broken]
        statement.errors += [RowError(line, why) for line, why in broken.items()]
        statement.errors.sort()
    return statement
