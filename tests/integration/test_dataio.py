"""A ledger's export: one archive on the local S3 server holding every item of the ledger and its
receipts' bytes, built by owners only, resumed after it stopped, and written once."""

from __future__ import annotations

import gzip
import hashlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from kakeibo import blobs
from kakeibo.core import archive
from kakeibo.local.dynamodb import free_port
from kakeibo.local.s3 import S3Local, create_buckets
from kakeibo.services import dataio
from kakeibo.settings import get_settings
from kakeibo.store import SharedLedger, Store, WriteContext, from_ddb
from kakeibo.store.exports import ExportOps
from tests.conftest import reset_caches
from tests.events import Client
from tests.receipts import stored_receipt

PHOTO = b"\xff\xd8\xff\xe0" + b"receipt: ramen 980 yen " * 40


def _household(api: Client, monkeypatch: pytest.MonkeyPatch) -> str:
    """A shared ledger with accounts, slips (one with a receipt), a budget and a webhook (to a local
    address nobody answers at): its base."""
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "1")
    get_settings.cache_clear()
    made = api.post("/ledgers", {"name": "山田家"})
    assert made.status == 201, made
    base = f"/ledgers/{made.json['id']}"
    cash = {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 50_000}
    assert api.post(f"{base}/accounts", cash).status == 201
    receipt = stored_receipt(api, PHOTO, base)
    for day, amount in (("2026-01-05", 980), ("2026-02-10", 3_200)):
        body = {"date": day, "kind": "expense", "amount": amount, "account": "cash", "category": "食費"}
        assert api.post(f"{base}/slips", body).status == 201
    with_receipt = {"date": "2026-02-11", "kind": "expense", "amount": 500, "account": "cash", "receipts": [receipt]}
    assert api.post(f"{base}/slips", with_receipt).status == 201
    assert api.put(f"{base}/budgets/2026-02/食費", {"limit": 30_000, "strict": False}).status in (200, 201)
    hook = api.post(f"{base}/webhooks", {"url": "http://127.0.0.1:9/hook"})
    assert hook.status == 201, hook
    return base


def _download(export: dict[str, Any]) -> bytes:
    got = requests.get(export["download"]["url"], timeout=30)
    assert got.status_code == 200, got.text
    return got.content


