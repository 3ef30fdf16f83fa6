"""Bulk edits of slips on DynamoDB Local (§28): many slips changed or deleted under their versions, in
batches that are each one transaction and one journal entry; refusals listed; resent with the same
Idempotency-Key it carries on; one undo takes the whole bulk edit back."""

from __future__ import annotations

from typing import Any

import pytest

from kakeibo import errors
from kakeibo.services import bulk, integrity
from kakeibo.services import slips as slip_service
from kakeibo.store import Store
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client

JA = {"Accept-Language": "ja"}


def lunch(day: int, **extra: Any) -> dict[str, Any]:
    return {"date": f"2026-08-{day:02d}", "kind": "expense", "amount": 1000 + day, "account": "cash",
            "category": "食費", **extra}  # fmt: skip


@pytest.fixture
def slips(api: Client) -> list[dict[str, Any]]:
    """A wallet and a bank, and five lunches paid from the wallet."""
    api.account("cash", 100_000)
    api.account("bank", 100_000, type="bank")
    made = [api.slip(**lunch(day)) for day in range(1, 6)]
    assert all(m.status == 201 for m in made), made
    return [m.json for m in made]


def refs(slips: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"date": s["date"], "id": s["id"], "version": s["version"]} for s in slips]


def state(api: Client) -> tuple[Any, ...]:
    listed = api.get("/slips", query={"limit": "100"}).json["items"]
    shown = sorted((s["id"], s["date"], s["account"], s["category"], tuple(s.get("tags") or ())) for s in listed)
    tags = api.get("/reports/tags", query={"from": "2026-01", "to": "2026-12"}).json["items"]
    monthly = api.get("/reports/monthly", query={"month": "2026-08"}).json["by_category"]
    return shown, api.balances(), tags, monthly


