"""Read template.yaml: routes, table definitions and the function's environment.

The template is the single source of truth; the local front, the table bootstrap and the tests
all read it through this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from kakeibo.event import DEFAULT_ROUTE

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that understands CloudFormation's short-form intrinsic functions (!Ref, !Sub...)."""


def _intrinsic(loader: _CfnLoader, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{tag_suffix}": value}


_CfnLoader.add_multi_constructor("!", _intrinsic)


@cache
def load(path: Path = TEMPLATE) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        loaded: dict[str, Any] = yaml.load(fh, Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass
    return loaded


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # API Gateway syntax: /slips/{date}/{id}
    public: bool
    route_key: str | None = None  # as the event names it, when not `METHOD /path` ($default's)

    @property
    def key(self) -> str:
        return self.route_key or f"{self.method} {self.path}"

    @property
    def pattern(self) -> re.Pattern[str]:
        regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.path))
        return re.compile(f"^{regex}$")


def routes(template: dict[str, Any] | None = None) -> list[Route]:
    """The API's routes: its AWS::ApiGatewayV2::Route resources (public: `AuthorizationType: NONE`)."""
    template = template or load()
    found = []
    for name, resource in template["Resources"].items():
        events = (resource.get("Properties") or {}).get("Events") or {}
        if any(event.get("Type") in ("HttpApi", "Api") for event in events.values()):
            # Each such event would add its own invoke permission (Lambda's policy is capped at 20 KB).
            raise ValueError(f"{name}: declare routes as AWS::ApiGatewayV2::Route resources, not as Events")
        if resource.get("Type") != "AWS::ApiGatewayV2::Route":
            continue
        props = resource["Properties"]
        if props["RouteKey"] == DEFAULT_ROUTE:  # no route of its own: see default_route()
            continue
        method, path = props["RouteKey"].split(" ", 1)
        found.append(Route(method.upper(), path, props.get("AuthorizationType") == "NONE"))
    return found


