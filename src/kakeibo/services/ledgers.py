"""Ledgers: the caller's personal ledger (`me`) and the shared household ledgers they belong to.

The personal ledger is the caller's JWT `sub`: they own it, alone, implicitly (it has no member
items and cannot be renamed). A shared ledger has an id of its own (a ULID) and members with roles:
owner (everything), editor (slips, accounts, budgets, imports, recurrences), viewer (reads). A
non-member is told nothing: every answer about a ledger they are not in is 404.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from typing import Any

from kakeibo import errors
from kakeibo.core.ids import new_slip_id
from kakeibo.models.ledgers import InvitationIn, LedgerIn, LedgerPatch, MemberIn
from kakeibo.services.access import (
    MEMBERS,
    OWNERS,
    PERSONAL,
    Access,
    require_owner,
    resolve,
)
from kakeibo.services.common import check_version, now_iso, on_current
from kakeibo.store import Change, Item, SharedLedger, Store, WriteContext
from kakeibo.store.transactions import TxOp

TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{32}$")


def ledger_record(meta: Item | None) -> dict[str, Any] | None:
    return None if meta is None else {"id": meta["id"], "name": meta["name"], "version": int(meta["version"])}


def member_record(member: Item | None) -> dict[str, Any] | None:
    if member is None:
        return None
    return {"user": member["user"], "role": member["role"], "version": int(member["version"])}


def member_change(before: Item | None, after: Item | None) -> Change:
    old, new = member_record(before), member_record(after)
    return Change.between("member", str((new or old or {})["user"]), old, new)


def invitation_id(token: str) -> str:
    """An invitation as the journal names it: never its token (every member reads the journal)."""
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def create_ledger(
    store: Store, user: str, body: LedgerIn, *, ledger_id: str | None = None, request_id: str | None = None
) -> dict[str, Any]:
    ledger_id, stamp = ledger_id or new_slip_id(), now_iso()
    ctx = WriteContext.founding(ledger_id, user, request_id=request_id)
    owner = {"user": user, "role": "owner", "version": 1}
    changes = [
        Change.between("ledger", ledger_id, None, {"id": ledger_id, "name": body.name, "version": 1}),
        member_change(None, owner),
    ]
    meta = store.ledgers.create_ledger(ctx, body.name, now=stamp, changes=changes)
    return {"id": meta["id"], "name": meta["name"], "role": "owner", "version": int(meta["version"])}


def list_ledgers(store: Store, user: str) -> dict[str, Any]:
    """The personal ledger first (none once its person had their data deleted), then the shared ones
    in creation order, each with the caller's role."""
    items: list[dict[str, Any]] = []
    if store.deletion.read_person_tombstone(user) is None:
        items.append({"id": PERSONAL, "name": None, "role": "owner", "version": None})
    for membership in store.ledgers.memberships(user):
        meta = store.ledgers.ledger_meta(str(membership["ledger"]))
        if meta is None:
            continue
        items.append(
            {"id": meta["id"], "name": meta["name"], "role": membership["role"], "version": int(meta["version"])}
        )
    return {"items": items}


def get_ledger(store: Store, user: str, ledger: str) -> dict[str, Any]:
    access = resolve(store, user, ledger)
    if access.personal:
        owner = {"user": user, "role": "owner", "version": None}
        return {"id": PERSONAL, "name": None, "role": "owner", "members": [owner], "version": 1}
    meta = store.ledgers.ledger_meta(ledger)
    if meta is None:
        raise errors.NotFound("not found")
    members = [
        {"user": m["user"], "role": m["role"], "version": int(m["version"])} for m in store.ledgers.members(ledger)
    ]
    return {"id": ledger, "name": meta["name"], "role": access.role, "members": members,
            "version": int(meta["version"])}  # fmt: skip


def rename_ledger(
    store: Store, user: str, ledger: str, body: LedgerPatch, expected: int | None, *, request_id: str | None = None
) -> dict[str, Any]:
    access = resolve(store, user, ledger)
    require_owner(access)
    if access.personal:
        raise errors.PersonalLedger("the personal ledger has no name to change")
    ctx = WriteContext.member(ledger, user, OWNERS, request_id=request_id)

    def stale(current: Item | None) -> errors.ApiError:
        if current is None:
            return errors.NotFound("not found")
        if expected is None:
            return errors.ReadAgain()
        return errors.VersionMismatch(current=int(current["version"]), expected=expected)

    def attempt() -> dict[str, Any]:
        meta = store.ledgers.ledger_meta(ledger)
        if meta is None:
            raise errors.NotFound("not found")
        seen = check_version(int(meta["version"]), expected)
        after = {**meta, "name": body.name, "version": seen + 1}
        change = Change.between("ledger", ledger, ledger_record(meta), ledger_record(after))
        store.ledgers.rename_ledger(ctx, body.name, seen=seen, on_fail=stale, changes=[change], at=now_iso())
        return after

    meta = on_current(attempt)
    return {"id": ledger, "name": meta["name"], "role": access.role, "version": int(meta["version"])}


