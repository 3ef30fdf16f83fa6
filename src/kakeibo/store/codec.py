"""DynamoDB's attribute-value format, both ways."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

Item = dict[str, Any]

_serializer = TypeSerializer()

_deserializer = TypeDeserializer()

# Fast paths for the types the ledger stores (str, bool, int): boto3's TypeSerializer and
# TypeDeserializer cost ~15 us per item, which is most of a 100-slip listing's own time. Anything
# else goes through boto3's, so behaviour (and errors) stay boto3's.
_MAX_FAST_INT = 10**38  # DynamoDB numbers have at most 38 significant digits


def _to_value(value: Any) -> dict[str, Any]:
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind is bool:
        return {"BOOL": value}
    if kind is int and -_MAX_FAST_INT < value < _MAX_FAST_INT:
        return {"N": str(value)}
    return dict(_serializer.serialize(value))


def _number(raw: str) -> int | float:
    try:
        return int(raw)
    except ValueError:
        plain: int | float = _plain(Decimal(raw))
        return plain


def to_ddb(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _to_value(v) for k, v in item.items() if v is not None}


def from_ddb(item: Mapping[str, Any]) -> Item:
    out: Item = {}
    for name, value in item.items():  # strings and numbers first: nearly every attribute is one
        text = value.get("S")
        if text is not None:
            out[name] = text
            continue
        number = value.get("N")
        if number is not None:
            out[name] = _number(number)
            continue
        out[name] = value["BOOL"] if "BOOL" in value else _plain(_deserializer.deserialize(value))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value
