"""A person's data deleted (DELETE /me, 個人情報保護法): their personal ledger goes, every item and
receipt object of it, by the machinery that deletes a shared ledger; they leave every shared
ledger (their webhooks there disabled), and the shared ledgers they alone were in go with them.
The other members' ledgers are untouched; a tombstone (who, when) is all that stays. The only
owner of a shared ledger with other members is refused until they hand it over."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from kakeibo import blobs
from kakeibo.services import daily, dataio
from kakeibo.settings import get_settings
from kakeibo.store import SharedLedger, Store
from kakeibo.store.deletion import DeletionOps
from kakeibo.store.journal import GONE
from kakeibo.store.keys import (
    JOURNAL_SK,
    META_SK,
    gone_pk,
    idempotency_person,
    idempotency_tag,
    invitation_pk,
    tombstone_pk,
    user_pk,
)
from kakeibo.store.locks import LockOps
from tests.deletions import count_finishes, expire_leases, naming, table_items
from tests.events import Client, Reply
from tests.idempotency_records import idempotency_records
from tests.integration.test_ledger_roles import CSV, RENT, ROUTES, Household, _lunch
from tests.receipts import stored_receipt

PHOTO = b"\xff\xd8\xff\xe0" + b"receipt: milk 210 yen " * 40


def _personal(api: Client, slips: int = 4) -> None:
    """The caller's personal ledger: a wallet, slips, one with a stored receipt."""
    assert api.account("cash", 5_000)["id"] == "cash"
    receipt = stored_receipt(api, PHOTO)
    for n in range(slips):
        body: dict[str, Any] = {"date": f"2026-05-{n + 1:02d}", "kind": "expense", "amount": 200 + n, "account": "cash"}
        if n == 0:
            body["receipts"] = [receipt]
        assert api.post("/slips", body).status == 201


def _joined(owner: Client, member: Client, name: str, role: str) -> str:
    """A shared ledger of `owner`'s with a wallet, `member` joined with `role`: its id."""
    made = owner.post("/ledgers", {"name": name})
    assert made.status == 201, made
    ledger = made.json["id"]
    assert owner.post(f"/ledgers/{ledger}/accounts", {"id": "cash", "name": "財布", "type": "cash",
                                                         "opening_balance": 5_000}).status == 201  # fmt: skip
    token = owner.post(f"/ledgers/{ledger}/invitations", {"role": role}).json["token"]
    assert member.post(f"/invitations/{token}/accept").status == 200
    return str(ledger)


def _deleted_me(api: Client) -> Reply:
    """DELETE /me, sent again (as the person does) while a loaded machine's request ran out of time."""
    reply = api.delete("/me")
    while reply.status == 202 and reply.json["state"] == "deleting":
        reply = api.delete("/me")
    return reply


def _personal_gone(api: Client, store: Store) -> None:
    """Nothing of the caller's personal ledger is stored but its fence (when it was fenced, no more), nor
    its receipt's object; the tombstone says who and when."""
    items = list(store.core.query(str(api.user)))
    assert [(i["SK"], sorted(i)) for i in items] == [(JOURNAL_SK, ["PK", "SK", GONE, "type"])], items
    assert blobs.read(blobs.key_of(str(api.user), hashlib.sha256(PHOTO).hexdigest())) is None
    tomb = store.core.get_at(gone_pk(str(api.user)), META_SK)
    assert tomb is not None and tomb["state"] == "deleted" and tomb["deleted_by"] == api.user and tomb["deleted_at"]


