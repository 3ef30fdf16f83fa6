"""Shared household ledgers as resources: create, list, read with members, rename (owner, If-Match).
A non-member learns nothing: every answer about a ledger they are not in is 404."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from kakeibo import errors
from kakeibo.models.ledgers import MemberIn
from kakeibo.services import ledgers
from kakeibo.store import Change, Store, WriteContext
from tests.events import Client


def _household(api: Client, name: str = "山田家") -> str:
    made = api.post("/ledgers", {"name": name})
    assert made.status == 201, made
    return str(made.json["id"])


def test_an_owner_creates_lists_reads_and_renames_a_ledger(api: Client, user: str) -> None:
    # When Hanako creates a household ledger
    made = api.post("/ledgers", {"name": "山田家"})
    # Then she owns it, at version 1, and it is where Location says
    assert made.status == 201, made
    ledger = made.json["id"]
    assert made.json == {"id": ledger, "name": "山田家", "role": "owner", "version": 1}
    assert made.etag == '"1"' and made.header("Location") == f"/ledgers/{ledger}"
    # And her ledgers are her personal one first, then the household
    listed = api.get("/ledgers").json["items"]
    assert listed == [
        {"id": "me", "name": None, "role": "owner", "version": None},
        {"id": ledger, "name": "山田家", "role": "owner", "version": 1},
    ]
    # And the ledger shows her as its only member, with an ETag
    read = api.get(f"/ledgers/{ledger}")
    assert read.status == 200 and read.etag == '"1"'
    owner = {"user": user, "role": "owner", "version": 1}
    assert read.json == {"id": ledger, "name": "山田家", "role": "owner", "members": [owner], "version": 1}
    # When she renames it without If-Match, with a stale one, then with the current one
    assert api.patch(f"/ledgers/{ledger}", {"name": "x"}).status == 428
    stale = api.patch(f"/ledgers/{ledger}", {"name": "x"}, headers={"If-Match": '"7"'})
    assert stale.status == 412 and stale.json["code"] == "version_mismatch" and stale.json["current"] == 1
    renamed = api.patch(f"/ledgers/{ledger}", {"name": "山田家（実家）"}, headers={"If-Match": '"1"'})
    # Then only the last one changes it
    assert renamed.status == 200 and renamed.etag == '"2"'
    assert api.get(f"/ledgers/{ledger}").json["name"] == "山田家（実家）"
    assert api.get("/ledgers").json["items"][1]["name"] == "山田家（実家）"


def test_the_personal_ledger_is_me(api: Client, user: str) -> None:
    read = api.get("/ledgers/me")
    assert read.status == 200
    assert read.json["members"] == [{"user": user, "role": "owner", "version": None}] and read.json["id"] == "me"
    refused = api.patch("/ledgers/me", {"name": "x"}, headers={"If-Match": read.etag or ""})
    assert refused.status == 409 and refused.json["code"] == "personal_ledger"


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "x" * 101}, {"name": "a", "owner": "b"}, {"name": 1}])
def test_a_bad_ledger_body_is_refused_and_creates_nothing(api: Client, body: dict[str, object]) -> None:
    assert api.post("/ledgers", body).status == 422
    assert [item["id"] for item in api.get("/ledgers").json["items"]] == ["me"]


def test_a_non_member_gets_404_for_every_ledger_and_id(api: Client, other_api: Client, user: str) -> None:
    # Given Hanako's household ledger
    ledger = _household(api)
    # When Bob, who is not a member, asks about it, or names Hanako's sub, or a forged id
    for target in (ledger, user, f"LEDGER#{user}", ledger.lower(), "0" * 26, "*", uuid.uuid4().hex):
        read = other_api.get(f"/ledgers/{target}")
        renamed = other_api.patch(f"/ledgers/{target}", {"name": "mine"}, headers={"If-Match": '"1"'})
        # Then it does not exist for him
        assert read.status == 404 and read.json["code"] == "not_found", target
        assert renamed.status == 404 and renamed.json["code"] == "not_found", target
    # And his own list shows only his personal ledger, and Hanako's is unchanged
    assert [item["id"] for item in other_api.get("/ledgers").json["items"]] == ["me"]
    assert api.get(f"/ledgers/{ledger}").json["name"] == "山田家"
    assert api.get(f"/ledgers/{ledger}").json["version"] == 1


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_only_an_owner_renames(api: Client, other_api: Client, store: Store, other_user: str, role: str) -> None:
    # Given Taro, a member of Hanako's ledger who is not an owner
    ledger = _household(api)
    _add(api, ledger, other_user, role)
    # Then he sees the ledger, its members and his role
    read = other_api.get(f"/ledgers/{ledger}")
    assert read.status == 200 and read.json["role"] == role
    assert {m["user"]: m["role"] for m in read.json["members"]} == {api.user: "owner", other_user: role}
    assert other_api.get("/ledgers").json["items"][1] == {"id": ledger, "name": "山田家", "role": role, "version": 1}
    # When he tries to rename it
    refused = other_api.patch(f"/ledgers/{ledger}", {"name": "太郎家"}, headers={"If-Match": '"1"'})
    # Then it is forbidden (he is a member: the ledger's existence is no secret to him), and nothing changed
    assert refused.status == 403 and refused.json["code"] == "forbidden" and refused.json["role"] == role
    assert other_api.get(f"/ledgers/{ledger}", headers={"Accept-Language": "ja"}).json["name"] == "山田家"
    ja = other_api.patch(f"/ledgers/{ledger}", {"name": "x"}, headers={"If-Match": '"1"', "Accept-Language": "ja"})
    assert ja.json["detail"] == "この家計簿のオーナーだけができる操作です"


def _add(api: Client, ledger: str, user: str, role: str) -> None:
    """`user` made a member with `role` (an invitation from the owner `api`, accepted)."""
    assert Client(user).post(f"/invitations/{_invite(api, ledger, role)}/accept").status == 200


def test_a_member_is_added_once(api: Client, store: Store, other_user: str) -> None:
    ledger = _household(api)
    _add(api, ledger, other_user, "editor")
    again = Client(other_user).post(f"/invitations/{_invite(api, ledger, 'viewer')}/accept")
    assert again.status == 409 and again.json["code"] == "already_exists"
    assert store.ledgers.member(ledger, other_user)["role"] == "editor"  # type: ignore[index]
    assert [m["ledger"] for m in store.ledgers.memberships(other_user)] == [ledger]


def _invite(api: Client, ledger: str, role: str = "editor") -> str:
    made = api.post(f"/ledgers/{ledger}/invitations", {"role": role})
    assert made.status == 201, made
    assert made.json["ledger"] == ledger and made.json["role"] == role and made.json["expires_at"].endswith("Z")
    return str(made.json["token"])


def test_an_invitation_makes_a_member_once(api: Client, other_api: Client, user: str, other_user: str) -> None:
    # Given Hanako's ledger and an invitation as editor
    ledger = _household(api)
    token = _invite(api, ledger)
    # When Taro accepts it
    accepted = other_api.post(f"/invitations/{token}/accept")
    # Then he is an editor of the ledger, on his list and on the member list
    assert accepted.status == 200 and accepted.json == {"ledger": ledger, "role": "editor"}
    assert other_api.get("/ledgers").json["items"][1]["id"] == ledger
    members = {m["user"]: m["role"] for m in api.get(f"/ledgers/{ledger}").json["members"]}
    assert members == {user: "owner", other_user: "editor"}
    # And the token is spent: for him and for anyone else
    again = other_api.post(f"/invitations/{token}/accept")
    assert again.status == 410 and again.json["code"] == "gone"
    assert Client(f"third-{uuid.uuid4().hex[:8]}").post(f"/invitations/{token}/accept").status == 410
    # And an unknown token does not exist
    assert other_api.post(f"/invitations/{'x' * 32}/accept").status == 404
    assert other_api.post("/invitations/short/accept").status == 404


def test_only_an_owner_invites(api: Client, other_api: Client, store: Store, other_user: str) -> None:
    ledger = _household(api)
    outsider = Client(f"outsider-{uuid.uuid4().hex[:8]}")
    assert outsider.post(f"/ledgers/{ledger}/invitations", {"role": "owner"}).status == 404
    _add(api, ledger, other_user, "editor")
    refused = other_api.post(f"/ledgers/{ledger}/invitations", {"role": "owner"})
    assert refused.status == 403 and refused.json["code"] == "forbidden"
    assert api.post("/ledgers/me/invitations", {"role": "viewer"}).status == 409
    assert api.post(f"/ledgers/{ledger}/invitations", {"role": "admin"}).status == 422


def test_an_expired_invitation_is_gone(api: Client, other_api: Client, store: Store, other_user: str) -> None:
    ledger = _household(api)
    token = "E" * 32
    owner = WriteContext.member(ledger, api.user or "", ("owner",))
    made = Change("invitation", "expired", "create", 1, None, {"role": "viewer"})
    store.ledgers.create_invitation(owner, token, "viewer", expires_at_ms=store.core.now_ms() - 1,
                            now="2026-11-21T09:00:00.000+09:00", changes=[made])  # fmt: skip
    refused = other_api.post(f"/invitations/{token}/accept")
    assert refused.status == 410 and refused.json["code"] == "gone"
    assert store.ledgers.member(ledger, other_user) is None


def test_a_member_accepting_again_is_told_so(api: Client, other_api: Client, store: Store, other_user: str) -> None:
    ledger = _household(api)
    first, second = _invite(api, ledger), _invite(api, ledger, "viewer")
    assert other_api.post(f"/invitations/{first}/accept").status == 200
    again = other_api.post(f"/invitations/{second}/accept")
    assert again.status == 409 and again.json["code"] == "already_exists"
    assert store.ledgers.member(ledger, other_user)["role"] == "editor"  # type: ignore[index]
    assert api.post(f"/invitations/{first}/accept").status == 410


def test_concurrent_accepts_of_one_token_make_one_member(api: Client, store: Store) -> None:
    # Given one invitation and eight people holding it
    ledger = _household(api)
    token = _invite(api, ledger)
    people = [Client(f"guest-{i}-{uuid.uuid4().hex[:8]}") for i in range(8)]

    # When they all accept it at once (the service called from eight threads: the handler in this
    # process answers one request at a time, as a Lambda instance does)
    def accept(person: Client) -> tuple[int, str]:
        try:
            ledgers.accept(store, person.user or "", token)
        except errors.ApiError as refused:
            return refused.status, refused.code
        return 200, "ok"

    with ThreadPoolExecutor(max_workers=8) as pool:
        replies = list(pool.map(accept, people))
    # Then exactly one became a member; every other was told the invitation is gone (or to retry)
    statuses = sorted(status for status, _ in replies)
    assert statuses.count(200) == 1 and all(s in (200, 410, 409) for s in statuses), replies
    assert all(code in ("gone", "conflict") for status, code in replies if status != 200), replies
    members = [m for m in store.ledgers.members(ledger) if m["role"] != "owner"]
    winner = next(c for c, (status, _) in zip(people, replies, strict=True) if status == 200)
    assert [m["user"] for m in members] == [winner.user]


def _join(api: Client, ledger: str, role: str) -> Client:
    guest = Client(f"{role}-{uuid.uuid4().hex[:8]}")
    assert guest.post(f"/invitations/{_invite(api, ledger, role)}/accept").status == 200
    return guest


def _members(api: Client, ledger: str) -> dict[str, tuple[str, int]]:
    return {m["user"]: (m["role"], m["version"]) for m in api.get(f"/ledgers/{ledger}").json["members"]}


def test_roles_change_with_if_match_and_a_ledger_keeps_an_owner(api: Client, user: str) -> None:
    # Given Hanako's ledger with Taro as editor
    ledger = _household(api)
    taro = _join(api, ledger, "editor")
    where = f"/ledgers/{ledger}/members/{taro.user}"
    # When Hanako makes him a viewer: without If-Match, stale, then current
    assert api.put(where, {"role": "viewer"}).status == 428
    assert api.put(where, {"role": "viewer"}, headers={"If-Match": '"5"'}).status == 412
    changed = api.put(where, {"role": "viewer"}, headers={"If-Match": '"1"'})
    # Then only the current one applies, and Taro's own list says so
    assert changed.status == 200 and changed.json == {"user": taro.user, "role": "viewer", "version": 2}
    assert changed.etag == '"2"'
    assert taro.get("/ledgers").json["items"][1]["role"] == "viewer"
    # And a viewer (or editor) cannot change roles, not even his own
    refused = taro.put(where, {"role": "owner"}, headers={"If-Match": '"2"'})
    assert refused.status == 403 and refused.json["code"] == "forbidden"
    # When Hanako, the only owner, demotes herself or leaves
    mine = f"/ledgers/{ledger}/members/{user}"
    demoted = api.put(mine, {"role": "editor"}, headers={"If-Match": '"1"'})
    left = api.delete(mine, headers={"If-Match": '"1"'})
    # Then both are refused: the ledger keeps its owner
    assert demoted.status == 409 and demoted.json["code"] == "last_owner"
    assert left.status == 409 and left.json["code"] == "last_owner"
    assert _members(api, ledger)[user] == ("owner", 1)
    # When she makes Taro an owner, she can step down
    assert api.put(where, {"role": "owner"}, headers={"If-Match": '"2"'}).status == 200
    assert api.put(mine, {"role": "viewer"}, headers={"If-Match": '"1"'}).status == 200
    assert _members(taro, ledger) == {user: ("viewer", 2), taro.user: ("owner", 3)}


def test_members_are_removed_by_an_owner_or_leave(api: Client, user: str) -> None:
    ledger = _household(api)
    taro, grandma = _join(api, ledger, "editor"), _join(api, ledger, "viewer")
    # A member cannot remove another
    refused = grandma.delete(f"/ledgers/{ledger}/members/{taro.user}", headers={"If-Match": '"1"'})
    assert refused.status == 403
    # A member leaves: the ledger is gone for him, as for any non-member
    assert taro.delete(f"/ledgers/{ledger}/members/{taro.user}", headers={"If-Match": '"1"'}).status == 204
    assert taro.get(f"/ledgers/{ledger}").status == 404
    assert [item["id"] for item in taro.get("/ledgers").json["items"]] == ["me"]
    assert taro.post(f"/ledgers/{ledger}/invitations", {"role": "owner"}).status == 404
    # An owner removes a member (If-Match: the member's version)
    assert api.delete(f"/ledgers/{ledger}/members/{grandma.user}", headers={"If-Match": '"9"'}).status == 412
    assert api.delete(f"/ledgers/{ledger}/members/{grandma.user}", headers={"If-Match": '"1"'}).status == 204
    assert grandma.get(f"/ledgers/{ledger}").status == 404
    assert api.delete(f"/ledgers/{ledger}/members/{grandma.user}", headers={"If-Match": '"1"'}).status == 404
    assert _members(api, ledger) == {user: ("owner", 1)}


def test_two_owners_demoting_each_other_at_once_leave_one_owner(api: Client, store: Store, user: str) -> None:
    # Given a ledger with two owners
    ledger = _household(api)
    taro = _join(api, ledger, "owner")

    # When each demotes the other at the same moment (the service called from two threads)
    def demote(pair: tuple[str, str]) -> int:
        try:
            ledgers.change_role(store, pair[0], ledger, pair[1], MemberIn(role="viewer"), expected=1)
        except errors.ApiError as refused:
            return refused.status
        return 200

    with ThreadPoolExecutor(max_workers=2) as pool:
        replies = list(pool.map(demote, [(user, taro.user or ""), (taro.user or "", user)]))
    # Then the ledger still has exactly one owner, and nothing answered 5xx
    assert all(status < 500 for status in replies)
    roles = [role for role, _ in _members(api if replies[0] == 200 else taro, ledger).values()]
    assert sorted(roles) == ["owner", "viewer"], (replies, roles)


def test_an_invitation_from_someone_no_longer_an_owner_grants_nothing(api: Client, user: str) -> None:
    # Given Hanako's invitation, then Hanako removed by Taro, a new owner
    ledger = _household(api)
    token = _invite(api, ledger, "viewer")
    taro = _join(api, ledger, "owner")
    assert taro.delete(f"/ledgers/{ledger}/members/{user}", headers={"If-Match": '"1"'}).status == 204
    # When someone accepts Hanako's invitation
    guest = Client(f"guest-{uuid.uuid4().hex[:8]}")
    refused = guest.post(f"/invitations/{token}/accept")
    # Then it is gone, and they are no member
    assert refused.status == 410 and refused.json["code"] == "gone"
    assert guest.get(f"/ledgers/{ledger}").status == 404
    # And an owner accepting their own invitation is told they are a member already
    own = _invite(taro, ledger)
    assert taro.post(f"/invitations/{own}/accept").status == 409
