"""One slip, one identity, on DynamoDB Local: a slip id is one slip across moves, deletes, imports
and Idempotency-Keys whose Powertools record has long expired; older ledgers get identities from
a rebuild."""

from __future__ import annotations

from typing import Any

import pytest

from kakeibo.csvio import slip_id_for
from kakeibo.store import Store
from tests import invariants
from tests.events import Client
from tests.idempotency_records import ExpiredKeys

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}
CSV = {"Content-Type": "text/csv"}


@pytest.fixture
def cash(api: Client) -> Client:
    api.account("cash", 20000)
    return api


def slips_of(api: Client) -> list[dict[str, Any]]:
    reply = api.get("/slips", query={"limit": 100})
    assert reply.status == 200 and reply.json["next_cursor"] is None
    return reply.json["items"]  # type: ignore[no-any-return]


# ---- Idempotency-Key after the Powertools record expired ---------------------------------------


def test_an_old_key_with_the_same_body_answers_the_slip_where_it_moved(cash: Client, store: Store, user: str) -> None:
    # Given a slip posted with a key, then moved to another date, and the key's record expired
    keys = ExpiredKeys(store)
    first = cash.post("/slips", LUNCH, headers={"Idempotency-Key": "lunch-1"})
    assert first.status == 201
    moved = cash.patch(first.header("Location") or "", {"date": "2026-11-07"}, headers={"If-Match": '"1"'})
    assert moved.status == 200
    keys.expire()
    # When the same request is sent again with the same key
    again = cash.post("/slips", LUNCH, headers={"Idempotency-Key": "lunch-1"})
    # Then it answers the one slip as it is now, at its new date; nothing more is created
    assert again.status == 201, again
    assert again.json == moved.json
    assert again.header("Location") == f"/slips/2026-11-07/{first.json['id']}"
    assert again.etag == '"2"'
    assert [s["id"] for s in slips_of(cash)] == [first.json["id"]]
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_an_old_key_with_another_body_is_422_and_changes_nothing(cash: Client, store: Store, user: str) -> None:
    keys = ExpiredKeys(store)
    assert cash.post("/slips", LUNCH, headers={"Idempotency-Key": "lunch-2"}).status == 201
    keys.expire()
    # When the key comes back, long after, with another body
    reused = cash.post("/slips", {**LUNCH, "amount": 999}, headers={"Idempotency-Key": "lunch-2"})
    # Then it is refused, and the old slip is not handed out as if it were this one
    assert reused.status == 422 and reused.json["code"] == "idempotency_key_reused", reused
    assert [s["amount"] for s in slips_of(cash)] == [1200]
    assert cash.balances()["cash"] == 18800
    assert invariants.check(store, user) == []


def test_the_key_of_a_deleted_slip_is_410_and_never_creates_it_again(cash: Client, store: Store, user: str) -> None:
    keys = ExpiredKeys(store)
    first = cash.post("/slips", LUNCH, headers={"Idempotency-Key": "lunch-3"})
    assert cash.delete(first.header("Location") or "", headers={"If-Match": '"1"'}).status == 204
    keys.expire()
    # When the same request is sent again with its key
    again = cash.post("/slips", LUNCH, headers={"Idempotency-Key": "lunch-3"})
    # Then it is gone for good: no slip, no money moved
    assert again.status == 410 and again.json["code"] == "gone", again
    assert again.json["id"] == first.json["id"]
    assert slips_of(cash) == []
    assert cash.balances()["cash"] == 20000
    assert cash.get(f"/slips/{first.json['id']}").status == 404
    assert invariants.check(store, user) == []


# ---- GET /slips/{id} --------------------------------------------------------------------------


def test_a_slip_is_found_by_id_wherever_it_moved(cash: Client) -> None:
    made = cash.post("/slips", LUNCH).json
    # When another member moves it to another date
    cash.patch(f"/slips/{made['date']}/{made['id']}", {"date": "2026-12-01"}, headers={"If-Match": '"1"'})
    # Then its id alone finds it, with the dated URL it lives at now
    found = cash.get(f"/slips/{made['id']}")
    assert found.status == 200
    assert found.header("Content-Location") == f"/slips/2026-12-01/{made['id']}"
    assert found.etag == '"2"' and found.json["date"] == "2026-12-01"
    assert cash.get(found.header("Content-Location") or "").json == found.json


