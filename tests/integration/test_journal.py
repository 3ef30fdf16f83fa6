"""The ledger journal on DynamoDB Local: every change once, in commit order; delta sync; a slip's
history; undo; and replay from nothing equal to the ledger's state."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.services import journal as journal_service
from kakeibo.store import Store
from kakeibo.store.keys import identity_sk, pk
from tests.concurrently import fan_out
from tests.conftest import WITH_FIXTURES
from tests.events import Client


def all_changes(api: Client, since: int = 0, limit: int = 100, base: str = "") -> tuple[list[dict[str, Any]], int]:
    """Every entry after `since`, following has_more, and the final knowledge."""
    out: list[dict[str, Any]] = []
    while True:
        page = api.get(f"{base}/changes", query={"since": str(since), "limit": str(limit)})
        assert page.status == 200, page
        out += page.json["changes"]
        since = page.json["knowledge"]
        if not page.json["has_more"]:
            return out, since


def replay(entries: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The state the entries describe: each entity's last `after` (deleted ones dropped)."""
    state: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in entries:
        for change in entry["changes"]:
            key = (change["type"], change["id"])
            if change["after"] is None:
                state.pop(key, None)
            else:
                state[key] = change["after"]
    return state


BALANCES = ("balance", "cleared_balance", "uncleared_balance", "payments")  # what slips make, not the account


