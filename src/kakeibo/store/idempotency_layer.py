"""Powertools' DynamoDB persistence layer for Idempotency-Keys, with one change.

Powertools compares the body before it looks at the record's status, so a request that meets a
record of ANOTHER body still in progress would be told the key is taken (422
`idempotency_key_reused`, "use a new key"). But that request in progress may end in an answer that
is not kept (a mismatched body, a validation error: its record is deleted), and the key then still
belongs to the request it was first used for. Told to use a new key, the original's client would
make a second slip. So a mismatch with a record in progress is `MismatchInProgress`: the caller
answers 409 `request_in_progress` (retry shortly); a mismatch with a completed record stays 422.

Every record's id also carries its person's tag (keys.idempotency_tag): a person's records are
found, and removed with their data, by it (DELETE /me).

Imported on first use, with Powertools (never at the handler's import).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer
from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyValidationError
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord

from kakeibo.store.keys import idempotency_partition, idempotency_tag

SORT_KEY = "sk"


class MismatchInProgress(IdempotencyValidationError):
    """Another body's request with this key is still running: its outcome is not the key's yet."""


class PersistenceLayer(DynamoDBPersistenceLayer):
    def __init__(self, *, table_name: str, boto3_client: Any) -> None:
        super().__init__(table_name=table_name, boto3_client=boto3_client, key_attr="id", sort_key_attr=SORT_KEY)

    def _get_key(self, idempotency_key: str) -> dict[str, Any]:
        """The record's person's partition and, in it, the record's own key."""
        return {"id": {"S": idempotency_partition(idempotency_key)}, SORT_KEY: {"S": idempotency_key}}

    def _item_to_data_record(self, item: dict[str, Any]) -> DataRecord:
        record = super()._item_to_data_record(item)
        return DataRecord(
            idempotency_key=item[SORT_KEY]["S"],
            status=record.status,
            expiry_timestamp=record.expiry_timestamp,
            in_progress_expiry_timestamp=record.in_progress_expiry_timestamp,
            response_data=record.response_data,
            payload_hash=record.payload_hash,
        )

    def _get_hashed_idempotency_key(self, data: dict[str, Any]) -> str | None:
        hashed = super()._get_hashed_idempotency_key(data)
        whose = data.get("ledger") if isinstance(data, dict) else None
        if hashed is None or not isinstance(whose, str):
            return hashed
        user = whose.rsplit("\n", 1)[-1]  # a personal ledger's `sub`, or a shared ledger's member
        name, _, digest = hashed.rpartition("#")
        return f"{name}{idempotency_tag(user)}{digest}"

    def _validate_payload(self, data_payload: dict[str, Any] | DataRecord, stored_data_record: DataRecord) -> None:
        try:
            super()._validate_payload(data_payload, stored_data_record)
        except IdempotencyValidationError:
            if stored_data_record.status == STATUS_CONSTANTS["INPROGRESS"]:
                raise MismatchInProgress("another request with this key is still in progress") from None
            raise
