"""Pure rules of the tax season (確定申告): 医療費控除, セルフメディケーション税制 and ふるさと納税.

No boto3, no HTTP. A year's medical payments and donations are kept by the write path on one
item per ledger and year (`posting.TaxYearItem`), each group of them a few integer fields ADDed
in the slip's own transaction: `fields_of_medical` and `fields_of_donation` name those fields,
`medical_groups` and `donation_groups` read them back, and the functions below compute the
deduction, the self-medication alternative and whether ワンストップ特例 still applies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from kakeibo.core.units import in_yen

T = TypeVar("T")

MedicalKind = Literal["treatment", "medicine", "care", "other"]
MEDICAL_KINDS: tuple[MedicalKind, ...] = ("treatment", "medicine", "care", "other")
# The e-Tax 医療費集計フォーム's words for each kind (its 医療費の区分 columns).
KIND_LABELS_JA: dict[str, str] = {
    "treatment": "診療・治療",
    "medicine": "医薬品購入",
    "care": "介護保険サービス",
    "other": "その他の医療費",
}

FLOOR = 100_000  # 医療費控除: what is not deductible, or 5% of income when that is less
FLOOR_RATE_PERCENT = 5
CAP = 2_000_000  # the most the medical deduction can be
SELF_MEDICATION_FLOOR = 12_000  # セルフメディケーション税制: OTC purchases above this
SELF_MEDICATION_CAP = 88_000
ONE_STOP_MAX_MUNICIPALITIES = 5  # ワンストップ特例: at most five municipalities in a year

SEP = "\x1f"  # between the parts of a field name: no text a user can give holds it (checked_text)
MEDICAL, DONATION = "M", "D"
PAID, REIMBURSED, COUNT, NOT_ONE_STOP = "paid", "reimbursed", "count", "not_one_stop"


@dataclass(frozen=True, slots=True, order=True)
class MedicalGroup:
    """Who was treated, where, which kind, and whether an OTC (スイッチOTC) purchase: one row of the
    e-Tax form, the payments of a year that share all four added up."""

    patient: str
    provider: str
    kind: str
    otc: bool = False


@dataclass(frozen=True, slots=True)
class MedicalPart:
    """One slip's (or one line's) medical payment."""

    group: MedicalGroup
    paid: int
    reimbursed: int = 0


@dataclass(frozen=True, slots=True)
class DonationPart:
    """One slip's ふるさと納税 donation."""

    municipality: str
    amount: int
    one_stop: bool = False


PROVIDER_MAX = 100  # characters of a provider's name (models.PartyName)


def default_provider(payee: str | None, *memos: str | None) -> str | None:
    """Who was paid, when a medical payment does not say (§20): the slip's payee, else the first memo
    that says something (the line's, then the slip's); trimmed, at most PROVIDER_MAX characters.
    None when none of them names anybody."""
    for text in (payee, *memos):
        if text and text.strip():
            return text.strip()[:PROVIDER_MAX]
    return None


def medical_prefix(group: MedicalGroup) -> str:
    return SEP.join((MEDICAL, group.patient, group.provider, group.kind, "1" if group.otc else "0")) + SEP


def fields_of_medical(part: MedicalPart, sign: int = 1) -> dict[str, int]:
    """The fields of the year item one medical payment moves."""
    prefix = medical_prefix(part.group)
    return {prefix + PAID: sign * part.paid, prefix + REIMBURSED: sign * part.reimbursed, prefix + COUNT: sign}


def fields_of_donation(part: DonationPart, sign: int = 1) -> dict[str, int]:
    """The fields of the year item one donation moves."""
    prefix = SEP.join((DONATION, part.municipality)) + SEP
    not_one_stop = 0 if part.one_stop else sign
    return {prefix + PAID: sign * part.amount, prefix + COUNT: sign, prefix + NOT_ONE_STOP: not_one_stop}


