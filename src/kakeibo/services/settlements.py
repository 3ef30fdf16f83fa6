"""Who paid, who owes (立替・精算): a slip's paid_by and shares resolved among the ledger's members,
the settlement view, and recorded settlements.

A slip of a shared ledger may say who paid from their own pocket (`paid_by`) and each member's
burden (`shares`: "equal" or per member). Both are resolved here, at write time, against the members
read now: "equal" splits the amount among every member (any role), the yen that do not divide going
to the first in user order, and is stored with its mode, so an edit of the amount splits it again the
same way among the same people (the members of the day it was written, not of the day it is
edited). The slip's own transaction moves the ledger's nets (posting.effects) and checks that nobody
it names has left meanwhile (store.roster_check_op).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any

from kakeibo import errors
from kakeibo.core import posting, settle
from kakeibo.core.posting import Entry, Settlement
from kakeibo.models.ledgers import SettlementIn
from kakeibo.models.slips import SlipIn
from kakeibo.services.common import new_token, now_iso
from kakeibo.store import Change, Item, SharedLedger, Store, TxOp, WriteContext

EQUAL, CUSTOM = "equal", "custom"


@dataclass(frozen=True)
class Sharing:
    """A slip's who-paid-for-whom, resolved: the amounts (members with a non-zero share, in user
    order), the mode they came from, and the check that keeps them among members at commit."""

    paid_by: str
    shares: tuple[tuple[str, int], ...]
    mode: str
    check: TxOp

    def apply(self, entry: Entry) -> Entry:
        return replace(entry, paid_by=self.paid_by, shares=self.shares)

    def fields(self) -> dict[str, Any]:
        """What the slip item stores."""
        return {"paid_by": self.paid_by, "shares": dict(self.shares), "shares_mode": self.mode}


def _refused(field: list[str], message: str) -> errors.ApiError:
    return errors.ValidationFailed(message, errors=[{"loc": ["body", *field], "msg": message}])


def sharing(
    store: Store,
    ctx: WriteContext,
    body: SlipIn,
    *,
    mode: str | None = None,
    kept: Item | None = None,
    reshare: bool = True,
) -> Sharing | None:
    """The slip's paid_by and shares resolved among the ledger's members now (None: it names none).
    `mode` keeps the mode a restored slip had (its shares are given as amounts).

    `kept` is the slip as stored, when it is being changed: unless the request itself sends `shares`
    (`reshare`), "equal" stays the split among the slip's own sharers — the members of the day it was
    written — so an edit of its memo changes nobody's share, and a new amount is split again among
    them, not among whoever is a member today. People the slip already names may have left since;
    only the ones a change newly names must be members now."""
    if body.paid_by is None and body.shares is None:
        return None
    if not ctx.shared:
        raise _refused(["paid_by"], "paid_by and shares are for shared ledgers: a personal ledger has nobody to owe")
    if body.paid_by is None:
        raise _refused(["paid_by"], "shares need paid_by: who paid for them")
    if body.kind != "expense":
        raise _refused(["paid_by"], "only an expense can say who paid for it")
    roster = store.settlements.roster(str(ctx.ledger))
    named = _named(kept)
    if body.paid_by not in roster.members and body.paid_by not in named:
        raise _refused(["paid_by"], f"'{body.paid_by}' is not a member of this ledger")
    shares = body.shares if body.shares is not None else EQUAL
    # shares are yen, as the nets are: a slip in another unit is shared by its jpy_amount
    total = body.amount if body.jpy_amount is None else body.jpy_amount
    if isinstance(shares, str):  # "equal"
        among: list[str] = sorted(roster.members)
        if kept is not None and not reshare and kept.get("shares_mode") == EQUAL and kept.get("shares"):
            among = sorted(str(user) for user in kept["shares"])
        amounts = settle.equal_shares(total, among)
    else:
        for user in sorted(shares):
            if user not in roster.members and user not in named:
                raise _refused(["shares", user], f"'{user}' is not a member of this ledger")
        given = sum(shares.values())
        if given != total and body.jpy_amount is None:
            raise _refused(["shares"], f"the shares sum to {given}, not the slip's amount {total}")
        if given != total:
            raise _refused(["shares"], f"the shares sum to {given}, not the slip's yen (jpy_amount) {total}")
        amounts = dict(shares)
    return Sharing(
        body.paid_by,
        tuple(sorted((user, amount) for user, amount in amounts.items() if amount)),
        mode or (EQUAL if isinstance(shares, str) else CUSTOM),
        store.settlements.roster_check_op(str(ctx.ledger), roster.departures),
    )


def _named(item: Item | None) -> set[str]:
    """The people a stored slip names: its payer and its sharers."""
    if item is None or not item.get("paid_by"):
        return set()
    return {str(item["paid_by"]), *(str(user) for user in item.get("shares") or {})}


def sharing_of(item: Item) -> dict[str, Any]:
    """A slip item's paid_by and shares as a request body gives them ("equal" stays "equal")."""
    if not item.get("paid_by"):
        return {}
    shares: Any = EQUAL if item.get("shares_mode") == EQUAL else {k: int(v) for k, v in item["shares"].items()}
    return {"paid_by": item["paid_by"], "shares": shares}


