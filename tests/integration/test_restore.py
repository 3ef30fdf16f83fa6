"""Restoring an exported ledger: the archive, uploaded once, becomes a new ledger of the caller's
whose slips, balances, reports and receipts are the exported ledger's, whose members, webhooks and
Idempotency-Keys start fresh; an archive that is not whole, or not of one ledger, creates nothing."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from kakeibo.core import archive
from kakeibo.local.s3 import S3Local
from kakeibo.settings import get_settings
from tests.ddb_local import s3_server
from tests.events import Client, Reply
from tests.receipts import stored_receipt

PHOTO = b"\xff\xd8\xff\xe0" + b"receipt: udon 650 yen " * 40


@pytest.fixture(scope="module")
def s3_local() -> Iterator[S3Local]:
    """This module's own S3 server: a restore's archive and receipts meet no other module's
    uploads, queues or waits on the server they go through."""
    yield from s3_server()


def _household(api: Client, monkeypatch: pytest.MonkeyPatch) -> str:
    """A shared ledger with two accounts, slips (a transfer, a split one, one with a receipt, one
    posted with an Idempotency-Key), a budget, a recurrence and a webhook: its base."""
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "1")
    get_settings.cache_clear()
    made = api.post("/ledgers", {"name": "山田家"})
    assert made.status == 201, made
    base = f"/ledgers/{made.json['id']}"
    for account in (
        {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 50_000},
        {"id": "bank", "name": "銀行", "type": "bank", "opening_balance": 300_000},
    ):
        assert api.post(f"{base}/accounts", account).status == 201
    receipt = stored_receipt(api, PHOTO, base)
    slips: list[dict[str, Any]] = [
        {"date": "2026-01-05", "kind": "expense", "amount": 980, "account": "cash", "category": "食費"},
        {"date": "2026-01-25", "kind": "income", "amount": 250_000, "account": "bank", "category": "給与"},
        {"date": "2026-02-01", "kind": "transfer", "amount": 20_000, "account": "bank", "to_account": "cash"},
        {"date": "2026-02-10", "kind": "expense", "amount": 3_000, "account": "cash", "lines": [
            {"amount": 2_000, "category": "食費"}, {"amount": 1_000, "category": "日用品"}]},
        {"date": "2026-02-11", "kind": "expense", "amount": 650, "account": "cash", "receipts": [receipt]},
    ]  # fmt: skip
    for body in slips:
        assert api.post(f"{base}/slips", body).status == 201
    keyed = {"date": "2026-02-12", "kind": "expense", "amount": 420, "account": "cash", "category": "食費"}
    assert api.post(f"{base}/slips", keyed, headers={"Idempotency-Key": "coffee-0212"}).status == 201
    assert api.put(f"{base}/budgets/2026-02/食費", {"limit": 30_000, "strict": False}).status in (200, 201)
    rent = {
        "slip": {"kind": "expense", "amount": 80_000, "account": "bank", "category": "住居"},
        "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-01-27"},
        "shift": "none",
    }
    assert api.post(f"{base}/recurrences", rent).status == 201
    assert api.post(f"{base}/webhooks", {"url": "http://127.0.0.1:9/hook"}).status == 201
    return base


def _archive_of(api: Client, base: str) -> bytes:
    export = api.post(f"{base}/exports")
    assert export.status == 202 and export.json["state"] == "ready", export
    got = requests.get(export.json["download"]["url"], timeout=30)
    assert got.status_code == 200, got.text
    return got.content


def _restore(api: Client, data: bytes, **extra: Any) -> Reply:
    """The archive restored by `api`'s user: claimed, PUT once to its upload, restored (POSTed again
    while the machine is slow and the answer is 202)."""
    body = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), **extra}
    claimed = api.post("/ledgers/restore", body)
    assert claimed.status == 202 and claimed.json["state"] == "pending", claimed
    upload = claimed.json["upload"]
    put = requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30)
    assert put.status_code == 200, put.text
    done = api.post("/ledgers/restore", body)
    while done.status == 202:
        done = api.post("/ledgers/restore", body)
    return done


def _view(api: Client, base: str) -> dict[str, Any]:
    """What a household reads of its ledger: slips, balances, reports and budgets."""
    return {
        "slips": api.get(f"{base}/slips", query={"limit": 100}).json["items"],
        "balances": api.get(f"{base}/balances").json,
        "balances_jan": api.get(f"{base}/balances", query={"date": "2026-01-31"}).json,
        "reports": [api.get(f"{base}/reports/monthly", query={"month": m}).json for m in ("2026-01", "2026-02")],
        "budgets": api.get(f"{base}/budgets", query={"month": "2026-02"}).json,
        "accounts": api.get(f"{base}/accounts").json,
        "recurrences": api.get(f"{base}/recurrences").json,
    }


def test_an_exported_ledger_restores_into_a_new_ledger_equal_to_it(
    api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a household's ledger of every kind of item, exported
    base = _household(api, monkeypatch)
    data = _archive_of(api, base)
    # When its owner restores the archive
    done = _restore(api, data)
    # Then a new ledger is made, the caller its only owner, named as the exported one
    assert done.status == 201, done
    ledger = done.json["ledger"]
    new = f"/ledgers/{ledger['id']}"
    assert done.header("Location") == new and ledger["id"] != base.rsplit("/", 1)[1]
    got = api.get(new)
    assert got.status == 200 and got.json["name"] == "山田家", got
    assert [(m["user"], m["role"]) for m in got.json["members"]] == [(api.user, "owner")]
    # And its slips (ids kept), balances, reports, budgets, accounts and recurrences are the exported ledger's
    assert _view(api, new) == _view(api, base)
    # And it verifies, and its journal starts with one entry saying where it came from
    verify = api.post(f"{new}/ledger/verify")
    assert verify.status == 200 and verify.json["ok"] is True, verify
    changes = api.get(f"{new}/changes", query={"since": 0}).json["changes"]
    assert len(changes) == 1, changes
    origin = next(c["after"]["restored_from"] for c in changes[0]["changes"] if c["type"] == "ledger")
    assert origin["ledger"] == base.rsplit("/", 1)[1]
    # And the receipt's bytes are there, under the new ledger
    receipt = hashlib.sha256(PHOTO).hexdigest()
    meta = api.get(f"{new}/receipts/{receipt}")
    assert meta.status == 200 and meta.json["state"] == "stored", meta
    assert requests.get(meta.json["download"]["url"], timeout=30).content == PHOTO
    # And webhooks start fresh
    assert api.get(f"{new}/webhooks").json["items"] == []
    # And an Idempotency-Key used in the exported ledger makes a new slip in the restored one
    keyed = {"date": "2026-02-12", "kind": "expense", "amount": 420, "account": "cash", "category": "食費"}
    again = api.post(f"{new}/slips", keyed, headers={"Idempotency-Key": "coffee-0212"})
    assert again.status == 201, again
    assert again.json["id"] not in {s["id"] for s in _view(api, base)["slips"]}
    # And the same archive POSTed again answers the ledger it made, making no other
    body = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    replay = api.post("/ledgers/restore", body)
    assert replay.status == 200 and replay.json["ledger"]["id"] == ledger["id"], replay
    assert [i["id"] for i in api.get("/ledgers").json["items"]].count(ledger["id"]) == 1


def test_an_archive_restored_again_after_its_ledger_was_deleted_makes_another_new_ledger(
    api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a household's archive restored into a new ledger, which its owner then deleted
    base = _household(api, monkeypatch)
    data = _archive_of(api, base)
    first = _restore(api, data)
    assert first.status == 201, first
    gone = first.json["ledger"]["id"]
    deleted = api.delete(f"/ledgers/{gone}", headers={"If-Match": "*"})
    while deleted.status == 202 and deleted.json["state"] == "deleting":
        deleted = api.delete(f"/ledgers/{gone}", headers={"If-Match": "*"})
    assert deleted.status == 202 and deleted.json["state"] == "deleted", deleted
    # When the same archive is restored again
    again = _restore(api, data)
    # Then it is restored as the first time, into another new ledger, not answered with the deleted one
    assert again.status == 201, again
    ledger = again.json["ledger"]["id"]
    assert ledger not in (gone, base.rsplit("/", 1)[1])
    assert again.header("Location") == f"/ledgers/{ledger}"
    assert _view(api, f"/ledgers/{ledger}") == _view(api, base)
    # And the deleted one still answers 404, and the same archive now answers the new ledger
    assert api.get(f"/ledgers/{gone}").status == 404
    body = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    replay = api.post("/ledgers/restore", body)
    assert replay.status == 200 and replay.json["ledger"]["id"] == ledger, replay


def test_a_personal_ledger_restores_into_a_shared_one_with_the_name_given(api: Client) -> None:
    # Given a personal ledger with a slip, exported
    api.account("cash", 10_000)
    assert api.slip(date="2026-03-01", kind="expense", amount=120, account="cash", category="雑費").status == 201
    data = _archive_of(api, "")
    # When it is restored under a name
    done = _restore(api, data, name="わたしの家計簿（復元）")
    # Then the new ledger has that name, its slip and its balance
    assert done.status == 201 and done.json["ledger"]["name"] == "わたしの家計簿（復元）", done
    new = f"/ledgers/{done.json['ledger']['id']}"
    assert [s["amount"] for s in api.get(f"{new}/slips").json["items"]] == [120]
    assert api.balances() == {"cash": 9_880}
    assert {i["account"]: i["balance"] for i in api.get(f"{new}/balances").json["items"]} == {"cash": 9_880}


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress(data).splitlines()]


def _resealed(lines: list[dict[str, Any]]) -> bytes:
    """An archive of `lines` (header first, end last) in one sealed part: whole, whatever it says."""
    body = [line for line in lines if "seal" not in line and "end" not in line]
    items = sum(1 for line in body if "item" in line)
    receipts = sum(1 for line in body if "receipt" in line)
    return archive.encode_part(1, body) + archive.encode_end(1, items, receipts)


def _foreign(data: bytes) -> bytes:
    """The archive with one of its items moved to another ledger's partition."""
    lines = _lines(data)
    moved = next(line for line in lines if "item" in line)
    moved["item"]["PK"] = {"S": "HOUSEHOLD#someone-elses"}
    return _resealed(lines)


