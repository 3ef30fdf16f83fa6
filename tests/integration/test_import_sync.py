"""Imports that keep up with the app a household still uses: a later download of Money Forward ME or
Zaim compared with what earlier downloads imported. Files are written as the apps write them
(Shift_JIS or UTF-8 with a BOM, CRLF, quoted); balances and totals are worked out by hand and
written literally."""

from __future__ import annotations

from typing import Any

from kakeibo.store import Dates, Store
from kakeibo.store.codec import to_ddb
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client

CSV = {"Content-Type": "text/csv"}
MF_HEADER = '"計算対象","日付","内容","金額（円）","保有金融機関","大項目","中項目","メモ","振替","ID"\r\n'


def mf(*rows: str) -> bytes:
    """A 収入・支出詳細 file as Money Forward ME writes it: Shift_JIS, CRLF, every value quoted."""
    lines = [",".join(f'"{v}"' for v in row.split("|")) for row in rows]
    return (MF_HEADER + "\r\n".join(lines) + "\r\n").encode("cp932")


# 計算対象|日付|内容|金額|口座|大項目|中項目|メモ|振替|ID
LAWSON = "1|2026/11/03|ローソン|-3612|楽天カード|食費|食料品||0|mf1"
SALARY = "1|2026/11/05|給与|250000|三井住友銀行|収入|給与||0|mf2"
GAS = "1|2026/11/10|東京ガス|-4200|三井住友銀行|水道・光熱費|ガス||0|mf3"
LATER = "1|2026/11/12|ローソン|-500|楽天カード|食費|食料品||0|mf4"
FIRST = mf(LAWSON, SALARY, GAS)
# the next download: the Lawson row edited in the app (3,612 -> 3,700), the gas bill deleted there, a new row
SECOND = mf(LATER, SALARY, LAWSON.replace("-3612", "-3700"))


def _household(api: Client) -> None:
    for body in (
        {"id": "bank", "name": "三井住友銀行", "type": "bank", "opening_balance": 0},
        {"id": "card", "name": "楽天カード", "type": "credit", "opening_balance": 0},
    ):
        assert api.post("/accounts", body).status == 201


def _import(api: Client, data: bytes, **query: str) -> dict[str, Any]:
    reply = api.post("/imports", raw=data, headers=CSV, query=query)
    assert reply.status == 200, reply
    return reply.json  # type: ignore[no-any-return]


def _expense(api: Client, month: str = "2026-11") -> int:
    return int(api.get("/reports/monthly", query={"month": month}).json["expense"])