def is_tax_field(name: str) -> bool:
    return name[:2] in (MEDICAL + SEP, DONATION + SEP)


@dataclass(frozen=True, slots=True)
class MedicalTotals:
    paid: int = 0
    reimbursed: int = 0
    count: int = 0

    @property
    def net(self) -> int:
        return self.paid - self.reimbursed


@dataclass(frozen=True, slots=True)
class DonationTotals:
    total: int = 0
    count: int = 0
    not_one_stop: int = 0


def medical_groups(fields: Mapping[str, int]) -> dict[MedicalGroup, MedicalTotals]:
    """Each group's totals from a year item's fields (groups left with no payment are dropped)."""
    raw: dict[MedicalGroup, dict[str, int]] = {}
    for name, value in fields.items():
        parts = name.split(SEP)
        if len(parts) != 6 or parts[0] != MEDICAL:
            continue
        group = MedicalGroup(parts[1], parts[2], parts[3], parts[4] == "1")
        raw.setdefault(group, {})[parts[5]] = int(value)
    out = {}
    for group in sorted(raw):
        got = raw[group]
        totals = MedicalTotals(got.get(PAID, 0), got.get(REIMBURSED, 0), got.get(COUNT, 0))
        if totals.count or totals.paid or totals.reimbursed:
            out[group] = totals
    return out


def donation_groups(fields: Mapping[str, int]) -> dict[str, DonationTotals]:
    """Each municipality's totals from a year item's fields (those left with nothing are dropped)."""
    raw: dict[str, dict[str, int]] = {}
    for name, value in fields.items():
        parts = name.split(SEP)
        if len(parts) != 3 or parts[0] != DONATION:
            continue
        raw.setdefault(parts[1], {})[parts[2]] = int(value)
    out = {}
    for municipality in sorted(raw):
        got = raw[municipality]
        totals = DonationTotals(got.get(PAID, 0), got.get(COUNT, 0), got.get(NOT_ONE_STOP, 0))
        if totals.count or totals.total:
            out[municipality] = totals
    return out


