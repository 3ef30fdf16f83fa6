"""Tax season rules: the medical deduction (floor, income, cap), セルフメディケーション beside it, the
fields a year item keeps, and whether ワンストップ特例 still applies."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kakeibo.core import tax
from kakeibo.core.tax import DonationPart, MedicalGroup, MedicalPart, MedicalTotals

yen = st.integers(min_value=0, max_value=10_000_000)


def test_under_the_floor_there_is_no_deduction() -> None:
    # Given 99,999 yen paid in a year, no income given
    # Then nothing is deductible; at exactly 100,001 one yen is
    assert tax.medical_deduction(99_999) == 0
    assert tax.medical_deduction(100_000) == 0
    assert tax.medical_deduction(100_001) == 1


def test_income_lowers_the_floor_to_five_percent() -> None:
    # Given an income of 1,500,000 yen: 5% is 75,000, less than 100,000
    assert tax.floor_of(1_500_000) == 75_000
    # When 90,000 yen were paid, 15,000 yen are deductible
    assert tax.medical_deduction(90_000, 1_500_000) == 15_000
    # An income of 3,000,000 (5% = 150,000) leaves the floor at 100,000
    assert tax.floor_of(3_000_000) == 100_000
    # Yen below one are dropped: 5% of 1,000,019 is 50,000.95
    assert tax.floor_of(1_000_019) == 50_000


def test_the_deduction_is_capped_at_two_million() -> None:
    assert tax.medical_deduction(2_100_000) == 2_000_000
    assert tax.medical_deduction(5_000_000, 0) == 2_000_000


def test_self_medication_larger_when_only_otc_purchases_pass_their_floor() -> None:
    # Given 60,000 yen of OTC medicine and 10,000 yen at a clinic
    otc = MedicalGroup("hanako", "ドラッグストア", "medicine", True)
    clinic = MedicalGroup("hanako", "山田医院", "treatment")
    summary = tax.summarize({otc: MedicalTotals(60_000, 0, 3), clinic: MedicalTotals(10_000, 0, 1)})
    # Then the usual deduction is 0 (70,000 < 100,000) and self-medication gives 48,000
    assert (summary.net, summary.deduction, summary.self_medication) == (70_000, 0, 48_000)
    assert summary.larger == "self_medication"
    # And self-medication stops at 88,000
    assert tax.self_medication_deduction(200_000) == 88_000


def test_the_usual_deduction_wins_when_larger_and_reimbursed_amounts_are_subtracted() -> None:
    # Given 300,000 yen at a hospital, 50,000 of it reimbursed by insurance
    hospital = MedicalGroup("taro", "中央病院", "treatment")
    summary = tax.summarize({hospital: MedicalTotals(300_000, 50_000, 2)}, income=4_000_000)
    assert (summary.net, summary.deduction, summary.self_medication, summary.larger) == (
        250_000,
        150_000,
        0,
        "medical",
    )
    assert tax.summarize({}).larger == "none"


@given(net=yen, income=st.none() | yen)
def test_deduction_bounds(net: int, income: int | None) -> None:
    # Whatever was paid and earned, the deduction is between 0 and the cap, and never more than net
    got = tax.medical_deduction(net, income)
    assert 0 <= got <= tax.CAP
    assert got <= net
    assert got == max(0, min(tax.CAP, net - tax.floor_of(income)))
    # a lower income never gives a smaller deduction
    if income is not None:
        assert tax.medical_deduction(net, income) >= tax.medical_deduction(net, income + 1)
        assert got >= tax.medical_deduction(net)


@given(otc=yen)
def test_self_medication_bounds(otc: int) -> None:
    got = tax.self_medication_deduction(otc)
    assert 0 <= got <= tax.SELF_MEDICATION_CAP
    assert got == max(0, min(tax.SELF_MEDICATION_CAP, otc - tax.SELF_MEDICATION_FLOOR))


names = st.text(alphabet=st.sampled_from("あいう山田ab #"), min_size=1, max_size=6)
groups = st.builds(MedicalGroup, names, names, st.sampled_from(tax.MEDICAL_KINDS), st.booleans())
medical_parts = st.builds(
    lambda group, paid, share: MedicalPart(group, paid, paid * share // 100),
    groups,
    st.integers(1, 1_000_000),
    st.integers(0, 100),
)


@given(created=st.lists(medical_parts, max_size=12), deleted=st.data())
def test_year_item_fields_add_up_to_the_remaining_payments(created: list[MedicalPart], deleted: st.DataObject) -> None:
    # Given payments recorded, then some of them deleted (their fields subtracted, as ADD does)
    gone = deleted.draw(st.lists(st.sampled_from(created), unique_by=id) if created else st.just([]))
    left = list(created)
    for part in gone:
        left.remove(part)
    fields = tax.add_up([tax.fields_of_medical(p) for p in created] + [tax.fields_of_medical(p, -1) for p in gone])
    # When the groups are read back
    got = tax.medical_groups(fields)
    # Then each group holds exactly the payments left, and groups with none are gone
    want: dict[MedicalGroup, tuple[int, int, int]] = {}
    for p in left:
        paid, reimbursed, count = want.get(p.group, (0, 0, 0))
        want[p.group] = (paid + p.paid, reimbursed + p.reimbursed, count + 1)
    assert {g: (t.paid, t.reimbursed, t.count) for g, t in got.items()} == want
    assert all(tax.is_tax_field(name) for name in fields)


def test_one_stop_applies_up_to_five_municipalities_all_requested() -> None:
    def summary(parts: list[DonationPart], limit: int | None = None) -> tax.DonationSummary:
        return tax.donation_summary(tax.donation_groups(tax.add_up(tax.fields_of_donation(p) for p in parts)), limit)

    five = [DonationPart(f"町{i}", 10_000, True) for i in range(5)]
    got = summary(five, limit=60_000)
    assert (got.total, got.municipalities, got.one_stop, got.reasons, got.remaining) == (50_000, 5, True, (), 10_000)
    # A second donation to the same town is still five municipalities
    assert summary([*five, DonationPart("町0", 5_000, True)]).one_stop
    # A sixth municipality ends it, and so does a donation that did not ask for it
    assert summary([*five, DonationPart("市6", 5_000, True)]).reasons == ("too_many_municipalities",)
    mixed = summary([*five, DonationPart("市6", 5_000, False)], limit=50_000)
    assert mixed.reasons == ("too_many_municipalities", "not_requested")
    assert mixed.remaining == -5_000
    # No donation: nothing to apply
    assert not summary([]).one_stop


@given(st.lists(st.builds(DonationPart, names, st.integers(1, 100_000), st.booleans()), max_size=12))
def test_one_stop_rule(parts: list[DonationPart]) -> None:
    got = tax.donation_summary(tax.donation_groups(tax.add_up(tax.fields_of_donation(p) for p in parts)))
    towns = {p.municipality for p in parts}
    assert got.municipalities == len(towns)
    assert got.total == sum(p.amount for p in parts)
    assert got.one_stop == (0 < len(towns) <= 5 and all(p.one_stop for p in parts))


@given(
    st.lists(st.integers(min_value=1, max_value=10**7), min_size=1, max_size=10),
    st.integers(min_value=1, max_value=10**8),
)
def test_a_split_slip_in_another_unit_counts_its_lines_medical_payments_in_yen_summing_to_its_yen(
    lines: list[int], jpy_amount: int
) -> None:
    # Given a split slip in another unit, every line a medical payment of one group
    medical = {"patient": "taro", "provider": "ABC", "kind": "medicine"}
    # When its tax fields are computed
    fields = dict(tax.slip_tax_fields(sum(lines), None, [(x, medical) for x in lines], None, jpy_amount))
    # Then what is paid is the slip's yen, whatever its amount in its own unit
    paid = next(v for k, v in fields.items() if k.endswith(tax.PAID))
    assert paid == jpy_amount


def test_a_donation_and_a_medical_payment_in_another_unit_count_their_yen() -> None:
    # Given a slip of 1,234 cents that came to ¥1,850, with ¥1,500 of its medical payment reimbursed
    medical = {"patient": "taro", "provider": "Clinic", "kind": "treatment", "reimbursed": 1500}
    # When its tax fields are computed (and a donation of the same)
    fields = dict(tax.slip_tax_fields(1234, medical, jpy_amount=1850))
    donated = dict(tax.slip_tax_fields(1234, None, donation={"municipality": "紋別市"}, jpy_amount=1850))
    # Then each counts in yen; a yen slip (no jpy_amount) counts its amount
    assert sorted(v for k, v in fields.items() if not k.endswith(tax.COUNT)) == [1500, 1850]
    assert [v for k, v in donated.items() if k.endswith(tax.PAID)] == [1850]
    assert [v for k, v in dict(tax.slip_tax_fields(1234, medical)).items() if k.endswith(tax.PAID)] == [1234]


def test_a_provider_not_given_is_the_payee_else_the_first_memo_that_says_something() -> None:
    # Given what a slip and its line say of where a medical payment went
    # When nothing names a provider, Then the payee comes first, then the memos in order, trimmed
    assert tax.default_provider("  山田医院 ", "風邪薬", "まとめ買い") == "山田医院"
    assert tax.default_provider(None, "  ", "駅前ドラッグ") == "駅前ドラッグ"
    assert tax.default_provider(" ", "目薬", None) == "目薬"
    assert tax.default_provider("薬" * 150) == "薬" * tax.PROVIDER_MAX
    # And nothing that names anybody gives none
    assert tax.default_provider(None, None, " ") is None
