"""Receipts stored once, against the local S3 server over HTTP and DynamoDB Local: what the server
itself guarantees is proven first, then the API's lease, checks and answers."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from typing import Any

import pytest
import requests

from kakeibo.store import SharedLedger, Store
from kakeibo.store.keys import pk
from kakeibo.store.receipts import receipt_sk
from tests.concurrently import fan_out
from tests.events import Client
from tests.receipts import stored_receipt

PHOTO = b"\xff\xd8\xff\xe0" + b"receipt: ramen 980 yen " * 40


def _body(data: bytes = PHOTO, content_type: str = "image/jpeg") -> dict[str, Any]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "content_type": content_type}


def _put(upload: dict[str, Any], data: bytes) -> requests.Response:
    return requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30)


def test_the_server_honours_presigned_put_if_none_match_and_presigned_get(api: Client) -> None:
    # Given a claimed receipt and its presigned PUT
    claimed = api.post("/receipts", _body())
    assert claimed.status == 201, claimed
    upload = claimed.json["upload"]
    assert upload["method"] == "PUT" and upload["headers"]["If-None-Match"] == "*"
    # When the bytes are PUT twice with the headers it names
    first, second = _put(upload, PHOTO), _put(upload, PHOTO)
    # Then the first is written and the server itself refuses the second (If-None-Match: *)
    assert first.status_code == 200, first.text
    assert second.status_code == 412, second.text
    # And once complete, the presigned GET gives the bytes back
    done = api.post(f"/receipts/{claimed.json['id']}/complete")
    assert done.status == 200 and done.json["state"] == "stored", done
    assert requests.get(done.json["download"]["url"], timeout=30).content == PHOTO


def test_a_receipt_is_uploaded_completed_and_read(api: Client) -> None:
    # Given a claim
    claimed = api.post("/receipts", _body())
    receipt = claimed.json["id"]
    assert claimed.header("Location") == f"/receipts/{receipt}"
    assert (claimed.json["state"], claimed.json["size"], claimed.json["expires_at"] is not None) == (
        "pending", len(PHOTO), True)  # fmt: skip
    # When it is completed before the upload
    early = api.post(f"/receipts/{receipt}/complete")
    # Then 409 upload_missing, and it stays pending
    assert (early.status, early.json["code"]) == (409, "upload_missing")
    assert api.get(f"/receipts/{receipt}").json["state"] == "pending"
    # When uploaded and completed, twice
    assert _put(claimed.json["upload"], PHOTO).status_code == 200
    done, again = api.post(f"/receipts/{receipt}/complete"), api.post(f"/receipts/{receipt}/complete")
    # Then it is stored (complete is idempotent), and claiming it again uploads nothing
    assert done.json["state"] == again.json["state"] == "stored"
    reclaimed = api.post("/receipts", _body())
    assert reclaimed.status == 200 and reclaimed.json["state"] == "stored" and reclaimed.json.get("upload") is None
    read = api.get(f"/receipts/{receipt}").json
    assert (read["slips"], read["content_type"], read["stored_at"] is not None) == ([], "image/jpeg", True)


def test_bytes_that_are_not_the_ones_declared_never_count_as_stored(api: Client, store: Store, user: str) -> None:
    # Given a claim for the photo, and other bytes of the same size uploaded to its URL
    claimed = api.post("/receipts", _body())
    receipt = claimed.json["id"]
    forged = PHOTO.replace(b"980", b"098")
    assert len(forged) == len(PHOTO)
    _put(claimed.json["upload"], forged)  # the local server does not check the checksum (docs/receipts.md)
    # When it is completed
    refused = api.post(f"/receipts/{receipt}/complete")
    # Then 422 checksum_mismatch, the receipt pending, the wrong bytes deleted
    assert (refused.status, refused.json["code"]) == (422, "checksum_mismatch")
    assert api.get(f"/receipts/{receipt}").json["state"] == "pending"
    # And the right bytes can then be written and completed
    assert _put(claimed.json["upload"], PHOTO).status_code == 200
    assert api.post(f"/receipts/{receipt}/complete").json["state"] == "stored"


def _household(owner: Client, members: int) -> tuple[str, list[Client]]:
    """A shared ledger of `owner` with that many editors besides: its id and the editors."""
    ledger = owner.post("/ledgers", {"name": "家"}).json["id"]
    editors = []
    for _ in range(members):
        token = owner.post(f"/ledgers/{ledger}/invitations", {"role": "editor"}).json["token"]
        editor = Client(f"rc-{uuid.uuid4().hex[:8]}")
        assert editor.post(f"/invitations/{token}/accept").status == 200
        editors.append(editor)
    return ledger, editors


def test_six_concurrent_claims_of_one_new_receipt_get_one_upload_url(api: Client) -> None:
    # Given six members of one household claiming the same new photo at once
    ledger, editors = _household(api, 5)
    body = _body(PHOTO + uuid.uuid4().bytes)
    users = [str(api.user)] + [str(e.user) for e in editors]
    replies = fan_out("", [("POST", f"/ledgers/{ledger}/receipts", body, None)] * 6, users=users)
    # Then one gets the upload, the others 409 upload_in_progress with Retry-After
    statuses = sorted(r.status for r in replies)
    assert statuses == [201, 409, 409, 409, 409, 409], replies
    for reply in replies:
        if reply.status == 409:
            assert reply.json["code"] == "upload_in_progress" and int(reply.header("Retry-After") or 0) >= 1


def test_an_uploader_that_died_leaves_a_lease_another_client_takes_over(api: Client, store: Store) -> None:
    # Given a member's claim whose uploader died before uploading, and its lease then ended
    ledger, [taro] = _household(api, 1)
    base = f"/ledgers/{ledger}"
    data = PHOTO + b"died"
    first = api.post(f"{base}/receipts", _body(data))
    assert first.status == 201
    assert taro.post(f"{base}/receipts", _body(data)).status == 409  # still leased
    store.core.client.update_item(
        TableName=store.core.table,
        Key={"PK": {"S": pk(SharedLedger(ledger))}, "SK": {"S": receipt_sk(first.json["id"])}},
        UpdateExpression="SET lease_until = :past",
        ExpressionAttributeValues={":past": {"N": "1"}},
    )
    # When another member claims it
    second = taro.post(f"{base}/receipts", _body(data))
    # Then they get the upload, complete it, and the bytes are stored once
    assert second.status == 201, second
    assert _put(second.json["upload"], data).status_code == 200
    assert taro.post(f"{base}/receipts/{second.json['id']}/complete").json["state"] == "stored"
    assert _put(first.json["upload"], data).status_code == 412  # the dead uploader's URL writes nothing now


def test_the_lease_holder_asking_again_gets_its_upload_again(api: Client) -> None:
    # Given a claim whose answer the client never got (no Idempotency-Key)
    data = PHOTO + uuid.uuid4().bytes
    lost = api.post("/receipts", _body(data))
    assert lost.status == 201
    # When the same user asks again while the lease is live
    again = api.post("/receipts", _body(data))
    # Then it gets its upload again, under a fresh lease, not 409 upload_in_progress
    assert again.status == 201, again
    assert again.json["expires_at"] >= lost.json["expires_at"]
    # And the upload it got stores the bytes once: the lost answer's URL then writes nothing
    assert _put(again.json["upload"], data).status_code == 200
    assert _put(lost.json["upload"], data).status_code == 412
    assert api.post(f"/receipts/{again.json['id']}/complete").json["state"] == "stored"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**_body(), "content_type": "text/html"}, "content_type"),
        ({**_body(), "size": 10 * 1024 * 1024 + 1}, "size"),
        ({**_body(), "sha256": "abc"}, "sha256"),
        ({**_body(), "sha256": "G" * 64}, "sha256"),
    ],
)
def test_bad_claims_are_422_naming_the_field_and_write_nothing(api: Client, body: dict[str, Any], field: str) -> None:
    reply = api.post("/receipts", body)
    assert reply.status == 422, reply
    assert any(field in error["loc"] for error in reply.json["errors"]), reply.json
    japanese = api.post("/receipts", body, headers={"Accept-Language": "ja"})
    assert not japanese.json["detail"].isascii()


def test_another_users_receipt_is_not_there(api: Client, other_api: Client) -> None:
    # Given Alice's stored receipt
    claimed = api.post("/receipts", _body(PHOTO + b"alice"))
    _put(claimed.json["upload"], PHOTO + b"alice")
    api.post(f"/receipts/{claimed.json['id']}/complete")
    # Then Bob cannot read it or complete it; his own claim of the same bytes is his own receipt
    assert other_api.get(f"/receipts/{claimed.json['id']}").status == 404
    assert other_api.post(f"/receipts/{claimed.json['id']}/complete").status == 404
    bobs = other_api.post("/receipts", _body(PHOTO + b"alice"))
    assert bobs.status == 201 and "/" + other_api.user + "/" in bobs.json["upload"]["url"].replace("%2F", "/")
    assert api.get("/receipts/" + "0" * 64).status == 404


def _slip(api: Client, receipts: list[str], **fields: Any) -> Any:
    body = {"date": "2026-11-20", "kind": "expense", "amount": 980, "account": "cash", "category": "外食",
            "receipts": receipts, **fields}  # fmt: skip
    return api.post("/slips", body)


def _refs(store: Store, user: str, receipt: str) -> tuple[int, list[str]]:
    item = store.receipts.read_receipt(user, receipt) or {}
    return int(item.get("refs", 0)), sorted(item.get("slips") or [])


def test_receipts_are_attached_in_the_slips_own_transaction_and_counted(api: Client, store: Store, user: str) -> None:
    # Given two stored receipts and one still pending
    api.account("cash", 10_000)
    one, two = stored_receipt(api, b"one"), stored_receipt(api, b"two")
    pending = api.post("/receipts", _body(b"pending" * 3)).json["id"]
    # When a slip names a receipt that is not stored, or does not exist
    not_stored = _slip(api, [one, pending])
    missing = _slip(api, ["0" * 64])
    # Then it is refused and nothing is written: no slip, no count
    assert (not_stored.status, missing.status) == (422, 404), (not_stored, missing)
    assert api.get("/slips").json["items"] == [] and _refs(store, user, one) == (0, [])
    assert api.balances() == {"cash": 10_000}
    # When a slip is made with one receipt, then edited to the other, then a second slip takes the first
    made = _slip(api, [one])
    slip = made.json["id"]
    assert made.status == 201 and made.json["receipts"] == [one]
    assert _refs(store, user, one) == (1, [slip])
    edited = api.patch(made.header("Location") or "", {"receipts": [two]}, headers={"If-Match": '"1"'})
    assert edited.status == 200 and edited.json["receipts"] == [two]
    assert (_refs(store, user, one), _refs(store, user, two)) == ((0, []), (1, [slip]))
    other = _slip(api, [one, two]).json["id"]
    assert _refs(store, user, two) == (2, sorted([slip, other]))
    assert sorted(api.get(f"/receipts/{two}").json["slips"]) == sorted([slip, other])
    # And deleting a slip lets its receipts go; undoing the delete takes them up again
    deleted = api.delete(f"/slips/2026-11-20/{other}", headers={"If-Match": '"1"'})
    assert deleted.status == 204
    assert (_refs(store, user, one), _refs(store, user, two)) == ((0, []), (1, [slip]))
    seq = api.get(f"/slips/{other}/history").json["items"][-1]["seq"]
    assert api.post(f"/changes/{seq}/undo").status == 200
    assert _refs(store, user, two) == (2, sorted([slip, other]))
    # And a slip's history shows its receipts changing
    history = api.get(f"/slips/{slip}/history").json["items"]
    assert history[-1]["changed"]["receipts"] == [[one], [two]]


def test_concurrent_edits_keep_each_receipts_count_exact(api: Client, store: Store, user: str) -> None:
    # Given four slips and two receipts
    api.account("cash", 10_000)
    first, second = stored_receipt(api, b"first"), stored_receipt(api, b"second")
    slips = [_slip(api, []).header("Location") or "" for _ in range(4)]
    # When each slip is edited at once, each attaching both receipts (If-Match: *)
    patches = [("PATCH", where, {"receipts": [first, second]}, {"If-Match": "*"}) for where in slips]
    replies = fan_out(api.user, patches)
    # Then every edit went in, and each receipt counts exactly the four slips
    assert [r.status for r in replies] == [200] * 4, replies
    assert _refs(store, user, first)[0] == _refs(store, user, second)[0] == 4


def test_the_daily_job_sweeps_receipts_on_no_slip_object_first(
    api: Client, store: Store, user: str, monkeypatch: Any
) -> None:
    # Given a receipt on no slip and one on a slip, both stored more than a day ago
    api.account("cash", 10_000)
    loose, kept = stored_receipt(api, b"loose"), stored_receipt(api, b"kept")
    assert _slip(api, [kept]).status == 201
    from kakeibo import blobs
    from kakeibo.services import daily

    later = dt.date.today() + dt.timedelta(days=3)
    # When the sweep dies between deleting the object and the item
    real = store.receipts.forget_receipt

    def dies_on_loose(ctx: Any, sha256: str) -> bool:
        if sha256 == loose:
            raise RuntimeError("the invocation ended")
        return real(ctx, sha256)

    monkeypatch.setattr(store.receipts, "forget_receipt", dies_on_loose)
    with pytest.raises(RuntimeError):
        daily.post_due(store, later)
    # Then the object is gone but the item is there, and the next run finishes it
    assert blobs.find(blobs.key_of(user, loose), 5) is None and store.receipts.read_receipt(user, loose) is not None
    monkeypatch.setattr(store.receipts, "forget_receipt", real)
    assert daily.post_due(store, later)["swept"] >= 1
    assert store.receipts.read_receipt(user, loose) is None and api.get(f"/receipts/{loose}").status == 404
    # And the receipt on a slip is kept, object and all
    assert api.get(f"/receipts/{kept}").json["state"] == "stored"
    assert blobs.find(blobs.key_of(user, kept), 4) is not None


def test_a_receipt_of_another_ledger_is_not_found_and_the_slip_stays_as_it_was(api: Client, other_api: Client) -> None:
    # Given Bob's stored receipt, and Alice's slip
    bobs = stored_receipt(other_api, b"bob's receipt")
    api.account("cash", 10_000)
    made = _slip(api, [])
    # When Alice attaches Bob's receipt, by creating a slip or editing hers
    created = _slip(api, [bobs])
    edited = api.patch(made.header("Location") or "", {"receipts": [bobs]}, headers={"If-Match": '"1"'})
    # Then both are 404 and nothing changed: one slip, at version 1, no receipt; Bob's receipt counts nothing
    assert (created.status, edited.status) == (404, 404), (created, edited)
    (slip,) = api.get("/slips").json["items"]
    assert (slip["version"], slip["receipts"]) == (1, [])
    assert other_api.get(f"/receipts/{bobs}").json["slips"] == []


def test_the_local_server_keeps_objects_across_a_restart_in_its_data_directory(tmp_path: Any) -> None:
    from kakeibo.local.dynamodb import free_port
    from kakeibo.local.s3 import S3Local, create_bucket

    def client(server: S3Local) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1")

    # Given an object stored on a server with a data directory, which then stops
    first = S3Local(free_port(), tmp_path).start()
    try:
        create_bucket(client(first), "kakeibo-receipts")
        client(first).put_object(Bucket="kakeibo-receipts", Key="receipts/x/kept", Body=PHOTO)
        client(first).put_object(Bucket="kakeibo-receipts", Key="receipts/x/gone", Body=b"x")
        client(first).delete_object(Bucket="kakeibo-receipts", Key="receipts/x/gone")
    finally:
        first.stop()
    # When a server starts again on that directory
    second = S3Local(free_port(), tmp_path).start()
    try:
        # Then the object is there, byte for byte, and the deleted one is not
        assert client(second).get_object(Bucket="kakeibo-receipts", Key="receipts/x/kept")["Body"].read() == PHOTO
        listed = client(second).list_objects_v2(Bucket="kakeibo-receipts").get("Contents", [])
        assert [o["Key"] for o in listed] == ["receipts/x/kept"]
    finally:
        second.stop()


def test_a_bucket_that_does_not_answer_is_a_503_that_changes_nothing(api: Client, monkeypatch: Any) -> None:
    # Given an uploaded receipt, and then a bucket that refuses connections
    data = PHOTO + b"outage"
    claimed = api.post("/receipts", _body(data))
    _put(claimed.json["upload"], data)
    from kakeibo.local.dynamodb import free_port

    monkeypatch.setenv("S3_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    from tests.conftest import reset_caches

    reset_caches()
    # When the upload is completed
    reply = api.post(f"/receipts/{claimed.json['id']}/complete")
    # Then 503 storage_unavailable with Retry-After, in the caller's language too, and it stays pending
    assert (reply.status, reply.json["code"]) == (503, "storage_unavailable"), reply
    assert int(reply.header("Retry-After") or 0) >= 1
    japanese = api.post(f"/receipts/{claimed.json['id']}/complete", headers={"Accept-Language": "ja"})
    assert not japanese.json["detail"].isascii()
    assert api.get(f"/receipts/{claimed.json['id']}").json["state"] == "pending"


def test_a_slip_cannot_take_up_a_receipt_the_sweep_has_retired(
    api: Client, store: Store, user: str, monkeypatch: Any
) -> None:
    # Given a receipt on no slip, due to be swept
    api.account("cash", 10_000)
    loose = stored_receipt(api, b"retired one")
    from kakeibo import blobs
    from kakeibo.services import daily

    attached: list[int] = []
    real_delete = blobs.delete

    def delete_while_a_slip_attaches(key: str) -> None:
        if key.endswith(loose):  # between retiring it and deleting its object, a slip names it
            attached.append(_slip(api, [loose]).status)
        real_delete(key)

    monkeypatch.setattr(blobs, "delete", delete_while_a_slip_attaches)
    # When the daily job sweeps it
    daily.post_due(store, dt.date.today() + dt.timedelta(days=3))
    # Then the slip was refused (404), no slip holds a receipt without bytes, and the receipt is gone
    assert attached == [404]
    assert api.get("/slips").json["items"] == []
    assert store.receipts.read_receipt(user, loose) is None


def test_a_bucket_that_refuses_the_function_is_a_503_that_changes_nothing(api: Client, monkeypatch: Any) -> None:
    # Given an uploaded receipt, and then a bucket whose policy refuses the function (S3 answers 403)
    data = PHOTO + b"refused"
    claimed = api.post("/receipts", _body(data))
    _put(claimed.json["upload"], data)
    from botocore.exceptions import ClientError

    from kakeibo import blobs

    class Refusing:
        def head_object(self, **kwargs: Any) -> Any:
            denied = {
                "Error": {"Code": "AccessDenied", "Message": "Access Denied"},
                "ResponseMetadata": {"HTTPStatusCode": 403},
            }
            raise ClientError(denied, "HeadObject")  # type: ignore[arg-type]

    monkeypatch.setattr(blobs, "_client", Refusing)
    # When the upload is completed
    reply = api.post(f"/receipts/{claimed.json['id']}/complete")
    # Then 503 storage_unavailable naming S3's refusal, in the caller's language too, and it stays pending
    assert (reply.status, reply.json["code"], reply.json["storage_code"]) == (
        503,
        "storage_unavailable",
        "AccessDenied",
    )
    assert reply.json["status"] == 503 and "refused" in reply.json["detail"]
    japanese = api.post(f"/receipts/{claimed.json['id']}/complete", headers={"Accept-Language": "ja"})
    assert "拒否" in japanese.json["detail"] and "AccessDenied" in japanese.json["detail"]
    monkeypatch.undo()
    assert api.get(f"/receipts/{claimed.json['id']}").json["state"] == "pending"
