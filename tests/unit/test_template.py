"""template.yaml is the single source of truth: routes, public routes, env vars, lint."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kakeibo.local import template
from kakeibo.settings import Settings
from kakeibo.store.recurrences import DUE_INDEX, DUE_PK, DUE_SK

ROOT = Path(__file__).resolve().parents[2]
# Read by Powertools itself, not by our settings.
POWERTOOLS_VARS = {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_LOG_LEVEL"}


def resolver_routes() -> set[str]:
    from kakeibo.handler import include_all_routes

    app = include_all_routes()
    found = set()
    for route in app._static_routes + app._dynamic_routes:
        path = re.sub(r"<(\w+)>", r"{\1}", route.path)
        found.add(f"{route.method} {path}")
    return found


def test_template_routes_are_exactly_the_resolver_routes() -> None:
    # Given the template's HttpApi routes and the resolver's routes
    declared = {route.key for route in template.routes()}
    # Then they are the same set (no route only in one of them, no {proxy+})
    assert declared == resolver_routes()
    assert not any("proxy+" in key for key in declared)


def test_what_no_route_matches_reaches_the_function_and_is_a_problem_json_404() -> None:
    from kakeibo.handler import lambda_handler
    from kakeibo.local.front import LambdaContext

    # Given the template's $default route: public, to the one integration, as the other routes
    (default,) = [r["Properties"] for r in template.load()["Resources"].values()
                  if r["Type"] == "AWS::ApiGatewayV2::Route" and r["Properties"]["RouteKey"] == "$default"]  # fmt: skip
    assert default["AuthorizationType"] == "NONE"
    assert default["Target"] == {"Fn::Sub": "integrations/${LedgerIntegration}"}
    assert template.default_route() and "$default" not in {route.key for route in template.routes()}
    # When API Gateway sends it a request no route matches (no authorizer ran: no identity)
    event = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": "/ledgers/me/webhooks/01KAJ0000000000000000000ZZ",
        "rawQueryString": "",
        "headers": {"accept-language": "ja"},
        "requestContext": {"http": {"method": "GET", "path": "/ledgers/me/webhooks/01KAJ0000000000000000000ZZ"},
                           "requestId": "r-1", "routeKey": "$default", "stage": "$default"},
        "isBase64Encoded": False,
    }  # fmt: skip
    answer = lambda_handler(event, LambdaContext(aws_request_id="r-1"))
    # Then the function answers a problem+json 404 in the caller's language
    assert answer["statusCode"] == 404 and answer["headers"]["Content-Type"] == "application/problem+json"
    body = json.loads(answer["body"])
    assert (body["code"], body["detail"]) == ("not_found", "この URL の API はありません"), body


def test_only_health_and_docs_are_public() -> None:
    from kakeibo.handler import include_all_routes
    from kakeibo.routes import properties

    include_all_routes()
    public = {route.key for route in template.routes() if route.public}
    assert public == properties.routes_with("public") == {"GET /health", "GET /openapi.json", "GET /swagger"}


def test_env_vars_read_by_code_are_the_ones_the_template_sets() -> None:
    # Given the variables the template gives the function
    declared = set(template.load()["Globals"]["Function"]["Environment"]["Variables"])
    # When we list what the settings read
    read = {str(field.validation_alias) for field in Settings.model_fields.values()}
    # Then every variable read is set, and every variable set is read (by us or by Powertools)
    assert read <= declared
    assert declared - read == POWERTOOLS_VARS
    # And no module but the settings' reads the environment
    for path in (ROOT / "src" / "kakeibo").rglob("*.py"):
        if "local" in path.parts or path.name == "settings.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "os.environ" not in text and "getenv" not in text, path


def test_tables_are_defined_for_production() -> None:
    tables = template.load()["Resources"]
    ledger = tables["LedgerTable"]
    assert ledger["DeletionPolicy"] == "Retain"
    assert ledger["Properties"]["BillingMode"] == "PAY_PER_REQUEST"
    assert ledger["Properties"]["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert ledger["Properties"]["DeletionProtectionEnabled"] is True
    assert tables["IdempotencyTable"]["Properties"]["TimeToLiveSpecification"] == {
        "AttributeName": "expiration",
        "Enabled": True,
    }


def test_policies_name_only_the_two_tables_and_the_bucket_prefixes_and_no_wildcard_actions() -> None:
    function = template.load()["Resources"]["LedgerFunction"]["Properties"]
    due_index = {"Fn::Sub": "${LedgerTable.Arn}/index/" + DUE_INDEX}
    receipts = {"Fn::Sub": "${ReceiptsBucket.Arn}/receipts/*"}
    exports = {"Fn::Sub": "${ReceiptsBucket.Arn}/exports/*"}
    restores = {"Fn::Sub": "${ReceiptsBucket.Arn}/restores/*"}
    bucket = {"Fn::GetAtt": ["ReceiptsBucket", "Arn"]}
    for policy in function["Policies"]:
        for statement in policy["Statement"]:
            assert all("*" not in action for action in statement["Action"])
            assert statement["Resource"] in (
                {"Fn::GetAtt": ["LedgerTable", "Arn"]},
                {"Fn::GetAtt": ["IdempotencyTable", "Arn"]},
                due_index,
                receipts,
                exports,
                restores,
                bucket,
            )
            if statement["Resource"] == due_index:  # the index is only ever queried
                assert statement["Action"] == ["dynamodb:Query"]
            if statement["Resource"] == receipts:  # objects under receipts/ only: put, get (and head), delete
                assert sorted(statement["Action"]) == ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"]
            if statement["Resource"] == exports:  # archives: written in parts, read back, deleted with their ledger
                assert sorted(statement["Action"]) == [
                    "s3:AbortMultipartUpload",
                    "s3:DeleteObject",
                    "s3:GetObject",
                    "s3:PutObject",
                ]
            if statement["Resource"] == restores:  # archives to restore: uploaded (presigned), read, deleted
                assert sorted(statement["Action"]) == ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"]
            if statement["Resource"] == bucket:  # the bucket itself: listed under the three prefixes only
                listed = {"StringLike": {"s3:prefix": ["receipts/*", "exports/*", "restores/*"]}}
                assert (statement["Action"], statement.get("Condition")) in (
                    (["s3:ListBucket"], listed),
                    (["s3:ListBucketMultipartUploads"], None),
                )


def _granted() -> set[str]:
    """Every action the function's policies grant."""
    return {
        action
        for policy in template.load()["Resources"]["LedgerFunction"]["Properties"]["Policies"]
        for statement in policy["Statement"]
        for action in statement["Action"]
    }


