"""The MCP server: the tools an assistant calls, each one or a few calls of the API.

Read tools are marked read-only; the write tools (record_slip, undo_change) are listed only when the
token may write (GET /me). Every failure is a tool error the assistant can read and act on (the
API's problem, worded in KAKEIBO_LANG, or what this server could not find), never a crash."""

from __future__ import annotations

import calendar
import datetime as dt
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations
from pydantic import Field

from kakeibo_mcp import words as say
from kakeibo_mcp.api import Api, ApiProblem, Unreachable
from kakeibo_mcp.matching import (
    Ambiguous,
    Category,
    NotFound,
    fold,
    idempotency_key,
    match_account,
    match_category,
)

TOKYO = ZoneInfo("Asia/Tokyo")
WRITE_TOOLS = frozenset({"record_slip", "undo_change"})
PAGE = 100  # GET /slips' largest page
MAX_PAGES = 10  # find_slips reads at most this many pages when it filters by words itself

Ledger = Annotated[
    str | None,
    Field(
        description="The ledger (台帳) to use: an id from list_ledgers; leave it out for the default one "
        "(KAKEIBO_LEDGER, else your personal ledger)"
    ),
]
Month = Annotated[str | None, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="YYYY-MM; default this month")]
Day = Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
RECORD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
UNDO = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)

INSTRUCTIONS = """A household ledger (家計簿). Slips are 支出 (expense), 収入 (income) and 振替 (transfer between
two of the ledger's own 口座/accounts); expenses and income have a 費目 (category), optionally a
subcategory (食費 > 外食). Amounts are whole yen. Name accounts and categories as the person does:
the server finds them among the ledger's (list_accounts/balances and list_categories show them).
Every write answers with the change's seq: undo_change(seq) takes it back. Give record_slip a fresh
request_id per slip and the same one when retrying, so a retried call records once."""


class LedgerServer(MCPServer):
    """MCPServer that lists the write tools only to a token that may write."""

    def __init__(self, api: Api) -> None:
        super().__init__(name="kakeibo", instructions=INSTRUCTIONS, log_level="WARNING")
        self.api = api

    async def list_tools(self) -> list[Tool]:
        listed = await super().list_tools()
        scope = await anyio.to_thread.run_sync(self.api.scope)
        if scope == "read":
            return [tool for tool in listed if tool.name not in WRITE_TOOLS]
        return listed


def _today() -> dt.date:
    return dt.datetime.now(TOKYO).date()


def _month_range(month: str) -> tuple[str, str]:
    year, number = int(month[:4]), int(month[5:7])
    last = calendar.monthrange(year, number)[1]
    return f"{month}-01", f"{month}-{last:02d}"