def _altered(data: bytes) -> bytes:
    """The archive with one amount changed inside its part (the seal no longer matches)."""
    text = gzip.decompress(data).replace(b'"amount":{"N":"980"}', b'"amount":{"N":"98"}', 1)
    return gzip.compress(text, mtime=0)


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda data: data[: len(data) // 2], "cut short"),
        (_altered, "was altered"),
        (_foreign, "another ledger"),
        (lambda data: gzip.compress(b"date,kind,amount\n2026-01-01,expense,100\n", mtime=0), "not JSON"),
    ],
    ids=["cut-short", "altered", "foreign", "not-an-archive"],
)
def test_an_archive_that_is_not_whole_or_not_one_ledgers_is_refused_and_creates_nothing(
    api: Client, monkeypatch: pytest.MonkeyPatch, damage: Any, words: str
) -> None:
    # Given a ledger's archive, damaged
    base = _household(api, monkeypatch)
    data = damage(_archive_of(api, base))
    before = api.get("/ledgers").json["items"]
    # When it is restored
    done = _restore(api, data)
    # Then 422 says what is wrong, and no ledger was made
    assert done.status == 422 and done.json["code"] == "archive_refused", done
    assert words in done.json["detail"], done
    assert api.get("/ledgers").json["items"] == before
    # And the refused archive was not kept: it can be uploaded again, and is refused again, in Japanese
    # when the caller reads Japanese
    body = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    claimed = api.post("/ledgers/restore", body)
    assert claimed.status == 202 and claimed.json["state"] == "pending", claimed
    upload = claimed.json["upload"]
    assert requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30).status_code == 200
    ja = api.post("/ledgers/restore", body, headers={"Accept-Language": "ja"})
    assert ja.status == 422 and ja.json["title"] == "このファイルからは復元できません", ja
    assert ja.json["detail"] != done.json["detail"] and ja.json["reason"] == done.json["reason"], ja