def lambda_authorizer(template: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """The API's Lambda authorizer: (its function's logical id, its AWS::ApiGatewayV2::Authorizer
    properties). The template has one, on every route that is not public."""
    template = template or load()
    found = [
        r["Properties"]
        for r in template["Resources"].values()
        if r.get("Type") == "AWS::ApiGatewayV2::Authorizer" and r["Properties"].get("AuthorizerType") == "REQUEST"
    ]
    if len(found) != 1:
        raise ValueError(f"the template should declare one Lambda authorizer, not {len(found)}")
    uri = found[0]["AuthorizerUri"]
    text = uri.get("Fn::Sub", "") if isinstance(uri, dict) else str(uri)
    matched = re.search(r"\$\{(\w+)\.Arn\}", text if isinstance(text, str) else text[0])
    if matched is None:
        raise ValueError(f"the authorizer's URI names no function: {uri}")
    return matched.group(1), found[0]


def authorizer_ttl(template: dict[str, Any] | None = None) -> int:
    """How long API Gateway caches the authorizer's answer for one identity source, in seconds."""
    return int(lambda_authorizer(template)[1].get("AuthorizerResultTtlInSeconds", 300))


def default_route(template: dict[str, Any] | None = None) -> bool:
    """Whether the API sends every request no route matches to the function (a `$default` route),
    rather than answering it itself with `{"message":"Not Found"}`."""
    template = template or load()
    return any(
        resource.get("Type") == "AWS::ApiGatewayV2::Route"
        and (resource.get("Properties") or {}).get("RouteKey") == DEFAULT_ROUTE
        for resource in template["Resources"].values()
    )


def tables(template: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    template = template or load()
    return {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource.get("Type") == "AWS::DynamoDB::Table"
    }


def transient_tables(template: dict[str, Any] | None = None) -> set[str]:
    """The tables whose items may be lost (DeletionPolicy Delete: records that live a day or so)."""
    template = template or load()
    return {
        name
        for name, resource in template["Resources"].items()
        if resource.get("Type") == "AWS::DynamoDB::Table" and resource.get("DeletionPolicy") == "Delete"
    }


def buckets(template: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The template's S3 buckets by logical id, with their properties."""
    template = template or load()
    return {
        name: dict(resource.get("Properties") or {})
        for name, resource in template["Resources"].items()
        if resource.get("Type") == "AWS::S3::Bucket"
    }


def bucket_name(logical: str) -> str:
    """The name a template bucket has locally (AWS names it from the stack)."""
    return f"kakeibo-{logical.removesuffix('Bucket').lower()}"


def bucket_cors(logical: str, template: dict[str, Any] | None = None) -> dict[str, Any]:
    """A bucket's CORS rules as the S3 API takes them, the allowed origins resolved."""
    template = template or load()
    rules = []
    for rule in (buckets(template)[logical].get("CorsConfiguration") or {}).get("CorsRules", []):
        origins = cors_origins(rule["AllowedOrigins"], template)
        # CloudFormation's names -> the S3 API's
        names = {"MaxAge": "MaxAgeSeconds", "ExposedHeaders": "ExposeHeaders", "Id": "ID"}
        rules.append({names.get(k, k): v for k, v in {**rule, "AllowedOrigins": origins}.items()})
    return {"CORSRules": rules}


def queues(template: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The template's SQS queues by logical id, with their properties."""
    template = template or load()
    return {
        name: dict(resource.get("Properties") or {})
        for name, resource in template["Resources"].items()
        if resource.get("Type") == "AWS::SQS::Queue"
    }


LOCAL_ACCOUNT = "123456789012"  # the account id a local SQS server (moto's) names its queues under


def queue_name(logical: str) -> str:
    """The name a template queue has locally (AWS names it from the stack)."""
    return f"kakeibo-{logical.removesuffix('Queue').lower()}"


def queue_url(endpoint: str, logical: str) -> str:
    """A template queue's URL on the local server at `endpoint` (what `!Ref` gives in AWS)."""
    return f"{endpoint.rstrip('/')}/{LOCAL_ACCOUNT}/{queue_name(logical)}"


def function_timeout(logical: str, template: dict[str, Any] | None = None) -> float:
    """A function's Timeout in seconds (its own, else the Globals')."""
    doc = template or load()
    own = doc["Resources"][logical]["Properties"].get("Timeout")
    return float(own if own is not None else doc["Globals"]["Function"].get("Timeout", 3))


def function_handler(logical: str, template: dict[str, Any] | None = None) -> str:
    """A function's Handler (`module.function`)."""
    doc = template or load()
    return str(doc["Resources"][logical]["Properties"]["Handler"])


def parameters(template: dict[str, Any] | None = None) -> dict[str, str]:
    template = template or load()
    return {name: str(p.get("Default", "")) for name, p in (template.get("Parameters") or {}).items()}


def environment(
    table_names: dict[str, str] | None = None,
    overrides: dict[str, str] | None = None,
    template: dict[str, Any] | None = None,
) -> dict[str, str]:
    """The function's environment with Refs resolved: tables to local names, parameters to defaults."""
    template = template or load()
    params = {**parameters(template), **(overrides or {})}
    names = table_names or {name: name for name in tables(template)}
    names = {**{name: bucket_name(name) for name in buckets(template)}, **names}
    sqs = params.get("SqsEndpointUrl", "")
    names = {**{name: queue_url(sqs, name) if sqs else "" for name in queues(template)}, **names}
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    env = {}
    for key, value in variables.items():
        if isinstance(value, dict) and "Ref" in value:
            env[key] = names.get(value["Ref"], params.get(value["Ref"], ""))
        elif isinstance(value, dict):  # another intrinsic (the stack's pool: the local one is given apart)
            env[key] = ""
        else:
            env[key] = str(value)
    return env


def cors(template: dict[str, Any] | None = None) -> dict[str, Any]:
    template = template or load()
    for resource in template["Resources"].values():
        if resource.get("Type") == "AWS::ApiGatewayV2::Api":
            config = dict(resource["Properties"].get("CorsConfiguration") or {})
            if "AllowOrigins" in config:
                config["AllowOrigins"] = cors_origins(config["AllowOrigins"], template)
            return config
    return {}


_UNKNOWN = "\x00"  # a value only a deployed stack has (a resource's attribute, a pseudo parameter)


def cors_origins(value: Any, template: dict[str, Any] | None = None) -> list[str]:
    """The origins a CORS rule of the template allows, as a local server allows them: its parameters'
    defaults (AllowedOrigins), without the origins only a deployed stack has (the page's
    distribution: locally the front serves the page itself, at an origin given apart)."""
    template = template or load()
    resolved = _resolve(value, template)
    listed = resolved if isinstance(resolved, list) else [resolved]
    return [origin for origin in listed if origin and _UNKNOWN not in origin]


def _resolve(value: Any, template: dict[str, Any]) -> str | list[str]:
    """A value of the template with the intrinsics CORS origins are written with (Ref of a parameter,
    Fn::Join, Fn::Split, Fn::Sub) evaluated on the parameters' defaults; what only AWS knows is _UNKNOWN."""
    declared = template.get("Parameters") or {}

    def ref(name: str) -> str | list[str]:
        if name not in declared:
            return _UNKNOWN
        default = str(declared[name].get("Default", ""))
        return default.split(",") if declared[name].get("Type") == "CommaDelimitedList" else default

    def text(item: Any) -> str:
        got = _resolve(item, template)
        return ",".join(got) if isinstance(got, list) else got

    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return [text(item) for item in value]
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError(f"not a value the local servers can resolve: {value!r}")
    ((function, argument),) = value.items()
    if function == "Ref":
        return ref(str(argument))
    if function == "Fn::Join":
        delimiter, items = argument
        got = _resolve(items, template)
        return str(delimiter).join(got if isinstance(got, list) else [got])
    if function == "Fn::Split":
        delimiter, source = argument
        return text(source).split(delimiter)
    if function == "Fn::Sub":
        source, variables = (argument, {}) if isinstance(argument, str) else argument
        given = {name: text(item) for name, item in variables.items()}

        def substituted(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in given:
                return given[name]
            got = ref(name) if "." not in name and "::" not in name else _UNKNOWN
            return ",".join(got) if isinstance(got, list) else got

        return re.sub(r"\$\{([^}!]+)\}", substituted, str(source))
    return _UNKNOWN  # Fn::GetAtt and the rest: a deployed stack's
