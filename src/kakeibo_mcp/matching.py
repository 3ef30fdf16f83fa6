"""Pure rules: the ledger's accounts and categories found by the words a person uses, and the
Idempotency-Key a tool call's request id stands for. No HTTP here."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Words for an account's type: "the card" is the ledger's one credit card, "cash" its one wallet.
TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "cash": ("cash", "現金", "財布", "お財布", "さいふ", "wallet"),
    "credit": ("card", "credit", "credit card", "カード", "クレジット", "クレジットカード", "クレカ"),
    "bank": ("bank", "銀行", "口座", "銀行口座", "預金"),
    "emoney": ("emoney", "e-money", "電子マネー", "ic", "icカード"),
}
UNCATEGORIZED = "uncategorized"
UNCATEGORIZED_WORDS = ("uncategorized", "未分類", "その他なし")


def fold(text: str) -> str:
    """The form names are compared in: NFKC (ｶｰﾄﾞ is カード, ＡＢＣ is ABC), case folded, katakana as
    hiragana (ガイショク is がいしょく), without spaces or the middle dot."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    out = []
    for char in folded:
        if char.isspace() or char in "・･":
            continue
        code = ord(char)
        out.append(chr(code - 0x60) if 0x30A1 <= code <= 0x30F6 else char)
    return "".join(out)


class NotFound(LookupError):
    """A name the ledger has nothing for; `known` are the names it has."""

    def __init__(self, what: str, name: str, known: Sequence[str]) -> None:
        super().__init__(what, name)
        self.what, self.name, self.known = what, name, list(known)


class Ambiguous(LookupError):
    """A name more than one thing of the ledger answers to."""

    def __init__(self, what: str, name: str, candidates: Sequence[str]) -> None:
        super().__init__(what, name)
        self.what, self.name, self.candidates = what, name, list(candidates)


def _label(account: Mapping[str, Any]) -> str:
    return f"{account['name']} ({account['id']})"


def match_account(name: str, accounts: Iterable[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The account `name` means: its id or name exactly (folded), else the one live account of the type
    the word names ("card", "現金"), else the one live account whose name or id contains it (or is
    contained in it). NotFound naming the ledger's accounts, Ambiguous naming the candidates."""
    every = list(accounts)
    wanted = fold(name)
    if not wanted:
        raise NotFound("account", name, [_label(a) for a in every if not a.get("archived")])
    exact = [a for a in every if wanted in (fold(str(a["id"])), fold(str(a["name"])))]
    if len(exact) == 1:
        return exact[0]
    live = [a for a in every if not a.get("archived")]
    if len(exact) > 1:
        exact_live = [a for a in exact if not a.get("archived")]
        if len(exact_live) == 1:
            return exact_live[0]
        raise Ambiguous("account", name, [_label(a) for a in exact])
    for kind, words in TYPE_WORDS.items():
        if wanted in {fold(word) for word in words}:
            typed = [a for a in live if a.get("type") == kind]
            if len(typed) == 1:
                return typed[0]
            if len(typed) > 1:
                raise Ambiguous("account", name, [_label(a) for a in typed])
    partial = [
        a for a in live if any(wanted in fold(str(a[key])) or fold(str(a[key])) in wanted for key in ("id", "name"))
    ]
    if len(partial) == 1:
        return partial[0]
    if len(partial) > 1:
        raise Ambiguous("account", name, [_label(a) for a in partial])
    raise NotFound("account", name, [_label(a) for a in live])


@dataclass(frozen=True)
class Category:
    """A category as the ledger spells it, with the subcategories its slips have."""

    name: str
    subcategories: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class CategoryMatch:
    category: str
    subcategory: str | None
    known: bool  # False: the ledger has no slip or budget in it yet (it is recorded as a new one)


def match_category(name: str, subcategory: str | None, known: Sequence[Category]) -> CategoryMatch:
    """The category (and subcategory) `name` means, as the ledger spells them: a category by its
    folded name; else a subcategory of exactly one category (外食 -> 食費 > 外食); else `name` as it is,
    a new category. 未分類 is the reserved key `uncategorized`. Ambiguous when a subcategory name
    belongs to several categories."""
    wanted = fold(name)
    if wanted in {fold(word) for word in UNCATEGORIZED_WORDS}:
        return CategoryMatch(UNCATEGORIZED, None, True)
    for category in known:
        if fold(category.name) == wanted:
            return CategoryMatch(category.name, _subcategory(subcategory, category), True)
    if subcategory is None:
        owners = [c for c in known for sub in c.subcategories if fold(sub) == wanted]
        if len(owners) == 1:
            sub = next(s for s in owners[0].subcategories if fold(s) == wanted)
            return CategoryMatch(owners[0].name, sub, True)
        if len(owners) > 1:
            raise Ambiguous("category", name, [f"{c.name} > {name}" for c in owners])
    return CategoryMatch(name.strip(), subcategory.strip() if subcategory else None, False)


def _subcategory(subcategory: str | None, category: Category) -> str | None:
    if subcategory is None:
        return None
    wanted = fold(subcategory)
    return next((s for s in category.subcategories if fold(s) == wanted), subcategory.strip())


def idempotency_key(action: str, request_id: str) -> str:
    """The Idempotency-Key of a write a tool makes for `request_id`: the same id is the same key (a
    retried call is answered once), printable ASCII within the API's 255 characters whatever the id
    is written in; the action keeps one id used for two kinds of write from meeting."""
    digest = hashlib.sha256(f"{action}\n{request_id.strip()}".encode()).hexdigest()
    return f"mcp-{action}-{digest[:40]}"
