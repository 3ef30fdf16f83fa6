"""A shared ledger's data: every ledger route under /ledgers/{ledger}, with roles, authors, `?by=`,
Idempotency-Keys per member, and the member check inside every write transaction."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from kakeibo import errors
from kakeibo.models.slips import SlipIn
from kakeibo.services.access import EDITORS
from kakeibo.services.slips import create_slip
from kakeibo.store import Item, SharedLedger, Store, WriteContext, entry_changes
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import household_pk, member_sk
from kakeibo.store.transactions import StoreCore
from tests import invariants
from tests.events import Client


@pytest.fixture
def household(api: Client, user: str) -> Iterator[dict[str, Any]]:
    """Hanako's "山田家" with Taro as editor and grandma as viewer, and two accounts."""
    made = api.post("/ledgers", {"name": "山田家"})
    assert made.status == 201, made
    ledger = made.json["id"]
    people = {"hanako": api}
    for name, role in (("taro", "editor"), ("grandma", "viewer")):
        token = api.post(f"/ledgers/{ledger}/invitations", {"role": role}).json["token"]
        guest = Client(f"{name}-{uuid.uuid4().hex[:8]}")
        assert guest.post(f"/invitations/{token}/accept").status == 200
        people[name] = guest
    base = f"/ledgers/{ledger}"
    assert (
        api.post(f"{base}/accounts", {"id": "cash", "name": "現金", "type": "cash", "opening_balance": 30000}).status
        == 201
    )
    assert (
        api.post(f"{base}/accounts", {"id": "bank", "name": "銀行", "type": "bank", "opening_balance": 200000}).status
        == 201
    )
    yield {"id": ledger, "base": base, **people}


