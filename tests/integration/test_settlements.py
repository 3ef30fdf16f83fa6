"""Who paid, who owes (立替・精算) on DynamoDB Local: nets moved by the slips' own transactions, the
settlement view, settlements under If-Match, and verify/rebuild of the nets."""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import posting
from kakeibo.store import SharedLedger, Store
from tests import invariants
from tests.concurrently import fan_out
from tests.conftest import WITH_FIXTURES
from tests.events import Client
from tests.idempotency_records import ExpiredKeys

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 3000, "account": "cash", "category": "食費"}


class Household:
    """A shared ledger owned by its first member, the others editors (and viewers as asked)."""

    def __init__(self, *names: str, viewers: tuple[str, ...] = ()) -> None:
        tag = uuid.uuid4().hex[:8]
        self.users = {name: Client(f"{name}-{tag}") for name in (*names, *viewers)}
        owner = self.users[names[0]]
        self.id = owner.post("/ledgers", {"name": "山田家"}).json["id"]
        self.base = f"/ledgers/{self.id}"
        assert owner.post(f"{self.base}/accounts", {"id": "cash", "name": "現金", "type": "cash",
                                                     "opening_balance": 10**9}).status == 201  # fmt: skip
        for name in (*names[1:], *viewers):
            role = "viewer" if name in viewers else "editor"
            token = owner.post(f"{self.base}/invitations", {"role": role}).json["token"]
            assert self.users[name].post(f"/invitations/{token}/accept").status == 200

    def __getitem__(self, name: str) -> Client:
        return self.users[name]

    def uid(self, name: str) -> str:
        return self.users[name].user or ""

    def slip(self, who: str, **fields: Any) -> Any:
        return self[who].post(f"{self.base}/slips", {**LUNCH, **fields})

    def settlement(self, who: str | None = None) -> Any:
        reply = self[who or next(iter(self.users))].get(f"{self.base}/settlement")
        assert reply.status == 200, reply
        return reply

    def nets(self) -> dict[str, int]:
        return {m["user"]: m["net"] for m in self.settlement().json["members"]}

    def check(self, store: Store) -> None:
        assert invariants.check(store, SharedLedger(self.id)) == []
        owner = next(iter(self.users.values()))
        verified = owner.post(f"{self.base}/ledger/verify").json
        assert verified["ok"] is True, verified
        assert sum(self.nets().values()) == 0


def test_who_paid_moves_the_nets_and_a_settlement_brings_them_to_zero(local_env: str, store: Store) -> None:
    # Given Taro, Hanako and Jiro
    home = Household("taro", "hanako", "jiro")
    taro, hanako, jiro = home.uid("taro"), home.uid("hanako"), home.uid("jiro")
    # When Taro pays 3,001 yen for all three (equal) and Hanako 1,200 for her and Jiro
    made = home.slip("taro", amount=3001, paid_by=taro, shares="equal")
    assert made.status == 201, made
    assert made.json["shares_mode"] == "equal" and sum(made.json["shares"].values()) == 3001
    assert made.json["paid_by"] == taro
    assert home.slip("hanako", amount=1200, paid_by=hanako, shares={hanako: 200, jiro: 1000}).status == 201
    # Then each net is paid - share, summing to 0
    view = home.settlement()
    rows = {m["user"]: m for m in view.json["members"]}
    shares = made.json["shares"]
    assert rows[taro]["net"] == 3001 - shares[taro]
    assert rows[jiro]["net"] == -shares[jiro] - 1000 and rows[jiro]["member"] is True
    assert sum(r["net"] for r in rows.values()) == 0
    # And the suggested transfers settle everyone
    suggested = view.json["suggested"]
    assert suggested and all(s["amount"] > 0 for s in suggested)
    # When Jiro records paying the first suggestion under the settlement's ETag
    first = suggested[0]
    paid = home["jiro"].post(f"{home.base}/settlements", first, headers={"If-Match": view.etag or ""})
    assert paid.status == 201, paid
    assert paid.headers.get("ETag") == f'"{view.json["version"] + 1}"' or paid.etag == f'"{view.json["version"] + 1}"'
    # Then the nets moved by exactly that, still summing to 0, and the journal has the settlement
    after = home.nets()
    assert after[first["from"]] == rows[first["from"]]["net"] + first["amount"]
    changes = home["taro"].get(f"{home.base}/changes").json["changes"]
    assert changes[-1]["changes"][0]["type"] == "settlement"
    # And it is not undone (the opposite settlement is recorded instead)
    assert home["taro"].post(f"{home.base}/changes/{changes[-1]['seq']}/undo").status == 409
    # And an edit of the amount splits "equal" again, a delete moves the nets back exactly
    where = made.header("Location") or ""
    edited = home["taro"].patch(where, {"amount": 3300}, headers={"If-Match": made.etag or ""})
    assert edited.status == 200 and sum(edited.json["shares"].values()) == 3300, edited
    assert home["taro"].delete(where, headers={"If-Match": edited.etag or ""}).status == 204
    home.check(store)


