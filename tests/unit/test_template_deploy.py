"""The stack as CloudFormation receives it (template.yaml transformed by SAM's own translator):
it keeps its users, its CORS origins are a list, the function runs published SnapStart versions
behind an alias, and its resource policy stays small however many routes the API gets."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from samtranslator.translator.transform import transform

from kakeibo.local import template

POLICY_LIMIT = 20 * 1024  # Lambda's cap on a function's resource-based policy
ROUTES_PER_API = 300  # API Gateway's quota of routes per HTTP API
# Realistic resolved values for the size estimate (names as CloudFormation generates them).
FUNCTION_ARN = "arn:aws:lambda:ap-northeast-1:123456789012:function:kakeibo-api-LedgerFunction-AbCdEfGhIjKl:live"
API_ARN = "arn:aws:execute-api:ap-northeast-1:123456789012:a1b2c3d4e5"


class _NoManagedPolicies:
    def load(self) -> dict[str, str]:
        return {}


def transformed(source: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What `sam deploy` hands CloudFormation (CodeUri as `sam package` rewrites it)."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-northeast-1")
    doc = copy.deepcopy(source)
    for name, resource in doc["Resources"].items():
        if resource["Type"] == "AWS::Serverless::Function":
            doc["Resources"][name]["Properties"]["CodeUri"] = "s3://deploy-bucket/ledger.zip"
    result: dict[str, Any] = transform(doc, {}, _NoManagedPolicies())
    return result


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return transformed(template.load(), monkeypatch)


def of_type(stack: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in stack["Resources"].items() if r["Type"] == kind}


def policy_statement(permission: dict[str, Any], source_arn: str) -> dict[str, Any]:
    """The statement Lambda adds to the function's policy for one AWS::Lambda::Permission."""
    props = permission["Properties"]
    return {
        "Sid": "kakeibo-api-LedgerInvokePermission-AbCdEfGhIjKl",
        "Effect": "Allow",
        "Principal": {"Service": props["Principal"]},
        "Action": props["Action"],
        "Resource": FUNCTION_ARN,
        "Condition": {"ArnLike": {"AWS:SourceArn": source_arn}},
    }


def ledger_permissions(stack: dict[str, Any]) -> list[dict[str, Any]]:
    """The ledger function's invoke permissions (its resource policy; the authorizer has its own)."""
    return [
        p for p in of_type(stack, "AWS::Lambda::Permission").values()
        if p["Properties"]["FunctionName"]["Ref"].startswith("LedgerFunction")
    ]  # fmt: skip


def policy_size(stack: dict[str, Any]) -> int:
    """Estimated bytes of the ledger function's resource policy: one statement per permission."""
    statements = []
    for permission in ledger_permissions(stack):
        source = permission["Properties"]["SourceArn"]
        text = source["Fn::Sub"] if isinstance(source, dict) else source
        arn = text.replace("arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${HttpApi}", API_ARN)
        statements.append(policy_statement(permission, arn))
    return len(json.dumps({"Version": "2012-10-17", "Id": "default", "Statement": statements}))


def with_ledger_routes(source: dict[str, Any]) -> dict[str, Any]:
    """The template with every private route also under /ledgers/{ledger} (shared ledgers)."""
    doubled = copy.deepcopy(source)
    for name, resource in source["Resources"].items():
        if resource["Type"] == "AWS::ApiGatewayV2::Route" and resource["Properties"]["AuthorizationType"] != "NONE":
            method, path = resource["Properties"]["RouteKey"].split(" ", 1)
            copied = copy.deepcopy(resource)
            copied["Properties"]["RouteKey"] = f"{method} /ledgers/{{ledger}}{path}"
            doubled["Resources"][f"Ledger{name}"] = copied
    return doubled


def test_users_and_ledgers_survive_stack_deletion_and_replacement(stack: dict[str, Any]) -> None:
    # Then the user pool, its client and the ledger table are retained on delete and on replacement
    for name in ("UserPool", "UserPoolClient", "LedgerTable"):
        resource = stack["Resources"][name]
        assert resource.get("DeletionPolicy") == "Retain", name
        assert resource.get("UpdateReplacePolicy") == "Retain", name


