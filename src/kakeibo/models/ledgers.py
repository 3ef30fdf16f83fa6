"""Request and response models: ledgers."""

from typing import Literal

from pydantic import (
    ConfigDict,
    Field,
)

from kakeibo.models.base import Amount, Model, Name, Strict
from kakeibo.models.slips import UserId

Role = Literal["owner", "editor", "viewer"]
LEDGER_ID_PATTERN = r"^(me|[0-9A-HJKMNP-TV-Z]{26})$"


class LedgerIn(Strict):
    name: Name


class LedgerPatch(Strict):
    name: Name


class Ledger(Model):
    id: str = Field(description='"me" for your personal ledger, else the shared ledger\'s id')
    name: str | None = Field(description="null for the personal ledger")
    role: Role
    version: int | None = Field(default=None, description="the ledger's version (shared ledgers)")


class LedgerList(Model):
    items: list[Ledger]


class Member(Model):
    user: str
    role: Role
    version: int | None = Field(default=None, description="the member's version: If-Match of a role change")


class MemberIn(Strict):
    role: Role


class LedgerDetail(Model):
    id: str
    name: str | None
    role: Role = Field(description="your role")
    members: list[Member]
    version: int


class MemberNet(Model):
    user: str
    member: bool = Field(description="false: no longer a member; their net stays until it is settled")
    paid: int = Field(description="What they paid for the household from their own pocket")
    share: int = Field(description="Their burden of those slips")
    settled: int = Field(description="Paid back by them, less paid back to them (recorded settlements)")
    net: int = Field(description="paid - share + settled: > 0 they are owed, < 0 they owe; the nets sum to 0")


class SuggestedTransfer(Model):
    from_: str = Field(alias="from")
    to: str
    amount: int

    model_config = ConfigDict(populate_by_name=True)


class SettlementView(Model):
    members: list[MemberNet]
    suggested: list[SuggestedTransfer] = Field(description="The fewest transfers that bring every net to 0")
    version: int = Field(description="The nets' version: If-Match of POST /ledgers/{ledger}/settlements")


class SettlementIn(Strict):
    from_: UserId = Field(alias="from", description="Who paid (their net rises by amount)")
    to: UserId = Field(description="Who was paid (their net falls by amount)")
    amount: Amount

    model_config = ConfigDict(extra="forbid", populate_by_name=False)


class SettlementRecord(Model):
    id: str
    from_: str = Field(alias="from")
    to: str
    amount: int
    at: str
    by: str
    version: int = Field(description="The nets' version after it")

    model_config = ConfigDict(populate_by_name=True)


class InvitationIn(Strict):
    role: Role


class Invitation(Model):
    token: str = Field(description="send it to the person invited: POST /invitations/{token}/accept, once")
    ledger: str
    role: Role
    expires_at: str


class Acceptance(Model):
    ledger: str
    role: Role
