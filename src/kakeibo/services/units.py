"""Accounts in other units than yen: what a slip must say in them (its yen, what a transfer
brought) and what a balance is worth in yen. The rules of units are core.units; this is where they
meet the accounts a slip names."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from kakeibo import errors
from kakeibo.core import units
from kakeibo.core.posting import Plan
from kakeibo.models.slips import SlipIn, check_tax
from kakeibo.store import Item, Store

DERIVED = "jpy_derived"  # a points slip's jpy_amount: its amount x point_value, made here
LOT_ACCOUNTS = "lot_accounts"  # on a slip: the points accounts whose lots it is in (services/points)
# a foreign slip whose jpy_amount was made here at the rate of an earlier slip (a reconciliation's
# adjustment, services/reconciliations): it repeats that rate, rounded, and gives none of its own
RATED = "jpy_rated"


@dataclass(frozen=True, slots=True)
class Unit:
    """An account's unit as stored (accounts stored before units are in yen)."""

    code: str = units.JPY
    point_value: int = 1

    @classmethod
    def of(cls, item: Item | None) -> Unit:
        if not item:
            return cls()
        return cls(str(item.get("unit") or units.JPY), int(item.get("point_value") or 1))

    @property
    def yen(self) -> bool:
        return self.code == units.JPY

    @property
    def points(self) -> bool:
        return self.code == units.POINTS


def unit_fields(item: Item) -> dict[str, Any]:
    """An account's unit as the API shows it."""
    unit = Unit.of(item)
    return {
        "unit": unit.code,
        "point_value": unit.point_value if unit.points else None,
        "program": item.get("program") if unit.points else None,
    }


def _refuse(field: str, message: str) -> NoReturn:
    raise errors.ValidationFailed(message, errors=[{"loc": ["body", field], "msg": message}])


_KNOWN: dict[tuple[str, str], Unit] = {}  # per process: a hint, which every slip transaction checks
MAX_KNOWN = 10_000


def remember(ledger: str, item: Item) -> None:
    """What an account's unit is, as just read or written (a hint for later writes of this process)."""
    if len(_KNOWN) >= MAX_KNOWN:
        _KNOWN.clear()
    _KNOWN[(ledger, str(item["id"]))] = Unit.of(item)


@contextmanager
def learning(ledger: str) -> Iterator[None]:
    """A slip write whose account turned out to be in another unit than it was priced in: the unit
    is remembered, and the write is read and priced again (`on_current`)."""
    try:
        yield
    except errors.UnitChanged as exc:
        _KNOWN[(ledger, exc.account)] = Unit(exc.unit, exc.point_value or 1)
        raise


def _unit(store: Store, ledger: str, account: str, *, read: bool) -> Unit:
    """An account's unit: as this process last saw it; else read (when the slip says something only
    a unit tells) or taken to be yen, which the slip's transaction checks either way."""
    known = _KNOWN.get((ledger, account))
    if known is not None or not read:
        return known or Unit()
    item = store.accounts.account(ledger, account)
    if item is not None:
        remember(ledger, item)
    return Unit.of(item)


@dataclass(frozen=True, slots=True)
class Priced:
    """A slip as it is written given its accounts' units: the body (a points slip's yen filled in),
    what its item keeps of them, and the units its transaction checks."""

    body: SlipIn
    kept: dict[str, Any]
    units: tuple[tuple[str, str, int], ...]

    def guard(self, plan: Plan) -> Plan:
        return replace(plan, units=self.units)


def priced(store: Store, ledger: str, body: SlipIn) -> Priced:
    """The slip as it is written given its accounts' units; 422 naming the field when the slip does
    not say what its units need:
    - an income or expense of a foreign account needs `jpy_amount`; a yen one takes none; a points
      one counts at the account's point_value (a `jpy_amount` sent must be that);
    - a transfer between accounts of different units needs `to_amount` (what arrived); between
      accounts of one unit it takes none."""
    read = body.jpy_amount is not None or body.to_amount is not None
    unit = _unit(store, ledger, body.account, read=read)
    to = _unit(store, ledger, body.to_account, read=read) if body.to_account else None
    try:
        written, kept = _checked(body, unit, to)
    except errors.ValidationFailed:  # never refused on a unit this process only remembers: read it
        for account in (body.account, body.to_account):
            _KNOWN.pop((ledger, account or ""), None)
        unit = _unit(store, ledger, body.account, read=True)
        to = _unit(store, ledger, body.to_account, read=True) if body.to_account else None
        written, kept = _checked(body, unit, to)
    guard: tuple[tuple[str, str, int], ...] = ((body.account, unit.code, unit.point_value if unit.points else 0),)
    if to is not None and body.to_account:
        guard += ((body.to_account, to.code, to.point_value if to.points else 0),)
    lots = [account for account, code, _ in guard if code == units.POINTS]
    if lots:  # the points accounts whose lots the slip is in (services/points)
        kept = {**kept, LOT_ACCOUNTS: lots}
    return Priced(written, kept, guard)


PRICED = ("jpy_amount", "to_amount")  # what a slip in another unit was written at, for its amount