def _names(accounts: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    return {str(a["id"]): str(a["name"]) for a in accounts}


def _slip_view(slip: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A slip as an assistant tells it: its accounts by name, only the fields it has."""
    view: dict[str, Any] = {
        "id": slip.get("id"),
        "date": slip.get("date"),
        "kind": slip.get("kind"),
        "amount": slip.get("amount"),
        "account": names.get(str(slip.get("account")), slip.get("account")),
        "account_id": slip.get("account"),
    }
    if slip.get("to_account"):
        view["to_account"] = names.get(str(slip["to_account"]), slip["to_account"])
        view["to_account_id"] = slip["to_account"]
    if slip.get("category") is not None:
        view["category"] = slip.get("category_label") or slip["category"]
    for key in ("subcategory", "payee", "memo", "tags", "no"):
        if slip.get(key) not in (None, "", []):
            view[key] = slip[key]
    if slip.get("lines"):
        view["lines"] = [
            {k: line[k] for k in ("amount", "category", "subcategory") if line.get(k) is not None}
            for line in slip["lines"]
        ]
    return view


Fn = Callable[..., dict[str, Any]]


class Refused(Exception):
    """A call this server refuses before asking the API: (Japanese, English)."""

    def __init__(self, message: tuple[str, str]) -> None:
        super().__init__(message[1])
        self.message = message


def build(api: Api) -> LedgerServer:  # noqa: PLR0915 - a closure per tool
    """The server with its tools, calling `api`."""
    server = LedgerServer(api)
    lang = api.config.lang

    def guarded(fn: Fn) -> Callable[..., dict[str, Any] | CallToolResult]:
        """`fn` with every anticipated failure answered as a tool error (is_error) in the caller's words:
        the API's problem, an API that cannot be reached, a name the ledger has nothing for."""

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> dict[str, Any] | CallToolResult:
            try:
                return fn(*args, **kwargs)
            except ApiProblem as problem:
                text = problem.text
            except Unreachable as down:
                text = say.unreachable(down, lang)
            except NotFound as missing:
                text = say.not_found(missing, lang)
            except Ambiguous as many:
                text = say.ambiguous(many, lang)
            except Refused as refused:
                text = say.bad_input(refused.message, lang)
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

        return run

    def tool(title: str, annotations: ToolAnnotations) -> Callable[[Fn], Fn]:
        def register(fn: Fn) -> Fn:
            server.add_tool(guarded(fn), name=fn.__name__, title=title, annotations=annotations)
            return fn

        return register

    def accounts(ledger: str | None) -> list[dict[str, Any]]:
        return list(api.get(api.path("/accounts", ledger))["items"])

    def categories(ledger: str | None) -> list[Category]:
        """The ledger's categories with their subcategories: those with slips this year or last, and
        those with a budget this month."""
        found: dict[str, set[str]] = {}
        this_year = _today().year
        for year in (this_year, this_year - 1):
            report = api.get(api.path("/reports/yearly", ledger), year=str(year))
            for item in report.get("by_category", []):
                subs = found.setdefault(str(item["category"]), set())
                subs.update(str(s["subcategory"]) for s in item.get("subcategories") or [] if s.get("subcategory"))
        budgets = api.get(api.path("/budgets", ledger), month=_today().strftime("%Y-%m"))
        for item in budgets.get("items", []):
            found.setdefault(str(item["category"]), set())
        return [Category(name, tuple(sorted(subs))) for name, subs in sorted(found.items())]

    def balances_of(ledger: str | None, ids: Sequence[str]) -> list[dict[str, Any]]:
        return [
            {"account": a["name"], "account_id": a["id"], "balance": a["balance"], "unit": a.get("unit", "JPY")}
            for a in accounts(ledger)
            if a["id"] in ids
        ]

    # ---- read tools -------------------------------------------------------------------------

    @tool("台帳の一覧 / List ledgers", READ)
    def list_ledgers() -> dict[str, Any]:
        """The ledgers (台帳) you can use: your personal one (id "me") and the households you are a member
        of, with your role in each (viewer: read only). Pass an id as `ledger` to the other tools."""
        items = api.get("/ledgers")["items"]
        return {"default": api.config.ledger or "me", "items": items}

    @tool("口座と残高 / Balances", READ)
    def balances(
        date: Annotated[
            Day, Field(description="YYYY-MM-DD: balances at the end of that day; leave out for now")
        ] = None,
        ledger: Ledger = None,
    ) -> dict[str, Any]:
        """Each account's (口座) balance now, or as of the end of a day (e.g. "what was in the bank on
        the 25th?"). Lists the ledger's accounts by name, id and type (cash, bank, emoney, credit); a
        credit card's negative balance is what it owes."""
        listed = accounts(ledger)
        if date is None:
            items = [{k: a.get(k) for k in ("name", "id", "type", "balance", "unit", "archived")} for a in listed]
            return {
                "date": None,
                "items": items,
                "total_jpy": sum(a["balance"] for a in listed if a.get("unit", "JPY") == "JPY"),
            }
        names = _names(listed)
        found = api.get(api.path("/balances", ledger), date=date)
        items = [{"name": names.get(i["account"], i["account"]), "id": i["account"], **i} for i in found["items"]]
        for item in items:
            item.pop("account", None)
        return {"date": found["date"], "items": items}

    @tool("費目の一覧 / List categories", READ)
    def list_categories(ledger: Ledger = None) -> dict[str, Any]:
        """The categories (費目) the ledger uses, with their subcategories (食費 > 外食): those with slips this
        year or last year, or a budget this month. record_slip and find_slips take these names."""
        return {"items": [{"category": c.name, "subcategories": list(c.subcategories)} for c in categories(ledger)]}

    @tool("伝票を探す / Find slips", READ)
    def find_slips(
        *,
        month: Month = None,
        date_from: Annotated[Day, Field(description="From this day (YYYY-MM-DD), instead of month")] = None,
        date_to: Annotated[Day, Field(description="Up to this day (YYYY-MM-DD), instead of month")] = None,
        category: Annotated[
            str | None, Field(description="A category or subcategory by name (食費, 外食)", max_length=50)
        ] = None,
        payee: Annotated[
            str | None, Field(description="The shop or payee (店名): compared normalised", max_length=100)
        ] = None,
        account: Annotated[
            str | None, Field(description="An account by name or id (財布, card)", max_length=100)
        ] = None,
        kind: Annotated[
            Literal["expense", "income", "transfer"] | None,
            Field(description="支出 expense, 収入 income, 振替 transfer"),
        ] = None,
        words: Annotated[
            str | None,
            Field(
                description="Words the payee, memo or category must all contain (e.g. ドラッグストア)",
                max_length=100,
            ),
        ] = None,
        tag: Annotated[str | None, Field(description="Only slips with this tag (タグ)", max_length=30)] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="At most this many slips (newest first)")] = 20,
        ledger: Ledger = None,
    ) -> dict[str, Any]:
        """Find slips (伝票), newest first: in a month (default this month) or between two days, by
        category or subcategory, payee, account, kind, tag or words. Answers the slips and the sums of
        their expenses and income ("how much on 外食 this month?": category 外食)."""
        if month and (date_from or date_to):
            raise Refused(say.MONTH_OR_RANGE)
        if not (date_from or date_to):
            date_from, date_to = _month_range(month or _today().strftime("%Y-%m"))
        listed = accounts(ledger)
        names = _names(listed)
        query: dict[str, Any] = {"from": date_from, "to": date_to, "kind": kind, "payee": payee, "tag": tag}
        if account:
            query["account"] = match_account(account, listed)["id"]
        subcategory: str | None = None
        if category:
            matched = match_category(category, None, categories(ledger))
            query["category"], subcategory = matched.category, matched.subcategory
        wanted = [fold(w) for w in (words or "").split() if fold(w)]

        def keep(slip: Mapping[str, Any]) -> bool:
            if subcategory is not None and fold(str(slip.get("subcategory") or "")) != fold(subcategory):
                return False
            text = fold(" ".join(str(slip.get(k) or "") for k in ("payee", "memo", "category", "subcategory")))
            return all(w in text for w in wanted)

        filtering = bool(wanted) or subcategory is not None
        query["limit"] = PAGE if filtering else min(PAGE, limit + 1)
        items: list[dict[str, Any]] = []
        more = False
        for _ in range(MAX_PAGES):
            found = api.get(api.path("/slips", ledger), **query)
            for slip in found.get("items", []):
                if keep(slip):
                    if len(items) == limit:
                        more = True
                        break
                    items.append(slip)
            if more or not found.get("next_cursor"):
                break
            query["cursor"] = found["next_cursor"]
        else:
            more = True  # pages left unread
        return {
            "from": date_from,
            "to": date_to,
            "count": len(items),
            "more": more,
            "expense_total": sum(s["amount"] for s in items if s.get("kind") == "expense"),
            "income_total": sum(s["amount"] for s in items if s.get("kind") == "income"),
            "items": [_slip_view(s, names) for s in items],
        }

    @tool("月のレポート / Monthly report", READ)
    def month_report(month: Month = None, ledger: Ledger = None) -> dict[str, Any]:
        """The month's income, expenses and net, by category (with subcategories) and by account:
        "how much did we spend this month?", "what did 食費 come to in October?"."""
        chosen = month or _today().strftime("%Y-%m")
        report = api.get(api.path("/reports/monthly", ledger), month=chosen)
        names = _names(accounts(ledger))
        for item in report.get("by_account", []):
            item["account"] = names.get(item["account"], item["account"])
        return dict(report)

    @tool("予算とペース / Budgets and pace", READ)
    def budgets(month: Month = None, ledger: Ledger = None) -> dict[str, Any]:
        """The month's budgets (予算) by category: limit, carried over (繰越), available, spent, remaining,
        the share used, and for this month what may still be spent per day (1日あたり) to stay within."""
        chosen = month or _today().strftime("%Y-%m")
        found = api.get(api.path("/budgets", ledger), month=chosen)
        items = []
        for item in found.get("items", []):
            available = item.get("available", item.get("limit", 0))
            used = round(100 * item.get("spent", 0) / available) if available > 0 else None
            items.append({**item, "used_percent": used, "over": item.get("remaining", 0) < 0})
        return {"month": found.get("month", chosen), "items": items}

    @tool("残高の見通し / Forecast", READ)
    def forecast(
        until: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD, at most a year ahead")],
        account: Annotated[
            str | None, Field(description="One account by name or id; leave out for all", max_length=100)
        ] = None,
        ledger: Ledger = None,
    ) -> dict[str, Any]:
        """The balances ahead until a day: future slips, recurring ones and card payments due, and for each
        account the first day it would fall short (残高不足の見込み)."""
        query: dict[str, Any] = {"until": until}
        if account:
            query["account"] = match_account(account, accounts(ledger))["id"]
        return dict(api.get(api.path("/forecast", ledger), **query))

    # ---- write tools ------------------------------------------------------------------------

    @tool("伝票を記録 / Record a slip", RECORD)
    def record_slip(
        *,
        request_id: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description="A new id for this slip (e.g. a UUID). Send the same one again when you retry the "
                "same slip: it is then recorded once. A new slip needs a new id.",
            ),
        ],
        kind: Annotated[
            Literal["expense", "income", "transfer"],
            Field(
                description="expense 支出 (money spent), income 収入 (money in), transfer 振替 (between two accounts)"
            ),
        ],
        amount: Annotated[int, Field(gt=0, le=10**12, description="Whole yen (1,280 yen is 1280)")],
        account: Annotated[
            str,
            Field(
                min_length=1,
                max_length=100,
                description="The account by name or id: paid from (expense), into (income), or from (transfer); "
                "'card' or 'カード' is the ledger's one credit card, '現金' its one wallet",
            ),
        ],
        date: Annotated[Day, Field(description="YYYY-MM-DD; default today (Japan)")] = None,
        category: Annotated[
            str | None,
            Field(
                max_length=50,
                description="費目 by name (食費); a subcategory name alone (外食) finds its category. Expense and "
                "income only; a name the ledger does not have yet starts a new category",
            ),
        ] = None,
        subcategory: Annotated[str | None, Field(max_length=50, description="Within category (食費 > 外食)")] = None,
        to_account: Annotated[
            str | None, Field(max_length=100, description="Transfers only: the account the money goes to")
        ] = None,
        payee: Annotated[str | None, Field(max_length=100, description="The shop or payee (店名)")] = None,
        memo: Annotated[str | None, Field(max_length=200, description="A note")] = None,
        tags: Annotated[
            list[str] | None,
            Field(max_length=10, description="Tags (タグ), e.g. a trip's name: at most 10, each at most 30 characters"),
        ] = None,
        ledger: Ledger = None,
    ) -> dict[str, Any]:
        """Record an expense (支出), income (収入) or transfer (振替) ("1,280 yen at the drugstore on the card").
        Accounts and categories by the names the ledger has. Answers the slip, the balances it moved and
        the change's seq: undo_change with that seq takes it back."""
        if kind == "transfer" and not to_account:
            raise Refused(say.TRANSFER_NEEDS_TO)
        if kind != "transfer" and to_account:
            raise Refused(say.NO_TO_ACCOUNT)
        if kind == "transfer" and (category or subcategory):
            raise Refused(say.TRANSFER_NO_CATEGORY)
        listed = accounts(ledger)
        body: dict[str, Any] = {
            "date": date or _today().isoformat(),
            "kind": kind,
            "amount": amount,
            "account": match_account(account, listed)["id"],
        }
        if to_account:
            body["to_account"] = match_account(to_account, listed)["id"]
        new_category = None
        if category:
            matched = match_category(category, subcategory, categories(ledger))
            body["category"] = matched.category
            if matched.subcategory:
                body["subcategory"] = matched.subcategory
            new_category = None if matched.known else matched.category
        body.update({k: v for k, v in (("payee", payee), ("memo", memo), ("tags", tags)) if v})
        key = idempotency_key("record", request_id)
        made = api.call("POST", api.path("/slips", ledger), body=body, headers={"Idempotency-Key": key}).body
        history = api.get(api.path(f"/slips/{made['id']}/history", ledger))
        seq = next((h["seq"] for h in history["items"] if h["op"] == "create"), None)
        moved = [body["account"], *([body["to_account"]] if "to_account" in body else [])]
        answer: dict[str, Any] = {
            "recorded": _slip_view(made, _names(listed)),
            "change_seq": seq,
            "undo": {"tool": "undo_change", "arguments": {"seq": seq}},
            "balances": balances_of(ledger, moved),
        }
        if new_category:
            answer["new_category"] = new_category
        return answer

    @tool("変更を取り消す / Undo a change", UNDO)
    def undo_change(
        seq: Annotated[int, Field(ge=1, description="The change's seq, as a write answered it (change_seq)")],
        ledger: Ledger = None,
    ) -> dict[str, Any]:
        """Undo one change of the ledger's journal by its seq: a recorded slip goes, a deleted one comes back,
        an edit is reverted. Refused if something changed it since. Answers what was undone and the undo's own
        seq (undo that to redo)."""
        done = api.call("POST", api.path(f"/changes/{seq}/undo", ledger)).body
        entry = done.get("entry") or {}
        names = _names(accounts(ledger))
        changed = []
        touched: set[str] = set()
        for change in entry.get("changes", []):
            state = change.get("after") or change.get("before") or {}
            item: dict[str, Any] = {"type": change.get("type"), "id": change.get("id"), "op": change.get("op")}
            if change.get("type") == "slip":
                item["slip"] = _slip_view(state, names)
                touched.update(str(state[k]) for k in ("account", "to_account") if state.get(k))
            changed.append(item)
        undo_seq = entry.get("seq")
        return {
            "undone": done.get("undone"),
            "change_seq": undo_seq,
            "changes": changed,
            "undo": {"tool": "undo_change", "arguments": {"seq": undo_seq}} if undo_seq else None,
            "balances": balances_of(ledger, sorted(touched)),
        }

    return server