def test_cors_origins_reach_api_gateway_as_a_list(stack: dict[str, Any]) -> None:
    # Given the HTTP API's CORS configuration as CloudFormation receives it
    (api,) = of_type(stack, "AWS::ApiGatewayV2::Api").values()
    cors = api["Properties"]["CorsConfiguration"]
    # Then the origins are a list: literally, a CommaDelimitedList parameter, or one split (a list once
    # resolved: the parameter's and the page's)
    origins = cors["AllowOrigins"]
    if isinstance(origins, dict) and "Fn::Split" in origins:
        delimiter, (joined,) = origins["Fn::Split"][0], origins["Fn::Split"][1]["Fn::Sub"][1].values()
        assert delimiter == "," and joined["Fn::Join"][0] == ","
        origins = joined["Fn::Join"][1]
    if isinstance(origins, dict):
        assert set(origins) == {"Ref"}
        assert stack["Parameters"][origins["Ref"]]["Type"] == "CommaDelimitedList"
        assert len(template.parameters(stack)[origins["Ref"]].split(",")) == 2
    else:
        assert isinstance(origins, list) and all(isinstance(o, str) and "," not in o for o in origins)
    for field in ("AllowHeaders", "AllowMethods", "ExposeHeaders"):
        assert isinstance(cors[field], list) and cors[field], field


