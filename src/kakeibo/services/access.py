"""Who may reach a ledger, and with which role: the caller's personal ledger (`me`, theirs alone)
or a shared ledger they are a member of. A non-member is told nothing (404); a member whose role
may not do what they came to do is told so (403). Every route that reaches a ledger asks here
(routes/scope.py); the ledgers themselves are managed in services/ledgers.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kakeibo import errors
from kakeibo.store import Item, SharedLedger, Store, WriteContext

PERSONAL = "me"
# Who may do what (docs/architecture.md, Roles): reads are for every member; slips, accounts, budgets, imports and
# recurrences for owners and editors; the ledger itself (and its rebuild) for owners.
MEMBERS = ("owner", "editor", "viewer")
EDITORS = ("owner", "editor")
OWNERS = ("owner",)
SHARED_ID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


@dataclass(frozen=True)
class Access:
    """Whose ledger a request reaches and with which role."""

    ledger: str  # "me" or a shared ledger id, as the API names it
    role: str
    member: Item | None  # the caller's member item (None for the personal ledger)
    key: str  # the ledger as the store takes it: the owner's `sub`, or a SharedLedger
    user: str  # the caller
    roles: tuple[str, ...] = MEMBERS  # the roles that may do what the caller came to do

    @property
    def personal(self) -> bool:
        return self.ledger == PERSONAL

    def writer(self, *, request_id: str | None = None, origin: str = "api") -> WriteContext:
        """The caller's write context: on a shared ledger every transaction checks again, atomically,
        that they still hold one of the roles this was allowed to."""
        if self.personal:
            return WriteContext.personal(self.user, origin=origin, request_id=request_id)
        return WriteContext.member(self.ledger, self.user, self.roles, origin=origin, request_id=request_id)


def resolve(store: Store, user: str, ledger: str, *, fenced: bool = False) -> Access:
    """The caller's access to a ledger, read consistently. Not a member (or no such ledger): 404.

    A person who had their data deleted (DELETE /me) has no personal ledger from then on: their
    tombstone is read as a shared ledger's member item is (one consistent GetItem), and a `sub` is
    never given to anyone again (Cognito), so the ledger answers 404 to everything, as a deleted
    shared ledger does. `fenced`: what the caller came to do ends in a change (whose transaction
    meets the ledger's fence, store/write.py) or in a read of an item the deletion removes, never in
    an answer of its own: the tombstone is not read (a slip's create, change and delete)."""
    if ledger == PERSONAL:
        if not fenced and store.deletion.read_person_tombstone(user) is not None:
            raise errors.NotFound("not found")
        return Access(PERSONAL, "owner", None, user, user)
    member = store.ledgers.member(ledger, user) if SHARED_ID_RE.match(ledger) else None
    if member is None:
        raise errors.NotFound("not found")
    return Access(ledger, str(member["role"]), member, SharedLedger(ledger), user)


def open_ledger(
    store: Store, user: str, ledger: str, roles: tuple[str, ...] = MEMBERS, *, fenced: bool = False
) -> Access:
    """The caller's access to a ledger's data for something `roles` may do: 404 to a non-member,
    403 to a member whose role may not. Its `writer` carries the roles every write transaction
    checks again on the member item. `fenced`: as `resolve` takes it."""
    return permit(resolve(store, user, ledger, fenced=fenced), roles)


def permit(access: Access, roles: tuple[str, ...]) -> Access:
    """The access resolved, for something `roles` may do (403 to a member whose role may not): what
    `open_ledger` checks after its read, for a request that resolved the membership already."""
    if access.role not in roles:
        raise errors.Forbidden(_FORBIDDEN.get(roles, "your role in this ledger does not allow this"), role=access.role)
    return Access(access.ledger, access.role, access.member, access.key, access.user, roles)


_FORBIDDEN = {
    EDITORS: "a viewer of this ledger can read it but not change it",
    OWNERS: "only an owner of the ledger may do this",
}


def require_owner(access: Access) -> None:
    if access.role != "owner":
        raise errors.Forbidden("only an owner of the ledger may do this", role=access.role)