def _by_action(items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        out.setdefault(item["action"], []).append(item)
    return out


def test_a_row_edited_in_money_forward_updates_its_slip_and_a_deleted_one_is_listed(
    api: Client, store: Store, user: str
) -> None:
    # Given the first download imported: card -3,612; bank 250,000 - 4,200 = 245,800; expense 7,812
    _household(api)
    assert _import(api, FIRST)["created"] == 3
    assert api.balances() == {"bank": 245_800, "card": -3_612}
    # When the next download is dry-run
    preview = _import(api, SECOND, dry_run="true")
    # Then the edit is `changed` (3,612 -> 3,700), the gas bill `missing_in_file`, the new row `create`
    found = _by_action(preview["outcomes"])
    (changed,) = found["changed"]
    assert changed["line"] == 4 and changed["changes"] == {"amount": [3612, 3700]}
    assert changed["current"]["amount"] == 3612 and changed["slip"]["amount"] == 3700
    (missing,) = found["missing_in_file"]
    assert missing["line"] is None and missing["current"]["memo"] == "東京ガス"
    assert [i["line"] for i in found["create"]] == [2] and [i["line"] for i in found["duplicate"]] == [3]
    assert (preview["changed"], preview["missing_in_file"], preview["created"], preview["skipped"]) == (1, 1, 1, 1)
    assert api.balances() == {"bank": 245_800, "card": -3_612}  # a dry run writes nothing
    # When it is imported
    done = _import(api, SECOND)
    # Then the slip is 3,700 (one update, journaled), the new row created, the gas bill still there
    assert (done["created"], done["changed"], done["missing_in_file"], done["deleted"]) == (1, 1, 1, 0)
    # And the dry run counted under the names the import answers with, what the import then did
    counts = {k: v for k, v in preview.items() if type(v) is int and k not in ("rows", "not_counted")}
    assert counts == {k: done[k] for k in counts}, (counts, done)
    # And the changed outcome shows the slip as the import left it: 3,700, version 2
    (updated,) = _by_action(done["outcomes"])["changed"]
    assert (updated["current"]["amount"], updated["current"]["version"]) == (3_700, 2), updated
    assert updated["changes"] == {"amount": [3612, 3700]}
    assert api.balances() == {"bank": 245_800, "card": -4_200}
    assert _expense(api) == 3_700 + 4_200 + 500
    lawson = changed["slip_id"]
    history = api.get(f"/slips/{lawson}/history").json["items"]
    assert [(h["op"], h["origin"]) for h in history] == [("create", "import"), ("update", "import")]
    assert history[-1]["changed"] == {"amount": [3612, 3700]}
    # And the same download again changes nothing
    again = _import(api, SECOND)
    assert (again["created"], again["changed"], again["skipped"]) == (0, 0, 3)
    # And with apply_deletions the gas bill goes, through the delete path: bank 250,000, expense 4,200
    deleted = _import(api, SECOND, apply_deletions="true")
    assert deleted["deleted"] == 1 and _by_action(deleted["outcomes"])["deleted"][0]["current"]["memo"] == "東京ガス"
    assert api.balances() == {"bank": 250_000, "card": -4_200}
    assert _expense(api) == 4_200
    assert invariants.check(store, user) == []


def test_a_slip_edited_here_is_a_conflict_and_left_as_it_is(api: Client, store: Store, user: str) -> None:
    # Given the first download imported, and the salary's memo edited here
    _household(api)
    _import(api, FIRST)
    salary = next(s for s in api.get("/slips").json["items"] if s["amount"] == 250_000)
    edited = api.patch(f"/slips/{salary['date']}/{salary['id']}", {"memo": "11月分"}, headers={"If-Match": '"1"'})
    assert edited.status == 200, edited
    # When the app's next download has the salary at 260,000 (and the rest as before)
    later = mf(LAWSON, SALARY.replace("250000", "260000"), GAS)
    done = _import(api, later, apply_deletions="true")
    # Then it is a conflict: shown with the app's edit, nothing applied, nothing deleted
    (conflict,) = done["outcomes"]
    assert conflict["action"] == "conflict" and conflict["changes"]["amount"] == [250_000, 260_000]
    assert conflict["changes"]["memo"] == ["11月分", "給与"]
    assert (done["conflicts"], done["changed"], done["deleted"]) == (1, 0, 0)
    assert api.balances() == {"bank": 245_800, "card": -3_612}
    # And a row the app did not change stays quiet even though it was edited here
    assert _import(api, FIRST)["outcomes"] == []
    assert invariants.check(store, user) == []


def test_four_concurrent_imports_of_a_changed_download_apply_it_once(local_env: str, store: Store) -> None:
    # Given the first download imported
    api = Client("sync-race")
    _household(api)
    _import(api, FIRST)
    # When four imports of the next download start at once, each from its own process
    request = ("POST", "/imports", SECOND, {"Content-Type": "text/csv"})
    replies = fan_out(api.user, [request] * 4)
    # Then every one answers; one short of time (202 on a loaded machine) is sent again until done
    assert all(r.status in (200, 202) for r in replies), [r.raw[:600] for r in replies if r.status not in (200, 202)]
    created = sum(r.json["created"] for r in replies)
    for first in replies:
        reply = first
        while reply.status == 202:
            reply = api.post("/imports", raw=SECOND, headers={"Content-Type": "text/csv"})
            assert reply.status in (200, 202), reply
            created += reply.json["created"]
    # And between them all the row was changed once and the new row created once
    assert created == 1
    assert api.balances() == {"bank": 245_800, "card": -4_200}
    lawson = next(s for s in api.get("/slips").json["items"] if s["amount"] == 3_700)
    assert lawson["version"] == 2
    assert invariants.check(store, api.user) == []


ZAIM_13 = "日付,方法,カテゴリ,カテゴリの内訳,支払元,入金先,品目,メモ,お店,通貨,収入,支出,振替"
ZAIM_14 = ZAIM_13 + ",残高調整"
ZAIM_HEADER = ZAIM_14 + ",通貨変換前の金額,集計の設定"


def zaim(header: str, *rows: str, encoding: str = "cp932") -> bytes:
    return ("\r\n".join((header, *rows)) + "\r\n").encode(encoding)


def test_zaim_rows_without_accounts_book_to_the_clearing_account(api: Client) -> None:
    # Given a Zaim user who does not track accounts: 支払元 and 入金先 are "-"
    data = zaim(
        ZAIM_HEADER,
        "2026-11-04,payment,食費,食料品,-,-,牛乳,,スーパー,JPY,0,198,0,0,0,常に集計に含める",
        "2026-11-25,income,給与,-,-,-,,,,JPY,200000,0,0,0,0,常に集計に含める",
    )
    # When it is imported without create_accounts: each row says how
    refused = _import(api, data)
    assert refused["created"] == 0 and all("create_accounts=true" in e["message"] for e in refused["errors"])
    ja = api.post("/imports", raw=data, headers={**CSV, "Accept-Language": "ja"}).json
    assert all("口座指定なし" in e["message"] and not e["message"].startswith("この行は") for e in ja["errors"])
    # Then with create_accounts both book to 口座指定なし: 200,000 - 198 = 199,802
    done = _import(api, data, create_accounts="true")
    assert done["created"] == 2 and len(done["accounts_created"]) == 1
    (clearing,) = api.get("/accounts").json["items"]
    assert (clearing["name"], clearing["balance"]) == ("口座指定なし", 199_802)


def test_zaim_foreign_currency_rows_use_the_yen_amount(api: Client) -> None:
    # Given a purchase in dollars: Zaim counted 1,520 yen (10.00 USD)
    api.account("card", 0, type="credit")
    api.patch("/accounts/card", {"name": "楽天カード"}, headers={"If-Match": '"1"'})
    data = zaim(
        ZAIM_HEADER,
        "2026-11-08,payment,趣味・娯楽,本,楽天カード,-,Kindle,,Amazon.com,USD,0,1520,0,0,10.00,常に集計に含める",
    )
    # When it is imported
    done = _import(api, data)
    # Then the slip is 1,520 yen, the currency and amount before conversion in its memo
    assert done["created"] == 1 and done["errors"] == []
    (slip,) = api.get("/slips").json["items"]
    assert (slip["amount"], slip["memo"]) == (1520, "Kindle / Amazon.com / USD 10.00")


def test_older_zaim_layouts_of_13_and_14_columns_are_read(api: Client) -> None:
    # Given the same two purchases in the 13- and the 14-column layouts, UTF-8 with a BOM
    api.account("wallet", 10_000)
    api.patch("/accounts/wallet", {"name": "お財布"}, headers={"If-Match": '"1"'})
    thirteen = zaim(ZAIM_13, "2026-11-04,payment,食費,食料品,お財布,-,牛乳,,スーパー,JPY,0,198,0", encoding="utf-8-sig")
    fourteen = zaim(ZAIM_14, "2026-11-05,payment,食費,外食,お財布,-,ランチ,,,JPY,0,900,0,0", encoding="utf-8-sig")
    # When both are imported
    assert _import(api, thirteen)["created"] == 1
    assert _import(api, fourteen)["created"] == 1
    # Then the wallet holds 10,000 - 198 - 900
    assert api.balances() == {"wallet": 8_902}


def test_an_edited_zaim_row_next_to_a_vanished_one_waits_to_be_confirmed(api: Client, store: Store, user: str) -> None:
    # Given November imported from Zaim: a 200 yen coffee and a 900 yen lunch
    api.account("wallet", 10_000)
    api.patch("/accounts/wallet", {"name": "お財布"}, headers={"If-Match": '"1"'})
    coffee = "2026-11-04,payment,食費,カフェ,お財布,-,コーヒー,,,JPY,0,{},0,0,0,常に集計に含める"
    lunch = "2026-11-05,payment,食費,外食,お財布,-,ランチ,,,JPY,0,900,0,0,0,常に集計に含める"
    assert _import(api, zaim(ZAIM_HEADER, coffee.format(200), lunch))["created"] == 2
    # When the coffee was edited in Zaim (200 -> 300) and the next download is imported
    edited = zaim(ZAIM_HEADER, coffee.format(300), lunch)
    done = _import(api, edited)
    # Then the new row is possibly_replaced, shown with the slip it may replace, and nothing is written
    (replaced,) = done["outcomes"]
    assert replaced["action"] == "possibly_replaced"
    assert (replaced["slip"]["amount"], replaced["current"]["amount"]) == (300, 200)
    assert (done["created"], done["possibly_replaced"]) == (0, 1)
    assert api.balances() == {"wallet": 8_900}  # 200 counted once, not 200 + 300
    # And once confirmed (apply_deletions), the 200 is replaced by the 300: 10,000 - 300 - 900
    confirmed = _import(api, edited, apply_deletions="true")
    assert confirmed["created"] == 1
    assert api.balances() == {"wallet": 8_800}
    assert _expense(api) == 1_200
    assert invariants.check(store, user) == []


def test_a_money_forward_file_whose_ids_repeat_is_said_plainly_and_imports_by_content(api: Client) -> None:
    # Given a hand-edited file: three rows, all with ID "x" (two identical purchases among them)
    api.post("/accounts", {"id": "bank", "name": "三井住友銀行", "type": "bank", "opening_balance": 10_000})
    api.post("/accounts", {"id": "card", "name": "楽天カード", "type": "credit"})
    data = mf(
        "1|2026/11/03|ローソン|-300|楽天カード|食費|食料品||0|x",
        "1|2026/11/03|ローソン|-300|楽天カード|食費|食料品||0|x",
        "1|2026/11/04|ガス|-4200|三井住友銀行|水道・光熱費|ガス||0|x",
    )
    # When it is dry-run
    preview = _import(api, data, dry_run="true")
    # Then the answer says plainly that IDs repeat and how to import it
    assert preview["repeated_ids"] == 2 and "identity=content" in preview["notices"][0]
    ja = api.post("/imports", raw=data, headers={**CSV, "Accept-Language": "ja"}, query={"dry_run": "true"}).json
    assert "identity=content" in ja["notices"][0] and not ja["notices"][0].isascii()
    # And with identity=content every row is imported once (the two identical purchases stay two)
    done = _import(api, data, identity="content")
    assert (done["created"], done["errors"]) == (3, [])
    assert _import(api, data, identity="content")["created"] == 0
    assert api.balances() == {"bank": 5_800, "card": -600}


def test_every_new_outcome_reads_in_japanese(api: Client) -> None:
    # Given the first Money Forward download imported and a slip edited here
    _household(api)
    _import(api, FIRST)
    salary = next(s for s in api.get("/slips").json["items"] if s["amount"] == 250_000)
    api.patch(f"/slips/{salary['date']}/{salary['id']}", {"memo": "11月分"}, headers={"If-Match": '"1"'})
    later = mf(LATER, SALARY.replace("250000", "260000"), LAWSON.replace("-3612", "-3700"))
    # When the next download is dry-run in Japanese
    reply = api.post("/imports", raw=later, headers={**CSV, "Accept-Language": "ja"}, query={"dry_run": "true"})
    # Then every outcome's message is Japanese, none the fallback frame around English
    items = [i for i in reply.json["outcomes"] if i["action"] in ("changed", "conflict", "missing_in_file")]
    assert {i["action"] for i in items} == {"changed", "conflict", "missing_in_file"}
    for item in items:
        assert not item["message"].startswith("この行は取り込めません"), item["message"]
        assert any("\u3040" <= ch <= "\u30ff" for ch in item["message"]), item["message"]


def test_an_excel_re_saved_download_is_the_same_rows_not_changed_ones(api: Client) -> None:
    # Given the first download imported
    _household(api)
    _import(api, FIRST)
    # When the same rows come back as Excel saves them: no quotes, dates without leading zeros, amounts
    # with thousands separators quoted, Shift_JIS and CRLF kept
    resaved = (
        "計算対象,日付,内容,金額（円）,保有金融機関,大項目,中項目,メモ,振替,ID\r\n"
        '1,2026/11/3,ローソン,"-3,612",楽天カード,食費,食料品,,0,mf1\r\n'
        '1,2026/11/5,給与,"250,000",三井住友銀行,収入,給与,,0,mf2\r\n'
        '1,2026/11/10,東京ガス,"-4,200",三井住友銀行,水道・光熱費,ガス,,0,mf3\r\n'
    ).encode("cp932")
    done = _import(api, resaved)
    # Then every row is as imported: nothing changed, nothing missing, nothing created
    assert (done["created"], done["skipped"], done["changed"], done["outcomes"]) == (0, 3, 0, [])
    assert api.balances() == {"bank": 245_800, "card": -3_612}


def test_an_import_stopped_while_applying_changes_applies_each_once_when_sent_again(
    api: Client, store: Store, user: str, monkeypatch: Any
) -> None:
    # Given two rows changed in the app since the first download
    _household(api)
    _import(api, FIRST)
    later = mf(LAWSON.replace("-3612", "-3700"), SALARY.replace("250000", "251000"), GAS)
    # When the import stops after writing the first change (the function dies: the request fails)
    from kakeibo.services.imports import sync as import_sync

    real, calls = import_sync.write_slip, []

    def dying(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the invocation ended")
        return real(*args, **kwargs)

    monkeypatch.setattr(import_sync, "write_slip", dying)
    assert api.post("/imports", raw=later, headers=CSV).status == 500
    monkeypatch.setattr(import_sync, "write_slip", real)
    # Then sending the file again applies the change that was not written, and only that one
    again = _import(api, later)
    assert again["changed"] == 1 and again["skipped"] == 2
    assert api.balances() == {"bank": 251_000 - 4_200, "card": -3_700}
    assert [s["version"] for s in api.get("/slips").json["items"]] == [1, 2, 2]
    assert invariants.check(store, user) == []


def test_every_row_refusal_of_the_apps_files_reads_in_japanese(api: Client) -> None:
    # Given files with one bad row of every kind each parser refuses
    _household(api)
    bad_mf = mf(
        "2|2026/11/03|x|-100|楽天カード|食費|||0|b1",  # 計算対象 not 0/1
        "1|2026/13/03|x|-100|楽天カード|食費|||0|b2",  # no such date
        "1|2026/11/03|x|0|楽天カード|食費|||0|b3",  # 0 yen
        "1|2026/11/03|x|-1.5|楽天カード|食費|||0|b4",  # not whole yen
        "1|2026/11/03|x|-100||食費|||0|b5",  # no account
        "1|2026/11/03|x|-100|楽天カード|食費|||0|",  # no ID
        "1|2026/11/03|x|-100|楽天カード|食費|||2|b7",  # 振替 not 0/1
        "1|2026/11/03|x|-100|未登録の口座|食費|||0|b8",  # unknown account
        "1|2026/11/03|x|-100|楽天カード|食費|||0|b8",  # repeated ID
    )
    bad_zaim = zaim(
        ZAIM_HEADER,
        "2026-11-04,refund,交通,,楽天カード,-,,,,JPY,0,178,0,0,0,",
        "2026-11-04,payment,交通,,楽天カード,-,,,,JPY,0,0,0,0,0,",
        "2026-11-04,payment,交通,,楽天カード,-,,,,JPY,0,178,0,0,0,たまに",
        "2026-11-04,balance,-,-,-,-,,,,JPY,0,0,0,50,0,",
    )
    # When they are imported in Japanese
    for data in (bad_mf, bad_zaim):
        reply = api.post("/imports", raw=data, headers={**CSV, "Accept-Language": "ja"})
        errors = reply.json["errors"]
        # Then every refusal is worded in Japanese, none in the frame around English text
        assert errors, reply.json
        for error in errors:
            assert not error["message"].startswith("この行は取り込めません"), error


def test_an_older_download_sent_again_is_stale_and_changes_nothing(api: Client, store: Store, user: str) -> None:
    # Given a download (Lawson 3,612), then a later one where the app changed it to 3,700, both imported
    _household(api)
    _import(api, FIRST)
    later = mf(LAWSON.replace("-3612", "-3700"), SALARY, GAS)
    assert _import(api, later)["changed"] == 1
    assert api.balances()["card"] == -3_700
    # When the earlier download is sent again, byte for byte (dry run first, then for real)
    preview = _import(api, FIRST, dry_run="true")
    again = _import(api, FIRST)
    # Then its Lawson row is stale: an older version of what was applied, left as it is
    for listed in (preview["outcomes"], again["outcomes"]):
        (stale,) = _by_action(listed)["stale"]
        assert stale["changes"] == {"amount": [3700, 3612]} and stale["current"]["amount"] == 3700
    assert (preview["stale"], preview["changed"]) == (1, 0)
    assert (again["stale"], again["changed"], again["created"]) == (1, 0, 0)
    assert again["status"] == "complete"
    # And nothing went back: the balance and the slip's history are those of the later download
    assert api.balances() == {"bank": 245_800, "card": -3_700}
    lawson = _by_action(again["outcomes"])["stale"][0]["slip_id"]
    assert [h["op"] for h in api.get(f"/slips/{lawson}/history").json["items"]] == ["create", "update"]
    # And in Japanese it says so
    ja = api.post("/imports", raw=FIRST, headers={**CSV, "Accept-Language": "ja"}, query={"dry_run": "true"})
    (stale_ja,) = _by_action(ja.json["outcomes"])["stale"]
    assert stale_ja["message"].startswith("すでに取り込んだ内容より古い"), stale_ja["message"]
    # And a genuinely new content of the row is still applied
    newest = mf(LAWSON.replace("-3612", "-3800"), SALARY, GAS)
    assert _import(api, newest)["changed"] == 1
    assert api.balances()["card"] == -3_800
    assert invariants.check(store, user) == []


def _as_imported_before_payees(store: Store, user: str) -> None:
    """The ledger's slips as an import made before slips had payees left them: no payee, no
    imported_payee, the mark's fingerprint of the row without its payee (and, on the salary slip, no
    mark at all, nor a cleared state: imported before either was kept)."""
    from kakeibo.services.imports.sync import _current_slip
    from kakeibo.services.slips import fingerprint

    for item in list(store.slips.slips_within(user, Dates())):
        old = {k: v for k, v in item.items() if k not in ("payee", "payee_key", "imported_payee", "imported")}
        row = {k: v for k, v in old.items() if k != "cleared"}  # the file does not say
        if old["kind"] == "income":
            old = row
        else:
            old["imported"] = {"fingerprint": fingerprint(_current_slip(row)), "version": 1}
        store.core.client.put_item(TableName=store.core.table, Item=to_ddb(old))


def test_slips_imported_before_payees_are_unchanged_by_the_same_file_and_changed_by_an_edited_one(
    api: Client, store: Store, user: str
) -> None:
    # Given the first download imported before slips had payees
    _household(api)
    _import(api, FIRST)
    _as_imported_before_payees(store, user)
    assert all("payee" not in s for s in api.get("/slips").json["items"])
    # When the same file is imported again (its rows now read with their payees, 内容)
    again = _import(api, FIRST)
    # Then nothing is changed, nothing created, nothing written
    assert (again["created"], again["skipped"], again["changed"], again["outcomes"]) == (0, 3, 0, []), again["outcomes"]
    assert all(s["version"] == 1 and "payee" not in s for s in api.get("/slips").json["items"])
    # When the next download, whose Lawson row was edited in the app, is imported
    nxt = _import(api, SECOND)
    # Then that row is changed (taking the file's payee with it) and the others are as imported
    assert (nxt["created"], nxt["changed"]) == (1, 1), nxt
    slips = {s["id"]: s for s in api.get("/slips").json["items"]}
    (lawson,) = (s for s in slips.values() if s["amount"] == 3_700)
    assert (lawson["version"], lawson["payee"]) == (2, "ローソン")
    assert api.balances() == {"bank": 245_800, "card": -4_200}
