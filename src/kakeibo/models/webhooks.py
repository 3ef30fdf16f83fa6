"""Request and response models: webhooks."""

from pydantic import (
    Field,
)

from kakeibo.models.base import Model, Strict


class WebhookIn(Strict):
    url: str = Field(min_length=8, max_length=2048, description="https, to a public address")
    description: str | None = Field(default=None, max_length=200)


class Webhook(Model):
    id: str
    url: str
    description: str | None
    created_at: str
    created_by: str | None
    delivered: int = Field(description="The seq of the last journal entry it has received")
    state: str = Field(
        description="active; failing (its retry budget ran out: POST .../resume sends what it missed, "
        "from `delivered` on); disabled (its creator is no longer an owner of the ledger)"
    )
    last_error: str | None = Field(
        default=None,
        description="Why the last attempt failed, while its receiver is failing (null again once an entry is "
        "delivered), or why the webhook was disabled",
    )
    failing_since: str | None = Field(default=None, description="The first failure of the current run of them")
    next_attempt_at: str | None = Field(default=None, description="When the sender tries again (backoff)")


class WebhookCreated(Webhook):
    secret: str = Field(description="Shown once: verify each delivery's Kakeibo-Signature with it")


class WebhookList(Model):
    items: list[Webhook]


class DeliveryAttempt(Model):
    at: str
    status: int | None = Field(description="The receiver's HTTP status (null: no answer)")
    error: str | None
    ms: int


class Delivery(Model):
    seq: int
    attempts: int
    delivered: bool
    dead_lettered: bool = Field(description="The retry budget ran out on this entry: the webhook is failing")
    first_at: str
    last: DeliveryAttempt
    tries: list[DeliveryAttempt] = Field(description="Every attempt at this entry, oldest first")


class DeliveryList(Model):
    items: list[Delivery]
