"""The stack's user pool, locally: template.yaml's `UserPool` and `UserPoolClient` made in the local
moto server (kakeibo.local.moto_server) -- the same password policy, username attributes, MFA,
recovery, auth flows and token validity -- and the JWT authorizer that checks its tokens.

`create_user_pool` finds the pool and the client by name and brings them to what the template says
(UpdateUserPool, as CloudFormation updates them in place), or makes them: a DATA_DIR of an older
template gets the new settings, and its users (and their `sub`s) stay.

Where moto's pool differs from Cognito's, which the page and the tests must not rely on: it does not
enforce the client's ExplicitAuthFlows (USER_PASSWORD_AUTH works, as the tests and the README's curl
use it; the deployed client refuses it), it accepts any SRP proof (so a wrong password signs in
through SRP: the page's SRP is checked against a reference instead, tests/unit/test_srp_vectors.py),
its TOTP codes are checked only with MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP=true
(kakeibo.local.moto_server sets it; the secret is the same for everyone), and its tokens last an
hour whatever the client's validity says. Its signing key is moto's published test key (kid
`dummy`): fine for a local pool, which is what it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kakeibo.local import template

LOCAL_STACK = "kakeibo-local"  # what ${AWS::StackName} is locally
# Set when the pool is made, never changed after (UpdateUserPool does not take them)
POOL_FIXED = ("PoolName", "UsernameAttributes", "AliasAttributes", "Schema", "UsernameConfiguration")
# CloudFormation's own, not the API's: EnabledMfas is SetUserPoolMfaConfig's
POOL_CFN_ONLY = ("UserPoolName", "EnabledMfas")


def _resolved(value: Any, region: str) -> Any:
    """A property's value with `!Sub` of the pseudo parameters resolved (no other intrinsic is expected)."""
    if isinstance(value, dict):
        if set(value) == {"Fn::Sub"} and isinstance(value["Fn::Sub"], str):
            text = value["Fn::Sub"].replace("${AWS::StackName}", LOCAL_STACK).replace("${AWS::Region}", region)
            if "${" in text:
                raise ValueError(f"cannot resolve {value} locally")
            return text
        if any(key.startswith("Fn::") or key == "Ref" for key in value):
            raise ValueError(f"cannot resolve {value} locally")
        return {key: _resolved(item, region) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolved(item, region) for item in value]
    return value


def _resource(kind: str, doc: dict[str, Any]) -> dict[str, Any]:
    found = [r for r in doc["Resources"].values() if r.get("Type") == kind]
    if len(found) != 1:
        raise ValueError(f"template.yaml declares {len(found)} {kind}, not one")
    return dict(found[0].get("Properties") or {})


def pool_request(region: str, doc: dict[str, Any] | None = None) -> dict[str, Any]:
    """CreateUserPool's parameters for the template's user pool."""
    props = _resource("AWS::Cognito::UserPool", doc or template.load())
    request = {k: _resolved(v, region) for k, v in props.items() if k not in POOL_CFN_ONLY}
    request["PoolName"] = _resolved(props["UserPoolName"], region)
    return request


def mfa_request(doc: dict[str, Any] | None = None) -> dict[str, Any]:
    """SetUserPoolMfaConfig's parameters (but the pool id) for the template's MFA settings."""
    props = _resource("AWS::Cognito::UserPool", doc or template.load())
    enabled = set(props.get("EnabledMfas") or [])
    request: dict[str, Any] = {"MfaConfiguration": props.get("MfaConfiguration", "OFF")}
    request["SoftwareTokenMfaConfiguration"] = {"Enabled": "SOFTWARE_TOKEN_MFA" in enabled}
    return request


def client_request(region: str, doc: dict[str, Any] | None = None) -> dict[str, Any]:
    """CreateUserPoolClient's parameters (but the pool id) for the template's app client."""
    props = _resource("AWS::Cognito::UserPoolClient", doc or template.load())
    return {k: _resolved(v, region) for k, v in props.items() if k != "UserPoolId"}


class Deciding:
    """An authorizer as the front invokes a function: one authorizer event in, its answer out."""

    def __init__(self, authorizer: Any) -> None:
        self.authorizer = authorizer

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self.authorizer.decide(event)
        return answer


