"""The models' common ground: the base classes, the constrained types every wing uses and the
checks of dates, months and text."""

import datetime as dt
import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
)

from kakeibo.core import text
from kakeibo.core.text import code_point, refused_character

MAX_AMOUNT = 10**12
MIN_YEAR, MAX_YEAR = 1900, 2999

ACCOUNT_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ACCOUNT_ID_PATTERN = ACCOUNT_ID_RE.pattern
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DATE_PATTERN = DATE_RE.pattern
MONTH_RE = re.compile(r"^\d{4}-\d{2}$")
MONTH_PATTERN = MONTH_RE.pattern
YEAR_RE = re.compile(r"^\d{4}$")
YEAR_PATTERN = YEAR_RE.pattern


def parse_date(value: str) -> dt.date:
    """A real calendar date, YYYY-MM-DD, within the years the ledger accepts."""
    if not DATE_RE.match(value):
        raise ValueError("must be a date YYYY-MM-DD")
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError("is not a real calendar date") from None
    if not MIN_YEAR <= day.year <= MAX_YEAR:
        raise ValueError(f"year must be between {MIN_YEAR} and {MAX_YEAR}")
    return day


def _check_date(value: str) -> str:
    parse_date(value)
    return value


def check_month(value: str) -> str:
    if not MONTH_RE.match(value):
        raise ValueError("must be a month YYYY-MM")
    year, month = int(value[:4]), int(value[5:])
    if not (1 <= month <= 12 and MIN_YEAR <= year <= MAX_YEAR):
        raise ValueError("is not a real month")
    return value


BIDI_CONTROLS = text.BIDI_CONTROLS  # no field takes them (core.text); the models package names them too


def checked_text(*, allow_newlines: bool = False, allow_format: bool = False, forbid: str = "") -> Any:
    """Text with no character a field never takes (core.text), none of `forbid`, not blank; NFC, stripped."""

    def check(value: str) -> str:
        value = unicodedata.normalize("NFC", value).strip()
        refused = refused_character(value, allow_newlines=allow_newlines, allow_format=allow_format)
        if refused is not None:
            if refused in BIDI_CONTROLS:
                raise ValueError(f"contains a bidirectional control character {code_point(refused)}")
            raise ValueError(f"contains a disallowed character {code_point(refused)}")
        for ch in value:
            if ch in forbid:
                raise ValueError(f"must not contain {ch!r}")
        if not value:
            raise ValueError("must not be blank")
        return value

    return AfterValidator(check)


Date = Annotated[str, Field(pattern=DATE_PATTERN, examples=["2026-11-21"]), AfterValidator(_check_date)]
Month = Annotated[str, Field(pattern=MONTH_PATTERN, examples=["2026-11"]), AfterValidator(check_month)]
AccountId = Annotated[str, Field(pattern=ACCOUNT_ID_PATTERN, examples=["cash"])]
Amount = Annotated[StrictInt, Field(ge=1, le=MAX_AMOUNT, examples=[1200])]
SignedAmount = Annotated[StrictInt, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
Name = Annotated[str, Field(min_length=1, max_length=100), checked_text()]
Category = Annotated[str, Field(min_length=1, max_length=50, examples=["食費"]), checked_text(forbid="#")]
Memo = Annotated[str, Field(max_length=500), checked_text(allow_newlines=True, allow_format=True)]
AccountType = Literal["cash", "bank", "emoney", "credit", "other"]


class Model(BaseModel):
    """Every model here. Validators are built on first use, not at import: most models only describe
    responses in the OpenAPI document, and building them all cost a cold start tens of ms."""

    model_config = ConfigDict(defer_build=True)


class Strict(Model):
    model_config = ConfigDict(extra="forbid")