# ---- the settlement ---------------------------------------------------------------------------


def _shared(ctx_ledger: str) -> None:
    """Settlements are a shared ledger's: the personal ledger has nobody to settle with."""
    if not isinstance(ctx_ledger, SharedLedger):
        raise errors.NotFound("not found")


def settlement(store: Store, ledger: str) -> dict[str, Any]:
    """GET /ledgers/{ledger}/settlement: each member's paid, share, settled and net, and the fewest
    transfers that settle them all. A member who left stays listed (`member: false`) while their net
    is not 0, and may be settled with; once settled they are no longer listed."""
    _shared(ledger)
    item = store.settlements.nets(ledger) or {}
    members = store.settlements.roster(str(ledger)).members
    nets = posting.nets_of({k: int(v) for k, v in item.items() if posting.is_net_field(k)})
    users = sorted(set(members) | {user for user, n in nets.items() if n["net"]})  # former: while they owe/are owed
    zero = {"paid": 0, "share": 0, "settled": 0, "net": 0}
    listed: list[dict[str, Any]] = [{"user": user, "member": user in members, **nets.get(user, zero)} for user in users]
    transfers = settle.fewest_transfers({user: nets.get(user, zero)["net"] for user in users})
    return {
        "members": listed,
        "suggested": [{"from": t.payer, "to": t.payee, "amount": t.amount} for t in transfers],
        "version": int(item.get("version", 0)),
    }


def settlement_view(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "from": item["payer"],
        "to": item["payee"],
        "amount": int(item["amount"]),
        "at": item["at"],
        "by": item["by"],
        "version": int(item["version"]),
    }


def _recorded(item: Item, body: SettlementIn) -> dict[str, Any]:
    """The settlement an Idempotency-Key already recorded, for the same request; another body -> 422."""
    if (item["payer"], item["payee"], int(item["amount"])) != (body.from_, body.to, body.amount):
        raise errors.IdempotencyKeyReused("this Idempotency-Key recorded another settlement; use a new key")
    return settlement_view(item)


def record_settlement(
    store: Store, ctx: WriteContext, body: SettlementIn, *, expected: int | None, token: str | None = None
) -> dict[str, Any]:
    """POST /ledgers/{ledger}/settlements under If-Match (the settlement's version): `from` paid `to`.
    One transaction, conditioned on the nets being at the version the caller saw: two members
    settling on the same view cannot both succeed (412 for the second)."""
    _shared(ctx.ledger)
    payer, payee = body.from_, body.to
    if payer == payee:
        raise _refused(["to"], "from and to must be two different people")
    settlement_id = hashlib.sha256((token or new_token()).encode()).hexdigest()[:26].upper()
    if token is not None and (recorded := store.settlements.settlement(ctx.ledger, settlement_id)) is not None:
        return _recorded(recorded, body)  # this key's settlement, recorded before its answer was lost
    item = store.settlements.nets(ctx.ledger) or {}
    seen = int(item.get("version", 0))
    if expected is not None and expected != seen:
        raise errors.VersionMismatch(f"the version is {seen}, not {expected}", current=seen, expected=expected)
    roster = store.settlements.roster(str(ctx.ledger))
    owed = posting.nets_of({k: int(v) for k, v in item.items() if posting.is_net_field(k)})
    for field, user in (("from", payer), ("to", payee)):
        if user not in roster.members and not owed.get(user, {}).get("net"):
            raise _refused([field], f"'{user}' is not a member of this ledger")
    at = now_iso()
    record: Item = {
        "type": "settlement",
        "id": settlement_id,
        "payer": payer,
        "payee": payee,
        "amount": body.amount,
        "at": at,
        "by": ctx.actor,
        "version": seen + 1,
    }
    view = settlement_view(record)
    store.settlements.record_settlement(
        ctx,
        record,
        Settlement(payer, payee, body.amount),
        seen=seen,
        departures=roster.departures,
        changes=[Change("settlement", settlement_id, "create", seen + 1, None, view)],
        token=token,
    )
    return view


__all__ = ["CUSTOM", "EQUAL", "Sharing", "record_settlement", "settlement", "sharing", "sharing_of"]
