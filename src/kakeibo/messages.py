"""What an error says, in English and Japanese: the one message catalogue of the API.

Errors are raised with an English detail and typed members (`current`, `balance`, `errors`, ...).
When a problem body is written, `render` picks the language the caller asked for
(`Accept-Language`, q-values honoured; English by default) and words the title and the detail from
the error's code and members. The code and the members are the same in both languages: only the
human text changes. Field errors are worded per field and per kind of mistake, never as a pattern
or a validator's phrase.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Literal

from kakeibo.core import units

Lang = Literal["en", "ja"]
LANGUAGES: tuple[Lang, ...] = ("en", "ja")

# ---- Accept-Language --------------------------------------------------------------------------

_RANGE_RE = re.compile(r"^\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]{1,5})\s*)?$")


def language(accept_language: str | None) -> Lang:
    """The language to answer in (RFC 9110 Accept-Language; `ja`, `ja-JP`; q=0 means "not this")."""
    best: tuple[float, int, Lang] | None = None
    for position, item in enumerate((accept_language or "")[:512].split(",")):
        match = _RANGE_RE.match(item)
        if not match:
            continue
        tag, weight = match.group(1).lower(), match.group(2)
        try:
            q = float(weight) if weight is not None else 1.0
        except ValueError:
            continue
        if not 0 < q <= 1:
            continue
        primary = tag.split("-", 1)[0]
        lang: Lang | None = "ja" if primary == "ja" else "en" if primary in ("en", "*") else None
        if lang is None:
            continue
        candidate = (q, -position, lang)
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    return best[2] if best else "en"


# ---- titles -----------------------------------------------------------------------------------

TITLES: dict[str, tuple[str, str]] = {
    "bad_request": ("Bad request", "リクエストが正しくありません"),
    "unauthorized": ("Unauthorized", "ログインが必要です"),
    "forbidden": ("Forbidden", "この操作は許可されていません"),
    "token_scope": ("Token scope", "このトークンではできません"),
    "not_found": ("Not found", "見つかりません"),
    "already_exists": ("Already exists", "すでに登録されています"),
    "insufficient_funds": ("Insufficient funds", "残高不足"),
    "budget_exceeded": ("Budget exceeded", "予算超過"),
    "conflict": ("Conflict", "競合しました"),
    "not_a_card": ("Not a card", "クレジットカードの口座ではありません"),
    "unit_in_use": ("Unit in use", "単位を変更できません"),
    "points_lapsed": ("Points lapsed", "ポイントは失効済みです"),
    "limit_reached": ("Limit reached", "上限に達しています"),
    "personal_ledger": ("Personal ledger", "個人の家計簿ではできません"),
    "not_resumable": ("Not resumable", "再開できません"),
    "webhook_url_refused": ("Webhook URL refused", "この Webhook の URL は使えません"),
    "upload_in_progress": ("Upload in progress", "アップロード中です"),
    "upload_missing": ("Upload missing", "まだアップロードされていません"),
    "checksum_mismatch": ("Checksum mismatch", "アップロードされた内容が一致しません"),
    "storage_unavailable": ("Storage unavailable", "保存先が応答しません"),
    "archive_refused": ("Archive refused", "このファイルからは復元できません"),
    "request_in_progress": ("Request in progress", "処理中です"),
    "already_undone": ("Already undone", "すでに元に戻されています"),
    "reconciled": ("Reconciled", "照合済みの明細です"),
    "reconciliation_difference": ("Reconciliation difference", "残高が合いません"),
    "too_long": ("{f} may have at most {max_length} items", "{f}は {max_length} 件までにしてください"),
    "too_short": ("{f} needs at least {min_length} items", "{f}は {min_length} 件以上にしてください"),
    "lines_sum_mismatch": ("Lines do not sum to the amount", "分割の明細の合計が金額と一致しません"),
    "not_undoable": ("Not undoable", "この変更は元に戻せません"),
    "gone": ("Gone", "もう使えません"),
    "last_owner": ("Last owner", "最後のオーナーは抜けられません"),
    "sole_owner": ("Only owner of a shared ledger", "共有の家計簿のただ一人のオーナーです"),
    "version_mismatch": ("Version mismatch", "ほかの変更と重なりました"),
    "payload_too_large": ("Payload too large", "データが大きすぎます"),
    "unsupported_media_type": ("Unsupported media type", "この形式には対応していません"),
    "validation_error": ("Validation error", "入力内容に誤りがあります"),
    "idempotency_key_reused": ("Idempotency key reused", "Idempotency-Key が別の内容で使われています"),
    "locked": ("Locked", "処理中のため変更できません"),
    "precondition_required": ("Precondition required", "If-Match が必要です"),
    "rate_limited": ("Too many requests", "リクエストが多すぎます"),
    "internal_error": ("Internal error", "サーバーでエラーが発生しました"),
}

# What a Japanese reader is told when a detail has no translation below.
_FALLBACK_JA = {
    "bad_request": "リクエストの内容を確認してください",
    "conflict": "ほかの処理と重なりました。少し待ってからもう一度お試しください",
    "not_found": "見つかりません",
    "locked": "処理中です。少し待ってからもう一度お試しください",
    "validation_error": "入力内容を確認してください",
}

# ---- fields -----------------------------------------------------------------------------------

FIELDS: dict[str, tuple[str, str]] = {
    "date": ("date", "日付"),
    "kind": ("kind", "種類"),
    "amount": ("amount", "金額"),
    "account": ("account", "口座"),
    "to_account": ("to_account", "振替先の口座"),
    "category": ("category", "カテゴリ"),
    "subcategory": ("subcategory", "内訳"),
    "memo": ("memo", "メモ"),
    "lines": ("lines", "分割の明細"),
    "paid_by": ("paid_by", "立て替えた人"),
    "shares": ("shares", "負担額"),
    "cleared": ("cleared", "照合の状態"),
    "to_cleared": ("to_cleared", "振替先の照合の状態"),
    "id": ("id", "ID"),
    "name": ("name", "名前"),
    "type": ("type", "口座の種類"),
    "opening_balance": ("opening_balance", "開始残高"),
    "allow_negative": ("allow_negative", "マイナス残高の許可"),
    "archived": ("archived", "アーカイブ"),
    "limit": ("limit", "上限額"),
    "strict": ("strict", "予算の厳守"),
    "rollover": ("rollover", "繰越"),
    "month": ("month", "月"),
    "source": ("source (the month copied from)", "コピー元の月（source）"),
    "from": ("from", "開始日"),
    "to": ("to", "終了日"),
    "cursor": ("cursor", "カーソル"),
    "external_id": ("external_id", "外部 ID"),
    "billing": ("billing", "締め日と引き落とし（billing）"),
    "rule": ("rule", "繰り返しのルール"),
    "slip": ("slip", "伝票"),
    "closing_day": ("closing_day", "締め日"),
    "payment_day": ("payment_day", "引き落とし日"),
    "pay_from": ("pay_from", "引き落とし口座"),
    "by_month_day": ("by_month_day", "毎月の日にち"),
    "conditions": ("conditions", "条件"),
    "actions": ("actions", "動作"),
    "field": ("the condition's field", "条件の項目"),
    "op": ("the condition's op", "条件の比べ方"),
    "value": ("the condition's value", "条件の値"),
    "match": ("match", "条件の組み合わせ（match）"),
    "stage": ("stage", "ルールの段階（stage）"),
    "payee": ("payee", "支払先"),
    "imported_payee": ("imported_payee", "取り込んだ支払先"),
    "memo_append": ("memo_append", "メモへの追記"),
    "ids": ("ids", "ルールの並び"),
    "medical": ("medical (the medical payment)", "医療費（medical）"),
    "medical.kind": ("medical.kind (treatment, medicine, care or other)", "医療費の区分（medical.kind）"),
    "patient": ("patient (who was treated)", "医療を受けた人（patient）"),
    "provider": ("provider (where it was paid)", "支払先（provider）"),
    "reimbursed": ("reimbursed (what is given back)", "補填される金額（reimbursed）"),
    "otc": ("otc (セルフメディケーション)", "セルフメディケーション対象（otc）"),
    "donation": ("donation (ふるさと納税)", "ふるさと納税（donation）"),
    "municipality": ("municipality", "寄附先の自治体（municipality）"),
    "one_stop": ("one_stop (ワンストップ特例)", "ワンストップ特例（one_stop）"),
    "year": ("year", "年"),
    "income": ("income", "所得（income）"),
    "unit": ("unit (what the account's amounts are in)", "単位（unit）"),
    "point_value": ("point_value (yen per point)", "1 ポイントの円換算（point_value）"),
    "program": ("program (the points program)", "ポイントの種類（program）"),
    "jpy_amount": ("jpy_amount (the amount in yen)", "円換算額（jpy_amount）"),
    "to_amount": ("to_amount (what arrived, in the receiving account's unit)", "入金額（to_amount: 振替先の単位で）"),
    "low_balance": ("low_balance (the balance not to fall below)", "残高の下限（low_balance）"),
    "until": ("until", "いつまで（until）"),
    "target": ("target (the amount to save)", "目標額（target）"),
    "by": ("by (the day to reach it)", "期日（by）"),
    "tags": ("tags", "タグ"),
    "tag": ("tag", "タグ"),
    "tags_add": ("tags_add (the tags to add)", "追加するタグ（tags_add）"),
    "tags_remove": ("tags_remove (the tags to remove)", "外すタグ（tags_remove）"),
    "q": ("q (the words to find)", "検索語（q）"),
    "slips": ("slips", "伝票の一覧（slips）"),
    "set": ("set (what the slips become)", "変更内容（set）"),
    "delete": ("delete", "削除（delete）"),
    "version": ("version", "版（version）"),
    "if-match": ("If-Match", "If-Match"),
    "idempotency-key": ("Idempotency-Key", "Idempotency-Key"),
}

_FORMATS: dict[str, tuple[str, str]] = {
    "date": ("write {f} as YYYY-MM-DD (e.g. 2026-11-21)", "{f}は YYYY-MM-DD で指定してください（例: 2026-11-21）"),
    "from": ("write {f} as YYYY-MM-DD (e.g. 2026-11-01)", "{f}は YYYY-MM-DD で指定してください（例: 2026-11-01）"),
    "to": ("write {f} as YYYY-MM-DD (e.g. 2026-11-30)", "{f}は YYYY-MM-DD で指定してください（例: 2026-11-30）"),
    "month": ("write {f} as YYYY-MM (e.g. 2026-11)", "{f}は YYYY-MM で指定してください（例: 2026-11）"),
    "id": (
        "{f} may hold letters, digits, '_', '.' and '-' (up to 64, starting with a letter or digit)",
        "{f}は半角英数字と _ . - で指定してください（64 文字まで、先頭は英数字）",
    ),
}
_FORMATS["account"] = _FORMATS["to_account"] = _FORMATS["id"]


def field_name(loc: list[Any], lang: Lang) -> str:
    """A field in words: the last part of an error's location that names something."""
    parts = [str(p) for p in loc if str(p) not in ("body", "query", "header", "path") and not str(p).isdigit()]
    if not parts:
        return "the body" if lang == "en" else "本文"
    name = parts[-1]
    known = FIELDS.get(".".join(parts[-2:])) or FIELDS.get(name) or FIELDS.get(name.lower())
    if known:
        return known[0] if lang == "en" else known[1]
    return name if lang == "en" else f"「{name}」"


