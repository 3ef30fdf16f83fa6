"""A ledger as it was before the slip index: its index items and its counter's mark removed."""

from __future__ import annotations

from kakeibo.store import CLEARED_INDEXED, INDEXED, Store
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import SLIP_SEQ_SK, is_index_sk, item_entries, pk


def unindex(store: Store, who: str) -> int:
    """Strip the ledger's slip index (as if its slips were written before it). Returns how many
    index entries were removed."""
    removed = 0
    for item in list(store.core.query(who)):
        if is_index_sk(item["SK"]):
            store.core.client.delete_item(TableName=store.core.table, Key=to_ddb({"PK": pk(who), "SK": item["SK"]}))
            removed += len(item_entries(item))
    store.core.client.update_item(
        TableName=store.core.table,
        Key=to_ddb({"PK": pk(who), "SK": SLIP_SEQ_SK}),
        UpdateExpression="REMOVE #ix, #cx",
        ExpressionAttributeNames={"#ix": INDEXED, "#cx": CLEARED_INDEXED},
    )
    return removed
