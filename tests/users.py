"""People of the local user pool, for tests: signed up, confirmed with the code the pool printed,
signed in -- the path the page takes, through Cognito's API as a browser calls it (unsigned JSON
requests). Sign-in is InitiateAuth with USER_PASSWORD_AUTH: the local pool does not check the
client's auth flows (the deployed client allows SRP only, kakeibo.local.cognito).

And tokens the pool never issued, signed with its own key (moto's published test key, with joserfc:
an implementation independent of the front's), for what the authorizer must refuse."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import requests

from kakeibo.local.cognito import UserPool
from kakeibo.local.s3 import S3Local

PASSWORD = "Kakeibo-Passw0rd-Long"  # under the template's policy: 12+, upper, lower, digits


class IdpError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


def idp(endpoint: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
    """One call of Cognito's API, unsigned, as the page makes it; IdpError with the pool's error type."""
    answer = requests.post(
        endpoint,
        data=json.dumps(body),
        headers={"X-Amz-Target": f"AWSCognitoIdentityProviderService.{action}",
                 "Content-Type": "application/x-amz-json-1.1"},
        timeout=30,
    )  # fmt: skip
    data: dict[str, Any] = answer.json() if answer.content else {}
    if answer.status_code != 200:
        raise IdpError(str(data.get("__type", answer.status_code)), str(data.get("message", "")))
    return data


@dataclass(frozen=True)
class Person:
    email: str
    sub: str
    id_token: str
    access_token: str
    refresh_token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.id_token}"}


def new_email() -> str:
    return f"person-{uuid.uuid4().hex[:12]}@example.com"


def sign_up(pool: UserPool, email: str, password: str = PASSWORD, client_id: str | None = None) -> str:
    """Signs `email` up; their `sub`."""
    body = {"ClientId": client_id or pool.client_id, "Username": email, "Password": password}
    return str(idp(pool.endpoint, "SignUp", body)["UserSub"])


def confirm(server: S3Local, pool: UserPool, email: str, client_id: str | None = None) -> None:
    """Confirms `email` with the code the pool printed for them."""
    code = server.confirmation_code(email)
    assert code is not None, f"no confirmation code for {email}"
    idp(pool.endpoint, "ConfirmSignUp", {"ClientId": client_id or pool.client_id, "Username": email,
                                         "ConfirmationCode": code})  # fmt: skip


def tokens(pool: UserPool, email: str, password: str = PASSWORD, client_id: str | None = None) -> dict[str, str]:
    """InitiateAuth's AuthenticationResult for `email`."""
    body = {"ClientId": client_id or pool.client_id, "AuthFlow": "USER_PASSWORD_AUTH",
            "AuthParameters": {"USERNAME": email, "PASSWORD": password}}  # fmt: skip
    result: dict[str, str] = idp(pool.endpoint, "InitiateAuth", body)["AuthenticationResult"]
    return result


def person(server: S3Local, pool: UserPool, email: str | None = None) -> Person:
    """A new person of the pool: signed up, confirmed, signed in."""
    email = email or new_email()
    sub = sign_up(pool, email)
    confirm(server, pool, email)
    got = tokens(pool, email)
    return Person(email, sub, got["IdToken"], got["AccessToken"], got["RefreshToken"])


def other_client(pool: UserPool, name: str = "another-app") -> str:
    """Another app client of the same pool (its tokens name another audience): its id."""
    import boto3

    idp_client = boto3.client("cognito-idp", endpoint_url=pool.endpoint, region_name=pool.region)
    for client in idp_client.list_user_pool_clients(UserPoolId=pool.pool_id, MaxResults=60)["UserPoolClients"]:
        if client["ClientName"] == name:
            return str(client["ClientId"])
    made = idp_client.create_user_pool_client(UserPoolId=pool.pool_id, ClientName=name, GenerateSecret=False)
    return str(made["UserPoolClient"]["ClientId"])


def pool_key() -> Any:
    """The local pool's private signing key (moto's, kid "dummy")."""
    from joserfc import jwk
    from moto.utilities.utils import load_resource

    return jwk.RSAKey.import_key(load_resource("cognitoidp/resources/jwks-private.json"))


def signed(claims: dict[str, Any], *, kid: str = "dummy", alg: str = "RS256", key: Any = None) -> str:
    """A JWT with `claims`, signed with the pool's key (or `key`)."""
    from joserfc import jwt

    return str(jwt.encode({"alg": alg, "kid": kid}, claims, key if key is not None else pool_key()))


def payload(token: str) -> dict[str, Any]:
    """A JWT's claims, unverified."""
    import base64

    part = token.split(".")[1]
    claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    return claims