def yen(amount: Any) -> str:
    try:
        value = int(amount)
    except (TypeError, ValueError):
        return str(amount)
    return f"-¥{-value:,}" if value < 0 else f"¥{value:,}"


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _month_words(month: Any, lang: Lang) -> str:
    text = str(month or "")
    if lang == "ja" and re.fullmatch(r"\d{4}-\d{2}", text):
        return f"{int(text[:4])}年{int(text[5:])}月"
    return text


# ---- field errors -----------------------------------------------------------------------------

# Our own validators' phrases (pydantic reports them as value_error "Value error, <phrase>").
_VALUE_ERRORS: list[tuple[str, str, str]] = [
    (r"must be a date YYYY-MM-DD", "", ""),  # worded like a pattern mismatch on a date field
    (r"must be a month YYYY-MM", "", ""),
    (r"is not a real calendar date", "{f} is not a real calendar date", "{f}には実在する日付を指定してください"),
    (r"is not a real month", "{f} is not a real month", "存在しない月が指定されています"),
    (
        r"is the month copied into: copy from another month",
        "{f} is the month being copied into: copy the budgets from another month",
        "{f}がコピー先と同じ月です。別の月から予算をコピーしてください",
    ),
    (
        r"year must be between (?P<lo>\d+) and (?P<hi>\d+)",
        "the year of {f} must be between {lo} and {hi}",
        "{f}の年は {lo}〜{hi} 年で指定してください",
    ),
    (
        r"contains a disallowed character (?P<ch>U\+[0-9A-F]+)",
        "{f} contains a character that is not allowed ({ch})",
        "{f}に使えない文字（{ch}）が含まれています",
    ),
    (r"must not be blank", "{f} must not be blank", "{f}を入力してください"),
    (r"must not contain '(?P<ch>.)'", "{f} must not contain '{ch}'", "{f}に「{ch}」は使えません"),
    (r"a transfer needs to_account", "a transfer needs to_account", "振替には振替先の口座（to_account）が必要です"),
    (
        r"to_account must differ from account",
        "to_account must differ from account",
        "振替先の口座は振替元と別の口座にしてください",
    ),
    (r"a transfer has no category", "a transfer has no category", "振替にはカテゴリを付けられません"),
    (r"a subcategory needs a category", "a subcategory needs a category", "内訳にはカテゴリも指定してください"),
    (
        r"to_account is only for transfers, not (?P<kind>\w+)",
        "to_account is only for transfers, not for {kind}",
        "振替先の口座（to_account）は振替にだけ指定できます",
    ),
    (
        r"a transfer has no jpy_amount \(to_amount says what arrived\)",
        "a transfer has no jpy_amount (to_amount says what arrived)",
        "振替には円換算額（jpy_amount）を付けられません（入金額は to_amount で指定します）",
    ),
    (
        r"to_amount is only for transfers, not (?P<kind>\w+)",
        "to_amount is only for transfers, not for {kind}",
        "入金額（to_amount）は振替にだけ指定できます",
    ),
    (
        r"unit must be JPY, an ISO 4217 currency code or points",
        "{f} must be JPY, an ISO 4217 currency code (such as USD) or points",
        "{f}は JPY、ISO 4217 の通貨コード（USD など）か points にしてください",
    ),
    (
        r"low_balance is not for credit accounts",
        "{f} is not for credit accounts (a card owes: its balance is below 0)",
        "{f}はクレジットカードの口座には指定できません（カードの残高は利用額のマイナスです）",
    ),
    (
        r"(?P<name>point_value|program) is only for points accounts",
        "{name} is only for accounts in points",
        "{name} はポイントの口座にだけ指定できます",
    ),
    (
        r"to_cleared is only for transfers \(their to_account side\)",
        "to_cleared is only for transfers (their to_account side)",
        "振替先の照合の状態（to_cleared）は振替にだけ指定できます",
    ),
    (r"(?P<name>\w+) cannot be null", "{name} cannot be null", "{name}に null は指定できません"),
    (r"nothing to change", "nothing to change: send at least one field", "変更する項目を 1 つ以上指定してください"),
    (
        r"send either set or delete: true",
        "send either set (what the slips become) or delete: true, not both",
        "set（変更内容）か delete: true のどちらか一方を指定してください",
    ),
    (
        r"account '(?P<account>.*)' does not exist",
        "account '{account}' does not exist",
        "口座「{account}」はありません",
    ),
    (
        r"account '(?P<account>.*)' is archived",
        "account '{account}' is archived",
        "口座「{account}」はアーカイブ済みです",
    ),
    (
        r"account '(?P<account>.*)' is not a bank account",
        "account '{account}' is not a bank account",
        "口座「{account}」は銀行口座ではありません。引き落とし口座には銀行口座を指定してください",
    ),
    (
        r"billing is only for credit accounts",
        "billing is only for credit accounts",
        "締め日・引き落とし日（billing）はクレジットカードの口座にだけ設定できます",
    ),
    (r"invalid category", "the category is not valid", "カテゴリが正しくありません"),
    (r"a transfer has no lines", "a transfer cannot be split into lines", "振替は分割できません"),
    (
        r"medical is only for expenses, not (?P<kind>\w+)",
        "medical (a medical payment) is only for expenses, not for {kind}",
        "医療費（medical）は支出にだけ指定できます",
    ),
    (
        r"donation is only for expenses, not (?P<kind>\w+)",
        "donation (ふるさと納税) is only for expenses, not for {kind}",
        "ふるさと納税（donation）は支出にだけ指定できます",
    ),
    (
        r"a split slip carries medical on its lines",
        "a split slip carries medical on its lines, not on the slip",
        "分割した伝票の医療費（medical）は各明細に指定してください",
    ),
    (
        r"reimbursed \((?P<reimbursed>\d+)\) is more than the amount paid \((?P<paid>\d+)\)",
        "medical.reimbursed ({reimbursed}) cannot be more than the amount paid ({paid})",
        "補填される金額（reimbursed: {reimbursed}）は支払った金額（{paid}）以下にしてください",
    ),
    (
        r"provider is needed: no payee or memo names where it was paid",
        "medical.provider is needed: neither a payee nor a memo names where it was paid",
        "医療費の支払先（medical.provider）を指定してください（伝票に支払先（payee）もメモもありません）",
    ),
    (
        r"a split slip has no category of its own: its lines have them",
        "a split slip has no category of its own: its lines have them",
        "分割した伝票にはカテゴリを付けず、各明細にカテゴリを指定してください",
    ),
]

_BY_TYPE: dict[str, tuple[str, str]] = {
    "missing": ("{f} is required", "{f}を指定してください"),
    "extra_forbidden": ("{f} is not a field of this request", "{f}という項目はありません"),
    "too_long": ("{f} may have at most {max_length} items", "{f}は {max_length} 件までにしてください"),
    "too_short": ("{f} needs at least {min_length} items", "{f}は {min_length} 件以上にしてください"),
    "lines_sum_mismatch": (
        "the lines sum to {total}, not the slip's amount {amount}",
        "分割の明細の合計（{total}）が金額（{amount}）と一致しません",
    ),
    "tag_too_long": (
        "each of {f} must be at most {max_length} characters (as stored: NFKC, case folded)",
        "{f}は 1 つ {max_length} 文字以内にしてください",
    ),
    "int_type": ("{f} must be a whole number", "{f}は整数で指定してください"),
    "int_parsing": ("{f} must be a whole number", "{f}は整数で指定してください"),
    "int_from_float": ("{f} must be a whole number", "{f}は整数で指定してください"),
    "greater_than_equal": ("{f} must be at least {ge}", "{f}は {ge} 以上で指定してください"),
    "greater_than": ("{f} must be more than {gt}", "{f}は {gt} より大きい値で指定してください"),
    "less_than_equal": ("{f} must be at most {le}", "{f}は {le} 以下で指定してください"),
    "less_than": ("{f} must be less than {lt}", "{f}は {lt} より小さい値で指定してください"),
    "string_too_short": (
        "{f} must be at least {min_length} characters",
        "{f}は {min_length} 文字以上で入力してください",
    ),
    "string_too_long": ("{f} must be at most {max_length} characters", "{f}は {max_length} 文字以内で入力してください"),
    "string_type": ("{f} must be text", "{f}は文字列で指定してください"),
    "bool_type": ("{f} must be true or false", "{f}は true か false で指定してください"),
    "bool_parsing": ("{f} must be true or false", "{f}は true か false で指定してください"),
    "literal_error": ("{f} must be one of {expected}", "{f}は {expected} のいずれかで指定してください"),
    "enum": ("{f} must be one of {expected}", "{f}は {expected} のいずれかで指定してください"),
    "model_type": ("the body must be a JSON object", "本文は JSON オブジェクトで送ってください"),
    "model_attributes_type": ("the body must be a JSON object", "本文は JSON オブジェクトで送ってください"),
    "dict_type": ("{f} must be a JSON object", "{f}は JSON オブジェクトで指定してください"),
    "list_type": ("{f} must be a list", "{f}はリストで指定してください"),
    "string_pattern_mismatch": ("{f} is not in the expected format", "{f}の形式が正しくありません"),
    "json_invalid": ("the body is not valid JSON", "本文が JSON として読めません"),
    "rule_unknown_field": ("{f} is not a field a rule looks at", "{f}はルールで使えない項目です"),
    "rule_unknown_op": ("{f} is not an op a rule takes", "{f}はルールで使えない比べ方です"),
    "rule_op_not_for_field": (
        "{f} does not fit the field (text: is, contains, starts_with, ends_with, one_of; amount: is, one_of, between)",
        "{f}はこの項目には使えません（文字: is, contains, starts_with, ends_with, one_of、金額: is, one_of, between）",
    ),
    "rule_value_list": ("{f} must be a list of 1 to 50 values", "{f}は 1〜50 個の値のリストで指定してください"),
    "rule_value_range": (
        "{f} must be [low, high] in yen, low at most high",
        "{f}は [下限, 上限]（円、下限 ≦ 上限）で指定してください",
    ),
    "rule_value_amount": ("{f} must be a whole number of yen", "{f}は円の整数で指定してください"),
    "rule_value_text": ("{f} must be text of 1 to 100 characters", "{f}は 1〜100 文字の文字列で指定してください"),
    "rule_value_pattern": (
        "{f} must be plain text, not a pattern (rules take no regular expressions)",
        "{f}は正規表現ではなく、そのままの文字で指定してください",
    ),
    "rule_value_kind": ("{f} must be expense, income or transfer", "{f}は expense, income, transfer のいずれかです"),
    "rule_value_character": (
        "{f} contains a character that is not allowed ({ch})",
        "{f}に使えない文字（{ch}）が含まれています",
    ),
    "rule_unknown_action": ("{f} is not an action a rule takes", "{f}はルールで使えない動作です"),
    "rule_action_text": ("{f} must be text", "{f}は文字列で指定してください"),
    "rule_action_bool": ("{f} must be true or false", "{f}は true か false で指定してください"),
    "rule_no_action": ("{f} must hold at least one action", "{f}を 1 つ以上指定してください"),
    "rule_subcategory_alone": ("{f} needs a category beside it", "{f}はカテゴリと一緒に指定してください"),
    "rule_conditions_count": ("{f} must hold 1 to 20 conditions", "{f}は 1〜20 個にしてください"),
    "rule_order_ids": ("{f} must name every rule once", "{f}にはすべてのルールを 1 度ずつ並べてください"),
}


