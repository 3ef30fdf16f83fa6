"""409 `conflict` means one thing: a write met another and the same request may succeed when sent
again (Retry-After). A refusal that no retry can change has a code of its own, so a client (or a
generated one) never retries it."""

from __future__ import annotations

import pytest

from kakeibo.services import accounts as account_service
from kakeibo.services import recurrences as recurrence_service
from tests.events import Client


def _final(reply: object, code: str) -> None:
    """A 409 with its own code and nothing that invites a retry."""
    assert reply.status == 409, reply  # type: ignore[attr-defined]
    assert reply.json["code"] == code, reply.json  # type: ignore[attr-defined]
    assert reply.header("Retry-After") is None and "retry_after" not in reply.json  # type: ignore[attr-defined]


def test_the_statements_of_an_account_that_is_not_a_card_are_not_a_conflict(api: Client) -> None:
    # Given cash, and a credit account without billing
    api.account("cash", 1000)
    api.account("visa", 0, type="credit")
    for account in ("cash", "visa"):
        # When their card statements are asked for
        reply = api.get(f"/accounts/{account}/statements")
        # Then the answer says it is not a card, in the caller's language
        _final(reply, "not_a_card")
    assert api.get("/accounts/cash/statements", headers={"Accept-Language": "ja"}).json["title"] == (
        "クレジットカードの口座ではありません"
    )


def test_the_personal_ledger_has_no_name_nor_invitations(api: Client) -> None:
    # Given the personal ledger
    read = api.get("/ledgers/me")
    # When it is renamed, or someone is invited to it
    renamed = api.patch("/ledgers/me", {"name": "x"}, headers={"If-Match": read.etag or ""})
    invited = api.post("/ledgers/me/invitations", {"role": "editor"})
    # Then each is refused as the personal ledger's, not as a conflict
    _final(renamed, "personal_ledger")
    _final(invited, "personal_ledger")


def test_a_ledger_full_of_accounts_or_recurrences_says_its_limit(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a ledger that may hold 2 accounts and 1 recurrence, and holds them
    monkeypatch.setattr(account_service, "MAX_ACCOUNTS", 2)
    monkeypatch.setattr(recurrence_service, "MAX_RECURRENCES", 1)
    api.account("cash", 1000)
    api.account("bank", 1000, type="bank")
    rent = {
        "slip": {"kind": "expense", "amount": 100, "account": "bank"},
        "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"},
    }
    assert api.post("/recurrences", rent).status == 201
    # When one more of each is made
    account = api.post("/accounts", {"id": "suica", "name": "Suica", "type": "emoney"})
    recurrence = api.post("/recurrences", rent)
    # Then each is refused with the limit it reached
    _final(account, "limit_reached")
    _final(recurrence, "limit_reached")
    assert account.json["limit"] == 2 and recurrence.json["limit"] == 1


def test_resuming_a_webhook_that_is_not_failing_is_not_a_conflict(api: Client) -> None:
    # Given an active webhook
    made = api.post("/ledgers/me/webhooks", {"url": "https://93.184.215.14/hooks"})
    assert made.status == 201, made
    # When it is resumed
    resumed = api.post(f"/ledgers/me/webhooks/{made.json['id']}/resume")
    # Then there is nothing to resume, and no retry changes that
    _final(resumed, "not_resumable")