def test_the_function_may_make_every_dynamodb_call_the_code_makes() -> None:
    # Given the calls the code makes on each table (the ledger table's and the idempotency table's)
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "src" / "kakeibo").rglob("*.py")
                       if "local" not in p.parts)  # fmt: skip
    calls = set(re.findall(r"client\.(batch_get_item|batch_write_item|scan|query|transact_write_items)\b", source))
    granted = _granted()
    # Then each is granted (a TransactWriteItems needs the item actions of what it holds)
    needed = {
        "batch_get_item": "dynamodb:BatchGetItem",
        "batch_write_item": "dynamodb:BatchWriteItem",
        "scan": "dynamodb:Scan",
        "query": "dynamodb:Query",
        "transact_write_items": "dynamodb:PutItem",
    }
    assert {needed[call] for call in calls} <= granted


def test_the_function_may_make_every_s3_call_the_code_makes() -> None:
    # Given the calls the bucket's one module makes (a presigned URL is signed for the call it names)
    source = (ROOT / "src" / "kakeibo" / "blobs.py").read_text(encoding="utf-8")
    calls = set(re.findall(r"client\(?\)?\.([a-z_0-9]+)\(", source))
    calls |= set(re.findall(r'get_paginator\("([a-z_0-9]+)"\)', source))
    calls |= set(re.findall(r'generate_presigned_url\(\s*"([a-z_]+)"', source))
    calls -= {"generate_presigned_url", "get_paginator", "cache_clear"}
    granted = _granted()
    # Then each is granted
    needed = {
        "head_object": "s3:GetObject",
        "get_object": "s3:GetObject",
        "put_object": "s3:PutObject",
        "delete_object": "s3:DeleteObject",
        "delete_objects": "s3:DeleteObject",
        "create_multipart_upload": "s3:PutObject",
        "upload_part": "s3:PutObject",
        "complete_multipart_upload": "s3:PutObject",
        "abort_multipart_upload": "s3:AbortMultipartUpload",
        "list_objects_v2": "s3:ListBucket",
        "list_multipart_uploads": "s3:ListBucketMultipartUploads",
    }
    assert calls and calls <= set(needed), calls - set(needed)
    assert {needed[call] for call in calls} <= granted