# What a field that takes one of several forms accepts, in words (a value fitting none of them is
# a `union_mismatch`). Every such field of a request body is here (tests/unit/test_field_messages.py).
ONE_OF: dict[str, tuple[str, str]] = {
    "shares": (
        '"equal", or an object giving each member\'s amount in yen (0 or more), summing to the amount',
        '"equal"（均等）か、メンバーごとの負担額（0 円以上、合計が金額と同じ）のオブジェクト',
    ),
    "closing_day": ('a day of the month from 1 to 31, or "last"', '1〜31 の日にちか "last"（月末）'),
    "payment_day": ('a day of the month from 1 to 31, or "last"', '1〜31 の日にちか "last"（月末）'),
    "by_month_day": (
        'a day of the month from 1 to 31, -1 or "last" (the month\'s last day), or a list of them',
        '1〜31 の日にち、-1 か "last"（月末）、またはそのリスト',
    ),
}


def _one_of(name: str, lang: Lang) -> str:
    index = 0 if lang == "en" else 1
    known = ONE_OF.get(name)
    if not known:
        return ("{f} is not in a form it accepts", "{f}の形式が正しくありません")[index]
    choices = known[index].replace("{", "{{").replace("}", "}}")
    return ("{f} must be " + choices, "{f}は " + choices + " で指定してください")[index]


def field_error(item: Mapping[str, Any], lang: Lang) -> str:
    """One field error (loc, type, msg, and the limits pydantic reported) in words."""
    loc = list(item.get("loc") or [])
    kind = str(item.get("type") or "")
    ctx = dict(item.get("ctx") or {})
    name = str(loc[-1]).lower() if loc else ""
    f = field_name(loc, lang)
    index = 0 if lang == "en" else 1
    if name == "category" and kind == "string_too_short":
        kind = "missing_text"
    msg = str(item.get("msg") or "").removeprefix("Value error, ")
    if kind in ("model_type", "model_attributes_type") and len(loc) > 1:  # a nested object, not the body
        kind = "dict_type"
    if kind == "union_mismatch":
        return _one_of(name, lang).format(f=f)
    if kind == "string_pattern_mismatch" or msg.startswith(("must be a date YYYY", "must be a month YYYY")):
        fmt = _FORMATS.get(name)
        if fmt:
            return fmt[index].format(f=f)
    if (kind == "string_too_short" and ctx.get("min_length") == 1) or kind == "missing_text":
        return ("{f} must not be empty", "{f}を入力してください")[index].format(f=f)
    if kind in ("value_error", "assertion_error", "") or kind not in _BY_TYPE:
        for pattern, en, ja in _VALUE_ERRORS:
            found = re.fullmatch(pattern, msg)
            if found and en:
                fields = {k: _field_or(v, lang) for k, v in found.groupdict().items()}
                return (en, ja)[index].format(f=f, **fields)
        return ("{f} is not valid", "{f}の値が正しくありません")[index].format(f=f)
    template = _BY_TYPE[kind][index]
    values = {k: _number(v) for k, v in ctx.items()}
    if "expected" in ctx:  # pydantic's "'a', 'b' or 'c'": a plain list, in the reader's punctuation
        choices = [c.strip(" '") for c in re.split(r",| or ", str(ctx["expected"])) if c.strip(" '")]
        values["expected"] = (", " if lang == "en" else "、").join(choices)
    try:
        return template.format(f=f, **values)
    except (KeyError, IndexError):
        return ("{f} is not valid", "{f}の値が正しくありません")[index].format(f=f)


def _field_or(value: str, lang: Lang) -> str:
    known = FIELDS.get(value)
    return known[1] if known and lang == "ja" else value


def field_errors(items: Sequence[Mapping[str, Any]], lang: Lang, limit: int = 5) -> str:
    sentences = [field_error(item, lang) for item in items[:limit]]
    more = len(items) - limit
    if more > 0:
        sentences.append(f"and {more} more" if lang == "en" else f"ほか {more} 件")
    return "; ".join(sentences) if lang == "en" else "。".join(sentences)


# ---- details worded from the typed members ------------------------------------------------------

Detail = Callable[[Mapping[str, Any], Lang], str | None]


def _insufficient_funds(m: Mapping[str, Any], lang: Lang) -> str | None:
    if "balance" not in m or "needed" not in m:
        return None
    name = m.get("account_name") or m.get("account")
    if lang == "ja":
        return f"{name}の残高 {yen(m['balance'])} では {yen(m['needed'])} を支払えません"
    return f"{name} has {yen(m['balance'])}: it cannot pay {yen(m['needed'])}"


def _budget_exceeded(m: Mapping[str, Any], lang: Lang) -> str | None:
    if "remaining" not in m or "needed" not in m:
        return None
    month, category = _month_words(m.get("month"), lang), m.get("category")
    if lang == "ja":
        return f"{month}の「{category}」の予算は残り {yen(m['remaining'])} です（{yen(m['needed'])} 必要です）"
    return f"the {month} budget for {category} has {yen(m['remaining'])} left; this needs {yen(m['needed'])}"


# what an undo names, in words (errors.UndoRefused's `entity`)
ENTITIES: dict[str, tuple[str, str]] = {
    "slip": ("slip", "伝票"),
    "account": ("account", "口座"),
    "budget": ("budget", "予算"),
    "recurrence": ("recurrence", "繰り返し伝票"),
    "reconciliation": ("reconciliation", "照合"),
}


def _undo_refused(m: Mapping[str, Any], lang: Lang) -> str:
    """An undo refused because what it would take back moved on since its entry: nobody else is
    blamed (the caller's own later change, or a reconciliation, may have moved it), nothing is to
    be saved again; what to do first is said."""
    kind = ENTITIES.get(str(m.get("entity")), (str(m.get("entity")), str(m.get("entity"))))
    name, ident, current, expected = kind[lang == "ja"], m.get("id"), m.get("current"), m.get("expected")
    if m.get("adjustment_of"):
        rid = m["adjustment_of"]
        if lang == "ja":
            return (
                f"照合 {rid} の差額の伝票 {ident} は、照合のあとに変更されています（現在の版は {current}）。"
                "その変更を消さないよう、照合は取り消していません（何も変更していません）。"
                "取り消すには、先にその伝票を ?unlock=true で削除してください"
            )
        return (
            f"the adjustment slip {ident} of reconciliation {rid} was changed after it (it is at version "
            f"{current}): the reconciliation is not undone, so that change is kept (nothing was changed); to undo "
            "it, delete that slip first with ?unlock=true"
        )
    if m.get("reconciled_by"):
        rid = m["reconciled_by"]
        if lang == "ja":
            return (
                f"{name} {ident} はこの変更のあとで照合されました（{rid}）。この変更は取り消していません。"
                "先にその照合を取り消してから、もう一度この変更を取り消してください"
            )
        return (
            f"{name} {ident} was reconciled after this change (by {rid}): this change is not undone; undo that "
            "reconciliation first, then undo this change again"
        )
    if current is None:
        if lang == "ja":
            return f"{name} {ident} はこの変更のあとで削除されています。この変更は取り消していません"
        return f"{name} {ident} was deleted after this change: this change is not undone"
    if lang == "ja":
        return (
            f"{name} {ident} はこの変更のあとにも変更されています"
            f"（現在の版は {current}、この変更の直後は {expected}）。この変更は取り消していません。"
            "あとの変更を先に取り消すか、直接変更してください"
        )
    return (
        f"{name} {ident} was changed after this change (it is at version {current}; this change left it at "
        f"{expected}): this change is not undone; undo the later changes first, or change it directly"
    )


def _version_mismatch(m: Mapping[str, Any], lang: Lang) -> str | None:
    if m.get("entity"):  # an undo's (errors.UndoRefused)
        return _undo_refused(m, lang)
    current, expected = m.get("current"), m.get("expected")
    if current is None or expected is None:
        return None
    if lang == "ja":
        return (
            f"ほかの人が先に変更しました（現在の版は {current}、送られた版は {expected}）。"
            "読み込み直してから、もう一度保存してください"
        )
    return f"it was changed meanwhile: it is at version {current}, not {expected}; read it again and retry"


