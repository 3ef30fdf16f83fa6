"""store.to_ddb / from_ddb: the fast paths must say exactly what boto3's serializers say."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer
from hypothesis import given
from hypothesis import strategies as st

from kakeibo.store.codec import _plain, from_ddb, to_ddb

serializer, deserializer = TypeSerializer(), TypeDeserializer()

scalars = st.one_of(
    st.text(max_size=40),
    st.booleans(),
    st.integers(min_value=-(10**38) + 1, max_value=10**38 - 1),
)


def boto3_to(item: dict[str, Any]) -> dict[str, Any]:
    return {k: serializer.serialize(v) for k, v in item.items() if v is not None}


def boto3_from(item: dict[str, Any]) -> dict[str, Any]:
    return {k: _plain(deserializer.deserialize(v)) for k, v in item.items()}


@given(st.dictionaries(st.text(min_size=1, max_size=10), st.one_of(scalars, st.none()), max_size=12))
def test_to_ddb_matches_boto3(item: dict[str, Any]) -> None:
    # Given any item of the types the ledger stores (None = absent)
    # Then the fast serializer writes what boto3's would, and reads back the same item
    assert to_ddb(item) == boto3_to(item)
    clean = {k: v for k, v in item.items() if v is not None}
    assert from_ddb(to_ddb(item)) == clean


NUMBERS = ["0", "-0", "7", "-12", "1.5", "-0.25", "1E+2", "1.0E+1", "12345678901234567890"]


@pytest.mark.parametrize("raw", NUMBERS)
def test_numbers_read_as_boto3_reads_them(raw: str) -> None:
    # Given a number as DynamoDB may return it
    item = {"n": {"N": raw}}
    # Then it reads as an int when integral, else a float, as before the fast path
    assert from_ddb(item) == boto3_from(item)
    assert type(from_ddb(item)["n"]) is type(boto3_from(item)["n"])


def test_other_types_fall_back_to_boto3() -> None:
    # Given values outside the fast path (maps, lists, sets, binary, null, decimals)
    item = {
        "m": {"a": 1, "b": ["x", True]},
        "l": [1, "two"],
        "ss": {"a", "b"},
        "b": Binary(b"\x00\x01"),
        "d": Decimal("2.5"),
    }
    # Then they are written and read exactly as boto3 does
    assert to_ddb(item) == boto3_to(item)
    raw = to_ddb(item) | {"null": {"NULL": True}}
    assert from_ddb(raw) == boto3_from(raw)


def test_out_of_range_integers_still_refused() -> None:
    # Given an integer DynamoDB cannot hold exactly
    # Then the serializer refuses it as boto3 does
    with pytest.raises(Exception) as fast:
        to_ddb({"n": 10**40 + 1})
    with pytest.raises(Exception) as slow:
        boto3_to({"n": 10**40 + 1})
    assert type(fast.value) is type(slow.value)
