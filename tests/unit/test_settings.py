"""Settings come from the environment the template sets, validated once."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from kakeibo.settings import Settings, get_settings


def test_settings_read_the_template_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the function's environment
    monkeypatch.setenv("TABLE_NAME", "kakeibo-LedgerTable-1")
    monkeypatch.setenv("IDEMPOTENCY_EXPIRES_SECONDS", "3600")
    monkeypatch.delenv("DYNAMODB_ENDPOINT_URL", raising=False)
    # When the settings are read
    settings = get_settings()
    # Then they hold those values, typed, and defaults for what is unset
    assert settings.table_name == "kakeibo-LedgerTable-1"
    assert settings.idempotency_expires_seconds == 3600
    assert settings.dynamodb_endpoint_url == ""
    # And they are read once
    assert get_settings() is settings


def test_a_bad_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDEMPOTENCY_EXPIRES_SECONDS", "10")
    with pytest.raises(ValidationError):
        Settings.from_environment()