def _reconciliation_difference(m: Mapping[str, Any], lang: Lang) -> str | None:
    """The statement against the cleared balance, each amount in the account's unit (¥12,520, $12.34, 1,200 pt)."""
    if not all(k in m for k in ("date", "balance", "cleared_balance", "difference")):
        return None
    unit = str(m.get("unit") or units.JPY)
    if not units.is_unit(unit):
        unit = units.JPY
    cleared, balance = (
        units.format_amount(int(m["cleared_balance"]), unit),
        units.format_amount(int(m["balance"]), unit),
    )
    difference = units.format_amount(int(m["difference"]), unit)
    if lang == "ja":
        return (
            f"{m['date']} 時点の確認済み残高は {cleared}、明細書の残高は {balance} です（差額 {difference}）。"
            "足りない明細を確認済みにするか、adjust: true で差額を使途不明金として記録してください"
        )
    return (
        f"the cleared balance as of {m['date']} is {cleared}, the statement says {balance} (difference "
        f"{difference}); clear the missing slips or send adjust: true"
    )


def _field_detail(m: Mapping[str, Any], lang: Lang) -> str | None:
    items = m.get("errors")
    # worded from the items only when a validator classified each one (pydantic's `type`)
    if isinstance(items, list) and items and all(isinstance(i, Mapping) and i.get("type") for i in items):
        return field_errors(items, lang)
    return None


def _bad_query(m: Mapping[str, Any], lang: Lang) -> str | None:
    return _field_detail(m, lang)


DETAILS: dict[str, Detail] = {
    "insufficient_funds": _insufficient_funds,
    "budget_exceeded": _budget_exceeded,
    "version_mismatch": _version_mismatch,
    "reconciliation_difference": _reconciliation_difference,
    "validation_error": _field_detail,
    "lines_sum_mismatch": _field_detail,
    "bad_request": _bad_query,
}

# ---- details raised as text: English template -> Japanese ---------------------------------------
# `{name}` matches any text in English and is repeated in Japanese.

