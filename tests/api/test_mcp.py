"""The MCP server (`python -m kakeibo_mcp`) as an assistant's client meets it: the SDK's own client
over stdio, the server calling the local front with a personal access token. One person's ledger
and one session serve most tests (each starts from what the ledger has then, not from nothing)."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, redirect_stdout
from pathlib import Path
from typing import Any, TextIO
from zoneinfo import ZoneInfo

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from kakeibo.local.dynamodb import free_port
from kakeibo.local.front import Front, serve
from tests.api.conftest import Http

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
READ_TOOLS = {"list_ledgers", "balances", "list_categories", "find_slips", "month_report", "budgets", "forecast"}
WRITE_TOOLS = {"record_slip", "undo_change"}
TODAY = dt.datetime.now(ZoneInfo("Asia/Tokyo")).date()  # the ledger's month the tests record in
MONTH = TODAY.strftime("%Y-%m")
DAY1, DAY2 = f"{MONTH}-01", f"{MONTH}-02"
BEFORE = (TODAY.replace(day=1) - dt.timedelta(days=1)).isoformat()  # the last day of the previous month


def readme_blocks() -> list[str]:
    """The README's MCP blocks this file runs: the client configuration and the first conversation."""
    return [
        code
        for lang, code in BLOCK.findall(README)
        if (lang == "json" and '"kakeibo_mcp"' in code) or (lang == "python" and "kakeibo_mcp" in code)
    ]


class Assistant:
    """A client session with `python -m kakeibo_mcp` (the SDK's stdio_client and ClientSession), on an
    event loop of its own thread, so a test calls it as plain functions."""

    def __init__(
        self, env: dict[str, str], errlog: TextIO, command: str = sys.executable, args: list[str] | None = None
    ):
        # the server imported from this checkout, whatever the venv's editable install points at
        self.params = StdioServerParameters(
            command=command, args=args or ["-m", "kakeibo_mcp"], env={"PYTHONPATH": str(ROOT / "src"), **env}, cwd=ROOT
        )
        self.errlog = errlog
        self.stack = ExitStack()

    def __enter__(self) -> Assistant:
        portal = self.stack.enter_context(start_blocking_portal())
        read, write = self.stack.enter_context(
            portal.wrap_async_context_manager(stdio_client(self.params, self.errlog))
        )
        self.session = self.stack.enter_context(portal.wrap_async_context_manager(ClientSession(read, write)))
        self.portal = portal
        portal.call(self.session.initialize)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()

    def tools(self) -> dict[str, Any]:
        return {tool.name: tool for tool in self.portal.call(self.session.list_tools).tools}

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        result: CallToolResult = self.portal.call(self.session.call_tool, tool, arguments)
        return result

    def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self.call(tool, **arguments)
        assert not result.is_error, (tool, result.content)
        assert isinstance(result.structured_content, dict), result
        return result.structured_content

    def refused(self, tool: str, **arguments: Any) -> str:
        result = self.call(tool, **arguments)
        assert result.is_error, (tool, result.structured_content)
        text = str(result.content[0].text)  # type: ignore[union-attr]
        assert not text.startswith("Error executing tool"), text  # a refusal, not a crash of the tool
        return text


@pytest.fixture(scope="module")
def person() -> str:
    return f"mcp-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def owner(front_url: str, person: str) -> Http:
    """The person, signed in (the local `Bearer <name>`), with the walk-through's accounts."""
    http = Http(front_url, person)
    for account in (
        {"id": "cash", "name": "お財布", "type": "cash", "opening_balance": 20000},
        {"id": "card", "name": "楽天カード", "type": "credit"},
        {"id": "bank", "name": "三井住友銀行", "type": "bank", "opening_balance": 300000},
    ):
        made = http.post("/accounts", json=account)
        assert made.status_code == 201, made.text
    return http


def _token(owner: Http, scope: str) -> str:
    made = owner.post("/me/tokens", json={"name": f"assistant {scope}", "scope": scope})
    assert made.status_code == 201, made.text
    return str(made.json()["token"])


