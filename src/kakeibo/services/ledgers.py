"""Ledgers: the caller's personal ledger (`me`) and the shared household ledgers they belong to.

The personal ledger is the caller's JWT `sub`: they own it, alone, implicitly (it has no member
items and cannot be renamed). A shared ledger has an id of its own (a ULID) and members with roles:
owner (everything), editor (slips, accounts, budgets, imports, recurrences), viewer (reads). A
non-member is told nothing: every answer about a ledger they are not in is 404.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import secrets
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.models import InvitationIn, LedgerIn, LedgerPatch, MemberIn
from kakeibo.services.common import now_iso
from kakeibo.services.slips import new_slip_id
from kakeibo.store import Item, SharedLedger, Store

PERSONAL = "me"
# Who may do what (DESIGN §7): reads are for every member; slips, accounts, budgets, imports and
# recurrences for owners and editors; the ledger itself (and its rebuild) for owners.
MEMBERS = ("owner", "editor", "viewer")
EDITORS = ("owner", "editor")
OWNERS = ("owner",)
SHARED_ID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{32}$")


@dataclass(frozen=True)
class Access:
    """Whose ledger a request reaches and with which role."""

    ledger: str  # "me" or a shared ledger id, as the API names it
    role: str
    member: Item | None  # the caller's member item (None for the personal ledger)
    key: str  # the ledger as the store takes it: the owner's `sub`, or a SharedLedger with the caller

    @property
    def personal(self) -> bool:
        return self.ledger == PERSONAL


def resolve(store: Store, user: str, ledger: str) -> Access:
    """The caller's access to a ledger, read consistently. Not a member (or no such ledger): 404."""
    if ledger == PERSONAL:
        return Access(PERSONAL, "owner", None, user)
    member = store.member(ledger, user) if SHARED_ID_RE.match(ledger) else None
    if member is None:
        raise errors.NotFound("not found")
    return Access(ledger, str(member["role"]), member, SharedLedger(ledger, user))


def open_ledger(store: Store, user: str, ledger: str, roles: tuple[str, ...] = MEMBERS) -> Access:
    """The caller's access to a ledger's data for something `roles` may do: 404 to a non-member,
    403 to a member whose role may not. A shared ledger's store reference carries the caller and,
    for a write, the roles every write transaction checks again on the member item."""
    access = resolve(store, user, ledger)
    if access.role not in roles:
        raise errors.Forbidden(_FORBIDDEN.get(roles, "your role in this ledger does not allow this"), role=access.role)
    if access.personal or roles == MEMBERS:  # a read: nothing to check again
        return access
    return dataclasses.replace(access, key=SharedLedger(access.ledger, user, roles))


_FORBIDDEN = {
    EDITORS: "a viewer of this ledger can read it but not change it",
    OWNERS: "only an owner of the ledger may do this",
}


def require_owner(access: Access) -> None:
    if access.role != "owner":
        raise errors.Forbidden("only an owner of the ledger may do this", role=access.role)


def create_ledger(store: Store, user: str, body: LedgerIn) -> dict[str, Any]:
    meta = store.create_ledger(new_slip_id(), body.name, user, now=now_iso())
    return {"id": meta["id"], "name": meta["name"], "role": "owner", "version": int(meta["version"])}


def list_ledgers(store: Store, user: str) -> dict[str, Any]:
    """The personal ledger first, then the shared ones in creation order, each with the caller's role."""
    items: list[dict[str, Any]] = [{"id": PERSONAL, "name": None, "role": "owner", "version": None}]
    for membership in store.memberships(user):
        meta = store.ledger_meta(str(membership["ledger"]))
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
    meta = store.ledger_meta(ledger)
    if meta is None:
        raise errors.NotFound("not found")
    members = [{"user": m["user"], "role": m["role"], "version": int(m["version"])} for m in store.members(ledger)]
    return {"id": ledger, "name": meta["name"], "role": access.role, "members": members,
            "version": int(meta["version"])}  # fmt: skip


def rename_ledger(store: Store, user: str, ledger: str, body: LedgerPatch, expected: int | None) -> dict[str, Any]:
    access = resolve(store, user, ledger)
    require_owner(access)
    if access.personal:
        raise errors.Conflict("the personal ledger has no name to change")

    def stale(current: Item | None) -> errors.ApiError:
        if current is None:
            return errors.NotFound("not found")
        return errors.VersionMismatch(current=int(current["version"]), expected=expected)

    meta = store.rename_ledger(ledger, body.name, expected, stale)
    return {"id": ledger, "name": meta["name"], "role": access.role, "version": int(meta["version"])}


INVITATION_DAYS = 7


def invite(store: Store, user: str, ledger: str, body: InvitationIn) -> dict[str, Any]:
    """A one-time token that makes whoever accepts it (within a week) a member with `body.role`."""
    access = resolve(store, user, ledger)
    require_owner(access)
    if access.personal:
        raise errors.Conflict("the personal ledger cannot be shared; create a shared ledger")
    now_ms = store.now_ms()
    expires_ms = now_ms + INVITATION_DAYS * 86_400_000
    token = secrets.token_urlsafe(24)
    store.create_invitation(token, ledger, body.role, created_by=user, expires_at_ms=expires_ms, now=now_iso())
    expires_at = dt.datetime.fromtimestamp(expires_ms / 1000, dt.UTC).isoformat(timespec="seconds")
    return {"token": token, "ledger": ledger, "role": body.role, "expires_at": expires_at.replace("+00:00", "Z")}


def accept(store: Store, user: str, token: str) -> dict[str, Any]:
    if not TOKEN_RE.match(token):
        raise errors.NotFound("not found")
    return store.accept_invitation(token, user, now_ms=store.now_ms(), now=now_iso())


def _shared(access: Access) -> None:
    if access.personal:
        raise errors.Conflict("the personal ledger cannot be shared; create a shared ledger")


def change_role(
    store: Store, user: str, ledger: str, member: str, body: MemberIn, *, expected: int | None
) -> dict[str, Any]:
    """An owner changes a member's role (their own too, while another owner remains)."""
    access = resolve(store, user, ledger)
    require_owner(access)
    _shared(access)
    changed = store.change_role(ledger, member, body.role, by=user, expected=expected)
    return {"user": member, "role": changed["role"], "version": int(changed["version"])}


def remove_member(store: Store, user: str, ledger: str, member: str, *, expected: int | None) -> None:
    """An owner removes a member, or a member leaves. The last owner can do neither."""
    access = resolve(store, user, ledger)
    if member != user:
        require_owner(access)
    _shared(access)
    store.remove_member(ledger, member, by=user, expected=expected)
