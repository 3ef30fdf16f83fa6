"""The MCP server's pure parts: accounts and categories found by the words a person uses, the
Idempotency-Key a request id stands for, the configuration read from the environment."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import kakeibo_mcp
from kakeibo_mcp.api import ApiProblem, Config, ConfigError
from kakeibo_mcp.matching import (
    Ambiguous,
    Category,
    NotFound,
    fold,
    idempotency_key,
    match_account,
    match_category,
)

ACCOUNTS: list[dict[str, Any]] = [
    {"id": "cash", "name": "お財布", "type": "cash"},
    {"id": "card", "name": "楽天カード", "type": "credit"},
    {"id": "bank", "name": "三井住友銀行", "type": "bank"},
    {"id": "yucho", "name": "ゆうちょ銀行", "type": "bank"},
    {"id": "old-card", "name": "昔のカード", "type": "credit", "archived": True},
]
CATEGORIES = [
    Category("食費", ("外食", "食料品", "ランチ")),
    Category("日用品"),
    Category("交際費", ("外食",)),
    Category("給与"),
]


def test_names_compare_folded() -> None:
    # Then width, case, katakana/hiragana, spaces and middle dots do not matter
    assert fold("ｶｰﾄﾞ") == fold("カード") == fold("かーど")
    assert fold("ＳＵＩＣＡ") == fold("suica")
    assert fold("楽天 カード") == fold("楽天・カード") == fold("楽天カード")


@pytest.mark.parametrize(
    ("said", "found"),
    [
        ("card", "card"),  # its id
        ("お財布", "cash"),  # its name
        ("ｶｰﾄﾞ", "card"),  # half-width: the one live credit card
        ("カード", "card"),  # the one live credit card (the archived one does not count)
        ("現金", "cash"),  # a type word
        ("楽天", "card"),  # part of its name
        ("ゆうちょ", "yucho"),
        ("昔のカード", "old-card"),  # an archived account by its exact name
    ],
)
def test_an_account_is_found_by_the_words_a_person_uses(said: str, found: str) -> None:
    # When an account is named as a person says it
    # Then the ledger's account is found
    assert match_account(said, ACCOUNTS)["id"] == found


def test_an_account_that_several_answer_to_is_ambiguous_naming_them() -> None:
    # When the word names two live accounts (two banks)
    with pytest.raises(Ambiguous) as raised:
        match_account("銀行", ACCOUNTS)
    # Then both are named
    assert raised.value.candidates == ["三井住友銀行 (bank)", "ゆうちょ銀行 (yucho)"]


def test_an_unknown_account_is_not_found_naming_the_ledgers_accounts() -> None:
    # When no account answers to the name
    with pytest.raises(NotFound) as raised:
        match_account("PayPay", ACCOUNTS)
    # Then the error names it and lists the live accounts
    assert raised.value.name == "PayPay"
    assert raised.value.known == ["お財布 (cash)", "楽天カード (card)", "三井住友銀行 (bank)", "ゆうちょ銀行 (yucho)"]


def test_a_category_is_the_ledgers_spelling_or_a_subcategorys_category() -> None:
    # Then a category is found by its folded name, a subcategory of one category by its name alone
    assert match_category("食費", None, CATEGORIES) == match_category("食費", None, CATEGORIES)
    found = match_category("食料品", None, CATEGORIES)
    assert (found.category, found.subcategory, found.known) == ("食費", "食料品", True)
    given = match_category("食費", "ﾗﾝﾁ", CATEGORIES)
    assert (given.category, given.subcategory) == ("食費", "ランチ")
    # And 未分類 is the reserved key
    assert match_category("未分類", None, CATEGORIES).category == "uncategorized"
    # And a name the ledger has not used is a new category, as written
    new = match_category(" 趣味 ", None, CATEGORIES)
    assert (new.category, new.subcategory, new.known) == ("趣味", None, False)


def test_a_subcategory_of_two_categories_is_ambiguous() -> None:
    with pytest.raises(Ambiguous) as raised:
        match_category("外食", None, CATEGORIES)
    assert raised.value.candidates == ["食費 > 外食", "交際費 > 外食"]


def test_one_request_id_is_one_idempotency_key() -> None:
    # Given a request id as an assistant writes it (any text)
    key = idempotency_key("record", "ドラッグストア 1280 #1")
    # Then the same id is the same key, another id or another action another key
    assert key == idempotency_key("record", "ドラッグストア 1280 #1")
    assert key != idempotency_key("record", "ドラッグストア 1280 #2")
    assert key != idempotency_key("undo", "ドラッグストア 1280 #1")
    # And the key is printable ASCII within the API's 255 characters
    assert key.isascii() and key.isprintable() and 1 <= len(key) <= 255


def test_the_configuration_comes_from_the_environment() -> None:
    # Given the environment an MCP client passes
    config = Config.from_env({"KAKEIBO_API": "http://127.0.0.1:3000/", "KAKEIBO_TOKEN": "kk_x"})
    # Then the API's base URL, the token, the personal ledger and Japanese are used
    assert config == Config("http://127.0.0.1:3000", "kk_x", None, "ja")
    assert Config.from_env({"KAKEIBO_API": "http://a", "KAKEIBO_TOKEN": "t", "KAKEIBO_LANG": "en-US"}).lang == "en"
    # And a missing URL or token, or an unknown language, is refused with what to set
    for wrong in ({"KAKEIBO_TOKEN": "t"}, {"KAKEIBO_API": "http://a"}, {"KAKEIBO_API": "http://a", "KAKEIBO_TOKEN": "t",
                                                                        "KAKEIBO_LANG": "fr"}):  # fmt: skip
        with pytest.raises(ConfigError):
            Config.from_env(wrong)


def test_a_problem_reads_as_its_title_detail_and_code() -> None:
    body = {"title": "残高不足", "detail": "お財布の残高では払えません", "code": "insufficient_funds"}
    problem = ApiProblem(409, body, "POST", "/slips")
    assert problem.text == "残高不足: お財布の残高では払えません (insufficient_funds, 409 from POST /slips)"
    # And an answer that is not a problem (API Gateway's own 404) still says what it was
    assert ApiProblem(404, {"message": "Not Found"}, "GET", "/forecast").text == "Not Found (404 from GET /forecast)"


def test_the_mcp_server_is_a_client_of_the_api_only() -> None:
    # Given the MCP server's modules
    package = Path(kakeibo_mcp.__file__).parent
    imported = set()
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    # Then none imports the API's own code (it talks to the API over HTTP, and ships apart from it)
    assert "kakeibo" not in imported and "mcp" in imported