def _lunch(**extra: Any) -> dict[str, Any]:
    return {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費", **extra}


def test_members_write_and_read_one_ledger_with_authors(household: dict[str, Any], store: Store) -> None:
    base, hanako, taro, grandma = household["base"], household["hanako"], household["taro"], household["grandma"]
    # When Hanako and Taro each record a slip in the household
    mine = hanako.post(f"{base}/slips", _lunch())
    his = taro.post(f"{base}/slips", _lunch(amount=800, memo="コンビニ"))
    # Then both are created there, Location under the ledger, each with its author
    assert mine.status == 201 and his.status == 201, (mine, his)
    assert his.header("Location") == f"{base}/slips/2026-11-03/{his.json['id']}"
    assert mine.json["created_by"] == hanako.user and his.json["created_by"] == taro.user
    assert his.json["updated_by"] == taro.user
    # And everyone, grandma too, reads the same balances; nobody's personal ledger holds them
    for member in (hanako, taro, grandma):
        cash = member.get(f"{base}/balances").json["items"][1]
        assert (cash["account"], cash["balance"]) == ("cash", 28000)
    assert hanako.get("/slips").json["items"] == []
    assert hanako.get("/ledgers/me/slips").json["items"] == []
    # When Hanako corrects Taro's slip, it keeps its author and records who changed it
    fixed = hanako.patch(his.header("Location"), {"amount": 900}, headers={"If-Match": his.etag})
    assert fixed.status == 200 and fixed.json["created_by"] == taro.user and fixed.json["updated_by"] == hanako.user
    # And Taro's edit from the version he read is refused: 412, nothing changes
    stale = taro.patch(his.header("Location"), {"amount": 700}, headers={"If-Match": his.etag})
    assert stale.status == 412 and stale.json["code"] == "version_mismatch"
    assert taro.get(his.header("Location")).json["amount"] == 900
    # And ?by= keeps the slips a member created or changed last, in lists and CSV
    by_hanako = {s["id"] for s in grandma.get(f"{base}/slips", query={"by": hanako.user}).json["items"]}
    by_taro = {s["id"] for s in grandma.get(f"{base}/slips", query={"by": taro.user}).json["items"]}
    assert by_hanako == {mine.json["id"], his.json["id"]} and by_taro == {his.json["id"]}
    csv = grandma.get(f"{base}/slips.csv", query={"by": hanako.user})
    assert csv.status == 200 and csv.raw.decode().count("\n") == 3  # header + 2 slips
    assert grandma.get(f"{base}/slips.csv", query={"by": "nobody"}).raw.decode().count("\n") == 1
    assert invariants.check(store, SharedLedger(household["id"])) == []


def test_a_viewer_reads_but_every_write_is_forbidden(household: dict[str, Any]) -> None:
    base, hanako, grandma = household["base"], household["hanako"], household["grandma"]
    slip = hanako.post(f"{base}/slips", _lunch())
    where, etag = slip.header("Location"), slip.etag
    csv = "date,kind,amount,account\n2026-11-01,expense,1,cash\n"
    rent = {
        "slip": {"kind": "expense", "amount": 1, "account": "cash", "category": "家賃"},
        "rule": {"freq": "monthly", "by_month_day": 1, "start": "2026-12-01"},
    }
    # When grandma tries every kind of write
    writes = [
        grandma.post(f"{base}/slips", _lunch()),
        grandma.patch(where, {"amount": 1}, headers={"If-Match": etag}),
        grandma.put(where, _lunch(amount=5), headers={"If-Match": etag}),
        grandma.delete(where, headers={"If-Match": etag}),
        grandma.post(f"{base}/accounts", {"id": "suica", "name": "Suica", "type": "emoney"}),
        grandma.patch(f"{base}/accounts/cash", {"name": "財布"}, headers={"If-Match": '"1"'}),
        grandma.put(f"{base}/budgets/2026-11/食費", {"limit": 1000}),
        grandma.post(f"{base}/imports", raw=csv, headers={"Content-Type": "text/csv"}),
        grandma.post(f"{base}/recurrences", rent),
        grandma.post(f"{base}/recurrences/run"),
        grandma.post(f"{base}/ledger/rebuild"),
    ]
    # Then each is 403 forbidden, and nothing changed
    assert [w.status for w in writes] == [403] * len(writes), writes
    assert all(w.json["code"] == "forbidden" for w in writes)
    assert hanako.get(where).json["amount"] == 1200 and hanako.get(where).etag == etag
    assert [a["id"] for a in hanako.get(f"{base}/accounts").json["items"]] == ["bank", "cash"]
    # But she reads everything, and may verify
    assert grandma.get(f"{base}/slips").status == 200
    assert grandma.get(f"{base}/reports/monthly", query={"month": "2026-11"}).status == 200
    assert grandma.post(f"{base}/ledger/verify").json["ok"] is True
    # And an editor may not rebuild (owners only)
    assert household["taro"].post(f"{base}/ledger/rebuild").status == 403


def test_a_non_member_and_a_removed_member_find_nothing(household: dict[str, Any], other_api: Client) -> None:
    base, hanako, taro = household["base"], household["hanako"], household["taro"]
    slip = hanako.post(f"{base}/slips", _lunch())
    where = slip.header("Location")
    # A never-member: 404 on reads and writes alike, never 403
    for reply in (
        other_api.get(f"{base}/slips"),
        other_api.get(where),
        other_api.post(f"{base}/slips", _lunch()),
        other_api.delete(where, headers={"If-Match": slip.etag}),
        other_api.get("/ledgers/01ARZ3NDEKTSV4RRFFQ69G5FAV/balances"),
        other_api.get("/ledgers/not-a-ledger/balances"),
    ):
        assert reply.status == 404 and reply.json["code"] == "not_found", reply
    # When Hanako removes Taro, he is a stranger at once
    assert hanako.delete(f"{base}/members/{taro.user}", headers={"If-Match": '"1"'}).status == 204
    assert taro.get(f"{base}/slips").status == 404
    assert taro.post(f"{base}/slips", _lunch()).status == 404
    assert taro.patch(where, {"amount": 5}, headers={"If-Match": slip.etag}).status == 404
    assert hanako.get(where).json["amount"] == 1200


def test_a_write_checks_membership_inside_its_transaction(household: dict[str, Any], store: Store) -> None:
    # Given Taro's request passed the membership read as an editor...
    taro, hanako, base = household["taro"], household["hanako"], household["base"]
    as_taro = WriteContext.member(household["id"], taro.user, EDITORS)
    # ...when he is removed before its transaction commits
    assert hanako.delete(f"{base}/members/{taro.user}", headers={"If-Match": '"1"'}).status == 204
    # Then the transaction itself refuses the write (404, as for a stranger): no slip, no balance moved
    with pytest.raises(errors.NotFound):
        create_slip(store, as_taro, SlipIn.model_validate(_lunch()))
    assert hanako.get(f"{base}/slips").json["items"] == []
    assert hanako.get(f"{base}/accounts/cash").json["balance"] == 30000
    # And a member demoted to viewer meanwhile gets 403 from the transaction
    grandma = household["grandma"]
    as_grandma = WriteContext.member(household["id"], grandma.user, EDITORS)
    with pytest.raises(errors.Forbidden):
        create_slip(store, as_grandma, SlipIn.model_validate(_lunch()))


def test_idempotency_keys_are_per_member(household: dict[str, Any]) -> None:
    base, hanako, taro = household["base"], household["hanako"], household["taro"]
    key = {"Idempotency-Key": "lunch-2026-11-03"}
    # When Hanako and Taro send the same key with the same body
    first = hanako.post(f"{base}/slips", _lunch(), headers=key)
    again = hanako.post(f"{base}/slips", _lunch(), headers=key)
    his = taro.post(f"{base}/slips", _lunch(), headers=key)
    # Then Hanako's retry is her slip, and Taro's is a slip of his own
    assert first.status == again.status == his.status == 201
    assert again.json["id"] == first.json["id"] and his.json["id"] != first.json["id"]
    assert his.json["created_by"] == taro.user
    # And her key in her personal ledger is yet another slip
    hanako.account("cash", 5000)
    personal = hanako.post("/slips", _lunch(), headers=key)
    assert personal.status == 201 and personal.json["id"] not in (first.json["id"], his.json["id"])
    assert len(hanako.get(f"{base}/slips").json["items"]) == 2


WRITES = {
    "create a slip": lambda base, where, etag: ("POST", f"{base}/slips", _lunch(), {}),
    "change a slip": lambda base, where, etag: ("PATCH", where, {"amount": 5}, {"If-Match": etag}),
    "move a slip": lambda base, where, etag: ("PATCH", where, {"date": "2026-11-20"}, {"If-Match": etag}),
    "delete a slip": lambda base, where, etag: ("DELETE", where, None, {"If-Match": etag}),
    "create an account": lambda base, where, etag: (
        "POST", f"{base}/accounts", {"id": "suica", "name": "Suica", "type": "emoney"}, {}),
    "rename an account": lambda base, where, etag: (
        "PATCH", f"{base}/accounts/cash", {"name": "x"}, {"If-Match": '"1"'}),
    "set a budget": lambda base, where, etag: ("PUT", f"{base}/budgets/2026-11/食費", {"limit": 5}, {}),
}  # fmt: skip


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_member_removed_while_their_request_runs_commits_nothing(
    household: dict[str, Any], store: Store, monkeypatch: pytest.MonkeyPatch, write: str
) -> None:
    base, hanako = household["base"], household["hanako"]
    slip = hanako.post(f"{base}/slips", _lunch())
    editor = Client(f"jiro-{uuid.uuid4().hex[:8]}")
    token = hanako.post(f"{base}/invitations", {"role": "editor"}).json["token"]
    assert editor.post(f"/invitations/{token}/accept").status == 200
    before = list(store.core.query(SharedLedger(household["id"]), consistent=True))
    # Given the editor's request has read his membership, and the owner removes him before it writes
    real = StoreCore.transact
    his_check = to_ddb({"PK": household_pk(household["id"]), "SK": member_sk(editor.user or "")})
    removed: list[int] = []

    def removed_first(self: StoreCore, ops: Any, token: str | None = None) -> None:
        if any(op.kind == "ConditionCheck" and op.body.get("Key") == his_check for op in ops):  # his write's guard
            monkeypatch.setattr(StoreCore, "transact", real)
            gone = hanako.delete(f"{base}/members/{editor.user}", headers={"If-Match": '"1"'})
            assert gone.status == 204, gone
            removed.append(gone.status)
        real(self, ops, token)

    monkeypatch.setattr(StoreCore, "transact", removed_first)
    method, path, body, headers = WRITES[write](base, slip.header("Location"), slip.etag)
    reply = editor.request(method, path, body, headers=headers)
    # Then his write is refused by its own transaction, as a stranger's is: 404, and nothing changed
    assert removed == [204]
    assert reply.status == 404 and reply.json["code"] == "not_found", reply
    after = list(store.core.query(SharedLedger(household["id"]), consistent=True))
    assert _data(after) == _data(before)
    # And the journal holds the owner's removal of him, and no entry of his
    new = [entry for entry in after if entry["SK"].startswith("CHG#") and entry not in before]
    assert [(entry["by"], [(c["type"], c["id"], c["op"]) for c in entry_changes(entry)]) for entry in new] == [
        (hanako.user, [("member", editor.user, "delete")])
    ]


def _data(items: list[Item]) -> list[Item]:
    """A ledger's items but its members, its META, its counters and its journal (head and entries)."""
    return [item for item in items if not item["SK"].startswith(("MEMBER#", "META", "SEQ#", "JOURNAL", "CHG#"))]
