"""Which app, card issuer or bank wrote a file: read from its header row (and, for a statement, the
preamble lines before it), or forced with ?format=."""

from __future__ import annotations

import csv
import datetime as dt
import io

from kakeibo import csvio, errors, settings
from kakeibo.csvio import CsvFile
from kakeibo.importformats import issuers, moneyforward, zaim
from kakeibo.importformats.source import SourceFile, column_name
from kakeibo.importformats.statement import Statement

KAKEIBO = "kakeibo"
APPS = (KAKEIBO, moneyforward.FORMAT, zaim.FORMAT)
FORMATS = (*APPS, *issuers.BY_ID)
_OURS = {*csvio.COLUMNS, *csvio.OPTIONAL_COLUMNS}
_MF_ONLY = {"計算対象", "保有金融機関", "大項目", "中項目", "金額(円)"}
_ZAIM_ONLY = {"方法", "カテゴリの内訳", "ジャンル", "支払元", "入金先", "集計の設定", "残高調整"}


def read(
    data: bytes,
    charset: str | None = None,
    fmt: str | None = None,
    *,
    by_content: bool = False,
    today: dt.date | None = None,
) -> CsvFile | SourceFile | Statement:
    """The file decoded and parsed by its format: our own (a CsvFile), another app's (`by_content`:
    Money Forward rows identified by their content, not their ID) or a card's or bank's statement
    (`today`: the day a year-less date is read against). A statement whose lines are not all of one
    encoding (two downloads joined) is read line by line, the odd lines refused as row errors."""
    text, encoding, odd = issuers.decode(data, charset)
    fmt = fmt or detect(text)
    if fmt in issuers.BY_ID:
        statement = issuers.read(
            text, encoding, csvio.content_hash(text), fmt=fmt, today=today or settings.today(), odd=odd
        )
        if statement is None:
            layout = issuers.BY_ID[fmt]
            expected = " / ".join(layout_.header for layout_ in layout.layouts)
            problem = "not this statement's layout"
            raise errors.ValidationFailed(
                f"the file is not {layout.name_en}'s statement: expected {expected}",
                errors=[{"loc": ["body", "header"], "msg": problem}],
                resembles=issuers.resembles(text),
            )
        return statement
    if odd:  # an app's export: as strictly decoded as it always was
        raw, encoding = csvio.decode(data, charset)
        text = csvio.normalise(raw)
    if fmt == moneyforward.FORMAT:
        return moneyforward.parse(text, csvio.content_hash(text), encoding, by_content=by_content)
    if fmt == zaim.FORMAT:
        return zaim.parse(text, csvio.content_hash(text), encoding)
    return csvio.parse_text(text, encoding)


def detect(text: str) -> str:
    """The format whose header the first non-blank line is (an app's), or whose header and preamble
    the first lines are (a card's or bank's statement: importformats/issuers). A file that is none
    of them gets a 422 naming the apps' headers and the statement layouts it resembles, unless it
    is close to an app's (then that format's parser says what is missing)."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    names = {column_name(f) for f in next(csv.reader(io.StringIO(first)), [])}
    if not first or {n.lower() for n in names} & _OURS:
        return KAKEIBO
    if set(moneyforward.COLUMNS) <= names or names & _MF_ONLY:
        return moneyforward.FORMAT
    if names & _ZAIM_ONLY:
        return zaim.FORMAT
    recognised = issuers.recognise(text)
    if recognised is not None:
        return recognised.format.id
    problem = "not a header this API reads"
    resembles = issuers.resembles(text)
    like = "; ".join(f"{r['name']} (missing {', '.join(r['missing']) or 'nothing'})" for r in resembles)
    raise errors.ValidationFailed(
        f"line 1 is {problem}; expected one of: {','.join(csvio.COLUMNS)}[,external_id][,subcategory] (this API), "
        f"{moneyforward.HEADER} (Money Forward ME 収入・支出詳細), {zaim.HEADER} (Zaim), or a card's or bank's "
        f"statement (GET /imports/formats lists them); it resembles: {like or 'none of them'}",
        errors=[{"loc": ["body", "header"], "msg": problem}],
        resembles=resembles,
    )


APP_FORMATS = (
    {
        "id": KAKEIBO,
        "name": "この API の CSV",
        "name_en": "This API's own CSV (GET /slips.csv)",
        "header": ",".join(csvio.COLUMNS) + "[,external_id][,subcategory]...",
        "encoding": "utf-8 or shift_jis",
        "source": "this API (docs/imports.md)",
    },
    {
        "id": moneyforward.FORMAT,
        "name": "Money Forward ME（収入・支出詳細）",
        "name_en": "Money Forward ME (income and expense details)",
        "header": moneyforward.HEADER,
        "encoding": "shift_jis",
        "source": "Money Forward ME's 収入・支出詳細 download (docs/imports.md)",
    },
    {
        "id": zaim.FORMAT,
        "name": "Zaim",
        "name_en": "Zaim (CSV export)",
        "header": zaim.HEADER,
        "encoding": "utf-8 or shift_jis",
        "source": "Zaim's CSV export (docs/imports.md)",
    },
)


def listing() -> list[dict[str, object]]:
    """Every format POST /imports reads (GET /imports/formats): the apps', then the statements'."""
    apps: list[dict[str, object]] = [
        {
            "id": app["id"],
            "name": app["name"],
            "name_en": app["name_en"],
            "kind": "app",
            "layouts": [
                {"id": "current", "header": app["header"], "encoding": app["encoding"], "source": app["source"]}
            ],
            "notes": "",
        }
        for app in APP_FORMATS
    ]
    statements: list[dict[str, object]] = [
        {
            "id": fmt.id,
            "name": fmt.name,
            "name_en": fmt.name_en,
            "kind": fmt.kind,
            "layouts": [
                {
                    "id": layout.id,
                    "header": layout.header,
                    "preamble": layout.preamble,
                    "encoding": layout.encoding,
                    "source": layout.source,
                }
                for layout in fmt.layouts
            ],
            "notes": fmt.notes,
        }
        for fmt in issuers.FORMATS
    ]
    return apps + statements