@pytest.fixture(scope="module")
def errlog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TextIO]:
    """Where the servers' stderr goes (a real file: the subprocess writes to it)."""
    with (tmp_path_factory.mktemp("mcp") / "stderr.log").open("w+", encoding="utf-8") as sink:
        yield sink


@pytest.fixture(scope="module")
def assistant(front_url: str, owner: Http, errlog: TextIO) -> Iterator[Assistant]:
    """One session with a write token, for the tests of this module that share the person's ledger."""
    with Assistant({"KAKEIBO_API": front_url, "KAKEIBO_TOKEN": _token(owner, "write")}, errlog) as session:
        yield session


def _balance(owner: Http, account: str) -> int:
    return int(owner.get(f"/accounts/{account}").json()["balance"])


def test_every_tool_has_a_schema_a_description_and_says_whether_it_only_reads(assistant: Assistant) -> None:
    # When the assistant lists the tools of a write token's session
    tools = assistant.tools()
    # Then every tool is there, described, with an object schema
    assert set(tools) == READ_TOOLS | WRITE_TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40, tool.name
        assert tool.input_schema["type"] == "object"
    # And the read tools are marked read-only, the write tools not
    assert {name for name, tool in tools.items() if tool.annotations.read_only_hint} == READ_TOOLS
    # And record_slip asks for what a slip needs, in the ledger's terms
    record = tools["record_slip"].input_schema
    assert set(record["required"]) == {"request_id", "kind", "amount", "account"}
    assert "振替" in json.dumps(record, ensure_ascii=False)


def test_a_retried_record_is_one_slip_and_its_undo_puts_the_balance_back(assistant: Assistant, owner: Http) -> None:
    # Given the card's balance
    before = _balance(owner, "card")
    call = {"kind": "expense", "amount": 1280, "account": "カード", "category": "日用品", "payee": "ドラッグストア",
            "date": DAY1, "request_id": str(uuid.uuid4())}  # fmt: skip

    # When the same call is made twice (a retry: one request id)
    first = assistant.ok("record_slip", **call)
    again = assistant.ok("record_slip", **call)

    # Then one slip is recorded, on the card, and both answers name it and the change to undo
    assert first["recorded"]["id"] == again["recorded"]["id"]
    assert first["recorded"]["account"] == "楽天カード" and first["recorded"]["amount"] == 1280
    assert first["change_seq"] == again["change_seq"] and first["undo"]["arguments"] == {"seq": first["change_seq"]}
    slips = owner.get("/slips", params={"from": DAY1, "to": DAY1, "account": "card"}).json()["items"]
    assert [s["id"] for s in slips if s.get("payee") == "ドラッグストア"] == [first["recorded"]["id"]]
    assert _balance(owner, "card") == before - 1280
    assert first["balances"] == [
        {"account": "楽天カード", "account_id": "card", "balance": before - 1280, "unit": "JPY"}
    ]

    # When that change is undone
    undone = assistant.ok("undo_change", seq=first["change_seq"])

    # Then the slip is gone and the balance is back, and the undo names its own change
    assert undone["undone"] == first["change_seq"]
    assert undone["changes"][0]["type"] == "slip" and undone["changes"][0]["op"] == "delete"
    assert undone["change_seq"] > first["change_seq"]
    assert _balance(owner, "card") == before
    assert undone["balances"] == [{"account": "楽天カード", "account_id": "card", "balance": before, "unit": "JPY"}]
    # And undoing it again is the API's refusal, as a tool error
    assert "already_undone" in assistant.refused("undo_change", seq=first["change_seq"])