_BUSY = "ほかの処理（{name}）の実行中です。少し待ってからもう一度お試しください"
TRANSLATIONS: dict[str, str] = {
    # tags, bulk edits, search
    "'{name}' must be a month YYYY-MM": "{name} は YYYY-MM で指定してください（例: 2026-11）",
    "'{name}' is not a real month": "{name} に存在しない月が指定されています",
    "from ({first}) is after to ({last})": "開始月（from: {first}）が終了月（to: {last}）より後になっています",
    "a tag report spans at most {months} months": "タグの集計は {months} か月分までです",
    "a search spans at most {years} years: from..to is longer": (
        "検索できる期間は {years} 年までです。開始日（from）と終了日（to）の間を短くしてください"
    ),
    "q must hold a word": "検索語（q）を入力してください",
    "account '{account}' is not in yen": "口座「{account}」は円の口座ではありません",
    "a slip holds at most {limit} tags": "タグは 1 件の伝票に {limit} 個までです",
    "a split slip's categories are on its lines: change it by itself": (
        "分割した伝票のカテゴリは各明細にあります。その伝票だけを個別に変更してください"
    ),
    "a slip of an account in another unit is moved by itself": ("円以外の単位の口座の伝票は、1 件ずつ移してください"),
    "this bulk edit is being applied by another request; retry": (
        "この一括変更はほかのリクエストで実行中です。少し待ってからもう一度お試しください"
    ),
    "the slips could not be changed; retry": "伝票を変更できませんでした。もう一度お試しください",
    # the months ahead: forecast, goals
    "low_balance is not for credit accounts": ("残高の下限（low_balance）はクレジットカードの口座には指定できません"),
    "until ({until}) is before today ({today})": "いつまで（until: {until}）が今日（{today}）より前です",
    "until ({until}) is more than a year ahead: at most {last}": (
        "いつまで（until: {until}）が 1 年より先です。{last} までにしてください"
    ),
    "a ledger holds at most {limit} goals": "目標は 1 つの家計簿に {limit} 件までです",
    "goal not found": "目標が見つかりません",
    "goal '{id}' already exists": "目標「{id}」はすでにあります",
    # alerts
    "an alert is not undone; dismiss it instead": "お知らせは元に戻せません。不要なら閉じてください",
    "no open alert '{name}'": "開いているお知らせ「{name}」はありません",
    "alert '{name}' was raised already": "お知らせ「{name}」はもう出ています",
    # personal access tokens
    "this token may only read (GET): make a write token to change anything": (
        "このトークンは読み取り専用（GET のみ）です。変更するには書き込み用のトークンを作ってください"
    ),
    "tokens are managed only when signed in, not with a token": (
        "トークンの作成・一覧・取り消しは、トークンではなくサインインして行ってください"
    ),
    "a person has at most {limit} live tokens: revoke one first": (
        "有効なトークンは 1 人 {limit} 個までです。先にどれかを取り消してください"
    ),
    "no token '{id}'": "トークン {id} はありません",
    "tokens were being made at the same time; retry": "トークンが同時に作られました。もう一度お試しください",
    "the token could not be stored; retry": "トークンを保存できませんでした。もう一度お試しください",
    # accounts in other units
    "account '{account}' is in points: imports write no points accounts": (
        "口座 {account} はポイントの口座です。取り込みではポイントの口座に書き込めません"
    ),
    "account '{account}' is in {unit}: an income or expense needs jpy_amount, the yen it came to": (
        "口座 {account} は {unit} の口座です。収入・支出には円換算額（jpy_amount）を指定してください"
    ),
    "the points of '{account}' open on the slip's date do not cover it ({short} short): points are spent from the "
    "lots earned by then and not expired": (
        "口座 {account} の伝票の日付に使えるポイントが足りません（{short} ポイント不足）。ポイントはその日までに"
        "得て、まだ期限の切れていない分から使われます"
    ),
    "points of the lot earned by slip '{lot}' have lapsed (ポイント失効 posted): delete or change that lapse slip "
    "first": (
        "伝票 {lot} で得たポイントは失効済みです（ポイント失効を計上済み）。先にその失効の伝票を削除または変更して"
        "ください"
    ),
    "expires_on is only for points earned: an income of a points account": (
        "有効期限（expires_on）はポイント口座の収入（獲得したポイント）にだけ指定できます"
    ),
    "expires_on ({expires}) is before the slip's date ({date})": (
        "有効期限（expires_on: {expires}）が伝票の日付（{date}）より前です"
    ),
    "the member these points lapse as is no longer an editor": (
        "このポイントの失効を計上するメンバーが編集者ではなくなりました"
    ),
    "account '{account}' is in yen: jpy_amount is only for accounts in a foreign currency": (
        "口座 {account} は円の口座です。円換算額（jpy_amount）は外貨の口座にだけ指定できます"
    ),
    "jpy_amount of a points slip is its amount times the account's point_value ({value})": (
        "ポイントの伝票の円換算額（jpy_amount）は、ポイント数 × 1 ポイントの円換算（{value}）です"
    ),
    "a transfer from {unit} to {to_unit} needs to_amount, what arrived in '{account}'": (
        "{unit} から {to_unit} への振替には、振替先 {account} への入金額（to_amount）が必要です"
    ),
    "to_amount is only for a transfer between accounts of different units": (
        "入金額（to_amount）は単位の違う口座の間の振替にだけ指定できます"
    ),
    "a new amount needs its jpy_amount, the yen it came to (the one kept was for the old amount)": (
        "金額を変えるときは、その金額の円換算額（jpy_amount）もいっしょに送ってください（いまの円換算額は前の金額のものです）"
    ),
    "a new amount needs its to_amount, what arrived for it (the one kept was for the old amount)": (
        "金額を変えるときは、その金額で振替先に入った額（to_amount）もいっしょに送ってください（いまの入金額は前の金額のものです）"
    ),
    "the unit of account '{account}' cannot change: its opening balance ({opening}) is in {unit}": (
        "口座 {account} の開始残高（{opening}）は {unit} で記録されているため、単位を変更できません"
    ),
    "the unit of account '{account}' cannot change: it has slips": (
        "口座 {account} には伝票があるため、単位を変更できません"
    ),
    "account '{account}' is in {unit}: imports write yen accounts only": (
        "口座 {account} は {unit} の口座です。取り込みは円の口座にだけ書き込めます"
    ),
    # requests and bodies
    "over the person's budget of {limit} requests a minute: retry after {seconds} s": (
        "1 分あたり {limit} 回までのリクエストを使い切りました。{seconds} 秒後にもう一度お試しください"
    ),
    "over this token's budget of {limit} requests a minute: retry after {seconds} s": (
        "このトークンの 1 分あたり {limit} 回までのリクエストを使い切りました。{seconds} 秒後にもう一度お試しください"
    ),
    "a bearer token is required": "Authorization: Bearer <トークン> を送ってください",
    "the bearer token is not valid: sign in again, or use a live token": (
        "トークンが無効です（期限切れ・取り消し済み・形式の誤り）。サインインし直すか、有効なトークンを使ってください"
    ),
    "a valid bearer token is required": "有効な Authorization: Bearer <トークン> を送ってください",
    "no such route": "この URL の API はありません",
    "not found": "見つかりません",
    # shared ledgers
    "only an owner of the ledger may do this": "この家計簿のオーナーだけができる操作です",
    "no budget for this month and category": "この月・この分類の予算はありません",
    "a viewer of this ledger can read it but not change it": "閲覧者はこの家計簿を見られますが、変更はできません",
    "your role in this ledger does not allow this": "この家計簿でのあなたの役割ではこの操作はできません",
    "your role in this ledger does not allow this change": "この家計簿でのあなたの役割ではこの変更はできません",
    "the change could not be written; retry": "変更を書き込めませんでした。やり直してください",
    "the personal ledger has no name to change": "個人の家計簿の名前は変更できません",
    "a ledger with this id already exists": "この ID の家計簿はすでにあります",
    "already a member of this ledger": "すでにこの家計簿のメンバーです",
    "a ledger keeps at least one owner: make someone else owner first": (
        "家計簿にはオーナーが 1 人以上必要です。先にほかの人をオーナーにしてください"
    ),
    "the member's role changed meanwhile; retry": "メンバーの役割が同時に変更されました。もう一度お試しください",
    "the invitation could not be made; retry": "招待を作れませんでした。もう一度お試しください",
    "this invitation was already used or has expired": "この招待はすでに使われたか、期限が切れています",
    "the personal ledger cannot be shared; create a shared ledger": (
        "個人の家計簿は共有できません。共有の家計簿を作ってください"
    ),
    "the body is not valid JSON": "本文が JSON として読めません",
    "the body names '{key}' more than once": "本文に「{key}」が 2 回以上含まれています。1 回だけにしてください",
    "the body is not valid base64": "本文が base64 として読めません",
    "a JSON body is required": "本文に JSON を送ってください",
    "{route} takes no body": "{route} には本文を付けないでください",
    "the body must be a JSON object": "本文は JSON オブジェクトで送ってください",
    "the body may be at most {limit} bytes": "本文は {limit} バイトまでです",
    "send application/json": "Content-Type: application/json で送ってください",
    "send {wanted}, not {sent}": "Content-Type は {sent} ではなく {wanted} にしてください",
    "an unexpected error occurred": "予期しないエラーが発生しました。時間をおいてもう一度お試しください",
    # headers
    'send If-Match with the ETag you last read (e.g. If-Match: "3")': (
        '最後に読み込んだときの ETag を If-Match で送ってください（例: If-Match: "3"）'
    ),
    'If-Match must be an ETag in double quotes, as the API sent it (e.g. If-Match: "3"), not {sent}': (
        'If-Match には API が返した ETag を二重引用符ごと指定してください（例: If-Match: "3"）。'
        "{sent} は ETag ではありません"
    ),
    'If-Match names one version: send one ETag (e.g. If-Match: "3")': (
        'If-Match には ETag を 1 つだけ指定してください（例: If-Match: "3"）'
    ),
    'a weak ETag (W/"...") never matches If-Match: send the ETag as the API sent it (e.g. If-Match: "3")': (
        "W/ の付いた（弱い）ETag は If-Match に一致しません。"
        'API が返した ETag をそのまま送ってください（例: If-Match: "3"）'
    ),
    'no ETag of the API matches: send the ETag as the API sent it (e.g. If-Match: "3")': (
        'API が返した ETag ではありません。ETag をそのまま送ってください（例: If-Match: "3"）'
    ),
    "Idempotency-Key must be 1 to 255 printable ASCII characters": (
        "Idempotency-Key は半角の英数字・記号 1〜255 文字で指定してください"
    ),
    "a request with this Idempotency-Key is still running; retry shortly": (
        "同じ Idempotency-Key のリクエストを処理中です。少し待ってからもう一度お試しください"
    ),
    "this Idempotency-Key was used with a different request body; use a new key": (
        "この Idempotency-Key は別の内容で使われています。新しいキーを使ってください"
    ),
    "this request token was already used for a different change": "このリクエストは別の変更にすでに使われています",
    "the request could not be recorded; retry with the same key": (
        "リクエストを記録できませんでした。同じキーでもう一度お試しください"
    ),
    # ledger objects
    "account '{account}' not found": "口座「{account}」が見つかりません",
    "account '{account}' already exists": "口座「{account}」はすでにあります",
    "account '{account}' does not exist": "口座「{account}」はありません",
    "account '{account}' is archived": "口座「{account}」はアーカイブ済みです",
    "account '{account}' is not a bank account": (
        "口座「{account}」は銀行口座ではありません。引き落とし口座には銀行口座を指定してください"
    ),
    "billing is only for credit accounts": "締め日・引き落とし日（billing）はクレジットカードの口座にだけ設定できます",
    # receipts
    "receipt not found": "領収書が見つかりません",
    "receipt '{receipt}' not found": "領収書「{receipt}」が見つかりません",
    "receipt '{receipt}' is not stored yet: complete its upload first": (
        "領収書「{receipt}」はまだ保存されていません。先にアップロードを完了してください"
    ),
    "receipt '{receipt}' changed; retry": "領収書「{receipt}」がちょうど変更されました。もう一度お試しください",
    "the receipt changed": "領収書がちょうど変更されました",
    "the receipts storage did not answer; nothing was changed: retry": (
        "領収書の保存先が応答しませんでした。何も変更していません。少し待ってからもう一度お試しください"
    ),
    "the receipts storage refused the request ({storage_code}); nothing was changed: retry later": (
        "領収書の保存先が要求を拒否しました（{storage_code}）。何も変更していません。時間をおいてもう一度お試しください"
    ),
    "another upload of this receipt is in progress; retry when its lease ends": (
        "この領収書は別の端末がアップロード中です。少し待ってからもう一度お試しください"
    ),
    "the receipt's bytes are not uploaded yet: PUT them to its upload URL first": (
        "領収書のファイルがまだアップロードされていません。先にアップロード用の URL へ送ってください"
    ),
    "the uploaded bytes are not the ones declared (size or sha256); upload the file again": (
        "アップロードされた内容が申告と一致しません（サイズか sha256）。もう一度アップロードしてください"
    ),
    # credit cards
    "account '{account}' has no billing: set its closing and payment days first": (
        "口座「{account}」には締め日と引き落とし日が設定されていません。先に設定してください"
    ),
    "at most {months} months per request": "一度に取得できるのは {months} か月分までです",
    "this card's billing has no member to pay as; set it again to pay as you": (
        "このカードの引き落とし設定には登録者がいません。設定し直すと、あなたの登録として記帳されます"
    ),
    "the member this card pays as is no longer an editor; an editor can set its billing": (
        "このカードの引き落とし設定をしたメンバーはもう編集者ではありません。編集者が設定し直してください"
    ),
    "a ledger holds at most {limit} accounts": "口座は {limit} 件までです",
    "slip not found": "伝票が見つかりません",
    "suggestion not found": "ルールの提案が見つかりません",
    "slip '{slip}' already exists": "伝票「{slip}」はすでにあります",
    "a slip already exists at the new key": "移動先に同じ伝票がすでにあります",
    "the patched slip is not valid": "変更後の伝票が正しくありません",
    "the slip is at version {current}, not {expected}": (
        "ほかの人が先に変更しました（現在の版は {current}、送られた版は {expected}）。読み込み直してください"
    ),
    "the budget is at version {current}, not {expected}": (
        "ほかの人が先に予算を変更しました（現在の版は {current}、送られた版は {expected}）。読み込み直してください"
    ),
    "there is no budget to change yet": "変更する予算がまだありません。If-Match を付けずに作成してください",
    "this budget exists: send If-Match with its ETag to change it": (
        "この予算はすでにあります。変更するには ETag を If-Match で送ってください"
    ),
    "invalid category": "カテゴリが正しくありません",
    "the version is {current}, not {expected}": (
        "ほかの人が先に変更しました（現在の版は {current}、送られた版は {expected}）。読み込み直してください"
    ),
    "the slip this Idempotency-Key created has been deleted; it is not created again": (
        "この Idempotency-Key で作られた伝票は削除されています。もう一度作ることはしません"
    ),
    "the slip is being changed; retry": "伝票がちょうど変更されています。もう一度お試しください",
    "the slip's identity could not be updated": "伝票の識別情報を更新できませんでした。もう一度お試しください",
    "import '{id}' not found": "取り込み「{id}」が見つかりません",
    # recurrences
    "recurrence not found": "繰り返し伝票が見つかりません",
    "recurrence '{id}' already exists": "繰り返し伝票「{id}」はすでにあります",
    "the recurrence is at version {current}, not {expected}": (
        "ほかの人が先に繰り返し伝票を変更しました（現在の版は {current}、送られた版は {expected}）。"
        "読み込み直してください"
    ),
    "a ledger holds at most {limit} recurrences": "繰り返し伝票は {limit} 件までです",
    "the patched recurrence is not valid": "変更後の繰り返し伝票が正しくありません",
    "the recurrence is busy being run; retry": (
        "繰り返し伝票を計上している最中です。少し待ってからもう一度お試しください"
    ),
    # queries
    "'from' is after 'to'": "開始日（from）が終了日（to）より後になっています",
    "at most {days} days per request": "一度に取得できるのは {days} 日分までです",
    "invalid cursor": "カーソルが正しくありません。最初のページから取得し直してください",
    "'{name}' must be a date YYYY-MM-DD": "{name} は YYYY-MM-DD で指定してください（例: 2026-11-21）",
    "'{name}' is not a real calendar date": "{name} には実在する日付を指定してください",
    "'{name}' year must be between {lo} and {hi}": "{name} の年は {lo}〜{hi} 年で指定してください",
    "'month' must be a month YYYY-MM": "month は YYYY-MM で指定してください（例: 2026-11）",
    "'month' is not a real month": "month に存在しない月が指定されています",
    "'month' year must be between {lo} and {hi}": "month の年は {lo}〜{hi} 年で指定してください",
    "month must be a month YYYY-MM": "月は YYYY-MM で指定してください（例: 2026-11）",
    "month is not a real month": "存在しない月が指定されています",
    "'year' must be between {lo} and {hi}": "year の年は {lo}〜{hi} 年で指定してください",
    "'{name}' must be between 0 and {hi}": "{name} は 0〜{hi} の整数で指定してください",
    # concurrency and locks
    "the change could not be applied": "変更を反映できませんでした。読み込み直してからもう一度お試しください",
    "the database did not answer; retry shortly": "データベースが応答しません。少し待ってからもう一度お試しください",
    "the ledger is busy; retry shortly": "家計簿がほかの処理で混み合っています。少し待ってからもう一度お試しください",
    "the table is busy; retry shortly": "データベースが混み合っています。少し待ってからもう一度お試しください",
    "the ledger is busy with concurrent changes; retry": (
        "家計簿への変更が重なりました。少し待ってからもう一度お試しください"
    ),
    "day total could not be updated": "日ごとの集計を更新できませんでした。もう一度お試しください",
    "the budget's year could not be updated": "この予算の年の繰越を更新できませんでした。もう一度お試しください",
    "subcategory total could not be updated": "内訳ごとの集計を更新できませんでした。もう一度お試しください",
    "the ledger is being rebuilt; retry shortly": "家計簿を再集計中です。少し待ってからもう一度お試しください",
    "the {name} lock is held; retry shortly": _BUSY,
    "the {name} lock is held by another process": _BUSY,
    "the {name} lock was lost before the work was done": "処理（{name}）が中断されました。もう一度実行してください",
    "the export lock was lost before the work was done; retry": (
        "データの書き出しが中断されました。もう一度実行してください"
    ),
    "the export's upload is gone; start another export": (
        "書き出し中のファイルが見つかりません。新しく書き出しを始めてください"
    ),
    "the export moved on in another process; retry shortly": (
        "データの書き出しは別の処理で進んでいます。少し待ってからもう一度お試しください"
    ),
    # deleting a ledger
    "the ledger was changed meanwhile": "家計簿がほかの人に変更されました。読み込み直してからもう一度お試しください",
    "the ledger is being deleted already; retry shortly": (
        "この家計簿は削除中です。少し待ってからもう一度お試しください"
    ),
    "the ledger's members changed meanwhile; retry": "家計簿のメンバーがちょうど変わりました。もう一度お試しください",
    "you are the only owner of {names}: hand it over or delete it first": (
        "{names} のオーナーはあなただけです。先にほかのメンバーをオーナーにするか、家計簿を削除してください"
    ),
    "your personal ledger is removed with DELETE /me, not here": (
        "個人の家計簿はここでは削除できません（DELETE /me で削除します）"
    ),
    "the delete lock was lost before the work was done; retry": "削除が中断されました。もう一度実行してください",
    # restoring an archive
    "the file is not gzip, or it is cut short": "ファイルが gzip ではないか、途中で切れています",
    "the file is empty": "ファイルが空です",
    "the file is not a ledger archive (its first line does not say so)": (
        "家計簿の書き出しファイルではありません（1 行目がそうなっていません）"
    ),
    "the archive's version {version} is not one this API reads": (
        "この書き出しファイルの版 {version} には対応していません"
    ),
    "the archive is cut short: it has no end line": "書き出しファイルが途中で切れています（最後の行がありません）",
    "line {number}: a receipt without its hash or bytes": "{number} 行目: 領収書のハッシュか中身がありません",
    "line {number}: a receipt's bytes are not base64": "{number} 行目: 領収書の中身が base64 ではありません",
    "line {number}: a receipt's bytes do not match its hash": "{number} 行目: 領収書の中身がハッシュと一致しません",
    "line {number}: not a line an archive holds": "{number} 行目: 書き出しファイルにない種類の行です",
    "the end line's counts are not what the archive holds": "最後の行の件数が中身と一致しません",
    "line {number} is not JSON": "{number} 行目が JSON ではありません",
    "line {number} is not a JSON object": "{number} 行目が JSON のオブジェクトではありません",
    "part {part} (line {line}) was altered: its seal does not match": (
        "第 {part} 部（{line} 行目）が書き換えられています。封印（ハッシュ）が一致しません"
    ),
    "the archive has no sealed part": "書き出しファイルに封印された部分がありません",
    "the archive is cut short or has lines after its last sealed part": (
        "書き出しファイルが途中で切れているか、最後の封印の後に余計な行があります"
    ),
    "the uploaded file is not the one declared (its size or sha256 differ)": (
        "アップロードされたファイルが申告と違います（サイズか sha256 が一致しません）"
    ),
    "item {number} is not an item of a ledger (its key or values are malformed)": (
        "{number} 件目の項目が家計簿の項目ではありません（キーか値の形が正しくありません）"
    ),
    "item {number} belongs to another ledger than the one the archive names": (
        "{number} 件目の項目は、このファイルが示す家計簿とは別の家計簿のものです"
    ),
    "the archive being restored is gone; restore it again": (
        "復元中の書き出しファイルが見つかりません。もう一度アップロードしてください"
    ),
    "the restore moved on in another request; retry shortly": (
        "復元は別のリクエストで進んでいます。少し待ってからもう一度お試しください"
    ),
    "account '{account}' disappeared during the rebuild": "再集計中に口座「{account}」がなくなりました",
    "{item} changed during the rebuild": "再集計中に {item} が変更されました。もう一度実行してください",
    "{item} appeared during the rebuild": "再集計中に {item} が追加されました。もう一度実行してください",
    "the database refused the change; nothing was written": (
        "データベースが変更を受け付けませんでした。何も書き込まれていません"
    ),
    "the rebuild stopped: {why}; run it again": "再集計が途中で止まりました。もう一度実行してください",
    # imports
    "charset {charset} is not supported; send utf-8 or shift_jis": (
        "文字コード {charset} には対応していません。UTF-8 か Shift_JIS で送ってください"
    ),
    "the file is neither UTF-8 nor Shift_JIS; save it as UTF-8 and retry": (
        "ファイルが UTF-8 でも Shift_JIS でもありません。UTF-8 で保存してから送ってください"
    ),
    "the file is not valid {charset} (byte {at}); check the charset parameter": (
        "ファイルが {charset} として読めません（{at} バイト目）。charset の指定を確認してください"
    ),
    "line {line}: the CSV is malformed ({why})": "{line} 行目: CSV の形式が正しくありません",
    "the file is empty: the first line must be the header {header}": (
        "ファイルが空です。1 行目は見出し行 {header} にしてください"
    ),
    "line 1 must be the header {header}: {why}": "1 行目は見出し行 {header} にしてください（{why}）",
    "line 1 is {problem}; expected one of: {ours}[,external_id][,subcategory] (this API), {mf} (Money Forward ME"
    " 収入・支出詳細), {zaim} (Zaim), or a card's or bank's statement (GET /imports/formats lists them); it "
    "resembles: {like}": (
        "1 行目が読める見出し行ではありません。この API の {ours}[,external_id][,subcategory]、"
        "Money Forward ME（収入・支出詳細）の {mf}、Zaim の {zaim}、またはカード会社・銀行の明細"
        "（GET /imports/formats に一覧があります）のいずれかにしてください。似ている形式: {like}"
    ),
    # card and bank statements (importformats/statement.py, issuers/)
    "{name} (missing {columns})": "{name}（{columns} がありません）",
    "the issuer's id of this row repeats line {line}'s": (
        "この行の明細 ID は {line} 行目と同じです（ファイルが編集されたか、つながっています）"
    ),
    "none of them": "どれにも似ていません",
    "the file is not {name}'s statement: expected {expected}": (
        "このファイルは {name} の明細の形式ではありません（見出し行 {expected} が見つかりません）"
    ),
    "account: names the account a card's or bank's statement is of; this file is not one (send it without ?account=)": (
        "account はカード会社・銀行の明細を取り込む口座の指定です。このファイルは明細ではないため、"
        "?account= を付けずに送ってください"
    ),
    "account: name the account this statement is of (?account={id}): the file does not say": (
        "この明細を取り込む口座を ?account={id} で指定してください（ファイルには書かれていません）"
    ),
    "account: {account} is not an account of the ledger": "口座 {account} はこの家計簿にありません",
    "{name}: {value} is not a date": "{name} の {value} は日付ではありません",
    "{name}: {value} is not a real date": "{name} の {value} は実在しない日付です",
    "{name}: the row ends before this column: the file may be cut here": (
        "{name}: この行はこの列の前で終わっています。ファイルが途中で切れている可能性があります"
    ),
    "{name}: is required (the amount the card was charged)": "{name} がありません（カードに請求された金額）",
    "{name}: a row moves money one way: it has both": "{name}: 入金と出金の両方が書かれています（どちらか一方です）",
    "{name}: the row has no amount": "{name}: この行には金額がありません",
    "ご利用日: the row has an amount but no date: Vpass gives it none; record it by hand": (
        "ご利用日: 金額はありますが日付がありません（Vpass の明細に日付がない行です）。手で記録してください"
    ),
    "a quoted cell is not closed: the file is cut or damaged from this line on; download it again": (
        "引用符で始まる項目が閉じられていません。この行から先が切れているか壊れています。ダウンロードし直してください"
    ),
    "this line holds a byte-order mark (U+FEFF) in the middle of the file: two files were joined; download it again": (
        "この行の途中に BOM（U+FEFF）があります。2 つのファイルがつながっています。ダウンロードし直してください"
    ),
    "this line is in UTF-8 while the file is in Shift_JIS: two files were joined; download it again": (
        "この行は UTF-8 ですが、ファイルは Shift_JIS です。2 つのファイルがつながっています。"
        "ダウンロードし直してください"
    ),
    "this line is in Shift_JIS while the file is in UTF-8: two files were joined; download it again": (
        "この行は Shift_JIS ですが、ファイルは UTF-8 です。2 つのファイルがつながっています。"
        "ダウンロードし直してください"
    ),
    "this line is neither UTF-8 nor Shift_JIS: the file is damaged here; download it again": (
        "この行は UTF-8 でも Shift_JIS でもありません。ファイルが壊れています。ダウンロードし直してください"
    ),
    "this is a card's statement, imported onto a {type} account": "カードの明細を {type} の口座に取り込みました",
    "this is a bank's statement, imported onto a {type} account": "銀行の明細を {type} の口座に取り込みました",
    "line 1 must be {app}'s header {header}: {why}": "1 行目は {app} の見出し行 {header} にしてください（{why}）",
    "account '{name}' could be any of the accounts {ids}: name one of them by its id": (
        "口座「{name}」に当てはまる口座が複数あります（{ids}）。どれか 1 つを ID で指定してください"
    ),
    "the import kept colliding with concurrent changes; send the file again": (
        "取り込み中にほかの変更と重なりました。もう一度ファイルを送ってください"
    ),
    "a row of this batch was already imported": "この行はすでに取り込まれています",
    # webhooks
    "webhook not found": "Webhook が見つかりません",
    "rule not found": "ルールが見つかりません",
    "a ledger has at most {limit} rules": "1 つの家計簿に登録できるルールは {limit} 件までです",
    "the rule is not valid": "ルールの内容が正しくありません",
    "ids must name every rule of the ledger once": "ids には家計簿のすべてのルールを 1 度ずつ並べてください",
    "a webhook with this id already exists": "この ID の Webhook はすでにあります",
    "a ledger has at most {limit} webhooks": "1 つの家計簿に登録できる Webhook は {limit} 件までです",
    "the webhook URL is not a valid URL": "Webhook の URL が正しくありません",
    "the webhook URL must use https (only a local server with WEBHOOK_ALLOW_LOOPBACK=1 also allows http://127.0.0.1)": (
        "Webhook の URL は https にしてください"
        "（WEBHOOK_ALLOW_LOOPBACK=1 のローカルサーバーだけは http://127.0.0.1 も使えます）"
    ),
    "the webhook URL points to a private, loopback, link-local or metadata address: it must reach a public one": (
        "Webhook の URL がプライベート・ループバック・リンクローカル・メタデータのアドレスを指しています。"
        "公開されたアドレスにしてください"
    ),
    "the webhook URL's host does not resolve": "Webhook の URL のホスト名を解決できません",
    "this webhook was disabled: its creator is no longer an owner of the ledger": (
        "この Webhook は作成したオーナーがオーナーでなくなったため無効になっています"
    ),
    "this webhook is active: there is nothing to resume": "この Webhook は有効です。再開するものはありません",
    # the journal, history and undo
    "change not found": "その変更は見つかりません",
    "this change was already undone": "この変更はすでに元に戻されています",
    "slip '{id}' changed since that entry": "伝票 {id} はその変更のあとにさらに変更されています",
    "{entity} '{id}' changed since that entry": "{entity} {id} はその変更のあとにさらに変更されています",
    "the invitation kept changing while it was removed; retry": (
        "招待の削除中に招待が変更され続けました。もう一度お試しください"
    ),
    "it kept changing while this change was written; retry": (
        "書き込み中にほかの変更が続きました。もう一度お試しください"
    ),
    "'since' must be a whole number (a seq a previous answer gave as knowledge)": (
        "'since' には整数（前回の応答の knowledge）を指定してください"
    ),
    "'since' is after the last change ({head})": "'since' が最新の変更番号（{head}）より後です",
    "changes to members, invitations, webhooks, rules and the ledger are not undone; make them again instead": (
        "メンバー・招待・Webhook・自動分類ルール・家計簿そのものの変更は元に戻せません。あらためて変更してください"
    ),
    "an account's creation is not undone; archive the account instead": (
        "口座の作成は元に戻せません。代わりに口座をアーカイブしてください"
    ),
    "this entry undid nothing that can be undone": "この変更には元に戻せる内容がありません",
    "what this entry changed is no longer valid as it was before it; change it again instead": (
        "この変更の前の内容は今の規則では有効でないため、元に戻せません。改めて変更してください"
    ),
    "this recurrence has no author to post as; edit it to post as you": (
        "この繰り返しには登録者がいません。編集すると、あなたの登録として記帳されます"
    ),
    "the member this recurrence posts as is no longer an editor; an editor can edit it to post as them": (
        "この繰り返しを登録したメンバーはもう編集者ではありません。編集者が編集すると、その人の登録として記帳されます"
    ),
    "the import could not be recorded": "取り込みを記録できませんでした。もう一度ファイルを送ってください",
    # who paid, who owes
    "paid_by and shares are for shared ledgers: a personal ledger has nobody to owe": (
        "立て替え（paid_by・shares）は共有の家計簿だけで使えます。個人の家計簿には精算する相手がいません"
    ),
    "shares need paid_by: who paid for them": "負担額（shares）には立て替えた人（paid_by）も指定してください",
    "only an expense can say who paid for it": "立て替えた人（paid_by）は支出の伝票にだけ指定できます",
    "'{user}' is not a member of this ledger": "「{user}」はこの家計簿のメンバーではありません",
    "the shares sum to {total}, not the slip's amount {amount}": (
        "負担額の合計（{total}）が伝票の金額（{amount}）と一致しません"
    ),
    "the lots of '{account}' changed while they were repaired": (
        "ポイント口座「{account}」のロットが修復中に変わりました"
    ),
    "the shares sum to {total}, not the slip's yen (jpy_amount) {amount}": (
        "負担額の合計（{total}）が伝票の円換算（jpy_amount: {amount}）と一致しません"
    ),
    "a member left the ledger while this was written; retry": (
        "書き込み中にメンバーが家計簿を抜けました。もう一度お試しください"
    ),
    "the ledger's nets could not be updated": "立て替えの残高を更新できませんでした。もう一度お試しください",
    "this settlement is recorded already": "この精算はすでに記録されています",
    "this Idempotency-Key recorded another settlement; use a new key": (
        "この Idempotency-Key では別の精算が記録されています。新しいキーを使ってください"
    ),
    "the nets changed since they were read": (
        "ほかの人が先に立て替えや精算を記録しました。精算の画面を読み込み直してください"
    ),
    "a settlement is not undone; record the opposite settlement instead": (
        "精算は元に戻せません。逆向きの精算を記録してください"
    ),
    "from and to must be two different people": "精算の支払う人（from）と受け取る人（to）は別の人にしてください",
    "{why}; {created} rows were imported so far: send the file again later": (
        "ここまでに {created} 行を取り込みました。少し待ってから、同じファイルをもう一度送ってください"
    ),
    # rows of an imported file (row errors; the specific before the general)
    "expected {n} fields, found {m}": "列の数が {m} です（{n} 列にしてください）",
    "amount: must be a whole number in the currency's minor unit, e.g. 1200": (
        "金額は 1200 のように、円単位の整数で書いてください"
    ),
    "medical_reimbursed: must be a whole number in the currency's minor unit, e.g. 1200": (
        "補填される金額（medical_reimbursed）は 1200 のように、円単位の整数で書いてください"
    ),
    "medical_otc: must be true or false": "セルフメディケーション対象（medical_otc）は true か false で書いてください",
    "donation_one_stop: must be true or false": (
        "ワンストップ特例（donation_one_stop）は true か false で書いてください"
    ),
    "external_id {id} repeats line {line}": "external_id {id} が {line} 行目と重複しています",
    "ID {id} repeats line {line}": "ID {id} が {line} 行目と重複しています",
    # an import compared with earlier downloads of the same app
    "changed in the app": "アプリで変更されていました",
    "changed as in the app": "アプリでの変更を反映しました",
    "edited here since it was imported: left as it is, the app has": (
        "取り込んだあとにこちらで編集されているため、そのままにしました。アプリでの内容"
    ),
    "edited here meanwhile: left as it is": "ちょうどこちらで編集されたため、そのままにしました",
    "an older version of this row than the one already imported: left as it is": (
        "すでに取り込んだ内容より古いファイルの行のため、そのままにしました"
    ),
    "may replace the slip of {date} no longer in the file": (
        "ファイルからなくなった {date} の伝票を置き換えるものかもしれません"
    ),
    "import with apply_deletions=true to replace it": "置き換えるには apply_deletions=true で取り込んでください",
    "replaced the slip of {date} no longer in the file": "ファイルからなくなった {date} の伝票を置き換えました",
    "imported from an earlier download and not in this one": (
        "以前のファイルから取り込んだ伝票ですが、このファイルにはありません"
    ),
    "import with apply_deletions=true to delete it": "削除するには apply_deletions=true で取り込んでください",
    "deleted: it was not in the app's download": "アプリのファイルになかったため削除しました",
    "edited here since it was imported: not deleted": "取り込んだあとにこちらで編集されているため、削除しませんでした",
    "edited here meanwhile: not deleted": "ちょうどこちらで編集されたため、削除しませんでした",
    "{count} rows repeat an ID of an earlier row (a file edited by hand or anonymised): they are refused": (
        "{count} 行が前の行と同じ ID です（手で編集したか匿名化したファイルです）。これらの行は取り込めません"
    ),
    "import the file with identity=content to read its rows by their content": (
        "行の内容で見分けるには identity=content で取り込んでください"
    ),
    "account {names} is not in the ledger: create it, or import with create_accounts=true": (
        "口座 {names} は家計簿にありません。口座を作るか、create_accounts=true で取り込んでください"
    ),
    "account name '{name}' has a character no account name may have ({ch}): remove it in the app": (
        "口座名「{name}」には口座名に使えない文字（{ch}）が含まれています。アプリで取り除いてください"
    ),
    "account name '{name}' cannot be an account's name: rename the account in the app": (
        "口座名「{name}」は口座名に使えません。アプリで口座名を変えてください"
    ),
    "insufficient funds: {detail}": "残高不足: {detail}",
    "budget exceeded: {detail}": "予算超過: {detail}",
    "{name} has {balance}: it cannot pay {needed}": "{name}の残高 {balance} では {needed} を支払えません",
    "the {month} budget for {category} has {remaining} left; this needs {needed}": (
        "{month}の「{category}」の予算は残り {remaining} です（{needed} 必要です）"
    ),
    "金額（円）: 0 moves no money; there is nothing to record": "金額（円）が 0 なので、記録するものがありません",
    "保有金融機関: is required (the account the money moved in)": "保有金融機関（お金が動いた口座）を指定してください",
    "ID: is required (it identifies the row across downloads)": (
        "ID（ダウンロードをまたいで行を見分けます）を指定してください"
    ),
    "残高調整: 0 adjusts nothing; there is nothing to record": "残高調整が 0 なので、記録するものがありません",
    "方法: {value} must be payment, income, transfer or balance": (
        "方法 {value} は payment、income、transfer、balance のいずれかにしてください"
    ),
    "残高調整: names no account (入金先 or 支払元) to adjust": "残高調整: 調整する口座（入金先か支払元）がありません",
    "集計の設定: {value} is not one of Zaim's settings": "集計の設定 {value} は Zaim の設定値ではありません",
    "date: {value} is not a date YYYY/MM/DD": "日付 {value} は YYYY/MM/DD の形式ではありません",
    "date: {value} {why}": "日付 {value} は実在する日付ではありません",
    "{name}: {value} must be 0 or 1": "{name} は 0 か 1 にしてください（{value}）",
    "{name}: {value} is not a whole number of yen": "{name} の {value} は円単位の整数ではありません",
    "{name}: must be at most {limit}": "{name} は {limit} 以下にしてください",
    "{name}: must be a positive amount for {kind}": "{kind} の {name} は正の金額にしてください",
    "{name}: is required for {kind}": "{kind} には {name} が必要です",
    # reconciliation (照合)
    "this slip was reconciled ({reconciliation}): its amount, date and account stay as summed; send "
    "?unlock=true to change it (the reconciliation then no longer holds)": (
        "この明細は照合済みです（{reconciliation}）。金額・日付・口座は変えられません。"
        "変える場合は ?unlock=true を付けてください（その照合は成り立たなくなります）"
    ),
    "the cleared balance as of {date} is {cleared}, the statement says {balance} (difference {difference}); "
    "clear the missing slips or send adjust: true": (
        "{date} 時点の確認済み残高は {cleared}、明細書の残高は {balance} です（差額 {difference}）。"
        "足りない明細を確認済みにするか、adjust: true で差額を使途不明金として記録してください"
    ),
    "date: {date} is in the future: a statement tells what an account held up to today": (
        "日付 {date} は未来の日付です。照合できるのは今日までの残高です"
    ),
    "account: {account} is archived: it is no longer reconciled": "口座 {account} はアーカイブ済みのため照合できません",
    "reconciliation not found": "照合が見つかりません",
    "this reconciliation was already stored": "この照合はすでに記録されています",
    "the reconciliation changed meanwhile; retry": "照合が同時に変更されました。もう一度お試しください",
    "this reconciliation is being undone or redone meanwhile; retry": (
        "この照合はちょうど取り消し中かやり直し中です。少し待ってからもう一度お試しください"
    ),
    "a slip changed while it was reconciled; retry": "照合中に明細が変更されました。もう一度お試しください",
    "the adjustment slip '{slip}' of reconciliation '{id}' changed since: the reconciliation is not undone": (
        "照合 {id} の差額の伝票 {slip} は照合のあとに変更されています。照合は取り消していません"
    ),
    "jpy_amount is the yen of an adjustment: send it with adjust: true": (
        "円換算額（jpy_amount）は差額の調整の円換算額です。adjust: true といっしょに指定してください"
    ),
    "account '{account}' is in {unit}: jpy_amount is only for an account in a foreign currency": (
        "口座 {account} の単位は {unit} です。円換算額（jpy_amount）は外貨の口座にだけ指定できます"
    ),
    "account '{account}' is in {unit} and none of its slips up to {date} says what its amounts came to in yen: "
    "send jpy_amount, the yen of the difference": (
        "口座 {account} は {unit} の口座で、{date} までの伝票に円換算額のわかるものがありません。"
        "差額の円換算額を jpy_amount で指定してください"
    ),
    "this reconciliation was let go meanwhile; retry": "この照合は途中で手放されました。もう一度お試しください",
    "the account changed while it was reconciled; retry": "照合中に口座が変更されました。もう一度お試しください",
    "the account kept changing while it was reconciled; retry": (
        "照合中に口座の変更が続きました。少し待ってからもう一度お試しください"
    ),
    "this reconciliation was undone too often; reconcile with another Idempotency-Key": (
        "この照合は何度も取り消されています。別の Idempotency-Key で照合してください"
    ),
    "reconciliation '{id}' changed since that entry": "照合 {id} はこの変更のあとに変わっています",
}
# Groups whose text is itself an English detail: translated too; lists of them ("; "-separated): each.
_NESTED = ("detail",)
_LISTS = ("like",)