def check_repriced(
    current: Mapping[str, Any], sent: Collection[str], amount: int, *, at: tuple[str, ...] = ("body",)
) -> None:
    """A merge patch (`sent`: the names it sends) that changes the amount of a slip in another unit, or
    of a recurring slip's template (`current`, as stored), to `amount`: the yen it came to
    (`jpy_amount`) or what a transfer brought (`to_amount`) was given for the old amount, and the API
    never re-prices (it fetches no rates), so the patch sends the new one with it; else 422 naming it,
    nothing written. A points slip's yen is made here from its amount (it follows it)."""
    if current.get(DERIVED) or current.get("amount") is None or int(current["amount"]) == amount:
        return
    for name in PRICED:
        if current.get(name) is None or name in sent:
            continue
        if name == "jpy_amount":
            message = "a new amount needs its jpy_amount, the yen it came to (the one kept was for the old amount)"
        else:
            message = "a new amount needs its to_amount, what arrived for it (the one kept was for the old amount)"
        raise errors.ValidationFailed(message, errors=[{"loc": [*at, name], "msg": message}])


def checked(body: SlipIn, unit: Unit, to: Unit | None) -> tuple[SlipIn, dict[str, Any]]:
    """The slip as written given its accounts' units (what `priced` checks); 422 naming the field."""
    return _checked(body, unit, to)


def _checked(body: SlipIn, unit: Unit, to: Unit | None) -> tuple[SlipIn, dict[str, Any]]:
    if body.expires_on is not None:
        if body.kind != "income" or not unit.points:
            _refuse("expires_on", "expires_on is only for points earned: an income of a points account")
        if body.expires_on < body.date:
            _refuse("expires_on", f"expires_on ({body.expires_on}) is before the slip's date ({body.date})")
    if body.kind == "transfer" and to is not None:  # a transfer always names to_account (SlipIn)
        if to.code != unit.code and body.to_amount is None:
            _refuse(
                "to_amount",
                f"a transfer from {unit.code} to {to.code} needs to_amount, what arrived in '{body.to_account}'",
            )
        if to.code == unit.code and body.to_amount is not None:
            _refuse("to_amount", "to_amount is only for a transfer between accounts of different units")
        return body, {}
    if unit.yen:
        if body.jpy_amount is not None:
            message = f"account '{body.account}' is in yen: jpy_amount is only for accounts in a foreign currency"
            _refuse("jpy_amount", message)
        return body, {}
    if unit.points:
        value = units.points_in_yen(body.amount, unit.point_value)
        if body.jpy_amount not in {None, value}:
            message = f"jpy_amount of a points slip is its amount times the account's point_value ({unit.point_value})"
            _refuse("jpy_amount", message)
        try:  # what is reimbursed is held to the yen paid, which the account's point_value says
            check_tax(
                body.kind, body.amount, body.memo, body.lines, body.medical, body.donation, value, payee=body.payee
            )
        except ValueError as exc:
            _refuse("medical", str(exc))
        return body.model_copy(update={"jpy_amount": value}), {DERIVED: True}
    if body.jpy_amount is None:
        _refuse(
            "jpy_amount",
            f"account '{body.account}' is in {unit.code}: an income or expense needs jpy_amount, the yen it came to",
        )
    return body, {}


def yen_value(item: Item, balance: int, rate: tuple[int, int, str] | None) -> dict[str, Any]:
    """An account's balance in yen and how it was valued: yen as it is, points at point_value,
    a foreign currency at the rate of its latest slip that says one (`rate`: amount in the unit,
    yen, date), else unknown (null)."""
    unit = Unit.of(item)
    if unit.yen:
        return {"jpy_value": balance, "valued_by": "yen"}
    if unit.points:
        return {"jpy_value": units.points_in_yen(balance, unit.point_value), "valued_by": "point_value"}
    if rate is None:
        return {"jpy_value": None, "valued_by": None}
    amount, jpy, date = rate
    return {"jpy_value": units.yen_value(balance, amount, jpy), "valued_by": "latest_slip", "rate_date": date}


def slip_rate(slip: Item, account: str, yen_accounts: set[str]) -> tuple[int, int, str] | None:
    """The rate one slip (as stored) of a foreign account gives: its income or expense with a
    jpy_amount it was given (not one made here: DERIVED, RATED), or a transfer between it and a yen
    account (the yen that left or arrived against its amount)."""
    date = str(slip["date"])
    if slip["kind"] != "transfer":
        if slip.get("jpy_amount") is None or slip.get(DERIVED) or slip.get(RATED):
            return None
        return int(slip["amount"]), int(slip["jpy_amount"]), date
    if slip.get("to_amount") is None:
        return None
    amount, arrived = int(slip["amount"]), int(slip["to_amount"])
    if slip["account"] == account and slip.get("to_account") in yen_accounts:
        return amount, arrived, date
    if slip.get("to_account") == account and slip["account"] in yen_accounts:
        return arrived, amount, date
    return None


def yen_at_rate(amount: int, rate: tuple[int, int, str]) -> int:
    """What `amount` in a foreign unit comes to in yen at `rate` (amount, yen, date: slip_rate's),
    rounded half away from zero; at least ¥1 (a slip's jpy_amount is a positive amount)."""
    return max(1, units.yen_value(amount, rate[0], rate[1]))
