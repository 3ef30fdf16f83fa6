"""Create the tables exactly as template.yaml defines them (keys, billing, TTL)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from kakeibo.local import template

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_CREATE_KEYS = (
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "StreamSpecification",
)


def create_tables(client: DynamoDBClient, names: dict[str, str] | None = None) -> dict[str, str]:
    """Create every table of the template (idempotent). Returns logical id -> table name."""
    definitions = template.tables()
    names = names or {logical: logical for logical in definitions}
    existing = set(client.list_tables().get("TableNames", []))
    for logical, props in definitions.items():
        name = names[logical]
        if name in existing and logical in template.transient_tables() and _rekeyed(client, name, props):
            existing.discard(name)
        if name not in existing:
            request: dict[str, Any] = {k: props[k] for k in _CREATE_KEYS if k in props}
            if "StreamSpecification" in request:  # CloudFormation's shape -> the API's
                request["StreamSpecification"] = {"StreamEnabled": True, **request["StreamSpecification"]}
            try:
                client.create_table(TableName=name, **request)
            except ClientError as exc:
                if exc.response["Error"]["Code"] != "ResourceInUseException":
                    raise
            client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1})
        else:
            _add_missing_indexes(client, name, props)
            _add_missing_stream(client, name, props)
        ttl = props.get("TimeToLiveSpecification")
        if ttl and ttl.get("Enabled"):
            try:
                client.update_time_to_live(
                    TableName=name,
                    TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
                )
            except ClientError as exc:  # already enabled
                if exc.response["Error"]["Code"] != "ValidationException":
                    raise
    return names


def _rekeyed(client: DynamoDBClient, name: str, props: dict[str, Any]) -> bool:
    """A table of short-lived records kept from an earlier version whose keys the template has
    changed since: dropped (to be made again), as CloudFormation replaces it. True if it was."""
    if client.describe_table(TableName=name)["Table"]["KeySchema"] == props["KeySchema"]:
        return False
    client.delete_table(TableName=name)
    client.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig={"Delay": 1})
    return True


def _add_missing_indexes(client: DynamoDBClient, name: str, props: dict[str, Any]) -> None:
    """A table kept from an earlier version (make run's DATA_DIR) gains the indexes added since."""
    wanted = props.get("GlobalSecondaryIndexes") or []
    present = {i["IndexName"] for i in client.describe_table(TableName=name)["Table"].get("GlobalSecondaryIndexes", [])}
    for index in wanted:
        if index["IndexName"] in present:
            continue
        keys = {k["AttributeName"] for k in index["KeySchema"]}
        client.update_table(
            TableName=name,
            AttributeDefinitions=[a for a in props["AttributeDefinitions"] if a["AttributeName"] in keys],
            GlobalSecondaryIndexUpdates=[{"Create": index}],
        )
        client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1})


def _add_missing_stream(client: DynamoDBClient, name: str, props: dict[str, Any]) -> None:
    """A table kept from an earlier version gains the stream the template has since declared."""
    wanted = props.get("StreamSpecification")
    if not wanted:
        return
    current: dict[str, Any] = dict(client.describe_table(TableName=name)["Table"].get("StreamSpecification") or {})
    if current.get("StreamEnabled"):
        return
    view = wanted["StreamViewType"]
    client.update_table(TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": view})