def test_a_bulk_edit_changes_each_slip_once_and_lists_what_it_refused(
    api: Client, store: Store, user: str, slips: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given five lunches, one since changed by someone else and one that does not exist
    monkeypatch.setattr(bulk, "BATCH", 2)  # batches of two: three of them
    later = api.patch(f"/slips/{slips[0]['date']}/{slips[0]['id']}", {"memo": "x"}, headers={"If-Match": '"1"'})
    assert later.status == 200
    named = [*refs(slips), {"date": "2026-08-09", "id": "01KAJ00000000000000000NONE", "version": 1}]
    # When they are moved to 交通費 and the bank, tagged trip
    body = {"slips": named, "set": {"category": "交通費", "account": "bank", "tags_add": ["Trip"]}}
    done = api.post("/slips/bulk", body, headers={"Idempotency-Key": "bulk-1"})
    # Then four changed, in two batches (two journal entries naming the bulk edit), two refused
    assert done.status == 200, done
    answer = done.json
    assert sorted(c["id"] for c in answer["changed"]) == sorted(s["id"] for s in slips[1:])
    assert {(r["id"], r["reason"], r.get("current")) for r in answer["refused"]} == {
        (slips[0]["id"], "stale", 2),
        ("01KAJ00000000000000000NONE", "not_found", None),
    }
    assert len(answer["entries"]) == 2
    for seq in answer["entries"]:
        entry = api.get("/changes", query={"since": seq - 1, "limit": "1"}).json["changes"][0]
        assert entry["bulk"] == answer["bulk"]
    listed = {s["id"]: s for s in api.get("/slips", query={"tag": "trip"}).json["items"]}
    assert set(listed) == {s["id"] for s in slips[1:]}
    assert {(s["category"], s["account"], s["version"]) for s in listed.values()} == {("交通費", "bank", 2)}
    # And the balances moved with them
    moved = sum(s["amount"] for s in slips[1:])
    assert api.balances() == {"cash": 100_000 - slips[0]["amount"], "bank": 100_000 - moved}
    # When the same request is resent with its key, Then the same answer, nothing applied twice
    again = api.post("/slips/bulk", body, headers={"Idempotency-Key": "bulk-1"})
    assert again.status == 200 and again.json == answer
    assert integrity.verify(store, user)["ok"] and invariants.check(store, user) == []


def test_a_bulk_edit_stopped_midway_carries_on_when_resent(
    api: Client, store: Store, user: str, slips: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a bulk edit in batches of two that stops after its first batch (the request fails)
    monkeypatch.setattr(bulk, "BATCH", 2)
    real = slip_service.write_slips
    calls = {"n": 0}

    def stopping(*args: Any, **kwargs: Any) -> int:
        calls["n"] += 1
        if calls["n"] == 2:
            raise errors.Conflict("the ledger is busy; retry", retry_after=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(slip_service, "write_slips", stopping)
    body = {"slips": refs(slips), "set": {"tags_add": ["trip"]}}
    stopped = api.post("/slips/bulk", body, headers={"Idempotency-Key": "bulk-2"})
    assert stopped.status == 409
    assert len(api.get("/slips", query={"tag": "trip"}).json["items"]) == 2
    # When it is resent with the same key (the versions it names are the ones first read)
    done = api.post("/slips/bulk", body, headers={"Idempotency-Key": "bulk-2"})
    # Then it carries on: every slip changed exactly once, none refused as stale
    assert done.status == 200, done
    assert done.json["refused"] == [] and len(done.json["changed"]) == 5
    assert len(done.json["entries"]) == 3
    assert {s["version"] for s in api.get("/slips", query={"tag": "trip"}).json["items"]} == {2}
    assert integrity.verify(store, user)["ok"]


def test_undo_of_a_bulk_edit_restores_every_slip_and_balance(
    api: Client, store: Store, user: str, slips: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bulk, "BATCH", 2)
    api.patch(f"/slips/{slips[0]['date']}/{slips[0]['id']}", {"tags": ["family"]}, headers={"If-Match": '"1"'})
    slips[0]["version"] = 2
    before = state(api)
    # Given a bulk edit moving every slip to the bank and 交通費, tagged trip, in three batches
    wanted = {"account": "bank", "category": "交通費", "tags_add": ["trip"], "tags_remove": ["family"]}
    changed = api.post("/slips/bulk", {"slips": refs(slips), "set": wanted})
    assert changed.status == 200 and len(changed.json["entries"]) == 3, changed
    assert state(api) != before
    # When its middle entry is undone
    undone = api.post(f"/changes/{changed.json['entries'][1]}/undo")
    # Then every slip, balance, tag total and category total is as before
    assert undone.status == 200, undone
    assert len(undone.json["entries"]) == 3
    assert state(api) == before
    # And undoing it again is refused
    assert api.post(f"/changes/{changed.json['entries'][0]}/undo").status == 409
    # Given a bulk delete, When it is undone, Then the slips come back with their ids
    current = api.get("/slips", query={"limit": "100"}).json["items"]
    deleted = api.post("/slips/bulk", {"slips": refs(current), "delete": True})
    assert deleted.status == 200 and len(deleted.json["changed"]) == 5, deleted
    assert api.get("/slips").json["items"] == [] and api.balances() == {"cash": 100_000, "bank": 100_000}
    assert api.post(f"/changes/{deleted.json['entries'][-1]}/undo").status == 200
    assert state(api) == before
    assert integrity.verify(store, user)["ok"] and invariants.check(store, user) == []


def test_a_bulk_edit_where_every_slip_is_stale_changes_nothing(api: Client, slips: list[dict[str, Any]]) -> None:
    head = api.get("/changes").json["knowledge"]
    stale = [{**ref, "version": 7} for ref in refs(slips)]
    done = api.post("/slips/bulk", {"slips": stale, "set": {"category": "交通費"}})
    assert done.status == 200, done
    assert done.json["changed"] == [] and done.json["entries"] == []
    assert {(r["reason"], r["current"]) for r in done.json["refused"]} == {("stale", 1)}
    assert len(done.json["refused"]) == 5
    assert api.get("/changes").json["knowledge"] == head


def test_bad_bulk_edits_are_refused_in_words(api: Client, slips: list[dict[str, Any]]) -> None:
    one = refs(slips)[:1]
    # 501 slips
    many = [{"date": "2026-08-01", "id": f"S{i:05d}", "version": 1} for i in range(501)]
    en = api.post("/slips/bulk", {"slips": many, "delete": True})
    assert en.status == 422 and en.json["detail"] == "slips may have at most 500 items", en
    ja = api.post("/slips/bulk", {"slips": many, "delete": True}, headers=JA)
    assert ja.json["detail"] == "伝票の一覧（slips）は 500 件までにしてください", ja
    # both set and delete, or neither; a set that sets nothing
    assert api.post("/slips/bulk", {"slips": one, "set": {"memo": "x"}}).status == 422
    both = api.post("/slips/bulk", {"slips": one, "delete": True, "set": {"category": "x"}}, headers=JA)
    assert (
        both.status == 422 and both.json["detail"] == "set（変更内容）か delete: true のどちらか一方を指定してください"
    )
    empty = api.post("/slips/bulk", {"slips": one, "set": {}}, headers=JA)
    assert empty.status == 422 and empty.json["detail"] == "変更する項目を 1 つ以上指定してください", empty
    # an account that does not exist
    gone = api.post("/slips/bulk", {"slips": one, "set": {"account": "nowhere"}}, headers=JA)
    assert gone.status == 422 and gone.json["detail"] == "口座「nowhere」はありません", gone
    # too many tags to add
    tags = api.post("/slips/bulk", {"slips": one, "set": {"tags_add": [f"t{i}" for i in range(11)]}})
    assert tags.status == 422 and tags.json["detail"] == "tags_add (the tags to add) may have at most 10 items"
    # a slip that would end up with more than ten tags is refused alone, in words
    full = api.post("/slips/bulk", {"slips": one, "set": {"tags_add": [f"t{i}" for i in range(10)]}})
    assert full.status == 200 and full.json["changed"]
    ref = {**one[0], "version": 2}
    over = api.post("/slips/bulk", {"slips": [ref], "set": {"tags_add": ["more"]}})
    assert over.status == 200 and [r["reason"] for r in over.json["refused"]] == ["invalid"], over


def test_a_bulk_edit_under_a_concurrent_editor_changes_each_slip_once_or_refuses_it(
    api: Client, store: Store, user: str, slips: list[dict[str, Any]]
) -> None:
    # Given a bulk edit and, at the same moment, another member's edits of the same slips
    bulk_body = {"slips": refs(slips), "set": {"tags_add": ["trip"]}}
    requests: list[tuple[str, str, Any, dict[str, str] | None]] = [("POST", "/slips/bulk", bulk_body, None)]
    requests += [("PATCH", f"/slips/{s['date']}/{s['id']}", {"memo": "mine"}, {"If-Match": '"1"'}) for s in slips[:3]]
    replies = fan_out(user, requests)
    assert all(r.status in (200, 412) for r in replies), replies
    answer = replies[0].json
    changed = {c["id"] for c in answer["changed"]}
    refused = {r["id"] for r in answer["refused"]}
    # Then each slip was changed by the bulk edit or refused as stale, never both, never lost
    assert changed | refused == {s["id"] for s in slips} and not changed & refused
    assert {r["reason"] for r in answer["refused"]} <= {"stale"}
    for slip in api.get("/slips", query={"limit": "100"}).json["items"]:
        mine, tagged = slip.get("memo") == "mine", "trip" in (slip.get("tags") or ())
        assert slip["version"] == 1 + mine + tagged
        assert tagged == (slip["id"] in changed)
    assert integrity.verify(store, user)["ok"] and invariants.check(store, user) == []
