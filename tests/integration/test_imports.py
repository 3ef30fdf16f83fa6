"""CSV imports on DynamoDB Local: batched, exactly once per row, through crashes, conflicts,
concurrent runs, insufficient funds, moved slips; and export -> import round trips."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from kakeibo import csvio
from kakeibo.models.slips import SlipIn
from kakeibo.services import integrity
from kakeibo.services import slips as service
from kakeibo.services.imports import importer
from kakeibo.store import Store, WriteContext
from tests import invariants
from tests.events import Client

HEADER = "date,kind,amount,account,to_account,category,memo,external_id\n"
OPENING = {"bank": 1_000_000, "cash": 100_000, "suica": 50_000, "card": 0}


def _bookkeeping(request: dict[str, Any]) -> bool:
    """A transaction of one record and the check that the ledger is not being deleted (its tombstone,
    store/write.py's `record`): an import's status, no batch of its rows."""
    items = request["TransactItems"]
    checks = [i["ConditionCheck"]["Key"]["PK"]["S"] for i in items if "ConditionCheck" in i]
    return len(items) == 2 and len(checks) == 1 and checks[0].startswith("GONE#")


class Wrapped:
    """A DynamoDB client that records transactions and can crash after `fail_after` of them."""

    def __init__(
        self,
        client: Any,
        fail_after: int | None = None,
        rendezvous: threading.Barrier | None = None,
        before_first: Callable[[], Any] | None = None,
    ) -> None:
        self._client = client
        self.fail_after = fail_after
        self.rendezvous = rendezvous  # wait for the others here before the first transaction
        self.before_first = before_first  # run right before the first transaction
        self.committed: list[int] = []  # items per transaction that went through
        self.attempts = 0

    def transact_write_items(self, **request: Any) -> Any:
        if _bookkeeping(request):  # the import's status: not one of its batches
            return self._client.transact_write_items(**request)
        self.attempts += 1
        if self.rendezvous is not None and self.attempts == 1:
            self.rendezvous.wait(timeout=60)
        if self.before_first is not None and self.attempts == 1:
            self.before_first()
        if self.fail_after is not None and len(self.committed) >= self.fail_after:
            raise RuntimeError("simulated crash: the process died here")
        result = self._client.transact_write_items(**request)
        self.committed.append(len(request["TransactItems"]))
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def wrapped(
    store: Store,
    fail_after: int | None = None,
    rendezvous: threading.Barrier | None = None,
    before_first: Callable[[], Any] | None = None,
) -> tuple[Store, Wrapped]:
    client = Wrapped(store.core.client, fail_after, rendezvous, before_first)
    return Store(client, store.core.table), client  # type: ignore[arg-type]


def household(api: Client) -> None:
    api.account("bank", OPENING["bank"], type="bank")
    api.account("cash", OPENING["cash"])
    api.account("suica", OPENING["suica"], type="emoney")
    api.account("card", OPENING["card"], type="credit")


def month_of_rows(count: int) -> list[tuple[str, str, int, str, str, str, str]]:
    """A month of varied rows over four accounts; the last two are the same coffee, twice."""
    rows = []
    for i in range(count - 2):
        day = f"2026-11-{1 + i % 28:02d}"
        amount = 100 + (i * 37) % 2000
        match i % 5:
            case 0:
                rows.append((day, "expense", amount, "cash", "", "食費", f"昼食 {i}"))
            case 1:
                rows.append((day, "expense", amount, "suica", "", "交通費", "電車"))
            case 2:
                rows.append((day, "expense", amount, "card", "", "日用品", 'ドラッグ, "セール"'))
            case 3:
                rows.append((day, "income", amount * 10, "bank", "", "給与", ""))
            case _:
                rows.append((day, "transfer", amount, "bank", "cash", "", "ATM"))
    coffee = ("2026-11-15", "expense", 300, "cash", "", "カフェ", "コーヒー")
    return [*rows, coffee, coffee]


def to_csv(rows: list[tuple[Any, ...]]) -> bytes:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER.strip().split(",")[:7])
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def expected_balances(rows: list[tuple[Any, ...]]) -> dict[str, int]:
    balances = dict(OPENING)
    for _, kind, amount, account, to_account, *_ in rows:
        if kind == "expense":
            balances[account] -= amount
        elif kind == "income":
            balances[account] += amount
        else:
            balances[account] -= amount
            balances[to_account] += amount
    return balances


def slips_of(api: Client) -> list[dict[str, Any]]:
    items, cursor = [], None
    while True:
        page = api.get("/slips", query={"limit": 100, **({"cursor": cursor} if cursor else {})}).json
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items


def test_batched_and_a_crash_halfway_resumes_to_exactly_the_file(api: Client, store: Store, user: str) -> None:
    # Given a household and a month of 152 rows, two of them the same coffee
    household(api)
    rows = month_of_rows(152)
    data = to_csv(rows)
    # When the import crashes after its first transaction
    crashing, recorder = wrapped(store, fail_after=1)
    with pytest.raises(RuntimeError, match="simulated crash"):
        importer.import_csv(crashing, WriteContext.personal(user), data)
    # Then that batch, and only it, is in: many slips in one transaction, <= 100 items
    (first_batch,) = recorder.committed
    assert first_batch <= 100
    done = slips_of(api)
    assert 10 <= len(done) < 152  # each row brings its slip, identity, index items and balance items
    record = store.core.get(user, f"IMPORT#{importer.csvio.parse(data).sha256}")
    assert record is not None and record["status"] == "interrupted" and record["created"] == len(done)

    # When the same file is sent again
    resumed, recorder = wrapped(store)
    result = importer.import_csv(resumed, WriteContext.personal(user), data)
    # Then only what was missing is created, in a few transactions of <= 100 items
    assert (result["status"], result["rows"], result["failed"]) == ("complete", 152, 0)
    assert result["created"] == 152 - len(done) and result["skipped"] == len(done)
    assert 1 < len(recorder.committed) < 20 and max(recorder.committed) <= 100
    # And the ledger holds the file exactly: 152 slips (both coffees), balances to the yen
    slips = slips_of(api)
    assert len(slips) == 152 and len({s["id"] for s in slips}) == 152
    assert Counter((s["date"], s["memo"]) for s in slips)[("2026-11-15", "コーヒー")] == 2
    assert api.balances() == expected_balances(rows)
    assert len({s["no"] for s in slips}) == 152
    assert integrity.verify(store, user)["ok"] is True
    assert invariants.check(store, user) == []
    record = store.core.get(user, f"IMPORT#{result['import_id']}")
    assert record is not None
    assert (record["status"], record["created"], record["runs"], record["rows"]) == ("complete", 152, 2, 152)

    # When it is sent a third time: nothing at all is written but the import record
    again = api.post("/imports", raw=data, headers={"Content-Type": "text/csv"})
    assert again.status == 200
    assert (again.json["created"], again.json["skipped"]) == (0, 152)
    assert api.balances() == expected_balances(rows)


def test_a_batch_with_an_already_existing_slip_keeps_the_others(api: Client, store: Store, user: str) -> None:
    # Given a slip that gets the id one of the rows will get (from its external_id; e.g. another
    # file's run) right after the import has looked up the ids already used, so it does not know
    household(api)
    ids = {ext: csvio.slip_id_for("", 0, ext) for ext in ("EXT1", "EXT2", "EXT3")}

    def concurrent_create() -> None:
        service.create_slip(
            store,
            WriteContext.personal(user),
            SlipIn(date="2026-11-02", kind="expense", amount=700, account="cash", category="食費"),
            slip_id=ids["EXT2"],
        )

    text = (
        HEADER
        + "2026-11-01,expense,100,cash,,食費,,EXT1\n"
        + "2026-11-02,expense,700,cash,,食費,,EXT2\n"
        + "2026-11-03,expense,300,cash,,食費,,EXT3\n"
    )
    # When the file is imported
    counting, recorder = wrapped(store, before_first=concurrent_create)
    result = importer.import_csv(counting, WriteContext.personal(user), text.encode())
    # Then the batch was refused (first for the journal head that slip moved, then for its id), the
    # existing one dropped, and the others written together
    assert (result["created"], result["skipped"], result["failed"]) == (2, 1, 0)
    assert recorder.attempts == 3 and len(recorder.committed) == 1
    assert api.balances()["cash"] == OPENING["cash"] - 100 - 700 - 300
    assert sorted(s["id"] for s in slips_of(api)) == sorted(ids.values())


def test_two_runs_of_one_file_at_once_create_each_row_once(api: Client, store: Store, user: str) -> None:
    # Given a file of several batches, and two runs of it that have both looked up what is
    # already imported (nothing) and meet right before their first transaction
    household(api)
    rows = month_of_rows(120)
    data = to_csv(rows)
    meet = threading.Barrier(2)
    results: list[dict[str, Any]] = []

    def run() -> None:
        racing, _ = wrapped(store, rendezvous=meet)
        results.append(importer.import_csv(racing, WriteContext.personal(user), data))

    # When they run at the same time
    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    # Then each row was created by exactly one of them, and the other skipped it
    assert len(results) == 2
    assert sum(r["created"] for r in results) == 120
    assert all(r["created"] + r["skipped"] == 120 and r["failed"] == 0 for r in results)
    assert len(slips_of(api)) == 120
    assert api.balances() == expected_balances(rows)
    assert integrity.verify(store, user)["ok"] is True
    assert invariants.check(store, user) == []


def test_insufficient_funds_rows_wait_for_later_money_else_become_row_errors(api: Client) -> None:
    # Given cash of 1,000 that may not go negative, and a credit card that may
    api.account("cash", 1000)
    api.account("card", 0, type="credit")
    text = (
        HEADER
        + "2026-11-02,expense,500,cash,,食費,over until the income,\n"  # line 2
        + "2026-11-01,expense,800,cash,,食費,fits,\n"  # line 3
        + "2026-11-03,income,1000,cash,,臨時収入,,\n"  # line 4
        + "2026-11-04,expense,5000,cash,,家電,never covered,\n"  # line 5
        + "2026-11-04,expense,5000,card,,家電,on credit,\n"  # line 6
    )
    # When it is imported (one batch: together they would overdraw cash)
    reply = api.post("/imports", raw=text, headers={"Content-Type": "text/csv"})
    # Then the batch is retried row by row in date order: line 2 waits for the income and goes
    # in on the second pass; line 5 can never be covered and is the only row error
    assert reply.status == 200
    body = reply.json
    assert (body["created"], body["failed"], body["pending"], body["status"]) == (4, 1, 0, "complete")
    assert body["errors"] == [{"line": 5, "message": "insufficient funds: Cash has ¥700: it cannot pay ¥5,000"}]
    assert api.balances() == {"cash": 700, "card": -5000}
    memos = sorted(s["memo"] or "" for s in slips_of(api))
    assert memos == ["", "fits", "on credit", "over until the income"]


def test_a_moved_or_deleted_imported_slip_is_not_imported_again(api: Client) -> None:
    api.account("cash", 10000)
    text = HEADER + "2026-11-03,expense,1200,cash,,食費,,\n" + "2026-11-04,expense,300,cash,,食費,,\n"
    first = api.post("/imports", raw=text, headers={"Content-Type": "text/csv"}).json
    assert first["created"] == 2
    lunch, snack = sorted(slips_of(api), key=lambda s: s["date"])
    # When one slip is moved to another date and the other deleted
    moved = api.patch(f"/slips/{lunch['date']}/{lunch['id']}", {"date": "2026-11-10"}, headers={"If-Match": '"1"'})
    assert moved.status == 200
    assert api.delete(f"/slips/{snack['date']}/{snack['id']}", headers={"If-Match": '"1"'}).status == 204
    # Then importing the file again brings neither back
    again = api.post("/imports", raw=text, headers={"Content-Type": "text/csv"}).json
    assert (again["created"], again["skipped"]) == (0, 2)
    assert [(s["date"], s["amount"]) for s in slips_of(api)] == [("2026-11-10", 1200)]
    assert api.balances() == {"cash": 8800}


def test_a_file_sent_again_takes_no_slip_numbers(api: Client, store: Store, user: str) -> None:
    # Given a file of three rows imported once
    api.account("cash", 10000)
    text = HEADER + "".join(f"2026-11-0{d},expense,{100 * d},cash,,食費,,\n" for d in (3, 4, 5))
    assert api.post("/imports", raw=text, headers={"Content-Type": "text/csv"}).json["created"] == 3
    counter = store.core.get(user, "SEQ#slip", consistent=True) or {}
    # When it is sent again
    again = api.post("/imports", raw=text, headers={"Content-Type": "text/csv"}).json
    # Then every row is skipped and the slip counter has not moved: the next slip is numbered 4
    assert (again["created"], again["skipped"]) == (0, 3)
    assert (store.core.get(user, "SEQ#slip", consistent=True) or {})["value"] == counter["value"] == 3
    assert api.slip(date="2026-11-06", kind="expense", amount=1, account="cash", category="食費").json["no"] == 4


def test_out_of_time_returns_partial_and_the_next_run_finishes(api: Client, store: Store, user: str) -> None:
    household(api)
    rows = month_of_rows(150)
    data = to_csv(rows)
    # Given an invocation whose time runs out after the first batch
    clock = iter([30.0])
    first = importer.import_csv(store, WriteContext.personal(user), data, time_left=lambda: next(clock, 0.0))
    assert first["status"] == "partial"
    assert 0 < first["created"] < 150 and first["pending"] == 150 - first["created"]
    # When the file is sent again with time to spare
    second = importer.import_csv(store, WriteContext.personal(user), data, time_left=lambda: 30.0)
    assert second["status"] == "complete" and second["pending"] == 0
    assert first["created"] + second["created"] == 150 and second["skipped"] == first["created"]
    assert api.balances() == expected_balances(rows)


def test_export_then_import_into_an_empty_ledger_gives_identical_balances(api: Client, other_api: Client) -> None:
    # Given a ledger with all kinds of slips, one entered after a later-dated income that pays for it
    for client in (api, other_api):
        client.account("cash", 0)
        client.account("suica", 1000, type="emoney")
        client.account("card", 0, type="credit")
    api.slip(date="2026-11-10", kind="income", amount=50000, account="cash", category="給与")
    api.slip(date="2026-11-01", kind="expense", amount=3000, account="cash", category="食費", memo='a,"b"\nc')
    api.slip(date="2026-11-02", kind="transfer", amount=2000, account="cash", to_account="suica")
    api.slip(date="2026-11-03", kind="expense", amount=2500, account="suica", memo="no category")
    api.slip(date="2026-10-31", kind="expense", amount=9800, account="card", category="日用品", memo="🧻")
    for day in range(1, 29):
        api.slip(date=f"2026-12-{day:02d}", kind="expense", amount=10 * day, account="cash", category="食費")
    # When it is exported and imported into another ledger with the same accounts
    exported = api.get("/slips.csv")
    assert exported.status == 200
    reply = other_api.post("/imports", raw=exported.raw, headers={"Content-Type": "text/csv; charset=utf-8"})
    # Then every slip is there, and every balance, history and report is identical
    assert reply.status == 200 and reply.json["created"] == 33 and reply.json["failed"] == 0
    assert other_api.balances() == api.balances()
    for date in ("2026-10-31", "2026-11-02", "2026-11-30"):
        assert other_api.balances(date) == api.balances(date)
    for month in ("2026-10", "2026-11", "2026-12"):
        query = {"month": month}
        assert other_api.get("/reports/monthly", query=query).json == api.get("/reports/monthly", query=query).json
    assert other_api.get("/slips.csv").raw == exported.raw
    assert other_api.post("/ledger/verify").json["ok"] is True
    # And importing the export back into the original ledger changes nothing
    again = api.post("/imports", raw=exported.raw, headers={"Content-Type": "text/csv"})
    assert (again.json["created"], again.json["skipped"]) == (0, 33)
    assert len(slips_of(api)) == 33


def test_our_own_export_imported_with_create_accounts_creates_the_accounts_it_names(
    api: Client, other_api: Client
) -> None:
    # Given a ledger's export naming a wallet, a Suica and a card, and a ledger without any account
    api.account("cash", 10_000)
    api.account("suica", 0, type="emoney")
    api.account("card", 0, type="credit")
    api.slip(date="2026-11-01", kind="transfer", amount=2_000, account="cash", to_account="suica")
    api.slip(date="2026-11-02", kind="expense", amount=420, account="suica", category="交通費")
    api.slip(date="2026-11-03", kind="expense", amount=9_800, account="card", category="日用品")
    exported = api.get("/slips.csv").raw
    csv_type = {"Content-Type": "text/csv; charset=utf-8"}
    # When it is previewed with create_accounts, then nothing is written and the accounts are listed
    dry = other_api.post(
        "/imports", raw=exported, headers=csv_type, query={"dry_run": "true", "create_accounts": "true"}
    )
    assert dry.status == 200 and (dry.json["created"], dry.json["failed"]) == (3, 0), dry
    assert {(u["id"], u["type"]) for u in dry.json["unknown_accounts"]} == {
        ("cash", "cash"), ("suica", "emoney"), ("card", "credit")
    }  # fmt: skip
    assert other_api.get("/accounts").json["items"] == []
    # When it is imported with create_accounts
    reply = other_api.post("/imports", raw=exported, headers=csv_type, query={"create_accounts": "true"})
    # Then the accounts it names are created first (typed from their ids, negative balances allowed)
    assert reply.status == 200, reply
    assert sorted(reply.json["accounts_created"]) == ["card", "cash", "suica"]
    accounts = {a["id"]: a for a in other_api.get("/accounts").json["items"]}
    assert {i: (a["type"], a["allow_negative"]) for i, a in accounts.items()} == {
        "cash": ("cash", True), "suica": ("emoney", True), "card": ("credit", True)
    }  # fmt: skip
    # And every row is a slip, moving those accounts as the file says
    assert (reply.json["created"], reply.json["failed"]) == (3, 0), reply
    assert other_api.balances() == {"cash": -2_000, "suica": 1_580, "card": -9_800}
    assert other_api.post("/ledger/verify").json["ok"] is True


def test_with_an_idempotency_key_a_partial_import_is_continued_not_replayed(
    api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.account("cash", 10000)
    text = HEADER + "2026-11-03,expense,500,cash,,食費,,\n2026-11-04,expense,700,cash,,食費,,\n"
    headers = {"Content-Type": "text/csv", "Idempotency-Key": "november-import-1"}
    # Given a first attempt that ran out of time before writing anything
    monkeypatch.setattr(importer, "MIN_SECONDS_LEFT", 3600.0)
    first = api.post("/imports", raw=text, headers=headers)
    assert first.status == 202 and first.json["pending"] == 2
    # When the same request (same key) is sent again with time to spare: it carries on
    monkeypatch.setattr(importer, "MIN_SECONDS_LEFT", 0.0)
    second = api.post("/imports", raw=text, headers=headers)
    assert second.status == 200 and second.json["created"] == 2
    # And from then on the key replays that outcome
    third = api.post("/imports", raw=text, headers=headers)
    assert (third.status, third.json) == (200, second.json)
    assert api.balances() == {"cash": 8800}


def test_a_huge_error_report_with_an_idempotency_key_is_answered_and_kept_in_full(api: Client) -> None:
    # Given a file of 1,000 rows, each wrong in every field (a report of ~400 KB if listed in full)
    api.account("cash", 1000)
    row = "2026-13-45,bogus,100,!!bad!!,!!worse!!,カテ#ゴリ," + "x" * 501 + "," + "e" * 129
    text = HEADER + "\n".join([row] * 1000) + "\n"
    headers = {"Content-Type": "text/csv", "Idempotency-Key": "huge-report"}
    # When it is imported with an Idempotency-Key
    first = api.post("/imports", raw=text, headers=headers)
    # Then the answer is stored with the key (a repeat replays it): counts, and the first errors
    assert first.status == 200, first
    assert (first.json["rows"], first.json["failed"], first.json["created"]) == (1000, 1000, 0)
    assert len(first.json["errors"]) == 100 and first.json["errors"][0]["line"] == 2
    again = api.post("/imports", raw=text, headers=headers)
    assert (again.status, again.json) == (200, first.json)
    # And the full report names every refused row, by line
    report = api.get(f"/imports/{first.json['import_id']}")
    assert report.status == 200, report
    assert [e["line"] for e in report.json["errors"]] == list(range(2, 1002))
    assert report.json["errors"][0]["message"].startswith("date is not a real calendar date")
    assert (report.json["failed"], report.json["status"], report.json["runs"]) == (1000, "complete", 1)
    assert api.balances() == {"cash": 1000}


def test_an_unknown_import_is_404(api: Client, other_api: Client) -> None:
    text = HEADER + "2026-11-03,expense,100,cash,,食費,,\n"
    api.account("cash", 1000)
    made = api.post("/imports", raw=text, headers={"Content-Type": "text/csv"}).json
    assert other_api.get(f"/imports/{made['import_id']}").status == 404
    assert api.get("/imports/" + "0" * 64).status == 404
    assert api.get("/imports/not-a-hash").status == 404


def test_a_memo_with_a_line_break_and_a_date_round_trips(api: Client, other_api: Client) -> None:
    # Given a slip whose memo holds a line break followed by date-like text
    for client in (api, other_api):
        client.account("cash", 10000)
    memo = "立替分\n2026-11-10, 返済予定"
    api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費", memo=memo)
    api.slip(date="2026-11-04", kind="expense", amount=300, account="cash", category="食費")
    # When the export is imported into another ledger
    exported = api.get("/slips.csv")
    reply = other_api.post("/imports", raw=exported.raw, headers={"Content-Type": "text/csv"})
    # Then both slips are there as they were
    assert reply.status == 200, reply
    assert (reply.json["created"], reply.json["failed"]) == (2, 0)
    assert sorted(s["memo"] or "" for s in slips_of(other_api)) == ["", memo]
    assert other_api.balances() == api.balances()