@cache
def _compiled() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for english, japanese in TRANSLATIONS.items():
        pattern = "".join(
            f"(?P<{part[1:-1]}>.*?)" if part.startswith("{") else re.escape(part)
            for part in re.split(r"(\{\w+\})", english)
            if part
        )
        out.append((re.compile(f"^{pattern}$", re.DOTALL), japanese))
    return out


def _nested(name: str, value: str) -> str:
    if name in _NESTED:
        return translate(value) or value
    if name in _LISTS:
        return "、".join(translate(part) or part for part in value.split("; "))
    return value


def translate(detail: str) -> str | None:
    """The Japanese of an English detail raised as text, or None if the catalogue lacks it."""
    for pattern, japanese in _compiled():
        found = pattern.match(detail)
        if found:
            groups = {k: _nested(k, v) for k, v in found.groupdict().items()}
            return japanese.format(**groups)
    return field_sentence(detail)


@cache
def _field_sentences() -> list[tuple[re.Pattern[str], str]]:
    """Every English sentence `field_error` words, as a pattern, with its Japanese: longest first,
    so that "{f} must be at least {min_length} characters" wins over "{f} must be at least {ge}"."""
    pairs = [
        *_BY_TYPE.values(),
        *((en, ja) for _, en, ja in _VALUE_ERRORS if en),
        *_FORMATS.values(),
        ("{f} must not be empty", "{f}を入力してください"),
        ("{f} is not valid", "{f}の値が正しくありません"),
    ]
    out = []
    for english, japanese in sorted(set(pairs), key=lambda pair: -len(re.sub(r"\{\w+\}", "", pair[0]))):
        pattern = "".join(
            f"(?P<{part[1:-1]}>.+?)" if part.startswith("{") else re.escape(part)
            for part in re.split(r"(\{\w+\})", english)
            if part
        )
        out.append((re.compile(f"^{pattern}$", re.DOTALL), japanese))
    return out


