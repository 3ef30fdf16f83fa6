"""Settings, read once from the environment the template sets (see template.yaml Globals).

A pydantic model validated from `os.environ`: the variables are named by each field's alias, and
a bad value fails the first request loudly. (pydantic-settings would do the same for ~30 ms more
of every cold start.)
"""

from __future__ import annotations

import datetime as dt
import os
from functools import cache, cached_property
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    table_name: str = Field(default="LedgerTable", validation_alias="TABLE_NAME")
    idempotency_table_name: str = Field(default="IdempotencyTable", validation_alias="IDEMPOTENCY_TABLE_NAME")
    idempotency_expires_seconds: int = Field(
        default=86400, ge=60, le=30 * 86400, validation_alias="IDEMPOTENCY_EXPIRES_SECONDS"
    )
    # Empty in AWS; set for DynamoDB Local (make run, tests, sam local).
    dynamodb_endpoint_url: str = Field(default="", validation_alias="DYNAMODB_ENDPOINT_URL")
    # The household's time zone: what "today" means (default dates). An IANA name.
    ledger_time_zone: str = Field(default="Asia/Tokyo", validation_alias="LEDGER_TIME_ZONE")
    # Partitions of the due index (DueIndex): a ledger's due items go to one of them (template: DueShards).
    due_shards: int = Field(default=16, ge=1, le=1000, validation_alias="DUE_SHARDS")
    # The bucket receipts are kept in (template: ReceiptsBucket); its endpoint only locally (the S3 server of make run).
    receipts_bucket: str = Field(default="kakeibo-receipts", validation_alias="RECEIPTS_BUCKET")
    s3_endpoint_url: str = Field(default="", validation_alias="S3_ENDPOINT_URL")
    # Locally only: webhooks may also call http://127.0.0.1 (template parameter WebhookAllowLoopback).
    webhook_allow_loopback: bool = Field(default=False, validation_alias="WEBHOOK_ALLOW_LOOPBACK")
    # The webhook sender's queues (template: WebhookDeliveryQueue, WebhookDeadLetterQueue); their
    # endpoint only locally (the SQS-compatible server of make run and the tests).
    sqs_endpoint_url: str = Field(default="", validation_alias="SQS_ENDPOINT_URL")
    webhook_queue_url: str = Field(default="", validation_alias="WEBHOOK_QUEUE_URL")
    webhook_dead_letter_url: str = Field(default="", validation_alias="WEBHOOK_DEAD_LETTER_URL")
    # A failing receiver's schedule: the first retry after `webhook_retry_seconds`, doubling up to
    # `webhook_retry_max_seconds` (SQS delays at most 15 minutes); past `webhook_retry_budget_seconds`
    # of failures in a row the webhook is failing until an owner resumes it.
    webhook_retry_seconds: float = Field(default=5.0, gt=0, le=900, validation_alias="WEBHOOK_RETRY_SECONDS")
    webhook_retry_max_seconds: float = Field(default=900.0, gt=0, le=900, validation_alias="WEBHOOK_RETRY_MAX_SECONDS")
    webhook_retry_budget_seconds: float = Field(
        default=86400.0, gt=0, le=14 * 86400, validation_alias="WEBHOOK_RETRY_BUDGET_SECONDS"
    )

    # The user pool whose JWTs the authorizer takes (template: the stack's pool and app client, or
    # JwtIssuer/JwtAudience), and where its keys are when not under the issuer (JwksUrl; a local pool).
    user_pool_issuer: str = Field(default="", validation_alias="USER_POOL_ISSUER")
    user_pool_clients: str = Field(default="", validation_alias="USER_POOL_CLIENTS")
    jwks_url: str = Field(default="", validation_alias="JWKS_URL")
    # Request budgets per minute (§25; template: RequestsPerMinute, TokenRequestsPerMinute): a person's,
    # and each of their tokens' within it. 0: no budget (only the stage's throttling), as when unset.
    rate_limit_person: int = Field(default=0, ge=0, le=1_000_000, validation_alias="RATE_LIMIT_PERSON")
    rate_limit_token: int = Field(default=0, ge=0, le=1_000_000, validation_alias="RATE_LIMIT_TOKEN")

    @field_validator("ledger_time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        _zone(value)
        return value

    @cached_property
    def time_zone(self) -> dt.tzinfo:
        return _zone(self.ledger_time_zone)

    @classmethod
    def from_environment(cls) -> Settings:
        names = {str(field.validation_alias) for field in cls.model_fields.values()}
        return cls.model_validate({name: os.environ[name] for name in names if name in os.environ})


# Japan keeps no daylight saving time: its zone is a fixed offset where no tz database is installed.
_FIXED = {"Asia/Tokyo": dt.timezone(dt.timedelta(hours=9), "JST"), "UTC": dt.UTC}


def _zone(name: str) -> dt.tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        if name in _FIXED:
            return _FIXED[name]
        raise ValueError(f"unknown time zone {name!r}") from None


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def today() -> dt.date:
    """Today in the ledger's time zone (not the server's, not UTC)."""
    return utc_now().astimezone(get_settings().time_zone).date()


@cache
def get_settings() -> Settings:
    return Settings.from_environment()