def test_bad_who_paid_input_is_refused_naming_the_field_and_writes_nothing(local_env: str, store: Store) -> None:
    # Given Taro and Hanako, and Mika who only reads
    home = Household("taro", "hanako", viewers=("mika",))
    taro, hanako = home.uid("taro"), home.uid("hanako")
    head = home["taro"].get(f"{home.base}/changes").json["knowledge"]
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({"paid_by": "stranger"}, ["body", "paid_by"]),
        ({"paid_by": taro, "shares": {taro: 1000, "stranger": 2000}}, ["body", "shares", "stranger"]),
        ({"paid_by": taro, "shares": {taro: 1000, hanako: 1000}}, ["body", "shares"]),
        ({"paid_by": taro, "shares": {taro: 4000, hanako: -1000}}, ["body", "shares"]),
        ({"shares": "equal"}, ["body", "paid_by"]),
        ({"paid_by": taro, "kind": "income"}, ["body", "paid_by"]),
        ({"paid_by": taro, "shares": "half"}, ["body", "shares"]),
    ]
    for extra, loc in cases:
        # When a slip says so
        refused = home.slip("taro", **extra)
        # Then 422 naming the field
        assert refused.status == 422, (extra, refused)
        locs = [e["loc"] for e in refused.json["errors"]]
        assert any(found[: len(loc)] == loc for found in locs), (extra, locs)
    # And the personal ledger has nobody to owe
    me = home["taro"]
    me.account("wallet", 10_000)
    personal = me.slip(**{**LUNCH, "account": "wallet", "paid_by": taro})
    assert personal.status == 422 and personal.json["errors"][0]["loc"] == ["body", "paid_by"], personal
    # And a viewer may neither write one nor settle
    assert home.slip("mika", paid_by=taro).status == 403
    settle = {"from": hanako, "to": taro, "amount": 1}
    assert home["mika"].post(f"{home.base}/settlements", settle, headers={"If-Match": '"0"'}).status == 403
    # And settlements refuse what makes no sense
    assert home["taro"].post(f"{home.base}/settlements", settle).status == 428
    for body, field in (({**settle, "to": hanako}, "to"), ({**settle, "from": "stranger"}, "from")):
        reply = home["taro"].post(f"{home.base}/settlements", body, headers={"If-Match": '"0"'})
        assert reply.status == 422 and reply.json["errors"][0]["loc"] == ["body", field], reply
    nothing = home["taro"].post(f"{home.base}/settlements", {**settle, "amount": 0}, headers={"If-Match": '"0"'})
    assert nothing.status == 422 and nothing.json["errors"][0]["loc"] == ["body", "amount"], nothing
    assert me.get("/ledgers/me/settlement").status == 404
    # And nothing was written
    assert home["taro"].get(f"{home.base}/changes").json["knowledge"] == head
    assert home.settlement().json["version"] == 0
    home.check(store)