def test_a_person_deletes_their_data_and_the_others_keep_theirs(api: Client, other_api: Client, store: Store) -> None:
    # Given a person with a personal ledger, a ledger they alone are in, a co-owned household
    # where they set up a webhook, and the other person's ledger they are an editor of
    _personal(api)
    alone = api.post("/ledgers", {"name": "自分用"}).json["id"]
    household = _joined(other_api, api, "山田家", "owner")
    hook = api.post(f"/ledgers/{household}/webhooks", {"url": "https://93.184.215.14/hook"})
    assert hook.status == 201, hook
    theirs = _joined(other_api, api, "実家", "editor")
    assert other_api.post(f"/ledgers/{theirs}/slips", {"date": "2026-05-01", "kind": "expense", "amount": 900,
                                                       "account": "cash"}).status == 201  # fmt: skip
    # When they delete their data
    deleted = _deleted_me(api)
    # Then 202, their personal ledger and its receipt are gone, and a tombstone says who and when
    assert deleted.status == 202 and deleted.json["state"] == "deleted", deleted
    assert deleted.json["id"] == "me" and deleted.json["items"] > 5
    _personal_gone(api, store)
    # And the ledger they alone were in is deleted as DELETE /ledgers/{ledger} deletes one
    assert list(store.core.query(SharedLedger(alone))) == []
    assert (store.core.get_at(tombstone_pk(alone), META_SK) or {}).get("state") == "deleted"
    # And they are a member of nothing: the others' ledgers answer them 404 and no longer list them
    assert api.get("/ledgers").json["items"] == []
    for ledger in (household, theirs):
        assert api.get(f"/ledgers/{ledger}/slips").status == 404
        assert api.user not in [m["user"] for m in other_api.get(f"/ledgers/{ledger}").json["members"]]
    # And their webhook in the household is disabled, its ledger and the other one untouched
    hooks = other_api.get(f"/ledgers/{household}/webhooks").json["items"]
    assert [(h["id"], h["state"]) for h in hooks] == [(hook.json["id"], "disabled")]
    balances = other_api.get(f"/ledgers/{theirs}/balances").json["items"]
    assert [(b["account"], b["balance"]) for b in balances] == [("cash", 4_100)]
    assert other_api.get(f"/ledgers/{household}/accounts").json["items"][0]["id"] == "cash"


def _invitation(owner: Client, ledger: str, role: str) -> str:
    made = owner.post(f"/ledgers/{ledger}/invitations", {"role": role})
    assert made.status == 201, made
    return str(made.json["token"])


def test_no_invitation_a_person_made_or_used_stays_after_their_deletion(
    api: Client, other_api: Client, store: Store
) -> None:
    # Given a person with a ledger of their own holding an invitation nobody used, a household of the
    # other person's they joined by an invitation, one they co-own where they made an invitation, and
    # one they joined and left before; the other person's own invitation to the household unused
    person, other = str(api.user), other_api.user
    alone = api.post("/ledgers", {"name": "自分用"}).json["id"]
    theirs = [_invitation(api, alone, "viewer")]
    household = _joined_with(other_api, api, "山田家", "editor", theirs)
    kept = _invitation(other_api, household, "viewer")
    shared = _joined_with(other_api, api, "共同", "owner", theirs)
    theirs.append(_invitation(api, shared, "editor"))
    left = _joined_with(other_api, api, "旧居", "viewer", theirs)
    assert api.delete(f"/ledgers/{left}/members/{person}", headers={"If-Match": "*"}).status == 204
    # When they delete their data
    assert _deleted_me(api).json["state"] == "deleted"
    # Then nothing holds the tokens of the invitations they made or used, nor lists them anywhere
    items = table_items(store)
    assert naming(items, *theirs) == []
    # And no invitation names them, and nothing is left in their own partition
    assert [i for i in naming(items, person) if str(i["PK"]).startswith(invitation_pk(""))] == []
    assert [i for i in items if i["PK"] == user_pk(person)] == []
    # And the other person's own invitation is untouched: it still makes whoever accepts it a member
    newcomer = Client(f"newcomer-{other}")
    assert newcomer.post(f"/invitations/{kept}/accept").status == 200
    assert newcomer.get(f"/ledgers/{household}/slips").status == 200