def test_slips_asked_for_by_id_are_read_where_they_live_in_the_order_asked(
    cash: Client, store: Store, user: str
) -> None:
    # Given a slip moved to another date, a slip deleted, a slip left alone and an id never used
    moved, deleted, kept = (cash.post("/slips", {**LUNCH, "amount": n}).json for n in (100, 200, 300))
    cash.patch(f"/slips/{moved['date']}/{moved['id']}", {"date": "2026-12-01"}, headers={"If-Match": '"1"'})
    assert cash.delete(f"/slips/{deleted['date']}/{deleted['id']}", headers={"If-Match": '"1"'}).status == 204
    asked = [kept["id"], "S00000000000000NEVERUSED", deleted["id"], moved["id"]]
    # When the store reads them by id
    read = store.slips.slips_by_id(user, asked)
    # Then every identity found is there in the order asked, the deleted one's tombstone among them
    assert list(read.identities) == [kept["id"], deleted["id"], moved["id"]]
    assert read.deleted() == {deleted["id"]}
    # And the live slips are read where they live now, in the order asked
    assert list(read.live) == [kept["id"], moved["id"]]
    assert read.live[moved["id"]]["date"] == "2026-12-01" and read.live[moved["id"]]["amount"] == 100
    assert read.live[kept["id"]]["amount"] == 300


@pytest.mark.parametrize("slip_id", ["NOPE", "x" * 65, "bad-id", "%E2%80%AE"])
def test_an_unknown_or_malformed_id_is_404(cash: Client, slip_id: str) -> None:
    reply = cash.get(f"/slips/{slip_id}")
    assert reply.status == 404 and reply.json["code"] == "not_found"


def test_another_ledgers_slip_is_404_by_id(cash: Client, other_api: Client) -> None:
    made = cash.post("/slips", LUNCH).json
    assert other_api.get(f"/slips/{made['id']}").status == 404


# ---- imports by identity -------------------------------------------------------------------------


def test_reimporting_an_export_after_edits_moves_and_deletes_creates_nothing(
    cash: Client, store: Store, user: str
) -> None:
    # Given a month of slips, exported
    made = [cash.post("/slips", {**LUNCH, "date": f"2026-11-{d:02d}", "amount": 100 * d}).json for d in (1, 2, 3, 4)]
    exported = cash.get("/slips.csv")
    assert exported.status == 200
    # When one slip is moved, one edited, one deleted
    first, second, third, _ = made
    cash.patch(f"/slips/{first['date']}/{first['id']}", {"date": "2026-11-20"}, headers={"If-Match": '"1"'})
    cash.patch(f"/slips/{second['date']}/{second['id']}", {"amount": 5}, headers={"If-Match": '"1"'})
    cash.delete(f"/slips/{third['date']}/{third['id']}", headers={"If-Match": '"1"'})
    before = cash.balances()
    listed = slips_of(cash)
    # And the export is imported again
    again = cash.post("/imports", raw=exported.raw, headers=CSV)
    # Then nothing is created and no balance moves; the deleted row is skipped, not revived
    assert again.status == 200, again
    assert (again.json["created"], again.json["skipped"], again.json["failed"]) == (0, 4, 0)
    assert cash.balances() == before
    assert slips_of(cash) == listed
    assert cash.post("/ledger/verify").json["ok"] is True
    assert invariants.check(store, user) == []


def test_an_imported_slip_is_one_identity_with_import_origin(cash: Client, store: Store, user: str) -> None:
    text = "date,kind,amount,account,to_account,category,memo,external_id\n2026-11-03,expense,300,cash,,食費,,EXT9\n"
    assert cash.post("/imports", raw=text, headers=CSV).json["created"] == 1
    identity = store.core.get(user, f"ID#{slip_id_for('', 0, 'EXT9')}")
    assert identity is not None
    assert (identity["origin"], identity["date"], identity["version"], identity["deleted"]) == (
        "import",
        "2026-11-03",
        1,
        False,
    )
    assert len(identity["fingerprint"]) == 64


