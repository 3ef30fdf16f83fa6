"""The API's one Lambda authorizer (template.yaml's `AuthorizerFunction`, §25): a request's
`Authorization` header is a signed-in person's JWT of the user pool, or one of their personal access
tokens (`kk_...`), and the answer says which person it is.

An HTTP API authorizer with simple responses (payload 2.0): API Gateway calls it with the identity
source (the `Authorization` header; a request without one gets API Gateway's own 401 before this runs)
and caches the answer for that header value for `AuthorizerResultTtlInSeconds` (60 s). The answer's
`context` reaches the function as `requestContext.authorizer.lambda`:
- a JWT the pool signed for its app client: `{sub, via: "jwt", scope: "write", token_id: ""}`;
- a live personal access token: `{sub, via: "token", scope: "read"|"write", token_id}` (one GetItem
  of its SHA-256; a mistyped one is refused by its checksum without a read);
- anything else: `{sub: "", refused: why}`. The request is let through to the function, which
  answers it 401 problem+json in the caller's language with `WWW-Authenticate: Bearer
  error="invalid_token"` (RFC 6750): an HTTP API authorizer can only say 403 `{"message":"Forbidden"}`
  itself, and a client must be told its token is no longer good (401: refresh, or sign in again),
  not that it is forbidden. The function serves nothing to a caller without a `sub`.

Because answers are cached, a revoked token stops working within the cache's 60 s, not at once.
Nothing here raises: an authorizer that fails is API Gateway's 500 for the request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from kakeibo.auth.jwt import JwtAuthorizer, Refused, looks_like_jwt, token_from
from kakeibo.settings import Settings, get_settings
from kakeibo.snapstart import register_before_snapshot

LOG = logging.getLogger(__name__)
JWKS_PATH = "/.well-known/jwks.json"  # where Cognito publishes a pool's keys, under its issuer

Grant = Callable[[str], "dict[str, str] | None"]  # a personal token -> its context, or None


def refused(why: str) -> dict[str, Any]:
    """Let through without a caller: the function answers 401 saying `why`."""
    return {"isAuthorized": True, "context": {"sub": "", "refused": why[:200]}}


class Authorizer:
    """Decides one authorizer event: the JWT half (`jwt`, None when no pool is configured) and the
    personal-token half (`grant`)."""

    def __init__(self, jwt: JwtAuthorizer | None, grant: Grant) -> None:
        self.jwt = jwt
        self.grant = grant

    @classmethod
    def from_settings(cls, settings: Settings) -> Authorizer:
        """`USER_POOL_ISSUER` and `USER_POOL_CLIENTS` (comma-separated app client ids) for the JWTs, and
        `JWKS_URL` where the issuer's keys are not under it (a local pool); personal tokens in the
        table the ledger's function has (`TABLE_NAME`)."""
        issuer = settings.user_pool_issuer.strip()
        clients = [c.strip() for c in settings.user_pool_clients.split(",") if c.strip()]
        jwks = settings.jwks_url.strip() or (issuer.rstrip("/") + JWKS_PATH if issuer else "")
        jwt = JwtAuthorizer(issuer, clients, jwks) if issuer and clients else None
        return cls(jwt, personal_token_grant)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Authorizer:
        """The authorizer an environment like the template's configures (the local front's, in process)."""
        return cls.from_settings(Settings.model_validate(dict(environ)))

    def decide(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """The simple response for one authorizer event (never raises)."""
        try:
            return self._decide(identity(event))
        except Exception:
            LOG.exception("the authorizer could not decide")
            return refused("the token could not be checked; try again")

    def _decide(self, header: str | None) -> dict[str, Any]:
        from kakeibo.core.tokens import looks_like_token  # noqa: PLC0415 - small, pure

        credential = token_from(header)
        if credential is None:
            return refused("no bearer token")
        if looks_like_token(credential):
            context = self.grant(credential)
            if context is None:
                return refused("the token is not a live personal access token")
            return {"isAuthorized": True, "context": context}
        if not looks_like_jwt(credential):
            return refused("the token is not a JWT")
        if self.jwt is None:
            return refused("no user pool to verify the token against")
        try:
            claims = self.jwt.verify(credential)
        except Refused as why:
            return refused(why.reason)
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub:
            return refused("the token names no sub")
        return {"isAuthorized": True, "context": {"sub": sub, "via": "jwt", "scope": "write", "token_id": ""}}


def identity(event: Mapping[str, Any]) -> str | None:
    """The identity source's value: `identitySource[0]` as API Gateway sends it, else the header."""
    source = event.get("identitySource")
    if isinstance(source, list) and source and isinstance(source[0], str):
        return source[0]
    for name, value in (event.get("headers") or {}).items():
        if str(name).lower() == "authorization":
            return str(value)
    return None


def personal_token_grant(credential: str) -> dict[str, str] | None:
    """A personal access token's context, from the table (services/tokens.py: what a token proves)."""
    from kakeibo.services.tokens import grant  # noqa: PLC0415 - the store only for tokens, not for JWTs
    from kakeibo.store import get_token_store  # noqa: PLC0415

    found = grant(get_token_store(), credential)
    if found is None:
        return None
    return {"sub": found.sub, "via": "token", "scope": found.scope, "token_id": found.token_id}


_AUTHORIZER: Authorizer | None = None


def get_authorizer() -> Authorizer:
    """This instance's authorizer (its JWKS read once per instance)."""
    global _AUTHORIZER  # noqa: PLW0603 - one per execution environment, as the JWKS cache is
    if _AUTHORIZER is None:
        _AUTHORIZER = Authorizer.from_settings(get_settings())
    return _AUTHORIZER


def prepare() -> None:
    """Before SnapStart's snapshot: the authorizer, and the token store with its client (no request
    is made: nothing is carried stale into a restored instance)."""
    from kakeibo.services import tokens  # noqa: F401, PLC0415
    from kakeibo.store import get_token_store  # noqa: PLC0415

    get_authorizer()
    get_token_store()


register_before_snapshot(prepare)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The Lambda entry point (template.yaml: `Handler: kakeibo.auth.authorizer.handler`)."""
    return get_authorizer().decide(event)