def test_the_receipts_bucket_is_private_encrypted_tls_only_and_aborts_incomplete_uploads() -> None:
    resources = template.load()["Resources"]
    bucket = resources["ReceiptsBucket"]["Properties"]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    (encryption,) = bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert encryption["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    (rule,) = bucket["LifecycleConfiguration"]["Rules"]
    assert rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"] == 1
    (cors,) = bucket["CorsConfiguration"]["CorsRules"]
    assert "x-amz-checksum-sha256" in cors["AllowedHeaders"]
    # the origins of AllowedOrigins (and the page's: tests/unit/test_template_page.py)
    (local,) = template.bucket_cors("ReceiptsBucket")["CORSRules"]
    assert local["AllowedOrigins"] == template.parameters()["AllowedOrigins"].split(",")
    (deny,) = resources["ReceiptsBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_due_index_is_the_one_the_code_queries() -> None:
    # Given the ledger table of the template
    table = template.load()["Resources"]["LedgerTable"]["Properties"]
    # Then it has the sparse due index, keyed on the attributes recurrence items carry
    (index,) = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == DUE_INDEX
    assert index["KeySchema"] == [
        {"AttributeName": DUE_PK, "KeyType": "HASH"},
        {"AttributeName": DUE_SK, "KeyType": "RANGE"},
    ]
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}


def _transformed() -> dict[str, Any]:
    """The template as CloudFormation receives it after SAM's transform (offline)."""
    import copy

    from samtranslator.translator.transform import transform

    class NoManagedPolicies:
        def load(self) -> dict[str, str]:
            return {}

    source = copy.deepcopy(template.load())
    for name, resource in source["Resources"].items():
        if resource["Type"] == "AWS::Serverless::Function":
            source["Resources"][name]["Properties"]["CodeUri"] = "s3://bucket/key"
    os.environ.setdefault("AWS_DEFAULT_REGION", "ap-northeast-1")
    result: dict[str, Any] = transform(source, {}, NoManagedPolicies())
    return result


def test_daily_schedule_invokes_the_job_in_tokyo_time_with_an_invoke_only_role() -> None:
    from kakeibo import jobs

    # Given the template after SAM's transform
    resources = _transformed()["Resources"]
    (schedule,) = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::Scheduler::Schedule"]
    # Then the schedule runs daily on Tokyo time and sends the event the handler takes for the job
    assert schedule["ScheduleExpression"].startswith("cron(") and schedule["ScheduleExpression"].endswith("* * ? *)")
    assert schedule["ScheduleExpressionTimezone"] == "Asia/Tokyo"
    target = schedule["Target"]
    alias = {"Ref": "LedgerFunctionAliaslive"}  # the published version (SnapStart), as the API invokes
    assert target["Arn"] == alias
    assert jobs.is_job(json.loads(target["Input"]))
    # And its role may do one thing: invoke this function
    role = resources[target["RoleArn"]["Fn::GetAtt"][0]]["Properties"]
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": ["scheduler.amazonaws.com"]}
    statements = [s for p in role["Policies"] for s in p["PolicyDocument"]["Statement"]]
    assert "ManagedPolicyArns" not in role
    assert statements == [{"Action": "lambda:InvokeFunction", "Effect": "Allow", "Resource": alias}]


def test_encryption_retention_and_throttling_are_configured() -> None:
    resources = template.load()["Resources"]
    for name in ("LedgerTable", "IdempotencyTable"):
        props = resources[name]["Properties"]
        assert props["SSESpecification"]["SSEEnabled"] is True
        assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    log_groups = [r for r in resources.values() if r["Type"] == "AWS::Logs::LogGroup"]
    assert len(log_groups) == 4 and all("RetentionInDays" in r["Properties"] for r in log_groups)
    throttling = resources["HttpApiStage"]["Properties"]["DefaultRouteSettings"]
    assert throttling["ThrottlingBurstLimit"] > 0 and throttling["ThrottlingRateLimit"] > 0


def test_the_local_user_pool_is_made_from_every_setting_of_the_template_s() -> None:
    import boto3

    from kakeibo.local import cognito

    # Given the template's user pool and app client, and what Cognito's API takes to make them
    resources = template.load()["Resources"]
    pool, client = resources["UserPool"]["Properties"], resources["UserPoolClient"]["Properties"]
    model = boto3.client("cognito-idp", region_name="us-east-1").meta.service_model
    takes = {
        op: set(model.operation_model(op).input_shape.members) for op in ("CreateUserPool", "CreateUserPoolClient")
    }
    # When the local pool's requests are built from them
    made_pool, made_client = cognito.pool_request("us-east-1"), cognito.client_request("us-east-1")
    mfa = cognito.mfa_request()
    # Then every setting is passed on (the name and MFA, whose API names differ, as the API has them)
    assert set(made_pool) <= takes["CreateUserPool"] and set(made_client) <= takes["CreateUserPoolClient"]
    assert set(made_pool) == set(pool) - {"UserPoolName", "EnabledMfas"} | {"PoolName"}
    assert made_pool["PoolName"] == "kakeibo-local-users" and made_pool["Policies"] == pool["Policies"]
    assert mfa == {"MfaConfiguration": "OPTIONAL", "SoftwareTokenMfaConfiguration": {"Enabled": True}}
    assert made_client == {k: v for k, v in client.items() if k != "UserPoolId"} | {"ClientName": "kakeibo-local-web"}
    # And the app client signs in by SRP, refreshes, and keeps its tokens an hour (revocable)
    assert (
        "ALLOW_USER_SRP_AUTH" in client["ExplicitAuthFlows"]
        and "ALLOW_REFRESH_TOKEN_AUTH" in client["ExplicitAuthFlows"]
    )
    assert "ALLOW_USER_PASSWORD_AUTH" not in client["ExplicitAuthFlows"]
    assert (client["IdTokenValidity"], client["TokenValidityUnits"]["IdToken"]) == (60, "minutes")
    assert client["EnableTokenRevocation"] is True and client["GenerateSecret"] is False


def test_checkov_finds_nothing_unjustified() -> None:
    """The IaC scanner passes every check it runs; each skip carries its reason in the template."""
    import json

    checkov = os.environ.get("CHECKOV") or str(ROOT / ".venv-scan" / "bin" / "checkov")
    if not Path(checkov).exists():
        pytest.skip("checkov is installed by `make test` (.venv-scan)")
    result = subprocess.run(
        [checkov, "-f", str(ROOT / "template.yaml"), "--framework", "cloudformation", "--skip-download", "-o", "json"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "BC_SKIP_MAPPING": "TRUE"},
        timeout=300,
    )
    report = json.loads(result.stdout)
    summary = report["summary"]
    failed = [f"{c['check_id']} {c['resource']}" for c in report["results"]["failed_checks"]]
    assert failed == [] and summary["failed"] == 0
    assert summary["passed"] >= 5  # it really scanned
    for skipped in report["results"]["skipped_checks"]:
        assert len(skipped["check_result"].get("suppress_comment", "")) > 20, skipped["check_id"]


def test_cfn_lint_is_clean() -> None:
    result = subprocess.run(
        [str(Path(sys.executable).parent / "cfn-lint"), str(ROOT / "template.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("sam", path=str(Path(sys.executable).parent)) is None, reason="sam CLI")
def test_sam_validate_lint_is_clean() -> None:
    sam = shutil.which("sam", path=str(Path(sys.executable).parent))
    assert sam is not None
    result = subprocess.run(
        [sam, "validate", "--lint", "--template-file", str(ROOT / "template.yaml")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "AWS_DEFAULT_REGION": "ap-northeast-1", "SAM_CLI_TELEMETRY": "0"},
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