# ---- ledgers written before identities: backfilled by a rebuild ----------------------------------


def _strip_identities(store: Store, user: str) -> None:
    """Make the ledger look as written before slips had identity items."""
    for item in list(store.core.query(user, begins_with="ID#", projection="SK")):
        store.core.client.delete_item(
            TableName=store.core.table, Key={"PK": {"S": f"LEDGER#{user}"}, "SK": {"S": item["SK"]}}
        )


def test_rebuild_gives_older_slips_their_identities(cash: Client, store: Store, user: str) -> None:
    # Given a ledger written the old way: slips without identities, and the ROW# mark of an
    # imported row whose slip was deleted since
    kept = cash.post("/slips", LUNCH, headers={"Idempotency-Key": "old-key"}).json
    moved = cash.post("/slips", {**LUNCH, "amount": 300}).json
    _strip_identities(store, user)
    store.core.client.put_item(
        TableName=store.core.table,
        Item={
            "PK": {"S": f"LEDGER#{user}"},
            "SK": {"S": "ROW#IOLDROW00000002"},
            "type": {"S": "import_row"},
            "slip_id": {"S": "IOLDROW00000002"},
            "date": {"S": "2026-11-05"},
            "import_id": {"S": "0" * 64},
            "line": {"N": "2"},
            "created_at": {"S": "2026-11-05T00:00:00.000Z"},
        },
    )
    # (it keeps working before the backfill: a slip can be moved, and its identity follows it)
    assert (
        cash.patch(f"/slips/{moved['date']}/{moved['id']}", {"date": "2026-11-09"}, headers={"If-Match": '"1"'}).status
        == 200
    )
    # When the ledger is rebuilt
    rebuilt = cash.post("/ledger/rebuild")
    # Then every slip has its identity, and the deleted row a tombstone
    assert rebuilt.status == 200, rebuilt
    assert rebuilt.json["identities"] == 2 and rebuilt.json["written"] == 0
    identity = store.core.get(user, f"ID#{kept['id']}")
    assert identity is not None and identity["date"] == "2026-11-03" and identity["deleted"] is False
    assert identity["origin"] == "api"
    tombstone = store.core.get(user, "ID#IOLDROW00000002")
    assert tombstone is not None and tombstone["deleted"] is True and tombstone["origin"] == "import"
    follows = store.core.get(user, f"ID#{moved['id']}")
    assert follows is not None and follows["date"] == "2026-11-09"
    # And the identities answer as for any slip
    assert cash.get(f"/slips/{kept['id']}").header("Content-Location") == f"/slips/2026-11-03/{kept['id']}"
    replay = cash.post("/slips", LUNCH, headers={"Idempotency-Key": "old-key"})
    assert replay.status == 201 and replay.json["id"] == kept["id"]
    assert len(slips_of(cash)) == 2 and cash.balances()["cash"] == 18500
    # And a second rebuild has nothing left to write
    assert cash.post("/ledger/rebuild").json["identities"] == 0
    assert invariants.check(store, user) == []


def test_a_prefix_read_returns_only_keys_with_the_prefix(cash: Client, store: Store, user: str) -> None:
    # Given a ledger with an account and an item keyed exactly at the end of the accounts' key range
    store.core.client.put_item(
        TableName=store.core.table, Item={"PK": {"S": f"LEDGER#{user}"}, "SK": {"S": "ACCOUNT$"}}
    )
    # When its accounts are read by prefix
    keys = [item["SK"] for item in store.core.query(user, begins_with="ACCOUNT#")]
    # Then the bound's item is not among them, and the accounts are
    assert "ACCOUNT$" not in keys
    assert keys and all(k.startswith("ACCOUNT#") for k in keys)
