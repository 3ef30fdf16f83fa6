"""The pool's JWTs, checked as API Gateway's JWT authorizer checks them (the Lambda authorizer's half
for signed-in people: kakeibo.auth.authorizer).

In API Gateway's order (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-jwt-authorizer.html):
decode the token; check its algorithm (RSA only) and its signature, with the key its header's `kid`
names in the issuer's JWKS (fetched once per instance, and again when a token names a kid not in it:
a rotated key); then its claims: `iss` is the issuer, `aud` -- or, without one, `client_id` -- is one
of the audiences (the app clients), `exp` is after now, `nbf` and `iat` not after now. Any failure is
`Refused`, whose `reason` is what API Gateway's www-authenticate would say.

One check more than API Gateway's, which every token of the pool passes: `token_use` is `id` with
the audience in `aud` (an ID token) or `access` with it in `client_id` (an access token).

The RSA signature (RSASSA-PKCS1-v1_5, RFC 8017 §8.2.2) is checked with the standard library alone:
the signature raised to the key's exponent must be, byte for byte, the one encoding of the digest
that the signer had to produce (compared whole, never parsed), and the modulus at least 2048 bits.
No cryptography package is imported on an authorizer's cold start for it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

ALGORITHMS = {"RS256": "sha256", "RS384": "sha384", "RS512": "sha512"}  # RSA-based, as API Gateway
# The DER DigestInfo that precedes each digest in an RSASSA-PKCS1-v1_5 signature (RFC 8017 §9.2, note 1).
DIGEST_INFO = {
    "sha256": bytes.fromhex("3031300d060960864801650304020105000420"),
    "sha384": bytes.fromhex("3041300d060960864801650304020205000430"),
    "sha512": bytes.fromhex("3051300d060960864801650304020305000440"),
}
MIN_MODULUS_BITS = 2048
_SEGMENT = re.compile(r"[A-Za-z0-9_-]*")  # base64url without padding (RFC 7515 §2)
TOKEN_USES = {"id": "aud", "access": "client_id"}  # the claim each kind of token names its client in

Fetch = Callable[[str], Any]


class Refused(Exception):
    """The token is not one API Gateway would let through; `reason` as its www-authenticate says it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def token_from(header: str | None) -> str | None:
    """The token in an `Authorization` header: all of it, or what follows `Bearer `."""
    value = (header or "").strip()
    if value[:7].lower() == "bearer " or value.lower() == "bearer":
        value = value[6:].strip()
    return value or None


def looks_like_jwt(token: str) -> bool:
    """Three dot-separated parts: a JWS in compact form (anything else is no JWT at all)."""
    return token.count(".") == 2


def _decoded(segment: str) -> bytes:
    if not _SEGMENT.fullmatch(segment) or len(segment) % 4 == 1:
        raise Refused("the token is not base64url-encoded")
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError) as exc:
        raise Refused("the token is not base64url-encoded") from exc