def test_every_route_reaches_the_live_alias_through_one_integration_and_one_permission(
    stack: dict[str, Any],
) -> None:
    # Given the functions, their published versions and aliases, and the API's routes
    functions = of_type(stack, "AWS::Lambda::Function")
    aliases = {a["Properties"]["FunctionName"]["Ref"]: n for n, a in of_type(stack, "AWS::Lambda::Alias").items()}
    versions = {v["Properties"]["FunctionName"]["Ref"] for v in of_type(stack, "AWS::Lambda::Version").values()}
    assert set(aliases) == versions == {"LedgerFunction", "AuthorizerFunction"}
    for name in versions:
        assert functions[name]["Properties"]["Runtime"] == "python3.13"
        assert functions[name]["Properties"]["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    alias_name = aliases["LedgerFunction"]
    (integration_name, integration), *others = of_type(stack, "AWS::ApiGatewayV2::Integration").items()
    assert others == []
    # Then the one integration invokes the alias (the SnapStart version), not $LATEST
    alias = stack["Resources"][alias_name]["Properties"]["Name"]
    assert integration["Properties"]["IntegrationUri"] == {"Fn::Sub": f"${{LedgerFunction.Arn}}:{alias}"}
    assert integration["DependsOn"] == "LedgerInvokePermission"
    assert integration["Properties"]["PayloadFormatVersion"] == "2.0"
    # And every route targets it, private ones through the one Lambda authorizer
    routes = of_type(stack, "AWS::ApiGatewayV2::Route")
    assert len(routes) == len(template.routes()) + 1 > 20  # and $default: what no route matches
    assert len(routes) <= ROUTES_PER_API  # every ledger route twice (also under /ledgers/{ledger}) included
    for route in routes.values():
        props = route["Properties"]
        assert props["Target"] == {"Fn::Sub": f"integrations/${{{integration_name}}}"}
        assert props["AuthorizationType"] in ("NONE", "CUSTOM")
        assert props["AuthorizationType"] == "NONE" or props["AuthorizerId"] == {"Ref": "LedgerAuthorizer"}
    # And exactly one invoke permission exists per function: the ledger's for its routes, the
    # authorizer's for the API's authorizers, each for its alias, from this API only
    permissions = {
        p["Properties"]["FunctionName"]["Ref"]: p for p in of_type(stack, "AWS::Lambda::Permission").values()
    }
    assert set(permissions) == {alias_name, aliases["AuthorizerFunction"]}
    for name, permission in permissions.items():
        assert permission["Properties"]["Principal"] == "apigateway.amazonaws.com"
        source = permission["Properties"]["SourceArn"]["Fn::Sub"]
        assert source.endswith("${HttpApi}/*" if name == alias_name else "${HttpApi}/authorizers/*")


def test_the_authorizer_is_a_cached_simple_lambda_authorizer_of_the_live_alias(stack: dict[str, Any]) -> None:
    # Given the API's authorizers
    (authorizer,) = of_type(stack, "AWS::ApiGatewayV2::Authorizer").values()
    props = authorizer["Properties"]
    # Then it is the AuthorizerFunction's live alias, payload 2.0, simple responses, cached 60 s by the header
    assert props["AuthorizerType"] == "REQUEST" and props["AuthorizerPayloadFormatVersion"] == "2.0"
    assert props["EnableSimpleResponses"] is True and props["AuthorizerResultTtlInSeconds"] == 60
    assert props["IdentitySource"] == ["$request.header.Authorization"]
    assert "${AuthorizerFunction.Arn}:live/invocations" in props["AuthorizerUri"]["Fn::Sub"]
    # And the function it names is the one the local front runs, with the handler that exists
    assert template.lambda_authorizer()[0] == "AuthorizerFunction"
    assert template.function_handler("AuthorizerFunction") == "kakeibo.auth.authorizer.handler"
    from kakeibo.auth import authorizer as module

    assert callable(module.handler)


def test_the_resource_policy_stays_small_when_the_routes_double(
    stack: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the template with every ledger route repeated under /ledgers/{ledger}
    doubled = transformed(with_ledger_routes(template.load()), monkeypatch)
    routes = len(of_type(doubled, "AWS::ApiGatewayV2::Route"))
    assert routes > 1.8 * len(of_type(stack, "AWS::ApiGatewayV2::Route"))
    # Then there is still one permission and the policy is far below Lambda's 20 KB
    assert len(ledger_permissions(doubled)) == 1
    assert policy_size(doubled) == policy_size(stack) < POLICY_LIMIT / 20
    # While one permission per route (SAM's HttpApi events) would stop the API at some 50 routes,
    # fewer than shared ledgers, members, invitations and recurrences will need
    (permission,) = ledger_permissions(stack)
    one = policy_statement(permission, f"{API_ARN}/*/GET/ledgers/{{ledger}}/slips/{{date}}/{{id}}")
    assert POLICY_LIMIT // len(json.dumps(one)) < 60


def test_a_route_declared_as_a_function_event_is_refused() -> None:
    # Given a route added the SAM way, as an event of the function (one permission per event)
    source = copy.deepcopy(template.load())
    source["Resources"]["LedgerFunction"]["Properties"]["Events"] = {
        "ListLedgers": {"Type": "HttpApi", "Properties": {"ApiId": {"Ref": "HttpApi"}, "Path": "/ledgers"}}
    }
    # Then reading the routes says how to declare it instead of silently skipping it
    with pytest.raises(ValueError, match=r"AWS::ApiGatewayV2::Route"):
        template.routes(source)


def test_the_webhook_sender_reads_only_journal_entries_with_least_privilege(stack: dict[str, Any]) -> None:
    # Given the sender's event source mappings (the stream's, the delivery queue's) and role
    mappings = [m["Properties"] for m in of_type(stack, "AWS::Lambda::EventSourceMapping").values()]
    (props,) = [m for m in mappings if m["EventSourceArn"] == {"Fn::GetAtt": ["LedgerTable", "StreamArn"]}]
    (queue,) = [m for m in mappings if m is not props]
    # Then the deliveries come from the delivery queue, failures reported per message
    assert queue["EventSourceArn"] == {"Fn::GetAtt": ["WebhookDeliveryQueue", "Arn"]}
    assert queue["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    # Then it reads the ledger table's stream, only new journal items pass its filter
    assert props["EventSourceArn"] == {"Fn::GetAtt": ["LedgerTable", "StreamArn"]}
    (pattern,) = [json.loads(f["Pattern"]) for f in props["FilterCriteria"]["Filters"]]
    assert pattern == {"eventName": ["INSERT"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "CHG#"}]}}}}
    # And failures are reported per record, retried in order, then described in the dead-letter queue
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert props["BisectBatchOnFunctionError"] is False and props["MaximumRetryAttempts"] > 0
    dlq = {"Fn::GetAtt": ["WebhookDeadLetterQueue", "Arn"]}
    assert props["DestinationConfig"]["OnFailure"]["Destination"] == dlq
    # And its role may read the stream, read, query and update the table, send to the queues: nothing else
    role = of_type(stack, "AWS::IAM::Role")["WebhookSenderFunctionRole"]["Properties"]
    actions = {
        action
        for policy in role["Policies"]
        for statement in policy["PolicyDocument"]["Statement"]
        for action in ([statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"])
    }
    assert actions == {
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:ListStreams",
        "sqs:SendMessage",
    }
    assert not [arn for arn in role.get("ManagedPolicyArns", []) if "Admin" in str(arn) or "FullAccess" in str(arn)]
