"""Settings, read once from the environment the template sets (see template.yaml Globals).

A pydantic model validated from `os.environ`: the variables are named by each field's alias, and
a bad value fails the first request loudly. (pydantic-settings would do the same for ~30 ms more
of every cold start.)
"""

from __future__ import annotations

import os
from functools import cache

from pydantic import BaseModel, ConfigDict, Field


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    table_name: str = Field(default="LedgerTable", validation_alias="TABLE_NAME")
    idempotency_table_name: str = Field(default="IdempotencyTable", validation_alias="IDEMPOTENCY_TABLE_NAME")
    idempotency_expires_seconds: int = Field(
        default=86400, ge=60, le=30 * 86400, validation_alias="IDEMPOTENCY_EXPIRES_SECONDS"
    )
    # Empty in AWS; set for DynamoDB Local (make run, tests, sam local).
    dynamodb_endpoint_url: str = Field(default="", validation_alias="DYNAMODB_ENDPOINT_URL")

    @classmethod
    def from_environment(cls) -> Settings:
        names = {str(field.validation_alias) for field in cls.model_fields.values()}
        return cls.model_validate({name: os.environ[name] for name in names if name in os.environ})


@cache
def get_settings() -> Settings:
    return Settings.from_environment()
