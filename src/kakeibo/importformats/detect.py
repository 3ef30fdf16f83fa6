"""Which app wrote a file: read from its header row (or forced with ?format=)."""

from __future__ import annotations

import csv
import io

from kakeibo import csvio, errors
from kakeibo.csvio import CsvFile
from kakeibo.importformats import moneyforward, zaim
from kakeibo.importformats.source import SourceFile, column_name

KAKEIBO = "kakeibo"
FORMATS = (KAKEIBO, moneyforward.FORMAT, zaim.FORMAT)
_OURS = {*csvio.COLUMNS, *csvio.OPTIONAL_COLUMNS}
_MF_ONLY = {"計算対象", "保有金融機関", "大項目", "中項目", "金額(円)"}
_ZAIM_ONLY = {"方法", "カテゴリの内訳", "ジャンル", "支払元", "入金先", "集計の設定", "残高調整"}


def read(
    data: bytes, charset: str | None = None, fmt: str | None = None, *, by_content: bool = False
) -> CsvFile | SourceFile:
    """The file decoded and parsed by its format: our own (a CsvFile) or another app's
    (`by_content`: Money Forward rows identified by their content, not their ID)."""
    raw, encoding = csvio.decode(data, charset)
    text = csvio.normalise(raw)
    fmt = fmt or detect(text)
    if fmt == moneyforward.FORMAT:
        return moneyforward.parse(text, csvio.content_hash(text), encoding, by_content=by_content)
    if fmt == zaim.FORMAT:
        return zaim.parse(text, csvio.content_hash(text), encoding)
    return csvio.parse_text(text, encoding)


def detect(text: str) -> str:
    """The format whose header the first non-blank line is. A header that is none of them gets a
    422 naming all three, unless it is close to one (then that format's parser says what is
    missing)."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    names = {column_name(f) for f in next(csv.reader(io.StringIO(first)), [])}
    if not first or {n.lower() for n in names} & _OURS:
        return KAKEIBO
    if set(moneyforward.COLUMNS) <= names or names & _MF_ONLY:
        return moneyforward.FORMAT
    if names & _ZAIM_ONLY:
        return zaim.FORMAT
    problem = "not a header this API reads"
    raise errors.ValidationFailed(
        f"line 1 is {problem}; expected one of: {','.join(csvio.COLUMNS)}[,external_id][,subcategory] (this API), "
        f"{moneyforward.HEADER} (Money Forward ME 収入・支出詳細), {zaim.HEADER} (Zaim)",
        errors=[{"loc": ["body", "header"], "msg": problem}],
    )
