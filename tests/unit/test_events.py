"""The sample events in events/ stay valid: one per route, same shape as the builder's, and
the handler answers each of them (against moto) without a server error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kakeibo.local import template
from kakeibo.local.events import http_event
from tests.events import EVENTS_DIR, SUITE_TIMEOUT, sample, samples

EXPECTED = {
    "health": 200,
    "openapi": 200,
    "swagger": 200,
    "create_account": 201,
    "list_accounts": 200,
    "get_account": 200,
    "patch_account": 200,
    "account_history": 200,
    "create_slip": 201,
    "list_slips": 200,
    "get_slip": 200,
    "get_slip_by_id": 200,
    "replace_slip": 200,
    "patch_slip": 200,
    "delete_slip": 204,
    "get_balances": 200,
    "monthly_report": 200,
    "yearly_report": 200,
    "medical_report": 200,
    "medical_csv": 200,
    "medical_xlsx": 200,
    "donation_report": 200,
    "put_budget": 201,
    "delete_budget": 204,
    "list_budgets": 200,
    "copy_budgets": 200,
    "import_csv": 200,
    "get_import": 200,
    "export_csv": 200,
    "verify_ledger": 200,
    "rebuild_ledger": 200,
    "create_recurrence": 201,
    "list_recurrences": 200,
    "get_recurrence": 200,
    "patch_recurrence": 200,
    "delete_recurrence": 204,
    "list_occurrences": 200,
    "run_recurrences": 200,
    "card_statements": 200,
    "expiring_points": 200,
    "create_reconciliation": 201,
    "list_reconciliations": 200,
    "run_jobs": 200,
    "claim_receipt": 201,
    "complete_receipt": 200,
    "get_receipt": 200,
    "create_ledger": 201,
    "list_ledgers": 200,
    "get_ledger": 200,
    "patch_ledger": 200,
    "create_invitation": 201,
    "accept_invitation": 200,
    "put_member": 200,
    "delete_member": 204,
    "list_changes": 200,
    "slip_history": 200,
    "undo_change": 200,
    "create_webhook": 201,
    "list_webhooks": 200,
    "delete_webhook": 204,
    "list_webhook_deliveries": 200,
    "resume_webhook": 200,
    "get_settlement": 200,
    "create_settlement": 201,
    "export_ledger": 202,
    "restore_ledger": 202,
    "delete_ledger": 202,
    "remove_my_data": 202,
    "get_export": 200,
    "create_rule": 201,
    "list_rules": 200,
    "order_rules": 200,
    "get_rule": 200,
    "patch_rule": 200,
    "delete_rule": 204,
    "preview_rules": 200,
    "apply_rules": 200,
    "preview_rule": 200,
    "apply_rule": 200,
    "list_rule_suggestions": 200,
    "accept_rule_suggestion": 201,
    "get_me": 200,
    "create_token": 201,
    "list_tokens": 200,
    "revoke_token": 404,  # the sample's token id names no token of the sample's person
    "list_import_formats": 200,
    "get_forecast": 200,
    "create_goal": 201,
    "list_goals": 200,
    "get_goal": 200,
    "patch_goal": 200,
    "delete_goal": 204,
    "net_worth": 200,
    "list_alerts": 200,
    "dismiss_alert": 404,  # the sample's alert id names no alert of the sample's ledger
    "tag_report": 200,
    "bulk_slips": 200,
}
WEBHOOK_ID = "01KAJ0000000000000000000WH"
SHARED_LEDGER_ID = "01KAJ0000000000000000000HH"
# Every ledger route's sample again under /ledgers/{ledger}, for the shared ledger "local" owns
IN_LEDGER = {f"{name}_in_ledger": status for name, status in EXPECTED.items()
             if (EVENTS_DIR / f"{name}_in_ledger.json").exists()}  # fmt: skip
EXPECTED.update(IN_LEDGER)
RECURRENCE_ID = "01KAJ0000000000000000000RC"
RULE_ID = "01KAJ0000000000000000000RU"


def _keys(value: Any, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        out = set()
        for key, inner in value.items():
            if key in ("claims", "headers", "pathParameters", "queryStringParameters"):
                out.add(prefix + key)
                continue
            out |= {prefix + key} | _keys(inner, f"{prefix}{key}.")
        return out
    return set()


def test_one_sample_per_template_route() -> None:
    routes = {route.key for route in template.routes()}
    seen = [event["routeKey"] for event in samples().values()]
    assert sorted(seen) == sorted(routes)
    assert set(samples()) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_has_the_shape_the_builder_makes(name: str) -> None:
    event = sample(name)
    route = next(r for r in template.routes() if r.key == event["routeKey"])
    built = http_event(
        route,
        path=event["rawPath"],
        path_parameters=event.get("pathParameters"),
        query=event.get("queryStringParameters"),
        headers=event["headers"],
        body=event.get("body"),
        authorizer={"sub": "local", "via": "jwt", "scope": "write", "token_id": ""},  # the Lambda authorizer's
    )
    assert _keys(built) == _keys(event)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_handler_answers_every_sample(aws: None, name: str) -> None:
    from kakeibo.handler import lambda_handler
    from kakeibo.local.front import LambdaContext

    # Given the ledger the samples talk about ("local"'s, or the shared one "local" owns): an account,
    # and the sample slip
    from kakeibo.models.ledgers import InvitationIn, LedgerIn
    from kakeibo.services import ledgers
    from kakeibo.services.access import EDITORS
    from kakeibo.store import Change, WriteContext, get_store

    store, now = get_store(), "2026-11-21T09:00:00.000+09:00"
    shared = name in IN_LEDGER
    name = name.removesuffix("_in_ledger")
    who = WriteContext.member(SHARED_LEDGER_ID, "local", EDITORS) if shared else WriteContext.personal("local")
    owned = ("patch_ledger", "create_invitation", "put_member", "delete_member", "delete_ledger")
    if shared or name in owned or "webhook" in name or "settlement" in name:  # owned by "local"
        ledgers.create_ledger(store, "local", LedgerIn(name="山田家"), ledger_id=SHARED_LEDGER_ID)
        if name in ("put_member", "delete_member", "create_settlement"):  # Taro, the member the sample names
            invited = ledgers.invite(store, "local", SHARED_LEDGER_ID, InvitationIn(role="editor"))
            ledgers.accept(store, "taro", invited["token"])
    if name != "create_account":
        from kakeibo.models.accounts import AccountCreate
        from kakeibo.services import accounts

        cash = AccountCreate(id="cash", name="Cash", type="cash", opening_balance=20000)
        accounts.create_account(store, who, cash)
    if name in (
        "get_slip",
        "get_slip_by_id",
        "replace_slip",
        "patch_slip",
        "delete_slip",
        "slip_history",
        "undo_change",
        "bulk_slips",
    ):
        from kakeibo.models.slips import SlipIn
        from kakeibo.services import slips as service

        body = SlipIn(date="2026-11-20", kind="expense", amount=1200, account="cash", category="食費")
        service.create_slip(store, who, body, slip_id="01KAJ0000000000000000000AB")
    if name in ("get_recurrence", "patch_recurrence", "delete_recurrence", "list_occurrences"):
        from kakeibo.models.recurrences import RecurrenceIn
        from kakeibo.services import recurrences

        rent = RecurrenceIn.model_validate(json.loads(sample("create_recurrence")["body"]))
        recurrences.create_recurrence(store, who, rent, recurrence_id=RECURRENCE_ID)
    if name in ("get_goal", "patch_goal", "delete_goal"):  # the goal the sample names, at version 1
        from kakeibo.models.goals import GoalIn
        from kakeibo.services import goals

        trip = GoalIn(name="旅行の積立", target=300000, account="cash")
        goals.create_goal(store, who, trip, goal_id=sample("get_goal")["pathParameters"]["id"])
    if name == "accept_rule_suggestion":  # two slips of マルエツ given 食費 by hand: the sample's suggestion
        from kakeibo.models.slips import SlipIn
        from kakeibo.services import slips as slip_service

        for day in ("2026-11-20", "2026-11-21"):
            body = SlipIn(date=day, kind="expense", amount=980, account="cash", category="食費", payee="マルエツ")
            slip_service.create_slip(store, who, body, run_rules=True)
    if name in ("get_rule", "patch_rule", "delete_rule", "order_rules", "preview_rule", "apply_rule"):
        from kakeibo.models.rules import SlipRuleIn
        from kakeibo.services import rules

        rule = SlipRuleIn.model_validate(json.loads(sample("create_rule")["body"]))
        rules.create_rule(store, who, rule, rule_id=RULE_ID)
    if name == "card_statements":  # the card the sample names, closing on the 15th, paid from the bank
        from kakeibo.models.accounts import AccountCreate
        from kakeibo.services import accounts

        bank = AccountCreate(id="bank", name="Bank", type="bank", opening_balance=100000)
        accounts.create_account(store, who, bank)
        billing = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
        card = AccountCreate.model_validate({"id": "card", "name": "Card", "type": "credit", "billing": billing})
        accounts.create_account(store, who, card)
    if name in ("claim_receipt", "complete_receipt", "get_receipt"):  # the bucket; the receipt uploaded
        import boto3

        from kakeibo import blobs
        from kakeibo.models.receipts import ReceiptIn
        from kakeibo.services import receipts

        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="kakeibo-receipts")
        if name != "claim_receipt":
            data = b"receipt sample"
            body = ReceiptIn.model_validate(json.loads(sample("claim_receipt")["body"]))
            receipts.claim(store, who, body)
            s3.put_object(Bucket="kakeibo-receipts", Key=blobs.key_of(str(who.ledger), body.sha256), Body=data)
            if name == "get_receipt":
                receipts.complete(store, who, body.sha256)
    if name in (
        "export_ledger",
        "get_export",
        "restore_ledger",
        "delete_ledger",
        "remove_my_data",
    ):  # the bucket; the export the sample names
        import boto3

        from kakeibo.services import dataio

        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="kakeibo-receipts")
        if name == "get_export":
            owner = WriteContext.member(SHARED_LEDGER_ID, "local", ("owner",)) if shared else who
            dataio.start_export(store, owner, export_id=sample(name)["pathParameters"]["id"])
    if name == "delete_budget":  # the budget the sample removes, at version 1
        from kakeibo.models.budgets import BudgetIn
        from kakeibo.services import budgets

        budgets.put_budget(store, who, "2026-11", "食費", body=BudgetIn(limit=30000), expected=None, if_match=False)
    if name == "accept_invitation":  # Hanako's ledger, and the invitation the sample accepts
        ledgers.create_ledger(store, "hanako", LedgerIn(name="山田家"), ledger_id=SHARED_LEDGER_ID)
        token = sample(name)["pathParameters"]["token"]
        invitation = Change("invitation", ledgers.invitation_id(token), "create", 1, None, {"role": "editor"})
        store.ledgers.create_invitation(
            WriteContext.member(SHARED_LEDGER_ID, "hanako", ("owner",)),
            token,
            "editor",
            expires_at_ms=4 * 10**12,
            now=now,
            changes=[invitation],
        )
    if name in ("delete_webhook", "list_webhook_deliveries", "resume_webhook"):  # the webhook the sample names
        item = {"type": "webhook", "id": WEBHOOK_ID, "url": "https://93.184.215.14/hooks", "secret": "s",
                "created_at": now, "created_by": "local"}  # fmt: skip
        made = Change("webhook", WEBHOOK_ID, "create", 1, None, {"id": WEBHOOK_ID})
        store.webhooks.create_webhook(
            WriteContext.member(SHARED_LEDGER_ID, "local", ("owner",)), item, changes=[made], count=0
        )
        if name == "resume_webhook":  # past its retry budget: what resume is for
            from kakeibo.store import SharedLedger
            from kakeibo.store.codec import to_ddb
            from kakeibo.store.keys import pk, webhook_sk

            key = {"PK": pk(SharedLedger(SHARED_LEDGER_ID)), "SK": webhook_sk(WEBHOOK_ID)}
            store.core.client.update_item(
                TableName=store.core.table, Key=to_ddb(key), UpdateExpression="SET #s = :failing",
                ExpressionAttributeNames={"#s": "state"}, ExpressionAttributeValues=to_ddb({":failing": "failing"}),
            )  # fmt: skip
    if name == "get_import":  # the import the sample names: the import_csv sample's file
        first = sample("import_csv_in_ledger" if shared else "import_csv")
        assert lambda_handler(first, LambdaContext(aws_request_id="test", timeout=SUITE_TIMEOUT))["statusCode"] == 200
    name = f"{name}_in_ledger" if shared else name
    # When the sample event is handed to the function as `sam local invoke -e` would
    result = lambda_handler(sample(name), LambdaContext(aws_request_id="test", timeout=SUITE_TIMEOUT))
    # Then it answers as the route promises
    assert result["statusCode"] == EXPECTED[name], result.get("body")