def floor_of(income: int | None) -> int:
    """What the year's net medical payments must pass: 100,000 yen, or 5% of income (総所得金額等,
    yen below 1 dropped) when that is less."""
    if income is None:
        return FLOOR
    return min(FLOOR, max(0, income) * FLOOR_RATE_PERCENT // 100)


def medical_deduction(net: int, income: int | None = None) -> int:
    """医療費控除: net payments less the floor, at most 2,000,000, never below 0."""
    return min(CAP, max(0, net - floor_of(income)))


def self_medication_deduction(otc_net: int) -> int:
    """セルフメディケーション税制: OTC purchases less 12,000, at most 88,000, never below 0."""
    return min(SELF_MEDICATION_CAP, max(0, otc_net - SELF_MEDICATION_FLOOR))


Choice = Literal["medical", "self_medication", "none"]


@dataclass(frozen=True, slots=True)
class MedicalSummary:
    paid: int
    reimbursed: int
    net: int
    otc_net: int
    floor: int
    deduction: int
    self_medication: int
    larger: Choice


def summarize(groups: Mapping[MedicalGroup, MedicalTotals], income: int | None = None) -> MedicalSummary:
    """The year's totals, both deductions and which one to claim (only one of them may be: the
    larger; the usual deduction when they are equal)."""
    paid = sum(t.paid for t in groups.values())
    reimbursed = sum(t.reimbursed for t in groups.values())
    otc_net = sum(t.net for g, t in groups.items() if g.otc)
    deduction = medical_deduction(paid - reimbursed, income)
    self_medication = self_medication_deduction(otc_net)
    larger: Choice
    if deduction == 0 and self_medication == 0:
        larger = "none"
    elif self_medication > deduction:
        larger = "self_medication"
    else:
        larger = "medical"
    return MedicalSummary(
        paid, reimbursed, paid - reimbursed, otc_net, floor_of(income), deduction, self_medication, larger
    )


OneStopReason = Literal["too_many_municipalities", "not_requested"]


@dataclass(frozen=True, slots=True)
class DonationSummary:
    total: int
    municipalities: int
    one_stop: bool
    reasons: tuple[OneStopReason, ...]
    remaining: int | None


def donation_summary(groups: Mapping[str, DonationTotals], limit: int | None = None) -> DonationSummary:
    """The year's donations: ワンストップ特例 applies while they went to at most five municipalities
    and every donation asked for it (else the reasons why not); with a limit, what remains of it
    (below 0: over)."""
    total = sum(t.total for t in groups.values())
    reasons: list[OneStopReason] = []
    if len(groups) > ONE_STOP_MAX_MUNICIPALITIES:
        reasons.append("too_many_municipalities")
    if any(t.not_one_stop for t in groups.values()):
        reasons.append("not_requested")
    return DonationSummary(
        total, len(groups), not reasons and bool(groups), tuple(reasons), None if limit is None else limit - total
    )


def add_up(parts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Fields summed (what ADD leaves on the year item after these changes)."""
    out: dict[str, int] = {}
    for part in parts:
        for name, value in part.items():
            out[name] = out.get(name, 0) + value
    return out


def medical_view(stored: Any) -> dict[str, Any] | None:
    """A stored medical payment as the API shows it (whole numbers, the flag a bool)."""
    if not stored:
        return None
    return {
        "patient": stored["patient"],
        "provider": stored.get("provider"),
        "kind": stored["kind"],
        "reimbursed": int(stored.get("reimbursed") or 0),
        "otc": bool(stored.get("otc")),
    }


def donation_view(stored: Any) -> dict[str, Any] | None:
    """A stored donation as the API shows it (the flag a bool)."""
    if not stored:
        return None
    return {"municipality": stored["municipality"], "one_stop": bool(stored.get("one_stop"))}


def slip_tax_fields(
    amount: int,
    medical: Mapping[str, object] | None,
    lines: Iterable[tuple[int, Mapping[str, object] | None]] = (),
    donation: Mapping[str, object] | None = None,
    jpy_amount: int | None = None,
) -> tuple[tuple[str, int], ...]:
    """What one slip adds to its year's tax item (posting.Entry.tax), from its `medical` (the whole
    amount), its lines' `medical` (each line's amount) and its `donation`, as stored or as given:
    mappings with patient, provider, kind, reimbursed and otc / municipality and one_stop. Paid in
    yen: a slip in another unit counts its `jpy_amount` (a line, its share of it)."""
    parts: list[dict[str, int]] = []
    yen, lines = paid_in_yen(amount, jpy_amount, lines)
    for paid, given in [(yen, medical), *lines]:
        if given:
            group = MedicalGroup(
                str(given["patient"]), str(given["provider"]), str(given["kind"]), bool(given.get("otc"))
            )
            parts.append(fields_of_medical(MedicalPart(group, paid, int(str(given.get("reimbursed") or 0)))))
    if donation:
        part = DonationPart(str(donation["municipality"]), yen, bool(donation.get("one_stop")))
        parts.append(fields_of_donation(part))
    return tuple(sorted((name, value) for name, value in add_up(parts).items() if value))


def paid_in_yen(
    amount: int, jpy_amount: int | None, lines: Iterable[tuple[int, T]] = ()
) -> tuple[int, list[tuple[int, T]]]:
    """A slip's amount and its lines' amounts in yen (what medical payments and donations count,
    and what is reimbursed is held to): themselves for a yen slip, else `jpy_amount` and its shares."""
    listed = list(lines)
    if jpy_amount is None:
        return amount, listed
    shares = in_yen(amount, jpy_amount, [paid for paid, _ in listed])
    return jpy_amount, [(share, given) for share, (_, given) in zip(shares, listed, strict=True)]