def _joined_with(owner: Client, member: Client, name: str, role: str, tokens: list[str]) -> str:
    """A ledger of `owner`'s that `member` joined with `role` by an invitation (its token added to
    `tokens`): its id."""
    made = owner.post("/ledgers", {"name": name})
    assert made.status == 201, made
    token = _invitation(owner, made.json["id"], role)
    assert member.post(f"/invitations/{token}/accept").status == 200
    tokens.append(token)
    return str(made.json["id"])


def test_the_only_owner_of_a_shared_ledger_with_members_is_refused_in_their_language(
    api: Client, other_api: Client, store: Store
) -> None:
    # Given a person who is the only owner of a household the other person edits
    _personal(api, slips=1)
    household = _joined(api, other_api, "山田家", "editor")
    before = list(store.core.query(str(api.user)))
    # When they ask for their data to be deleted, in English and in Japanese
    english = api.delete("/me")
    japanese = api.delete("/me", headers={"Accept-Language": "ja"})
    # Then 409 naming the household, and nothing is deleted
    assert english.status == 409 and english.json["code"] == "sole_owner", english
    assert english.json["ledgers"] == [{"id": household, "name": "山田家"}]
    assert "山田家" in english.json["detail"] and "only owner" in english.json["detail"]
    assert japanese.status == 409 and "オーナーはあなただけ" in japanese.json["detail"], japanese
    assert list(store.core.query(str(api.user))) == before
    assert store.core.get_at(gone_pk(str(api.user)), META_SK) is None
    assert other_api.get(f"/ledgers/{household}/slips").status == 200
    # When they make the editor an owner too, and ask again
    member = other_api.user
    etag = api.get(f"/ledgers/{household}").json["members"]
    version = next(m["version"] for m in etag if m["user"] == member)
    promoted = api.put(f"/ledgers/{household}/members/{member}", {"role": "owner"},
                       headers={"If-Match": f'"{version}"'})  # fmt: skip
    assert promoted.status == 200, promoted
    # Then their data is deleted, and the household stays with its new owner
    assert _deleted_me(api).json["state"] == "deleted"
    _personal_gone(api, store)
    assert [m["user"] for m in other_api.get(f"/ledgers/{household}").json["members"]] == [member]