def test_two_settlements_on_one_etag_only_one_succeeds(local_env: str, store: Store) -> None:
    # Given Hanako owes Taro 1,500
    home = Household("taro", "hanako")
    taro, hanako = home.uid("taro"), home.uid("hanako")
    assert home.slip("taro", amount=3000, paid_by=taro, shares="equal").status == 201
    view = home.settlement()
    body = {"from": hanako, "to": taro, "amount": 1500}

    # When both record the same payment at once, from the same view, each from its own process
    settle = ("POST", f"{home.base}/settlements", body, {"If-Match": view.etag or ""})
    statuses = [r.status for r in fan_out(taro, [settle, settle], users=[taro, hanako])]
    # Then exactly one is recorded, the other told the nets moved on
    assert sorted(statuses) == [201, 412], statuses
    assert home.nets() == {taro: 0, hanako: 0}
    home.check(store)


def test_eight_writers_sharing_at_once_keep_the_nets_exact(local_env: str, store: Store) -> None:
    # Given eight members
    names = [f"m{i}" for i in range(8)]
    home = Household(*names)
    ids = [home.uid(n) for n in names]
    statuses: list[int] = []

    # When each of them records three shared expenses, the eight at the same time (own processes)
    for j in range(3):
        requests = []
        for i in range(8):
            shares: Any = "equal" if j % 2 == 0 else {ids[i]: 100 * (j + 1), ids[(i + 1) % 8]: 50}
            amount = 1000 + i if j % 2 == 0 else 100 * (j + 1) + 50
            slip = {**LUNCH, "amount": amount, "paid_by": ids[(i + j) % 8], "shares": shares}
            requests.append(("POST", f"{home.base}/slips", slip, None))
        statuses += [r.status for r in fan_out(ids[0], requests, users=ids)]
    # Then every one is in, and the nets are exactly what the slips say
    assert statuses == [201] * 24, statuses
    home.check(store)


def test_a_member_who_leaves_owing_keeps_their_net_until_settled(local_env: str, store: Store) -> None:
    # Given Taro paid 2,000 for himself and Jiro
    home = Household("taro", "jiro")
    taro, jiro = home.uid("taro"), home.uid("jiro")
    assert home.slip("taro", amount=2000, paid_by=taro, shares="equal").status == 201
    # When Jiro leaves the ledger
    member = home["taro"].get(f"{home.base}").json["members"]
    version = next(m["version"] for m in member if m["user"] == jiro)
    left = home["taro"].delete(f"{home.base}/members/{jiro}", headers={"If-Match": f'"{version}"'})
    assert left.status == 204, left
    # Then the settlement still shows what he owes, as a former member
    rows = {m["user"]: m for m in home.settlement().json["members"]}
    assert rows[jiro] == {"user": jiro, "member": False, "paid": 0, "share": 1000, "settled": 0, "net": -1000}
    assert home.settlement().json["suggested"] == [{"from": jiro, "to": taro, "amount": 1000}]
    # And a new slip may not name him
    refused = home.slip("taro", paid_by=taro, shares={taro: 1500, jiro: 1500})
    assert refused.status == 422 and refused.json["errors"][0]["loc"] == ["body", "shares", jiro], refused
    # And equal shares are among the members there are now
    alone = home.slip("taro", paid_by=taro, shares="equal")
    assert alone.status == 201 and alone.json["shares"] == {taro: 3000}, alone
    # And his debt can still be settled
    view = home.settlement()
    paid = home["taro"].post(f"{home.base}/settlements", {"from": jiro, "to": taro, "amount": 1000},
                             headers={"If-Match": view.etag or ""})  # fmt: skip
    assert paid.status == 201, paid
    assert home.nets() == {taro: 0}  # settled: a former member with nothing left is no longer listed
    home.check(store)


def test_verify_finds_tampered_nets_and_rebuild_repairs_them(local_env: str, store: Store) -> None:
    # Given a shared expense, and nets changed behind the API's back
    home = Household("taro", "hanako")
    taro, hanako = home.uid("taro"), home.uid("hanako")
    assert home.slip("taro", amount=3000, paid_by=taro, shares="equal").status == 201
    seen = home.settlement().json["version"]
    store.core.client.update_item(
        TableName=store.core.table,
        Key={"PK": {"S": f"HOUSEHOLD#{home.id}"}, "SK": {"S": "OWE"}},
        UpdateExpression="ADD #s :n",
        ExpressionAttributeNames={"#s": f"s#{hanako}"},
        ExpressionAttributeValues={":n": {"N": "7"}},
    )
    # When verify runs, Then it names the field and the sum
    verified = home["taro"].post(f"{home.base}/ledger/verify").json
    found = {(m["item"], m["field"]) for m in verified["mismatches"]}
    assert verified["ok"] is False and {("OWE", f"s#{hanako}"), ("OWE", "sum")} <= found, verified
    # When the owner rebuilds, Then the nets are right again and their version moved on
    rebuilt = home["taro"].post(f"{home.base}/ledger/rebuild")
    assert rebuilt.status == 200, rebuilt
    assert home.settlement().json["version"] > seen
    home.check(store)