def current_state(api: Client, months: set[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """The ledger's slips, accounts (without balances), budgets (without spending) and recurrences."""
    state: dict[tuple[str, str], dict[str, Any]] = {}
    cursor = None
    while True:
        query = {"limit": "100", **({"cursor": cursor} if cursor else {})}
        page = api.get("/slips", query=query).json
        for slip in page["items"]:
            state[("slip", slip["id"])] = slip
        cursor = page["next_cursor"]
        if not cursor:
            break
    for account in api.get("/accounts").json["items"]:
        state[("account", account["id"])] = {k: v for k, v in account.items() if k not in BALANCES}
    for month in months:
        for budget in api.get("/budgets", query={"month": month}).json["items"]:
            record = {k: budget[k] for k in ("month", "category", "limit", "strict", "rollover", "version")}
            state[("budget", f"{month}/{budget['category']}")] = record
    for recurrence in api.get("/recurrences").json["items"]:
        keep = ("id", "slip", "rule", "shift", "version", "created_at", "updated_at")
        state[("recurrence", recurrence["id"])] = {k: recurrence[k] for k in keep}
    return state


def _unlabelled(value: Any) -> Any:
    """A view without `category_label` (the API's words for a category, in the caller's language)."""
    if isinstance(value, dict):
        return {k: _unlabelled(v) for k, v in value.items() if k != "category_label"}
    if isinstance(value, list):
        return [_unlabelled(v) for v in value]
    return value


def comparable(state: dict[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    drop = {"created_by", "updated_by"}  # recurrences' views do not carry them; slips' and records' do
    return {
        key: _unlabelled({k: v for k, v in value.items() if not (key[0] == "recurrence" and k in drop)})
        for key, value in state.items()
    }


def test_every_write_is_one_entry_in_commit_order(api: Client) -> None:
    # Given an account, a slip, an edit, a move and a delete
    api.account("cash", 10000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費")
    fixed = api.patch(lunch.header("Location"), {"amount": 1300}, headers={"If-Match": lunch.etag})
    moved = api.patch(fixed.header("Location"), {"date": "2026-11-04"}, headers={"If-Match": fixed.etag})
    assert api.delete(moved.header("Location"), headers={"If-Match": moved.etag}).status == 204

    # When the journal is read from the start
    entries, knowledge = all_changes(api)

    # Then there is one entry per change, seq 1..5 without gaps, each saying what it did
    assert [e["seq"] for e in entries] == [1, 2, 3, 4, 5] and knowledge == 5
    assert [(c["type"], c["op"]) for e in entries for c in e["changes"]] == [
        ("account", "create"),
        ("slip", "create"),
        ("slip", "update"),
        ("slip", "update"),
        ("slip", "delete"),
    ]
    assert entries[2]["changes"][0]["before"]["amount"] == 1200
    assert entries[2]["changes"][0]["after"]["amount"] == 1300
    assert entries[4]["changes"][0]["after"] is None
    assert all(e["by"] == api.user and e["origin"] == "api" for e in entries)

    # And reading from the knowledge answers nothing new, with the same knowledge
    again = api.get("/changes", query={"since": "5"}).json
    assert again == {"changes": [], "knowledge": 5, "has_more": False}


@pytest.mark.parametrize("since", ["-1", "x", "1.5", "", "9" * 13])
def test_bad_since_is_400(api: Client, since: str) -> None:
    # Given a ledger with one change
    api.account("cash", 0)
    # When `since` is not a seq, then 400
    assert api.get("/changes", query={"since": since}).status == 400


def test_since_beyond_the_head_is_400(api: Client) -> None:
    api.account("cash", 0)
    refused = api.get("/changes", query={"since": "2"})
    assert refused.status == 400 and refused.json["code"] == "bad_request"


def test_pages_follow_knowledge(api: Client) -> None:
    # Given seven changes
    api.account("cash", 100000)
    for day in range(1, 7):
        api.slip(date=f"2026-11-0{day}", kind="expense", amount=100, account="cash", category="食費")
    # When read three at a time
    first = api.get("/changes", query={"since": "0", "limit": "3"}).json
    # Then each page says there is more, and the pages join without gap or repeat
    assert [e["seq"] for e in first["changes"]] == [1, 2, 3] and first["has_more"] and first["knowledge"] == 3
    entries, knowledge = all_changes(api, since=3, limit=3)
    assert [e["seq"] for e in entries] == [4, 5, 6, 7] and knowledge == 7


def test_concurrent_writers_get_contiguous_seqs_and_each_write_is_there_once(api: Client) -> None:
    # Given an account
    api.account("cash", 1_000_000)
    made: list[str] = []

    # When 8 writers (each its own process, like Lambda instances) post at once, three times
    for i in range(3):
        slips = [{"date": "2026-11-10", "kind": "expense", "amount": 10 + n, "account": "cash", "memo": f"{n}-{i}"}
                 for n in range(8)]  # fmt: skip
        replies = fan_out(api.user or "", [("POST", "/slips", slip, None) for slip in slips])
        assert [r.status for r in replies] == [201] * 8, replies
        made += [r.json["id"] for r in replies]

    # Then seq runs 1..25 without gaps and every acknowledged slip is in exactly one entry
    entries, knowledge = all_changes(api)
    assert [e["seq"] for e in entries] == list(range(1, 26)) and knowledge == 25
    created = [c["id"] for e in entries for c in e["changes"] if c["type"] == "slip"]
    assert sorted(created) == sorted(made) and len(set(created)) == 24


def test_incremental_readers_never_miss_a_seq(api: Client, store: Store) -> None:
    # Given a writer adding slips while two readers follow the journal with their knowledge (the
    # readers call the service GET /changes answers with, so they overlap the writes for real)
    api.account("cash", 1_000_000)
    done = threading.Event()
    seen: dict[int, list[int]] = {0: [], 1: []}

    def reader(n: int) -> None:
        knowledge = 0
        while True:
            finished = done.is_set()
            page = journal_service.changes(store, api.user or "", since=knowledge, limit=50)
            seen[n] += [e["seq"] for e in page["changes"]]
            knowledge = page["knowledge"]
            if finished and not page["has_more"]:
                return

    readers = [threading.Thread(target=reader, args=(n,)) for n in (0, 1)]
    for thread in readers:
        thread.start()
    for i in range(15):
        api.slip(date="2026-11-10", kind="expense", amount=1, account="cash", memo=str(i))
    done.set()
    for thread in readers:
        thread.join()
    # Then each reader saw every seq once, in order
    assert seen[0] == list(range(1, 17)) and seen[1] == list(range(1, 17))


def test_slip_history_across_moves_and_delete(api: Client) -> None:
    # Given a slip created, corrected, moved and deleted
    api.account("cash", 10000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費")
    slip_id = lunch.json["id"]
    fixed = api.patch(lunch.header("Location"), {"amount": 1300}, headers={"If-Match": lunch.etag})
    moved = api.patch(fixed.header("Location"), {"date": "2026-11-04"}, headers={"If-Match": fixed.etag})
    api.delete(moved.header("Location"), headers={"If-Match": moved.etag})

    # When its history is asked for
    history = api.get(f"/slips/{slip_id}/history")

    # Then it tells its whole life: who, when, which fields
    assert history.status == 200
    items = history.json["items"]
    assert [i["op"] for i in items] == ["create", "update", "update", "delete"]
    assert items[1]["changed"] == {"amount": [1200, 1300]}
    assert items[2]["changed"] == {"date": ["2026-11-03", "2026-11-04"]} and items[2]["date"] == "2026-11-04"
    assert all(i["by"] == api.user for i in items)
    # And another slip id, or another ledger's, is 404
    assert api.get("/slips/NOSUCHSLIP/history").status == 404


def test_a_slip_history_reads_its_own_entries_not_the_journal(api: Client, store: Store) -> None:
    # Given a slip created, edited, deleted and brought back by undo, among many other changes
    api.account("cash", 100_000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash")
    slip_id = lunch.json["id"]
    for n in range(30):
        api.slip(date="2026-11-05", kind="expense", amount=1 + n, account="cash")
    fixed = api.patch(lunch.header("Location"), {"amount": 1300}, headers={"If-Match": lunch.etag})
    deleted_seq = journal_service.changes(store, api.user or "", since=0, limit=100)["knowledge"] + 1
    assert api.delete(fixed.header("Location"), headers={"If-Match": fixed.etag}).status == 204
    assert api.post(f"/changes/{deleted_seq}/undo").status == 200
    seen: list[str] = []

    def record(event_name: str, **kwargs: Any) -> None:
        seen.append(event_name.rsplit(".", 1)[-1])

    # When its history is asked for
    store.core.client.meta.events.register("before-call.dynamodb.*", record)
    try:
        history = journal_service.slip_history(store, api.user or "", slip_id)
    finally:
        store.core.client.meta.events.unregister("before-call.dynamodb.*", record)

    # Then it is its four entries, read by key: the identity, then the entries it lists — no Query
    assert [i["op"] for i in history["items"]] == ["create", "update", "delete", "create"]
    assert [i["seq"] for i in history["items"]] == [2, 33, deleted_seq, deleted_seq + 1]
    assert seen == ["GetItem", "BatchGetItem"]


def test_a_slip_whose_identity_lists_no_entries_gets_its_history_from_the_journal(api: Client, store: Store) -> None:
    # Given a slip whose identity lists its entries only from a later change (written before lists)
    api.account("cash", 10000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash")
    slip_id = lunch.json["id"]
    store.core.client.update_item(
        TableName=store.core.table,
        Key={"PK": {"S": pk(api.user or "")}, "SK": {"S": identity_sk(slip_id)}},
        UpdateExpression="REMOVE changes, changes_complete",
    )
    api.patch(lunch.header("Location"), {"amount": 1300}, headers={"If-Match": lunch.etag})

    # When its history is asked for, then the journal still tells all of it
    history = api.get(f"/slips/{slip_id}/history").json
    assert [i["op"] for i in history["items"]] == ["create", "update"]


def test_history_of_another_ledgers_slip_is_404(api: Client, other_api: Client) -> None:
    api.account("cash", 10000)
    slip_id = api.slip(date="2026-11-03", kind="expense", amount=1, account="cash").json["id"]
    assert other_api.get(f"/slips/{slip_id}/history").status == 404


def test_undo_each_kind_of_slip_change(api: Client) -> None:
    # Given a slip created, changed and deleted
    api.account("cash", 10000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費")
    slip_id = lunch.json["id"]
    fixed = api.patch(lunch.header("Location"), {"amount": 1500, "date": "2026-11-05"}, headers={"If-Match": '"1"'})
    assert api.balances()["cash"] == 8500

    # When the edit (seq 3) is undone
    undone = api.post("/changes/3/undo")
    # Then the slip is back where and as it was, and the undo is an entry of its own
    assert undone.status == 200, undone
    assert undone.json["undone"] == 3 and undone.json["entry"]["origin"] == "undo"
    assert undone.json["entry"]["undoes"] == 3
    assert api.get("/changes", query={"since": "2", "limit": "1"}).json["changes"][0]["undone_by"] == 4
    back = api.get(f"/slips/{slip_id}").json
    assert (back["date"], back["amount"], back["version"]) == ("2026-11-03", 1200, 3)
    assert api.balances()["cash"] == 8800

    # And undoing it twice is 409 already_undone
    twice = api.post("/changes/3/undo")
    assert twice.status == 409 and twice.json["code"] == "already_undone"

    # When the slip is deleted and the delete undone: the same id comes back to life
    where = f"/slips/2026-11-03/{slip_id}"
    assert api.delete(where, headers={"If-Match": '"3"'}).status == 204
    head = api.get("/changes", query={"since": "0", "limit": "500"}).json["knowledge"]
    assert api.post(f"/changes/{head}/undo").status == 200
    restored = api.get(where)
    assert restored.status == 200 and restored.json["amount"] == 1200 and restored.json["no"] == lunch.json["no"]
    assert api.balances()["cash"] == 8800

    # When the creation is undone (after the slip moved on, it is refused with the entity named)
    stale = api.post("/changes/2/undo")
    assert stale.status == 412 and stale.json["entity"] == "slip" and stale.json["id"] == slip_id
    assert api.balances()["cash"] == 8800 and fixed.status == 200


def test_undo_of_a_creation_removes_the_slip(api: Client) -> None:
    api.account("cash", 10000)
    api.slip(date="2026-11-03", kind="expense", amount=700, account="cash")
    assert api.post("/changes/2/undo").status == 200
    assert api.get("/slips").json["items"] == [] and api.balances()["cash"] == 10000


def test_undo_racing_an_edit_leaves_one_winner(api: Client) -> None:
    # Given a slip
    api.account("cash", 10000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash")

    # When its creation is undone while it is edited (two processes, released together)
    replies = fan_out(api.user or "", [
        ("POST", "/changes/2/undo", None, None),
        ("PATCH", lunch.header("Location") or "", {"amount": 999}, {"If-Match": '"1"'}),
    ])  # fmt: skip
    results = [r.status for r in replies]
    # Then exactly one of them committed, and the balance says which
    assert sorted(results) in ([200, 412], [200, 404]), results
    cash = api.balances()["cash"]
    assert cash in (10000, 9001)
    assert (cash == 10000) == (api.get("/slips").json["items"] == [])


def test_undo_of_budget_account_and_recurrence_changes(api: Client) -> None:
    # Given a budget set then changed, an account renamed, a recurrence defined then deleted
    api.account("cash", 10000)
    assert api.put("/budgets/2026-11/食費", {"limit": 30000}).status == 201
    assert api.put("/budgets/2026-11/食費", {"limit": 40000}, headers={"If-Match": '"1"'}).status == 200
    assert api.patch("/accounts/cash", {"name": "財布"}, headers={"If-Match": '"1"'}).status == 200
    rent = api.post(
        "/recurrences",
        {"slip": {"kind": "expense", "amount": 80000, "account": "cash", "category": "住居"},
         "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"}},
    )  # fmt: skip
    assert rent.status == 201
    assert api.delete(f"/recurrences/{rent.json['id']}", headers={"If-Match": '"1"'}).status == 204

    # When each is undone, newest first
    for seq in (6, 4, 3):
        assert api.post(f"/changes/{seq}/undo").status == 200, seq
    # Then each is back as it was
    assert api.get(f"/recurrences/{rent.json['id']}").json["slip"]["amount"] == 80000
    assert api.get("/accounts/cash").json["name"] != "財布"
    assert api.get("/budgets", query={"month": "2026-11"}).json["items"][0]["limit"] == 30000


def test_an_undo_whose_earlier_state_is_no_longer_valid_is_refused_and_writes_nothing(
    api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo.core import slip as slip_core

    # Given a lunch edited, and another deleted
    api.account("cash", 10000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費")
    edited = api.patch(lunch.header("Location"), {"amount": 1500}, headers={"If-Match": '"1"'})
    assert edited.status == 200, edited
    dinner = api.slip(date="2026-11-04", kind="expense", amount=3000, account="cash", category="食費")
    assert api.delete(dinner.header("Location"), headers={"If-Match": '"1"'}).status == 204
    edit_seq, delete_seq = 3, 5
    head = api.get("/changes", query={"since": "0"}).json["knowledge"]
    assert head == delete_seq
    # And the state each entry left behind read as a request the API now refuses (an amount of 0)
    read_as_request = slip_core.request_of
    monkeypatch.setattr(
        slip_core, "request_of", lambda view, *, derived: {**read_as_request(view, derived=derived), "amount": 0}
    )
    for seq in (edit_seq, delete_seq):
        # When the entry is undone
        refused = api.post(f"/changes/{seq}/undo", headers={"Accept-Language": "ja"})
        # Then 409 not_undoable, in the caller's language, and nothing was written
        assert refused.status == 409 and refused.json["code"] == "not_undoable", refused
        assert "元に戻せません" in refused.json["detail"], refused
        assert api.get("/changes", query={"since": "0"}).json["knowledge"] == head
    assert api.get(lunch.header("Location")).json["amount"] == 1500
    assert api.get(dinner.header("Location")).status == 404
    assert api.balances()["cash"] == 8500


def test_undo_input_errors(api: Client, other_api: Client) -> None:
    api.account("cash", 0)
    assert api.post("/changes/99/undo").status == 404
    assert api.post("/changes/abc/undo").status == 404
    assert api.post("/changes/0/undo").status == 404
    assert other_api.post("/changes/1/undo").status == 404


def test_a_viewer_cannot_undo_and_an_editor_can(local_env: str) -> None:
    # Given a shared ledger with an editor and a viewer
    owner, editor, viewer = (Client(f"{n}-{uuid.uuid4().hex[:8]}") for n in ("owner", "editor", "viewer"))
    ledger = owner.post("/ledgers", {"name": "山田家"}).json["id"]
    for member, role in ((editor, "editor"), (viewer, "viewer")):
        token = owner.post(f"/ledgers/{ledger}/invitations", {"role": role}).json["token"]
        assert member.post(f"/invitations/{token}/accept").status == 200
    base = f"/ledgers/{ledger}"
    cash = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 10000}
    assert editor.post(f"{base}/accounts", cash).status == 201
    lunch = {"date": "2026-11-03", "kind": "expense", "amount": 500, "account": "cash"}
    assert editor.post(f"{base}/slips", lunch).status == 201
    entries, head = all_changes(viewer, base=base)
    # Then every member reads the journal: the ledger, its members, the account
    assert [c["type"] for e in entries for c in e["changes"]][:2] == ["ledger", "member"]
    # And a viewer's undo is 403, an editor's 200; member changes are not undone
    assert viewer.post(f"{base}/changes/{head}/undo").status == 403
    assert editor.post(f"{base}/changes/{head}/undo").status == 200
    not_undoable = editor.post(f"{base}/changes/1/undo")
    assert not_undoable.status == 409 and not_undoable.json["code"] == "not_undoable"


def test_an_import_batch_is_undone_whole(api: Client) -> None:
    # Given a CSV import of three rows (one batch, one entry)
    api.account("cash", 10000)
    csv = "date,kind,amount,account,to_account,category,memo\n" + "".join(
        f"2026-11-0{d},expense,100,cash,,食費,\n" for d in (1, 2, 3)
    )
    assert api.post("/imports", raw=csv, headers={"Content-Type": "text/csv"}).json["created"] == 3
    entries, head = all_changes(api)
    assert entries[-1]["origin"] == "import" and len(entries[-1]["changes"]) == 3
    # When it is undone, then all three slips go in one change
    assert api.post(f"/changes/{head}/undo").status == 200
    assert api.get("/slips").json["items"] == [] and api.balances()["cash"] == 10000


OPS = st.lists(
    st.tuples(
        st.sampled_from(["create", "update", "move", "delete", "budget", "rename", "recur", "unrecur", "undo"]),
        st.integers(min_value=0, max_value=50),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=8, suppress_health_check=WITH_FIXTURES)
@given(ops=OPS)
def test_replay_from_nothing_equals_the_ledger(local_env: str, ops: list[tuple[str, int]]) -> None:
    # Given a fresh ledger and a random sequence of every kind of write
    api = Client(f"replay-{uuid.uuid4().hex[:10]}")
    api.account("cash", 1_000_000)
    api.account("bank", 1_000_000, type="bank")
    slips: list[str] = []
    recurrences: list[str] = []
    for op, n in ops:
        if op == "create":
            reply = api.slip(date=f"2026-11-{1 + n % 28:02d}", kind="expense", amount=100 + n, account="cash")
            slips.append(reply.header("Location") or "")
        elif op in ("update", "move", "delete") and slips:
            where = slips[n % len(slips)]
            current = api.get(where)
            if current.status != 200:
                continue
            if op == "delete":
                api.delete(where, headers={"If-Match": current.etag})
                slips.remove(where)
                continue
            patch = {"amount": 1 + n} if op == "update" else {"date": f"2026-10-{1 + n % 28:02d}", "account": "bank"}
            changed = api.patch(where, patch, headers={"If-Match": current.etag})
            slips[slips.index(where)] = changed.header("Location") or where
        elif op == "budget":
            api.put(f"/budgets/2026-11/cat{n % 3}", {"limit": 1000 + n}, headers={"If-Match": "*"})
            api.put(f"/budgets/2026-11/cat{n % 3}", {"limit": 1000 + n})
        elif op == "rename":
            current = api.get("/accounts/cash")
            api.patch("/accounts/cash", {"name": f"cash {n}"}, headers={"If-Match": current.etag})
        elif op == "recur":
            made = api.post(
                "/recurrences",
                {"slip": {"kind": "expense", "amount": 10 + n, "account": "cash"},
                 "rule": {"freq": "monthly", "by_month_day": 1 + n % 28, "start": "2026-10-01"}},
            )  # fmt: skip
            recurrences.append(made.json["id"])
        elif op == "unrecur" and recurrences:
            gone = recurrences.pop(n % len(recurrences))
            api.delete(f"/recurrences/{gone}", headers={"If-Match": "*"})
        elif op == "undo":
            head = api.get("/changes", query={"since": "0", "limit": "1"}).json
            seq = max(1, head["knowledge"] - n % 3)
            api.post(f"/changes/{seq}/undo")  # may be refused (moved on, already undone): nothing changes then
    # When the journal is replayed from nothing
    entries, _ = all_changes(api)
    # Then it is the ledger: every slip, account, budget and recurrence, deletes included
    assert comparable(replay(entries)) == comparable(current_state(api, {"2026-11"}))
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))


def test_verify_checks_the_journal_against_the_ledger(api: Client, store: Store) -> None:
    # Given a ledger with a journal
    api.account("cash", 10000)
    api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash")
    # Then verify finds it consistent
    checked = api.post("/ledger/verify").json
    assert checked["ok"] is True and checked["journal"]["entries"] == 2 and checked["journal"]["mismatches"] == []


def test_if_match_star_applies_to_the_current_version_and_never_names_one_not_sent(api: Client) -> None:
    # Given a slip
    api.account("cash", 100_000)
    lunch = api.slip(date="2026-11-03", kind="expense", amount=100, account="cash")
    where = lunch.header("Location") or ""

    # When 12 PATCHes with If-Match: * run at once, each from its own process
    replies = fan_out(api.user or "", [("PATCH", where, {"amount": 200 + n}, {"If-Match": "*"}) for n in range(12)])
    statuses = [r.status for r in replies]
    # Then none is a 412 (the caller named no version): each applied, or 409 if it kept losing
    assert 412 not in statuses and set(statuses) <= {200, 409} and statuses.count(200) >= 1
    # And the journal holds exactly the ones that answered 200, in order, versions 2, 3, ...
    entries, _ = all_changes(api)
    updates = [c for e in entries for c in e["changes"] if c["op"] == "update"]
    assert [c["version"] for c in updates] == list(range(2, 2 + statuses.count(200)))