def test_the_read_tools_answer_from_what_was_recorded(assistant: Assistant, owner: Http) -> None:
    # Given an income, a lunch (食費 > 外食), a withdrawal and a budget for 食費 this month
    salary = assistant.ok("record_slip", request_id=str(uuid.uuid4()), kind="income", amount=250000,
                          account="三井住友", category="給与", date=DAY1)  # fmt: skip
    assert salary["new_category"] == "給与"
    lunch = assistant.ok("record_slip", request_id=str(uuid.uuid4()), kind="expense", amount=3000,
                         account="財布", category="食費", subcategory="外食", memo="ランチ", date=DAY2,
                         tags=["京都旅行"])  # fmt: skip
    withdrawal = assistant.ok("record_slip", request_id=str(uuid.uuid4()), kind="transfer", amount=10000,
                              account="銀行", to_account="現金", date=DAY2)  # fmt: skip
    assert withdrawal["recorded"]["to_account"] == "お財布"
    assert {b["account_id"] for b in withdrawal["balances"]} == {"bank", "cash"}
    budget = owner.put(f"/budgets/{MONTH}/食費", json={"limit": 30000, "strict": False})
    assert budget.status_code in (200, 201), budget.text

    # When a subcategory is named alone: its category is the ledger's
    dinner = assistant.ok("record_slip", request_id=str(uuid.uuid4()), kind="expense", amount=2000,
                          account="お財布", category="外食", date=DAY2)  # fmt: skip
    assert (dinner["recorded"]["category"], dinner["recorded"]["subcategory"]) == ("食費", "外食")
    assert "new_category" not in dinner

    # Then the categories, the slips found, the report, the budgets and the balances say so
    categories = {c["category"]: c["subcategories"] for c in assistant.ok("list_categories")["items"]}
    assert categories["食費"] == ["外食"] and "給与" in categories
    eating_out = assistant.ok("find_slips", month=MONTH, category="外食")
    assert (eating_out["count"], eating_out["expense_total"]) == (2, 5000)
    assert {s["id"] for s in eating_out["items"]} == {lunch["recorded"]["id"], dinner["recorded"]["id"]}
    by_words = assistant.ok("find_slips", date_from=DAY1, date_to=DAY2, words="ﾗﾝﾁ")
    assert [s["id"] for s in by_words["items"]] == [lunch["recorded"]["id"]]
    by_tag = assistant.ok("find_slips", month=MONTH, tag="京都旅行")
    assert [s["id"] for s in by_tag["items"]] == [lunch["recorded"]["id"]]
    transfers = assistant.ok("find_slips", month=MONTH, account="現金", kind="transfer", limit=1)
    assert [s["id"] for s in transfers["items"]] == [withdrawal["recorded"]["id"]] and not transfers["more"]
    report = assistant.ok("month_report", month=MONTH)
    assert report["income"] == 250000 and report["expense"] == 5000
    assert {a["account"] for a in report["by_account"]} >= {"お財布", "三井住友銀行"}
    food = next(b for b in assistant.ok("budgets", month=MONTH)["items"] if b["category"] == "食費")
    assert (food["spent"], food["remaining"], food["used_percent"], food["over"]) == (5000, 25000, 17, False)
    now = {b["id"]: b["balance"] for b in assistant.ok("balances")["items"]}
    assert now["cash"] == 20000 - 5000 + 10000 and now["bank"] == 300000 + 250000 - 10000
    then = assistant.ok("balances", date=BEFORE)
    assert then["date"] == BEFORE and {b["id"]: b["balance"] for b in then["items"]}["cash"] == 20000
    ledgers = assistant.ok("list_ledgers")
    assert ledgers["default"] == "me" and [lg["id"] for lg in ledgers["items"]] == ["me"]


def test_an_unknown_account_is_a_tool_error_naming_it(assistant: Assistant, owner: Http) -> None:
    # When a slip names an account the ledger does not have
    refused = assistant.refused("record_slip", request_id=str(uuid.uuid4()), kind="expense", amount=500,
                                account="ゆうちょ", category="食費", date=DAY1)  # fmt: skip
    # Then the error names it and the ledger's accounts, and nothing is recorded
    assert "「ゆうちょ」" in refused and "お財布 (cash)" in refused and "楽天カード (card)" in refused
    assert not [s for s in owner.get("/slips", params={"from": DAY1, "to": DAY1}).json()["items"] if s["amount"] == 500]