def test_undo_brings_back_who_paid_and_the_shares(local_env: str, store: Store) -> None:
    # Given a custom split, changed to nobody paying
    home = Household("taro", "hanako")
    taro, hanako = home.uid("taro"), home.uid("hanako")
    made = home.slip("taro", amount=3000, paid_by=taro, shares={taro: 1000, hanako: 2000})
    changed = home["taro"].patch(made.header("Location") or "", {"paid_by": None}, headers={"If-Match": made.etag})
    assert changed.status == 200 and "paid_by" not in changed.json, changed
    assert home.nets() == {taro: 0, hanako: 0}
    # When the change is undone
    seq = home["taro"].get(f"{home.base}/changes").json["knowledge"]
    assert home["taro"].post(f"{home.base}/changes/{seq}/undo").status == 200
    # Then the slip and the nets are as before
    assert home.nets() == {taro: 2000, hanako: -2000}
    home.check(store)


MODES = st.sampled_from(["equal", "custom", "none"])
EDIT = st.one_of(
    st.tuples(st.just("patch"), st.integers(1, 20_000), st.integers(0, 2), MODES),
    st.tuples(st.just("delete"), st.just(0), st.just(0), st.just("none")),
    st.tuples(st.just("settle"), st.integers(1, 5000), st.integers(0, 2), st.just("none")),
)