def field_sentence(english: str) -> str | None:
    """The Japanese of a sentence `field_error` worded in English (e.g. a row error), or None."""
    for pattern, japanese in _field_sentences():
        found = pattern.match(english)
        if not found:
            continue
        groups = found.groupdict()
        if "f" in groups:
            groups["f"] = _field_ja(groups["f"])
        if "expected" in groups:
            groups["expected"] = groups["expected"].replace(", ", "、")
        for name in ("name", "account"):
            if name in groups:
                groups[name] = _field_or(groups[name], "ja")
        try:
            return japanese.format(**groups)
        except (KeyError, IndexError):
            continue
    return None


def _field_ja(english: str) -> str:
    if english == "the body":
        return "本文"
    for en, ja in FIELDS.values():
        if en == english:
            return ja
    return f"「{english}」"


def row_message(message: str, lang: Lang) -> str:
    """A row error of an import (stored in English) in `lang`: the whole message, else each of its
    "; "-separated parts; what the catalogue cannot word is shown as it is, inside a Japanese frame."""
    if lang == "en":
        return message
    whole = translate(message)
    if whole is not None:
        return whole
    parts = [translate(part) for part in message.split("; ")]
    if all(parts):
        return "。".join(p for p in parts if p)
    return f"この行は取り込めません（{message}）"