def test_an_owner_exports_every_item_and_receipt_of_the_ledger(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a shared ledger with slips, a stored receipt, a budget and a webhook
    base = _household(api, monkeypatch)
    ledger = SharedLedger(base.rsplit("/", 1)[1])
    # When its owner exports it
    started = api.post(f"{base}/exports")
    # Then 202 with an export that is ready (a small ledger fits one request), and reading it agrees
    assert started.status == 202, started
    assert started.json["state"] == "ready" and started.json["parts"] == 1, started
    read = api.get(f"{base}/exports/{started.json['id']}")
    assert read.status == 200 and read.json["items"] == started.json["items"], read
    # And the archive downloaded holds exactly the ledger's data: every item but locks and exports, as
    # stored, the webhook without its secret, and the receipt's bytes
    found = archive.read(_download(read.json))
    assert found.ledger == str(ledger)
    table = [i for i in store.core.query(ledger) if not str(i["SK"]).startswith(("LOCK#", "EXPORT#"))]
    hooks = [i for i in table if str(i["SK"]).startswith("WEBHOOK#")]
    assert hooks and all("secret" in h for h in hooks)
    exported = [from_ddb(i) for i in found.items]
    assert exported == [{k: v for k, v in i.items() if k != "secret"} for i in table]
    assert found.receipts == {hashlib.sha256(PHOTO).hexdigest(): PHOTO}
    kinds = {str(i["SK"]).split("#", 1)[0] for i in exported}
    assert {"ACCOUNT", "SLIP", "ID", "CHG", "JOURNAL", "MEMBER", "RECEIPT", "WEBHOOK"} <= kinds
    assert read.json["receipts"] == 1 and read.json["items"] == len(table)


def test_a_personal_ledger_is_exported_too(api: Client) -> None:
    # Given a personal ledger with one slip
    api.account("cash", 10_000)
    assert api.slip(date="2026-03-01", kind="expense", amount=120, account="cash", category="雑費").status == 201
    # When it is exported through the unprefixed route
    started = api.post("/exports")
    # Then the archive holds its slip
    assert started.status == 202 and started.json["state"] == "ready", started
    found = archive.read(_download(started.json))
    assert [i["amount"] for i in map(from_ddb, found.items) if str(i["SK"]).startswith("SLIP#")] == [120]


def test_an_editor_is_refused_and_a_stranger_finds_nothing(
    api: Client, other_api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a shared ledger with an editor, and its export
    base = _household(api, monkeypatch)
    invited = api.post(f"{base}/invitations", {"role": "editor"})
    editor = Client(f"editor-{uuid.uuid4().hex[:8]}")
    assert editor.post(f"/invitations/{invited.json['token']}/accept").status == 200
    export = api.post(f"{base}/exports").json["id"]
    # When the editor and a stranger export it or read the export
    # Then the editor gets 403, the stranger 404, and nothing new was started
    assert editor.post(f"{base}/exports").status == 403
    assert editor.get(f"{base}/exports/{export}").status == 403
    assert other_api.post(f"{base}/exports").status == 404
    assert other_api.get(f"{base}/exports/{export}").status == 404
    assert api.get(f"{base}/exports/nosuch").status == 404


@pytest.fixture
def small_parts(local_env: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An S3 server of this test's own that takes multipart parts of any size (S3 wants 5 MiB but
    for the last), in place of the session's, so that a small ledger's archive takes several parts."""
    monkeypatch.setenv("S3_UPLOAD_PART_MIN_SIZE", "1")
    server = S3Local(free_port()).start()
    try:
        create_buckets(server.endpoint)
        monkeypatch.setenv("S3_ENDPOINT_URL", server.endpoint)
        reset_caches()
        yield
    finally:
        server.stop()
        reset_caches()


@pytest.mark.usefixtures("small_parts")
def test_an_export_that_runs_out_of_time_is_resumed_and_written_once(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a shared ledger with more items than one page, and parts of one page each
    made = api.post("/ledgers", {"name": "山田家"})
    base = f"/ledgers/{made.json['id']}"
    ledger = SharedLedger(made.json["id"])
    assert (
        api.post(f"{base}/accounts", {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 9_000}).status
        == 201
    )
    for n in range(12):
        body = {"date": f"2026-03-{n + 1:02d}", "kind": "expense", "amount": 100 + n, "account": "cash"}
        assert api.post(f"{base}/slips", body).status == 201
    monkeypatch.setattr(dataio, "PAGE", 10)
    monkeypatch.setattr(dataio, "MIN_PART", 1)  # every page its own part
    uploads: list[int] = []
    real_upload = blobs.upload_part

    def counting(key: str, upload_id: str, number: int, data: bytes) -> str | None:
        uploads.append(number)
        return real_upload(key, upload_id, number, data)

    monkeypatch.setattr(blobs, "upload_part", counting)
    # When a build runs out of time after two parts
    ticks = iter([100.0, 100.0, 0.0])
    ctx = WriteContext.member(str(ledger), str(api.user), ("owner",))
    first = dataio.start_export(store, ctx, time_left=lambda: next(ticks, 0.0))
    # Then the export is building with two parts stored
    assert (first["state"], first["parts"]) == ("building", 2), first
    # When it is exported again (POST takes up the same export) with time enough
    second = api.post(f"{base}/exports").json
    while second["state"] == "building":  # a loaded machine: the request's time ran out; POST again
        second = api.post(f"{base}/exports").json
    # Then the same export is ready, each part was uploaded once, and the archive is whole
    assert second["id"] == first["id"] and second["state"] == "ready", second
    assert sorted(uploads) == list(range(1, second["parts"] + 1))
    item = store.exports.read_export(ledger, first["id"])
    assert item is not None
    data = blobs.read(str(item["key"]))
    assert data is not None
    found = archive.read(data)
    table = [i for i in store.core.query(ledger) if not str(i["SK"]).startswith(("LOCK#", "EXPORT#"))]
    assert [from_ddb(i)["SK"] for i in found.items] == [i["SK"] for i in table]
    assert len(json.loads(item["parts"])) == second["parts"] > 2


def test_two_racing_exports_build_one_archive(api: Client, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a ledger whose export has been started and stopped at once (time ran out)
    made = api.post("/ledgers", {"name": "山田家"})
    ledger = SharedLedger(made.json["id"])
    ctx = WriteContext.member(str(ledger), str(api.user), ("owner",))
    first = dataio.start_export(store, ctx, time_left=lambda: 0.0)
    assert first["state"] == "building", first
    # And a second POST that read the ledger before the first had written its export (a race)
    monkeypatch.setattr(ExportOps, "exports_building", lambda self, ledger: [])
    # When the second POST starts its export
    second = dataio.start_export(store, ctx)
    # Then it takes up the first one instead of starting another, and the ledger has one export
    assert second["id"] == first["id"] and second["state"] == "ready", second
    exports = list(store.core.query(ledger, begins_with="EXPORT#"))
    assert [i["id"] for i in exports] == [first["id"]]
    # And once it is ready, the next POST starts a new export
    third = api.post(f"/ledgers/{ledger}/exports")
    assert third.status == 202 and third.json["id"] != first["id"], third


@pytest.mark.usefixtures("small_parts")
def test_an_upload_completed_but_not_recorded_counts_its_parts_once(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a ledger whose archive takes several parts
    made = api.post("/ledgers", {"name": "山田家"})
    base = f"/ledgers/{made.json['id']}"
    ledger = SharedLedger(made.json["id"])
    assert api.post(f"{base}/accounts", {"id": "cash", "name": "財布", "type": "cash"}).status == 201
    for n in range(4):
        assert api.post(f"{base}/accounts", {"id": f"bank{n}", "name": f"銀行{n}", "type": "bank"}).status == 201
    monkeypatch.setattr(dataio, "PAGE", 5)
    monkeypatch.setattr(dataio, "MIN_PART", 1)
    # And a build that completed the upload and then stopped before recording its last part
    real = ExportOps.export_part_stored

    def stop_on_the_last(self: ExportOps, *args: Any, **kwargs: Any) -> Any:
        if kwargs["ready"]:
            raise RuntimeError("the function stopped")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ExportOps, "export_part_stored", stop_on_the_last)
    ctx = WriteContext.member(str(ledger), str(api.user), ("owner",))
    with pytest.raises(RuntimeError):
        dataio.start_export(store, ctx)
    monkeypatch.setattr(ExportOps, "export_part_stored", real)
    # When the export is taken up again
    done = api.post(f"{base}/exports").json
    # Then it is ready, and the parts it counts are the archive's sealed parts
    assert done["state"] == "ready", done
    item = store.exports.read_export(ledger, done["id"])
    assert item is not None
    data = blobs.read(str(item["key"]))
    assert data is not None
    sealed = sum(1 for line in gzip.decompress(data).splitlines() if line.startswith(b'{"lines"'))
    assert sealed > 1 and done["parts"] == sealed == len(json.loads(item["parts"])), (done, sealed)
