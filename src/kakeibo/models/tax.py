"""Request and response models: tax season (確定申告) — medical payments on slips and lines,
ふるさと納税 donations on slips, and the reports built from them."""

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt

from kakeibo.core.tax import MedicalKind
from kakeibo.models.base import MAX_AMOUNT, Model, Strict, checked_text

PartyName = Annotated[str, Field(min_length=1, max_length=100, examples=["山田医院"]), checked_text()]
Reimbursed = Annotated[StrictInt, Field(ge=0, le=MAX_AMOUNT, examples=[0])]


class MedicalIn(Strict):
    """A medical payment (医療費控除): who was treated, where, which kind, what insurance gives back."""

    patient: PartyName = Field(description="Who was treated (医療を受けた人): a member's id or a name")
    provider: PartyName | None = Field(
        default=None,
        description="The hospital, clinic or pharmacy paid (支払先); without it, the slip's payee, else the "
        "memo (of the line, else of the slip)",
    )
    kind: MedicalKind = Field(
        description="treatment 診療・治療 / medicine 医薬品購入 / care 介護保険サービス / other その他の医療費"
    )
    reimbursed: Reimbursed = Field(
        default=0, description="What insurance or benefits give back for it (補填される金額): 0 to the amount"
    )
    otc: StrictBool = Field(
        default=False, description="An OTC medicine covered by セルフメディケーション税制 (スイッチOTC医薬品)"
    )


class DonationIn(Strict):
    """A ふるさと納税 donation: the municipality, and whether the ワンストップ特例 was asked for."""

    municipality: PartyName = Field(description="The municipality given to (e.g. 北海道紋別市)")
    one_stop: StrictBool = Field(default=False, description="The ワンストップ特例 application was sent for it")


class MedicalRow(Model):
    patient: str
    provider: str
    kind: MedicalKind
    kind_label: str = Field(description="The kind in words, in your language")
    otc: bool
    paid: int
    reimbursed: int
    net: int
    slips: int = Field(description="How many payments (slips or lines) make the row")


class MedicalReport(Model):
    year: str
    income: int | None
    paid: int
    reimbursed: int
    net: int
    floor: int = Field(description="What the net must pass: 100,000 yen, or 5% of income when less")
    deduction: int = Field(description="医療費控除: net - floor, 0 to 2,000,000")
    otc_net: int = Field(description="OTC purchases (セルフメディケーション税制) less what is reimbursed")
    self_medication: int = Field(description="セルフメディケーション: otc_net - 12,000, 0 to 88,000")
    larger: Literal["medical", "self_medication", "none"] = Field(description="Which of the two to claim")
    items: list[MedicalRow]


class DonationRow(Model):
    municipality: str
    total: int
    slips: int
    one_stop: bool = Field(description="Every donation to it asked for the ワンストップ特例")


class DonationReport(Model):
    year: str
    total: int
    municipalities: int
    one_stop: bool = Field(description="ワンストップ特例 still applies for the year")
    reasons: list[str] = Field(description="Why it no longer does (codes)")
    reasons_text: list[str] = Field(description="Why it no longer does, in your language")
    limit: int | None
    remaining: int | None = Field(description="limit - total (below 0: over the limit); null without a limit")
    items: list[DonationRow]