@settings(max_examples=8, deadline=None, suppress_health_check=WITH_FIXTURES)
@given(
    firsts=st.lists(st.tuples(st.integers(1, 20_000), st.integers(0, 2)), min_size=1, max_size=3),
    edits=st.lists(st.tuples(st.integers(0, 2), EDIT), max_size=6),
)
def test_nets_equal_the_slips_after_random_shares_edits_and_deletes(
    local_env: str, store: Store, firsts: list[tuple[int, int]], edits: list[Any]
) -> None:
    # Given three members and a few shared expenses
    home = Household("a", "b", "c")
    ids = [home.uid(n) for n in ("a", "b", "c")]
    slips: list[tuple[str, str] | None] = []
    for amount, payer in firsts:
        made = home.slip("a", amount=amount, paid_by=ids[payer], shares="equal")
        assert made.status == 201, made
        slips.append((made.header("Location") or "", made.etag or ""))
    # When they are edited, deleted and settled in any order
    for index, (op, amount, who, mode) in edits:
        target = slips[index % len(slips)]
        if op == "settle":
            view = home.settlement()
            body = {"from": ids[who], "to": ids[(who + 1) % 3], "amount": amount}
            reply = home["b"].post(f"{home.base}/settlements", body, headers={"If-Match": view.etag or ""})
            assert reply.status == 201, reply
            continue
        if target is None:
            continue
        where, etag = target
        if op == "delete":
            assert home["c"].delete(where, headers={"If-Match": etag}).status == 204
            slips[index % len(slips)] = None
            continue
        patch: dict[str, Any] = {"amount": amount}
        if mode == "equal":
            patch.update(paid_by=ids[who], shares="equal")
        elif mode == "custom":
            patch.update(paid_by=ids[who], shares={ids[who]: amount // 3, ids[(who + 2) % 3]: amount - amount // 3})
        else:
            patch.update(paid_by=None)
        changed = home["b"].patch(where, patch, headers={"If-Match": etag})
        assert changed.status == 200, (patch, changed)
        slips[index % len(slips)] = (changed.header("Location") or "", changed.etag or "")
    # Then the nets sum to 0 and are exactly what the slips and settlements say
    home.check(store)


def test_the_largest_shared_split_change_fits_its_documented_bound(local_env: str, store: Store) -> None:
    # Given a cleared split of the most lines, paid by Taro for both, every line with a subcategory
    home = Household("hanako", "taro")
    taro, hanako = home.uid("taro"), home.uid("hanako")
    assert home["hanako"].post(f"{home.base}/accounts", {"id": "card", "name": "card", "type": "credit"}).status == 201
    n = posting.MAX_LINES
    lines = [{"amount": 100, "category": f"old{i}", "subcategory": f"s{i}"} for i in range(n)]
    made = home.slip(
        "taro", date="2026-12-31", amount=100 * n, category=None, lines=lines, paid_by=taro, cleared="cleared"
    )
    assert made.status == 201, made
    sizes: list[int] = []
    store.core.client.meta.events.register(
        "provide-client-params.dynamodb.TransactWriteItems",
        lambda params, **kw: sizes.append(len(params["TransactItems"])),
    )
    # When Hanako moves it to another account, day, month and year, new categories, she paid, custom shares
    new_lines = [{"amount": 100, "category": f"new{i}", "subcategory": f"t{i}"} for i in range(n)]
    patch = {"date": "2027-01-01", "account": "card", "lines": new_lines, "paid_by": hanako,
             "shares": {taro: 100, hanako: 100 * n - 100}}  # fmt: skip
    moved = home["hanako"].patch(made.header("Location") or "", patch, headers={"If-Match": made.etag or ""})
    # Then it is one transaction no larger than the documented bound
    assert moved.status == 200, moved
    assert sizes and max(sizes) <= posting.worst_case_items(n) <= 100 - posting.RESERVED_ITEMS, sizes
    home.check(store)


def test_a_settlement_retried_with_its_idempotency_key_is_recorded_once(local_env: str, store: Store) -> None:
    # Given Hanako owes Taro 1,500, and the settlement's ETag
    home = Household("taro", "hanako")
    taro, hanako = home.uid("taro"), home.uid("hanako")
    assert home.slip("taro", amount=3000, paid_by=taro, shares="equal").status == 201
    etag = home.settlement().etag or ""
    body = {"from": hanako, "to": taro, "amount": 1500}
    headers = {"If-Match": etag, "Idempotency-Key": "paid-back-1"}
    keys = ExpiredKeys(store)
    # When Hanako records that she paid, and sends it again (the first answer was lost)
    first = home["hanako"].post(f"{home.base}/settlements", body, headers=headers)
    again = home["hanako"].post(f"{home.base}/settlements", body, headers=headers)
    # Then the retry gets the same settlement, not a 412, and it counted once
    assert first.status == again.status == 201, (first, again)
    assert again.json == first.json
    assert home.nets() == {taro: 0, hanako: 0}
    # And after the key's record expired, the key still answers its settlement (not 412), and another
    # body with it is refused
    keys.expire()
    later = home["hanako"].post(f"{home.base}/settlements", body, headers=headers)
    assert later.status == 201 and later.json == first.json, later
    reused = home["hanako"].post(f"{home.base}/settlements", {**body, "amount": 1499}, headers=headers)
    assert reused.status == 422 and reused.json["code"] == "idempotency_key_reused", reused
    # And without the key the same stale request is refused: the nets moved on
    stale = home["hanako"].post(f"{home.base}/settlements", body, headers={"If-Match": etag})
    assert stale.status == 412, stale
    # And one journal entry records it
    entries = home["hanako"].get(f"{home.base}/changes").json["changes"]
    assert [c["type"] for e in entries for c in e["changes"]].count("settlement") == 1
    home.check(store)


def _edit(home: Household, who: str, location: str, patch: dict[str, Any]) -> Any:
    current = home[who].get(location)
    edited = home[who].patch(location, patch, headers={"If-Match": current.etag or ""})
    assert edited.status == 200, edited
    return edited.json


def test_equal_shares_stay_among_the_members_of_the_day_the_slip_was_written(local_env: str, store: Store) -> None:
    # Given Taro paid 900 for himself and Hanako, shared equally (450 each)
    home = Household("taro", "hanako", "jiro")
    taro, hanako, jiro = home.uid("taro"), home.uid("hanako"), home.uid("jiro")
    member = home["taro"].get(home.base).json["members"]
    version = next(m["version"] for m in member if m["user"] == jiro)
    assert home["taro"].delete(f"{home.base}/members/{jiro}", headers={"If-Match": f'"{version}"'}).status == 204
    dinner = home.slip("taro", amount=900, paid_by=taro, shares="equal")
    assert dinner.json["shares"] == {taro: 450, hanako: 450}, dinner.json
    location = dinner.header("Location") or ""
    # When Jiro joins afterwards and the memo alone is edited
    token = home["taro"].post(f"{home.base}/invitations", {"role": "editor"}).json["token"]
    assert home["jiro"].post(f"/invitations/{token}/accept").status == 200
    edited = _edit(home, "hanako", location, {"memo": "誕生日"})
    # Then nobody's share changed: Jiro owes nothing for a dinner from before he joined
    assert edited["shares"] == {taro: 450, hanako: 450}
    assert home.nets() == {taro: 450, hanako: -450, jiro: 0}
    # And a new amount is split again among the slip's own sharers
    assert _edit(home, "taro", location, {"amount": 1000})["shares"] == {taro: 500, hanako: 500}
    # And only a request that sends shares splits it among today's members
    resplit = _edit(home, "taro", location, {"shares": "equal"})["shares"]
    assert set(resplit) == {taro, hanako, jiro} and sorted(resplit.values()) == [333, 333, 334]
    home.check(store)


def test_equal_shares_keep_a_member_who_left_after_the_slip_was_written(local_env: str, store: Store) -> None:
    # Given Taro paid 900 for himself, Hanako and Jiro (300 each)
    home = Household("taro", "hanako", "jiro")
    taro, hanako, jiro = home.uid("taro"), home.uid("hanako"), home.uid("jiro")
    dinner = home.slip("taro", amount=900, paid_by=taro, shares="equal")
    location = dinner.header("Location") or ""
    # When Jiro leaves and the memo of that slip is edited
    member = home["taro"].get(home.base).json["members"]
    version = next(m["version"] for m in member if m["user"] == jiro)
    assert home["taro"].delete(f"{home.base}/members/{jiro}", headers={"If-Match": f'"{version}"'}).status == 204
    edited = _edit(home, "taro", location, {"memo": "送別会"})
    # Then Jiro still owes his 300 of it: nothing moved onto the others
    assert edited["shares"] == {taro: 300, hanako: 300, jiro: 300}
    assert home.nets() == {taro: 600, hanako: -300, jiro: -300}
    home.check(store)


def test_a_dollar_expense_is_shared_and_owed_in_its_yen(local_env: str, store: Store) -> None:
    # Given a shared ledger with a dollar card, and Taro paying $12.34 (¥1,850) for himself and Hanako
    home = Household("taro", "hanako")
    taro, hanako = home.uid("taro"), home.uid("hanako")
    usd = {"id": "usd", "name": "ドル", "type": "credit", "unit": "USD", "allow_negative": True}
    assert home["taro"].post(f"{home.base}/accounts", usd).status == 201
    dollars = {"account": "usd", "amount": 1234, "jpy_amount": 1850, "paid_by": taro}
    # When it is shared equally
    made = home.slip("taro", **dollars, shares="equal")
    # Then the shares are the yen, and the nets move by it: Hanako owes Taro ¥925
    assert made.status == 201, made
    assert made.json["shares"] == {taro: 925, hanako: 925}
    assert home.nets() == {taro: 925, hanako: -925}
    # And custom shares must sum to the yen, not to the cents (422 naming shares, nothing written)
    refused = home.slip("taro", **dollars, shares={taro: 617, hanako: 617})
    assert refused.status == 422 and refused.json["errors"][0]["loc"] == ["body", "shares"], refused
    assert home.slip("taro", **dollars, shares={taro: 850, hanako: 1000}).status == 201
    assert home.nets() == {taro: 925 + 1000, hanako: -925 - 1000}
    home.check(store)