def changes_message(message: str, changes: Mapping[str, Sequence[Any]], lang: Lang) -> str:
    """An import's row that the app changed, in `lang`: what became of it (the message up to its
    first "; "), then each field as "name: here -> in the app", the field named in that language."""
    if lang == "en":
        return message
    head = message.split("; ", 1)[0]
    words = translate(head) or head
    fields = "、".join(
        f"{_field_ja(name)}: {'-' if old is None else old} → {'-' if new is None else new}"
        for name, (old, new) in changes.items()
    )
    return f"{words}（{fields}）" if fields else words


def field_errors_in(items: Sequence[Any], lang: Lang) -> list[Any]:
    """A problem's `errors` with each `msg` worded by the catalogue in `lang`: by the kind of
    mistake where a validator classified it, else by translating its text."""
    out: list[Any] = []
    for item in items:
        if not isinstance(item, Mapping):
            out.append(item)
        elif item.get("type"):
            out.append({**item, "msg": field_error(item, lang)})
        elif lang == "ja" and isinstance(item.get("msg"), str):
            out.append({**item, "msg": translate(item["msg"]) or item["msg"]})
        else:
            out.append(dict(item))
    return out


# ---- words for stored keys ----------------------------------------------------------------------

# Slips filed without a category are stored, counted and budgeted under the key "uncategorized"
# (ledger.UNCATEGORIZED), as they always were: the key never changes with the language, so reports
# keep counting older slips with newer ones and a client can send a slip back as it read it. People
# read it as a label, worded here.
# Why the ワンストップ特例 no longer applies to a year's ふるさと納税 (GET /reports/donations' reasons).
ONE_STOP_REASONS: dict[str, tuple[str, str]] = {
    "too_many_municipalities": (
        "this year's donations went to more than 5 municipalities: the ワンストップ特例 covers at most 5",
        "今年の寄附先が 5 自治体を超えています（ワンストップ特例は 5 自治体まで）",
    ),
    "not_requested": (
        "a donation was not marked as sent for the ワンストップ特例",
        "ワンストップ特例の申請をしていない寄附があります",
    ),
}


def one_stop_reason(reason: str, lang: Lang) -> str:
    return ONE_STOP_REASONS[reason][0 if lang == "en" else 1]


CATEGORY_LABELS: dict[str, tuple[str, str]] = {"uncategorized": ("Uncategorized", "未分類")}


def category_label(category: str | None, lang: Lang) -> str | None:
    """A category in words: the catalogue's for a reserved key, the category itself otherwise."""
    if category is None:
        return None
    known = CATEGORY_LABELS.get(category)
    return category if known is None else known[0 if lang == "en" else 1]


# ---- the problem body ---------------------------------------------------------------------------


def title(code: str, fallback: str, lang: Lang) -> str:
    texts = TITLES.get(code)
    if texts is None:
        return fallback
    return texts[0] if lang == "en" else texts[1]


# ---- alerts (§27): what each kind says, from its facts -------------------------------------------

ALERT_WORDS: dict[str, tuple[str, str]] = {
    "budget_80": (
        "{category}: {spent} of {available} yen spent this month (80% of the budget)",
        "{category}の今月の予算の 80% を使いました（{spent} 円 / {available} 円）",
    ),
    "budget_100": (
        "{category}: {spent} of {available} yen spent this month (the whole budget)",
        "{category}の今月の予算を使い切りました（{spent} 円 / {available} 円）",
    ),
    "shortfall": (
        "{account} is forecast to fall to {balance} on {date}, below {floor}, with {memo}",
        "残高不足の見込み：{date} に{account}の残高が {balance} になります（下限 {floor}、{memo}）",
    ),
    "points_lapsing": (
        "{points} points of {account} lapse on {date}",
        "{date} に{account}のポイント {points} が失効します",
    ),
    "card_payment": (
        "{amount} yen will be debited for {card} on {date}",
        "{date} に{card}の引き落とし {amount} 円があります",
    ),
}


def alert_text(kind: str, facts: Mapping[str, Any], lang: Lang) -> str:
    """An alert's sentence in `lang`, from its facts (a fact it lacks is left out as ?)."""
    english, japanese = ALERT_WORDS[kind]
    shown = {k: ("?" if v is None else v) for k, v in facts.items()}
    if kind == "shortfall" and not shown.get("memo"):
        shown["memo"] = "引き落とし" if lang == "ja" else "a debit"

    class _Missing(dict[str, Any]):
        def __missing__(self, key: str) -> str:
            return "?"

    return (japanese if lang == "ja" else english).format_map(_Missing(shown))


def detail(code: str, raised: str, members: Mapping[str, Any], lang: Lang) -> str:
    """The detail in `lang`: worded from the members when the code has a wording, else the raised text."""
    words = DETAILS.get(code)
    worded = words(members, lang) if words else None
    if worded:
        return worded
    if lang == "en":
        return raised
    return translate(raised) or _FALLBACK_JA.get(code) or title(code, raised, "ja")