def test_a_refused_restore_sent_again_with_its_idempotency_key_is_answered_the_same_refusal(
    api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an archive cut short, claimed and uploaded with an Idempotency-Key, and refused
    base = _household(api, monkeypatch)
    data = _archive_of(api, base)[:2000]
    body = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    key = {"Idempotency-Key": "restore-cut-short"}
    claimed = api.post("/ledgers/restore", body, headers=key)
    assert claimed.status == 202 and claimed.json["state"] == "pending", claimed
    upload = claimed.json["upload"]
    assert requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30).status_code == 200
    refused = api.post("/ledgers/restore", body, headers=key)
    assert refused.status == 422 and refused.json["code"] == "archive_refused", refused
    # When the same request is sent again with the same key
    again = api.post("/ledgers/restore", body, headers=key)
    # Then it is answered the refusal again, not a new upload
    assert (again.status, again.json) == (422, refused.json), again
    # And another key is another request: the archive may be uploaded again
    fresh = api.post("/ledgers/restore", body, headers={"Idempotency-Key": "restore-cut-short-2"})
    assert fresh.status == 202 and fresh.json["state"] == "pending", fresh


def test_bad_restore_requests_are_refused_in_words(api: Client) -> None:
    # Given requests that name no archive properly
    # When they are sent
    # Then each is a 422 naming the field, and nothing is kept
    for body in ({"sha256": "xyz", "size": 10}, {"sha256": "a" * 64, "size": 0}, {"sha256": "a" * 64}):
        got = api.post("/ledgers/restore", body)
        assert got.status == 422 and got.json["code"] == "validation_error", got
    assert api.post("/ledgers/restore", {"sha256": "a" * 64, "size": 10}, user=None).status == 401
