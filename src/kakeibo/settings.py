"""Settings, read once from the environment the template sets (see template.yaml Globals)."""

from __future__ import annotations

from functools import cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    table_name: str = Field(default="LedgerTable", validation_alias="TABLE_NAME")
    idempotency_table_name: str = Field(default="IdempotencyTable", validation_alias="IDEMPOTENCY_TABLE_NAME")
    idempotency_expires_seconds: int = Field(
        default=86400, ge=60, le=30 * 86400, validation_alias="IDEMPOTENCY_EXPIRES_SECONDS"
    )
    # Empty in AWS; set for DynamoDB Local (make run, tests, sam local).
    dynamodb_endpoint_url: str = Field(default="", validation_alias="DYNAMODB_ENDPOINT_URL")


@cache
def get_settings() -> Settings:
    return Settings()
