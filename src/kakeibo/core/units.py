"""Pure rules of the units an account keeps its amounts in: yen, another ISO 4217 currency (in its
minor unit: USD in cents) or a loyalty program's points (ポイント).

No boto3, no HTTP. A slip's amount is in its account's unit; what reports and budgets count is yen:
a foreign slip says the yen it cost (`jpy_amount`), a point is worth `point_value` yen.
"""

from __future__ import annotations

from fractions import Fraction

JPY = "JPY"
POINTS = "points"

# ISO 4217 active currency codes and the digits of their minor unit (the list the ISO 4217
# maintenance agency publishes; funds codes and precious metals, which have no minor unit, left out).
MINOR_UNITS: dict[str, int] = {
    "AED": 2, "AFN": 2, "ALL": 2, "AMD": 2, "ANG": 2, "AOA": 2, "ARS": 2, "AUD": 2, "AWG": 2, "AZN": 2,
    "BAM": 2, "BBD": 2, "BDT": 2, "BGN": 2, "BHD": 3, "BIF": 0, "BMD": 2, "BND": 2, "BOB": 2, "BRL": 2,
    "BSD": 2, "BTN": 2, "BWP": 2, "BYN": 2, "BZD": 2, "CAD": 2, "CDF": 2, "CHF": 2, "CLP": 0, "CNY": 2,
    "COP": 2, "CRC": 2, "CUP": 2, "CVE": 2, "CZK": 2, "DJF": 0, "DKK": 2, "DOP": 2, "DZD": 2, "EGP": 2,
    "ERN": 2, "ETB": 2, "EUR": 2, "FJD": 2, "FKP": 2, "GBP": 2, "GEL": 2, "GHS": 2, "GIP": 2, "GMD": 2,
    "GNF": 0, "GTQ": 2, "GYD": 2, "HKD": 2, "HNL": 2, "HTG": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2,
    "IQD": 3, "IRR": 2, "ISK": 0, "JMD": 2, "JOD": 3, "JPY": 0, "KES": 2, "KGS": 2, "KHR": 2, "KMF": 0,
    "KPW": 2, "KRW": 0, "KWD": 3, "KYD": 2, "KZT": 2, "LAK": 2, "LBP": 2, "LKR": 2, "LRD": 2, "LSL": 2,
    "LYD": 3, "MAD": 2, "MDL": 2, "MGA": 2, "MKD": 2, "MMK": 2, "MNT": 2, "MOP": 2, "MRU": 2, "MUR": 2,
    "MVR": 2, "MWK": 2, "MXN": 2, "MYR": 2, "MZN": 2, "NAD": 2, "NGN": 2, "NIO": 2, "NOK": 2, "NPR": 2,
    "NZD": 2, "OMR": 3, "PAB": 2, "PEN": 2, "PGK": 2, "PHP": 2, "PKR": 2, "PLN": 2, "PYG": 0, "QAR": 2,
    "RON": 2, "RSD": 2, "RUB": 2, "RWF": 0, "SAR": 2, "SBD": 2, "SCR": 2, "SDG": 2, "SEK": 2, "SGD": 2,
    "SHP": 2, "SLE": 2, "SOS": 2, "SRD": 2, "SSP": 2, "STN": 2, "SVC": 2, "SYP": 2, "SZL": 2, "THB": 2,
    "TJS": 2, "TMT": 2, "TND": 3, "TOP": 2, "TRY": 2, "TTD": 2, "TWD": 2, "TZS": 2, "UAH": 2, "UGX": 0,
    "USD": 2, "UYU": 2, "UYW": 4, "UZS": 2, "VES": 2, "VND": 0, "VUV": 0, "WST": 2, "XAF": 0, "XCD": 2,
    "XCG": 2, "XOF": 0, "XPF": 0, "YER": 2, "ZAR": 2, "ZMW": 2, "ZWG": 2,
}  # fmt: skip

SYMBOLS = {"JPY": "¥", "USD": "$", "EUR": "€", "GBP": "£", "KRW": "₩", "CNY": "元", "TWD": "NT$", "HKD": "HK$"}


def is_unit(unit: str) -> bool:
    """A unit an account may have: an ISO 4217 code (upper case) or `points`."""
    return unit == POINTS or unit in MINOR_UNITS


def is_yen(unit: str | None) -> bool:
    """Accounts stored before units existed have none: they are in yen."""
    return unit in {None, JPY}


def minor_units(unit: str) -> int:
    """Digits after the decimal point of the unit's amounts (points are whole)."""
    if unit == POINTS:
        return 0
    return MINOR_UNITS[unit]


def points_in_yen(points: int, point_value: int) -> int:
    """What `points` are worth in yen."""
    return points * point_value


def yen_value(balance: int, rate_amount: int, rate_jpy: int) -> int:
    """A foreign balance in yen at the rate one slip gives (`rate_amount` in the unit cost `rate_jpy`
    yen), rounded half away from zero."""
    exact = Fraction(balance * rate_jpy, rate_amount)
    whole = int(abs(exact) + Fraction(1, 2))
    return whole if exact >= 0 else -whole


def format_amount(amount: int, unit: str) -> str:
    """An amount as people read it: ¥1,200, $12.34, 1,200 pt, 12.345 KWD."""
    if unit == POINTS:
        return f"{amount:,} pt"
    digits = minor_units(unit)
    sign = "-" if amount < 0 else ""
    whole, part = divmod(abs(amount), 10**digits)
    text = f"{whole:,}" + (f".{part:0{digits}d}" if digits else "")
    symbol = SYMBOLS.get(unit)
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{text} {unit}"


def in_yen(amount: int, jpy_amount: int | None, parts: list[int]) -> list[int]:
    """The yen each part of an amount counts as: the parts themselves for a yen slip, else
    `jpy_amount` shared in proportion to them (each share rounded down at its running total, so the
    shares sum to it exactly)."""
    if jpy_amount is None:
        return parts
    out, running, before = [], 0, 0
    for part in parts:
        running += part
        upto = jpy_amount * running // amount
        out.append(upto - before)
        before = upto
    return out
