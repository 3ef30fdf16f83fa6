"""Request and response models: personal access tokens (§25)."""

from typing import Literal

from pydantic import Field

from kakeibo.core.tokens import DEFAULT_DAYS, MAX_DAYS, MIN_DAYS
from kakeibo.models.base import Model, Name, Strict

Scope = Literal["read", "write"]


class TokenIn(Strict):
    name: Name = Field(description="What the token is for, to tell it apart (a script, a spreadsheet)")
    scope: Scope = Field(description="read: GET requests only; write: everything its person's role allows")
    expires_in_days: int = Field(
        default=DEFAULT_DAYS, ge=MIN_DAYS, le=MAX_DAYS, description="Days until it stops working"
    )


class Token(Model):
    id: str
    name: str
    scope: Scope
    prefix: str = Field(description="The token's first characters, to recognise it")
    created_at: str
    expires_at: str
    last_used_at: str | None = Field(default=None, description="The last day (UTC) it was used, if ever")


class TokenCreated(Token):
    token: str = Field(description="Shown once: send it as `Authorization: Bearer kk_...`")


class TokenList(Model):
    items: list[Token]


class Me(Model):
    """Who a request is, as the API sees it: a program learns here what its token may do."""

    user: str = Field(description="Your user id (the `sub` your sign-in or your token acts as)")
    via: Literal["jwt", "token"] = Field(description="jwt: signed in; token: a personal access token")
    scope: Scope = Field(description="read: GET requests only; write: what your role allows in each ledger")
    token_id: str | None = Field(default=None, description="The token's id (GET /me/tokens) when via is token")