@dataclass(frozen=True)
class UserPool:
    """The local pool and its app client, on the server at `endpoint`."""

    endpoint: str
    region: str
    pool_id: str
    client_id: str

    @property
    def issuer(self) -> str:
        """The `iss` of its tokens (what Cognito's is: the JwtAuthorizer's Issuer in template.yaml)."""
        return f"https://cognito-idp.{self.region}.amazonaws.com/{self.pool_id}"

    @property
    def jwks_url(self) -> str:
        return f"{self.endpoint}/{self.pool_id}/.well-known/jwks.json"

    def authorizer_environment(self) -> dict[str, str]:
        """What template.yaml's AuthorizerFunction is given for this pool and its client (and where the
        local pool's keys are: not under its issuer, as Cognito's are)."""
        return {"USER_POOL_ISSUER": self.issuer, "USER_POOL_CLIENTS": self.client_id, "JWKS_URL": self.jwks_url}

    def authorizer(self) -> Deciding:
        """The Lambda authorizer for this pool, called in this process (its tokens: this process's table)."""
        from kakeibo.auth.authorizer import Authorizer

        return Deciding(Authorizer.from_environ(self.authorizer_environment()))

    def page_config(self, api: str = "") -> dict[str, str]:
        """The page's config.json for this pool: the API's URL (empty: the page's own origin), the region,
        the pool and its app client, and the endpoint of the Cognito Identity Provider API (empty on
        AWS: the region's)."""
        return {
            "api": api,
            "region": self.region,
            "user_pool_id": self.pool_id,
            "client_id": self.client_id,
            "cognito_endpoint": self.endpoint,
        }

    def describe(self) -> dict[str, str]:
        """What a client of the pool needs to know (make run's run.json)."""
        return {
            "endpoint": self.endpoint,
            "region": self.region,
            "user_pool_id": self.pool_id,
            "client_id": self.client_id,
            "issuer": self.issuer,
        }


def _client(endpoint: str, region: str) -> Any:
    import boto3

    local = "local"  # any credentials: the local server takes them all
    return boto3.client(
        "cognito-idp", endpoint_url=endpoint, region_name=region, aws_access_key_id=local, aws_secret_access_key=local
    )


def _differs(wanted: dict[str, Any], current: dict[str, Any]) -> bool:
    return any(current.get(key) != value for key, value in wanted.items())


def create_user_pool(endpoint: str, region: str, doc: dict[str, Any] | None = None) -> UserPool:
    """The template's user pool and app client on the local server at `endpoint` (idempotent); `doc`
    instead of template.yaml (tests)."""
    idp = _client(endpoint, region)
    wanted = pool_request(region, doc)
    pools = [p for page in idp.get_paginator("list_user_pools").paginate(MaxResults=60) for p in page["UserPools"]]
    pool_id = next((p["Id"] for p in pools if p["Name"] == wanted["PoolName"]), None)
    if pool_id is None:
        pool_id = idp.create_user_pool(**wanted)["UserPool"]["Id"]
        idp.set_user_pool_mfa_config(UserPoolId=pool_id, **mfa_request(doc))
    else:
        changeable = {k: v for k, v in wanted.items() if k not in POOL_FIXED}
        if _differs(changeable, dict(idp.describe_user_pool(UserPoolId=pool_id)["UserPool"])):
            idp.update_user_pool(UserPoolId=pool_id, **changeable)
        mfa = mfa_request(doc)
        current = dict(idp.get_user_pool_mfa_config(UserPoolId=pool_id))
        if _differs(mfa, current):
            idp.set_user_pool_mfa_config(UserPoolId=pool_id, **mfa)
    client = client_request(region, doc)
    listed = idp.list_user_pool_clients(UserPoolId=pool_id, MaxResults=60)["UserPoolClients"]
    client_id = next((c["ClientId"] for c in listed if c["ClientName"] == client["ClientName"]), None)
    if client_id is None:
        client_id = idp.create_user_pool_client(UserPoolId=pool_id, **client)["UserPoolClient"]["ClientId"]
    else:
        described = dict(idp.describe_user_pool_client(UserPoolId=pool_id, ClientId=client_id)["UserPoolClient"])
        changeable = {k: v for k, v in client.items() if k != "GenerateSecret"}
        if _differs(changeable, described):
            idp.update_user_pool_client(UserPoolId=pool_id, ClientId=client_id, **changeable)
    return UserPool(endpoint, region, pool_id, client_id)


_CODE = re.compile(r"^(?P<kind>confirmation|password reset) code for (?P<who>\S+): (?P<code>\d{6})$")


def confirmation_code(codes: Path, who: str, kind: str = "confirmation") -> str | None:
    """The last code of `kind` (a sign-up's confirmation, or a password reset) the local server printed
    for `who` (an email), if any."""
    found = None
    if codes.is_file():
        for line in codes.read_text(encoding="utf-8").splitlines():
            match = _CODE.match(line)
            if match and match["who"] == who and match["kind"] == kind:
                found = match["code"]
    return found
