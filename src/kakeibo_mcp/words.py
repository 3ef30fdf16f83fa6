"""What this server itself says (an account it cannot find, an API it cannot reach), in Japanese or
English as KAKEIBO_LANG asks; the API's own problems come worded by the API in that language."""

from __future__ import annotations

from kakeibo_mcp.api import Unreachable
from kakeibo_mcp.matching import Ambiguous, NotFound

WHAT = {"account": ("口座", "account"), "category": ("費目", "category")}


def _what(what: str, lang: str) -> str:
    ja, en = WHAT.get(what, (what, what))
    return ja if lang == "ja" else en


def not_found(error: NotFound, lang: str) -> str:
    known = "、".join(error.known) if lang == "ja" else ", ".join(error.known)
    if lang == "ja":
        listed = f"この台帳の{_what(error.what, lang)}: {known}" if error.known else "この台帳にはまだありません"
        return f"{_what(error.what, lang)}「{error.name}」が見つかりません。{listed}"
    listed = f"the ledger's {error.what}s: {known}" if error.known else "the ledger has none yet"
    return f"no {error.what} named '{error.name}' in this ledger; {listed}"


def ambiguous(error: Ambiguous, lang: str) -> str:
    if lang == "ja":
        listed = "、".join(error.candidates)
        return (
            f"「{error.name}」に当たる{_what(error.what, lang)}が複数あります: {listed}。どれか一つを指定してください"
        )
    return f"'{error.name}' could be more than one {error.what}: {', '.join(error.candidates)}; name one of them"


def unreachable(error: Unreachable, lang: str) -> str:
    if lang == "ja":
        where = f"{error.base}: {error.reason}"
        return f"家計簿APIに接続できません（{where}）。APIが動いているか確かめて、もう一度呼んでください"
    return f"cannot reach the Kakeibo API ({error.base}: {error.reason}); check that it is running and call again"


def bad_input(message: tuple[str, str], lang: str) -> str:
    return message[0] if lang == "ja" else message[1]


TRANSFER_NEEDS_TO = ("振替には振替先の口座（to_account）が要ります", "a transfer needs to_account")
NO_TO_ACCOUNT = ("振替先（to_account）は振替のときだけ指定します", "to_account is for transfers only")
TRANSFER_NO_CATEGORY = ("振替には費目がありません", "a transfer has no category")
MONTH_OR_RANGE = (
    "month（YYYY-MM）か from/to（YYYY-MM-DD）のどちらかで期間を指定してください",
    "give either month (YYYY-MM) or from/to (YYYY-MM-DD), not both",
)