def test_a_deletion_that_stops_between_batches_is_resumed_and_finished_once(
    api: Client, other_api: Client, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a person with a personal ledger, a member of another's ledger, and a deletion that
    # removes five items a batch and stops after the second
    _personal(api)
    theirs = _joined(other_api, api, "実家", "viewer")
    monkeypatch.setattr(dataio, "DELETE_PAGE", 5)
    real = DeletionOps.delete_items
    batches: list[int] = []

    def crashing(self: DeletionOps, led: str, sks: Any) -> None:
        if len(batches) == 2:
            raise RuntimeError("the function stopped")
        batches.append(len(sks))
        real(self, led, sks)

    monkeypatch.setattr(DeletionOps, "delete_items", crashing)
    with pytest.raises(RuntimeError):
        dataio.delete_me(store, str(api.user))
    # Then they have left the other ledger already, and their tombstone says they are being deleted
    assert api.get(f"/ledgers/{theirs}/slips").status == 404
    tomb = store.core.get_at(gone_pk(str(api.user)), META_SK)
    assert tomb is not None and (tomb["state"], tomb["items"]) == ("deleting", 10)
    # When they delete their data again
    monkeypatch.setattr(DeletionOps, "delete_items", real)
    finished = count_finishes(monkeypatch)
    again = _deleted_me(api)
    # Then the deletion carries on after what was removed, finishes once, and nothing is left
    assert again.status == 202 and again.json["state"] == "deleted", again
    assert finished == [True]
    _personal_gone(api, store)
    assert other_api.get(f"/ledgers/{theirs}/accounts").json["items"][0]["id"] == "cash"


def test_after_the_deletion_nothing_is_written_into_their_ledger_and_no_key_or_restore_of_theirs_stays(
    api: Client, store: Store
) -> None:
    # Given a person with a personal ledger, a slip posted with an Idempotency-Key (its answer kept), and
    # an archive they began to restore
    _personal(api, slips=1)
    keyed = {"date": "2026-05-20", "kind": "expense", "amount": 300, "account": "cash"}
    assert api.post("/slips", keyed, headers={"Idempotency-Key": "lunch-0520"}).status == 201
    tag = idempotency_tag(str(api.user))
    assert [r for r in idempotency_records(store) if tag in r] != []
    sha = hashlib.sha256(b"an archive of theirs").hexdigest()
    assert api.post("/ledgers/restore", {"sha256": sha, "size": 20}).status == 202
    assert store.deletion.restores_of(str(api.user)) == [sha]
    # When they delete their data
    assert _deleted_me(api).json["state"] == "deleted"
    # Then writing into their ledger answers 404, as a deleted ledger does, and leaves nothing behind:
    # a new slip (its number taken before it meets the fence), an account, a budget, the keyed slip again
    lunch = {"date": "2026-05-21", "kind": "expense", "amount": 500, "account": "cash"}
    assert api.post("/slips", lunch).status == 404
    assert api.post("/accounts", {"id": "bank", "name": "銀行", "type": "bank"}).status == 404
    assert api.put("/budgets/2026-05/食費", {"limit": 30_000}).status == 404
    again = api.post("/slips", keyed, headers={"Idempotency-Key": "lunch-0520", "Accept-Language": "ja"})
    assert again.status == 404 and again.json["code"] == "not_found", again
    _personal_gone(api, store)
    # And neither their restore nor their Idempotency-Key records are kept
    assert store.deletion.restores_of(str(api.user)) == []
    assert [r for r in idempotency_records(store) if tag in r] == []


def test_a_person_s_deletion_whose_run_stopped_is_finished_once_by_the_daily_job(
    api: Client, own_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a person whose deletion stopped after its first batch, its lease kept (the run was killed)
    store = own_store
    _personal(api)
    monkeypatch.setattr(dataio, "DELETE_PAGE", 5)
    real = DeletionOps.delete_items

    def crashing(self: DeletionOps, led: str, sks: Any) -> None:
        real(self, led, sks)
        raise RuntimeError("the function stopped")

    release = LockOps.release_lock
    monkeypatch.setattr(DeletionOps, "delete_items", crashing)
    monkeypatch.setattr(LockOps, "release_lock", lambda self, lease: None)
    with pytest.raises(RuntimeError):
        dataio.delete_me(store, str(api.user))
    monkeypatch.setattr(DeletionOps, "delete_items", real)
    monkeypatch.setattr(LockOps, "release_lock", release)
    # When the daily job runs once the lease has expired (twice)
    expire_leases(monkeypatch)
    finished = count_finishes(monkeypatch)
    daily.post_due(store)
    daily.post_due(store)
    # Then the person's deletion is finished, once, and nothing of their ledger is left
    assert finished == [True]
    _personal_gone(api, store)


def test_the_search_for_a_person_s_records_that_runs_out_of_time_goes_on_where_it_stopped(
    api: Client, other_api: Client, own_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a person with three slips posted with Idempotency-Keys, another person with one
    store = own_store
    api.account("cash", 5_000)
    other_api.account("cash", 5_000)
    for n in range(3):
        body = {"date": f"2026-05-{n + 1:02d}", "kind": "expense", "amount": 100 + n, "account": "cash"}
        assert api.post("/slips", body, headers={"Idempotency-Key": f"k{n}"}).status == 201
    assert other_api.post("/slips", body, headers={"Idempotency-Key": "theirs"}).status == 201
    mine, theirs = (idempotency_tag(str(who.user)) for who in (api, other_api))
    # When the person's deletion reads the records one a page and runs out of time after two pages
    monkeypatch.setattr(dataio, "RECORDS_PAGE", 1)
    ticks = iter([100.0, 100.0])
    reads: list[tuple[str, Any]] = []

    def seen(model: Any, params: dict[str, Any], **kwargs: Any) -> None:
        body = json.loads(params.get("body") or b"{}")
        if model.name in ("Scan", "Query") and body.get("TableName") == get_settings().idempotency_table_name:
            reads.append((model.name, body.get("ExpressionAttributeValues")))

    store.core.client.meta.events.register("before-call.dynamodb", seen)
    try:
        stopped = dataio.delete_me(store, str(api.user), time_left=lambda: next(ticks, 0.0))
    finally:
        store.core.client.meta.events.unregister("before-call.dynamodb", seen)
    # Then its records were looked for only in their own partition, a page a Query, never by a Scan
    assert reads == [("Query", {":person": {"S": idempotency_person(str(api.user))}})] * 2, reads
    # Then it is still deleting, and says how far it looked
    assert stopped["state"] == "deleting", stopped
    tomb = store.core.get_at(gone_pk(str(api.user)), META_SK) or {}
    assert tomb["records_after"] not in (None, "done"), tomb
    # When it is carried on
    assert _deleted_me(api).json["state"] == "deleted"
    # Then none of the person's records is left, and the other person's is
    records = idempotency_records(store)
    assert [r for r in records if mine in r] == [] and len([r for r in records if theirs in r]) == 1
    assert (store.core.get_at(gone_pk(str(api.user)), META_SK) or {})["records_after"] == "done"


def _neighbour(owner: Client, base: str) -> Household:
    """Another person's personal ledger as `base` names it, set up as the route table's calls need
    (the fresh items each call makes are made there): its ids name nothing in a deleted ledger."""
    for account, kind in (("cash", "cash"), ("bank", "bank")):
        made = owner.post(f"{base}/accounts", {"id": account, "name": account, "type": kind, "opening_balance": 10**6})
        assert made.status in (201, 409), made
    billing = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
    card = owner.post(f"{base}/accounts", {"id": "card", "name": "カード", "type": "credit", "billing": billing})
    assert card.status in (201, 409), card
    slip = owner.post(f"{base}/slips", _lunch())
    imported = owner.post(f"{base}/imports", raw=CSV, headers={"Content-Type": "text/csv"})
    rent = owner.post(f"{base}/recurrences", RENT)
    assert slip.status == 201 and imported.status in (200, 201) and rent.status == 201, (slip, imported, rent)
    return Household(base, owner, slip, imported.json["import_id"], rent)


def test_after_the_deletion_every_route_of_their_personal_ledger_answers_404_and_writes_nothing(
    api: Client, other_api: Client, store: Store
) -> None:
    # Given a person with a personal ledger, an editor of another person's household, and their data deleted
    _personal(api)
    theirs = _joined(other_api, api, "実家", "editor")
    assert api.post(f"/ledgers/{theirs}/slips", {"date": "2026-05-02", "kind": "expense", "amount": 300,
                                                 "account": "cash"}).status == 201  # fmt: skip
    before = other_api.get(f"/ledgers/{theirs}/slips").json["items"]
    assert _deleted_me(api).json["state"] == "deleted"
    wrong = []
    # When they call every ledger route, unprefixed and as /ledgers/me, on what they had
    for base in ("", "/ledgers/me"):
        neighbour = _neighbour(other_api, base)
        for route, (call, _) in ROUTES.items():
            reply = call(neighbour, api)
            # Then each answers 404 not_found, as a deleted ledger does
            if reply.status != 404 or reply.json["code"] != "not_found":
                wrong.append((base, route, reply))
    assert not wrong, wrong
    assert api.get("/ledgers/me").status == 404
    assert api.get("/ledgers").json["items"] == []
    # And nothing was written into their ledger: only its fence and their tombstone stay
    _personal_gone(api, store)
    # And the household they had left keeps its slips, theirs among them
    assert other_api.get(f"/ledgers/{theirs}/slips").json["items"] == before
    assert len(before) == 1 and before[0]["created_by"] == api.user