def test_the_apis_refusal_is_a_tool_error_in_the_callers_language(assistant: Assistant, owner: Http) -> None:
    # Given the wallet's balance
    before = _balance(owner, "cash")
    # When more is spent from it than it holds
    refused = assistant.refused("record_slip", request_id=str(uuid.uuid4()), kind="expense", amount=before + 1,
                                account="お財布", category="食費", date=DAY2)  # fmt: skip
    # Then the error is the API's problem, worded in Japanese (KAKEIBO_LANG's default)
    assert "残高不足" in refused and "insufficient_funds" in refused
    assert _balance(owner, "cash") == before


def test_the_forecast_is_the_apis_answer_or_its_problem(assistant: Assistant) -> None:
    # When the forecast is asked for a month ahead
    result = assistant.call("forecast", until=(TODAY + dt.timedelta(days=31)).isoformat())
    # Then it is GET /forecast's answer, or (where the API does not serve it) its 404 as a tool error
    if result.is_error:
        assert "404 from GET /forecast" in result.content[0].text  # type: ignore[union-attr]
    else:
        assert isinstance(result.structured_content, dict) and result.structured_content
    # And the server goes on answering
    assert assistant.ok("list_ledgers")["items"]


def test_a_read_tokens_session_lists_no_write_tools(front_url: str, owner: Http, errlog: TextIO) -> None:
    # Given a session with a read token
    with Assistant({"KAKEIBO_API": front_url, "KAKEIBO_TOKEN": _token(owner, "read")}, errlog) as reader:
        # When it lists the tools
        tools = reader.tools()
        # Then only the read tools are there, and they answer
        assert set(tools) == READ_TOOLS
        assert reader.ok("balances")["items"]
        # And a write tool called anyway is the API's refusal of the token, as a tool error
        refused = reader.refused("record_slip", request_id="x", kind="expense", amount=1, account="お財布")
        assert "token_scope" in refused


def test_the_server_survives_the_api_being_down(front: Front, owner: Http, errlog: TextIO) -> None:
    # Given a session whose API is not listening yet
    port = free_port()
    env = {"KAKEIBO_API": f"http://127.0.0.1:{port}", "KAKEIBO_TOKEN": _token(owner, "write"), "KAKEIBO_LANG": "en"}
    with Assistant(env, errlog) as session:
        # When a tool is called: a tool error that says the API cannot be reached
        assert "cannot reach the Kakeibo API" in session.refused("balances")
        # When the API is up again at that address
        server = serve(front, "127.0.0.1", port)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            # Then the next call works, and the write tools are listed now that the token's scope is known
            assert {b["id"] for b in session.ok("balances")["items"]} == {"cash", "card", "bank"}
            assert set(session.tools()) == READ_TOOLS | WRITE_TOOLS
        finally:
            server.shutdown()
            server.server_close()


def test_the_readmes_configuration_and_first_conversation_run(
    front_url: str, owner: Http, errlog: TextIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the README's client configuration and first conversation, pointed at this front
    config, conversation = readme_blocks()
    (entry,) = json.loads(config)["mcpServers"].values()
    token = _token(owner, "write")
    env = {**entry["env"], "KAKEIBO_API": front_url, "KAKEIBO_TOKEN": token}
    # When a session is started as the configuration says
    with Assistant(env, errlog, command=entry["command"], args=entry["args"]) as session:
        # Then it offers every tool, in Japanese messages
        assert set(session.tools()) == READ_TOOLS | WRITE_TOOLS
    # When the conversation runs as written (the server from this checkout: PYTHONPATH)
    before = _balance(owner, "card")
    code = conversation.replace("http://127.0.0.1:3000", front_url)
    code = code.replace("env={", f"env={{'PYTHONPATH': {str(ROOT / 'src')!r}, ", 1)
    monkeypatch.setenv("KAKEIBO_TOKEN", token)
    monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    with redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102 - the README's own code
    # Then each call answered: the slip recorded on the card, found, and undone (the card as before)
    lines = printed.getvalue().splitlines()
    assert [line.split(" ->")[0] for line in lines[1:]] == ["balances", "record_slip", "find_slips", "undo_change"]
    assert all(" -> {" in line for line in lines[1:]), lines
    assert '"account": "楽天カード"' in lines[2] and '"count": 1' in lines[3]
    assert _balance(owner, "card") == before
