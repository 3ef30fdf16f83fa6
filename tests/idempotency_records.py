"""Powertools' idempotency records in the IdempotencyTable, as the tests look at them: which exist,
and forgetting them as their expiry would."""

from __future__ import annotations

from kakeibo.settings import get_settings
from kakeibo.store import Store
from kakeibo.store.keys import idempotency_partition


def idempotency_records(store: Store) -> set[str]:
    """The keys of every record (each stored in its person's partition)."""
    table = get_settings().idempotency_table_name
    pages = store.core.client.get_paginator("scan").paginate(TableName=table, ProjectionExpression="sk")
    return {item["sk"]["S"] for page in pages for item in page["Items"]}


class ExpiredKeys:
    """Forget the Powertools records made since this was created, as their expiry would."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.table = get_settings().idempotency_table_name
        self.before = idempotency_records(store)

    def made(self) -> set[str]:
        """The records made since this was created (and not forgotten since)."""
        return idempotency_records(self.store) - self.before

    def expire(self) -> None:
        table = get_settings().idempotency_table_name
        for record in self.made():
            key = {"id": {"S": idempotency_partition(record)}, "sk": {"S": record}}
            self.store.core.client.delete_item(TableName=table, Key=key)