def _object(segment: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(_decoded(segment))
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(f"the token's {what} is not JSON") from exc
    if not isinstance(value, dict):
        raise Refused(f"the token's {what} is not a JSON object")
    return value


def _number(claims: dict[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Refused(f"the token's {name} is not a number")
    return float(value)


def _fetch_json(url: str) -> Any:
    import urllib.request  # noqa: PLC0415 - once per instance (and per rotated key), not on every start

    with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - the issuer's JWKS, http(s) only
        return json.loads(answer.read())


def pkcs1_v15_valid(n: int, e: int, alg: str, signed: bytes, signature: bytes) -> bool:
    """Whether `signature` is the RSASSA-PKCS1-v1_5 signature of `signed` under the key (n, e) with the
    algorithm's hash: EMSA-PKCS1-v1_5 built from the digest and compared with the opened signature
    (RFC 8017 §8.2.2 step 4: the comparison, not a parse, so no malformed padding can pass)."""
    hash_name = ALGORITHMS[alg]
    size = (n.bit_length() + 7) // 8
    digest_info = DIGEST_INFO[hash_name] + hashlib.new(hash_name, signed).digest()
    if len(signature) != size or size < len(digest_info) + 11:
        return False
    s = int.from_bytes(signature, "big")
    if s >= n:
        return False
    opened = pow(s, e, n).to_bytes(size, "big")
    expected = b"\x00\x01" + b"\xff" * (size - len(digest_info) - 3) + b"\x00" + digest_info
    return hmac.compare_digest(opened, expected)


class JwtAuthorizer:
    """Verifies tokens of one issuer for the given audiences (the app client ids)."""

    def __init__(
        self,
        issuer: str,
        audiences: list[str],
        jwks_url: str,
        *,
        fetch: Fetch = _fetch_json,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not jwks_url.startswith(("http://", "https://")):
            raise ValueError(f"the JWKS URL must be http(s): {jwks_url}")
        self.issuer = issuer
        self.audiences = list(audiences)
        self.jwks_url = jwks_url
        self.fetches = 0  # how often the JWKS was read (tests)
        self._fetch = fetch
        self._clock = clock
        self._keys: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def verify(self, token: str) -> dict[str, Any]:
        """The token's claims, if API Gateway would let it through; `Refused` otherwise."""
        if not looks_like_jwt(token):
            raise Refused("the token is not a JWT")
        head, body, signature = token.split(".")
        header = _object(head, "header")
        alg = header.get("alg")
        if alg not in ALGORITHMS:
            raise Refused(f"signing method {alg} is invalid")
        if header.get("crit"):
            raise Refused("the token names critical header parameters")
        kid = header.get("kid")
        if not isinstance(kid, str):
            raise Refused("the token has no kid")
        key = self._key(kid)
        if key.get("alg") not in (None, alg):
            raise Refused(f"the key {kid} is not for {alg}")
        self._check_signature(key, alg, f"{head}.{body}".encode("ascii"), _decoded(signature))
        claims = _object(body, "payload")
        self._check_claims(claims)
        return claims

    # -- the signature ---------------------------------------------------------------------------

    def _key(self, kid: str) -> dict[str, Any]:
        with self._lock:
            if self._keys is None or kid not in self._keys:  # first use, or a key rotated in
                self._keys = self._read_keys()
            key: dict[str, Any] | None = self._keys.get(kid)
        if key is None:
            raise Refused(f"the key {kid} is not in the issuer's JWKS")
        return key

    def _read_keys(self) -> dict[str, Any]:
        self.fetches += 1
        try:
            jwks = self._fetch(self.jwks_url)
        except (OSError, ValueError) as exc:
            raise Refused(f"the issuer's JWKS could not be read: {exc}") from exc
        keys = jwks.get("keys") if isinstance(jwks, dict) else None
        if not isinstance(keys, list):
            raise Refused("the issuer's JWKS has no keys")
        return {k["kid"]: k for k in keys if isinstance(k, dict) and isinstance(k.get("kid"), str)}

    @staticmethod
    def _check_signature(key: dict[str, Any], alg: str, signed: bytes, signature: bytes) -> None:
        if key.get("kty") != "RSA" or key.get("use", "sig") != "sig":
            raise Refused("the issuer's key is not an RSA signing key")
        try:
            n = int.from_bytes(_decoded(str(key["n"])), "big")
            e = int.from_bytes(_decoded(str(key["e"])), "big")
        except (KeyError, Refused) as exc:
            raise Refused("the issuer's key is not a usable RSA key") from exc
        if n.bit_length() < MIN_MODULUS_BITS or e < 3 or e % 2 == 0:
            raise Refused("the issuer's key is not a usable RSA key")
        if not pkcs1_v15_valid(n, e, alg, signed, signature):
            raise Refused("the token's signature is invalid")

    # -- the claims ------------------------------------------------------------------------------

    def _check_claims(self, claims: dict[str, Any]) -> None:
        if claims.get("iss") != self.issuer:
            raise Refused("the token does not have a valid issuer")
        audience = claims.get("aud") if "aud" in claims else claims.get("client_id")
        named = audience if isinstance(audience, list) else [audience]
        if not any(isinstance(a, str) and a in self.audiences for a in named):
            raise Refused("the token does not have a valid audience")
        use = claims.get("token_use")
        if use not in TOKEN_USES or TOKEN_USES[use] not in claims or ("aud" in claims) != (use == "id"):
            raise Refused("the token's token_use does not match the claim naming its client")
        now = self._clock()
        exp, nbf, iat = _number(claims, "exp"), _number(claims, "nbf"), _number(claims, "iat")
        if exp is None or exp <= now:
            raise Refused("the token has expired")
        if nbf is not None and nbf > now:
            raise Refused("the token is not valid yet")
        if iat is not None and iat > now:
            raise Refused("the token was issued in the future")