INVITATION_DAYS = 7


def invite(store: Store, user: str, ledger: str, body: InvitationIn) -> dict[str, Any]:
    """A one-time token that makes whoever accepts it (within a week) a member with `body.role`."""
    access = resolve(store, user, ledger)
    require_owner(access)
    if access.personal:
        raise errors.PersonalLedger("the personal ledger cannot be shared; create a shared ledger")
    now_ms = store.core.now_ms()
    expires_ms = now_ms + INVITATION_DAYS * 86_400_000
    token = secrets.token_urlsafe(24)
    expires_at = dt.datetime.fromtimestamp(expires_ms / 1000, dt.UTC).isoformat(timespec="seconds")
    record = {"id": invitation_id(token), "role": body.role, "created_by": user,
              "expires_at": expires_at.replace("+00:00", "Z")}  # fmt: skip
    store.ledgers.create_invitation(
        WriteContext.member(ledger, user, OWNERS),
        token,
        body.role,
        expires_at_ms=expires_ms,
        now=now_iso(),
        changes=[Change("invitation", record["id"], "create", 1, None, record)],
    )
    return {"token": token, "ledger": ledger, "role": body.role, "expires_at": expires_at.replace("+00:00", "Z")}


def accept(store: Store, user: str, token: str) -> dict[str, Any]:
    if not TOKEN_RE.match(token):
        raise errors.NotFound("not found")
    invite = store.ledgers.invitation(token)
    if invite is None:
        raise errors.NotFound("not found")
    ledger_id, inviter = str(invite["ledger"]), str(invite["created_by"])
    ctx = WriteContext.invited(ledger_id, user, inviter)
    member = {"user": user, "role": str(invite["role"]), "version": 1}
    try:
        return store.ledgers.accept_invitation(
            ctx, token, invite, now_ms=store.core.now_ms(), now=now_iso(), changes=[member_change(None, member)]
        )
    except (errors.NoLongerMember, errors.RoleRevoked):
        # an invitation is worth what its author is: one no longer an owner grants nothing
        raise errors.Gone("this invitation was already used or has expired") from None


def _shared(access: Access) -> None:
    if access.personal:
        raise errors.PersonalLedger("the personal ledger cannot be shared; create a shared ledger")


def change_role(
    store: Store, user: str, ledger: str, member: str, body: MemberIn, *, expected: int | None
) -> dict[str, Any]:
    """An owner changes a member's role (their own too, while another owner remains)."""
    access = resolve(store, user, ledger)
    require_owner(access)
    _shared(access)
    ctx = WriteContext.member(ledger, user, OWNERS)

    def attempt() -> Item:
        current = store.ledgers.member(ledger, member)
        if current is None:
            raise errors.NotFound("not found")
        check_version(int(current["version"]), expected)
        after = {**current, "role": body.role, "version": int(current["version"]) + 1}
        changes: list[Change] = [member_change(current, after)]
        also: list[TxOp] = []
        if current["role"] == "owner" and body.role != "owner":  # their webhooks stop with it
            hooks, also = _disabling(store, SharedLedger(ledger), member)
            changes += hooks
        return store.ledgers.change_role(
            ctx, current, body.role, expected=expected, changes=changes, at=now_iso(), also=also
        )

    changed = on_current(attempt)
    return {"user": member, "role": changed["role"], "version": int(changed["version"])}


def remove_member(store: Store, user: str, ledger: str, member: str, *, expected: int | None) -> None:
    """An owner removes a member, or a member leaves. The last owner can do neither."""
    access = resolve(store, user, ledger)
    if member != user:
        require_owner(access)
    _shared(access)
    ctx = WriteContext.member(ledger, user, OWNERS if member != user else MEMBERS)

    def attempt() -> None:
        current = store.ledgers.member(ledger, member)
        if current is None:
            raise errors.NotFound("not found")
        check_version(int(current["version"]), expected)
        hooks, also = _disabling(store, SharedLedger(ledger), member)  # their webhooks stop with it
        changes = [member_change(current, None), *hooks]
        store.ledgers.remove_member(ctx, current, expected=expected, changes=changes, at=now_iso(), also=also)

    on_current(attempt)


def _disabling(store: Store, ledger: str, member: str) -> tuple[list[Change], list[TxOp]]:
    """What disables the member's webhooks in the transaction that demotes or removes them: the
    webhooks' management is imported by those two alone (the ledger routes every request passes do
    not need it)."""
    from kakeibo.services.webhooks.manage import disabling  # noqa: PLC0415

    return disabling(store, ledger, member)
