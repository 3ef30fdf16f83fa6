"""The JWT half of the Lambda authorizer on its own (kakeibo.auth.jwt): API Gateway's checks, the
RSA signature checked with the standard library, the issuer's keys read once and again for a new
kid; whatever is sent, a refusal and never an error. Tokens are signed with joserfc (and by hand with
`cryptography`), implementations independent of the authorizer's."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from joserfc import jwk, jwt

from kakeibo.auth.jwt import JwtAuthorizer, Refused, pkcs1_v15_valid, token_from
from kakeibo.local.front import strict_auth

NOW = 1_800_000_000  # the authorizer's clock, fixed: what "now" is for the checks of exp, nbf and iat
ISSUER = "https://cognito-idp.ap-northeast-1.amazonaws.com/ap-northeast-1_Test"
CLIENT = "client-1"
KEY = jwk.RSAKey.generate_key(2048, parameters={"kid": "k1"})


class Issuer:
    """The JWKS endpoint, as a function the authorizer fetches through (counted; it can fail)."""

    def __init__(self, *keys: Any) -> None:
        self.keys = list(keys)
        self.reads = 0
        self.down = False

    def __call__(self, url: str) -> Any:
        self.reads += 1
        if self.down:
            raise OSError("connection refused")
        return {"keys": [key.as_dict(private=False) for key in self.keys]}


def claims(**changed: Any) -> dict[str, Any]:
    base = {"iss": ISSUER, "sub": "s-1", "aud": CLIENT, "token_use": "id", "iat": NOW - 10, "exp": NOW + 600}
    return {k: v for k, v in {**base, **changed}.items() if v is not None}


def token(payload: dict[str, Any], key: Any = KEY, **header: Any) -> str:
    return str(jwt.encode({"alg": "RS256", "kid": key.kid, **header}, payload, key))


def by_hand(header: dict[str, Any], payload: dict[str, Any]) -> str:
    """Signed with the key as RS256, whatever the header (joserfc refuses to write some)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    signed = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"
    signature = KEY.private_key.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signed}.{b64(signature)}"


def authorizer(issuer: Issuer | None = None) -> JwtAuthorizer:
    jwks = "http://127.0.0.1:1/pool/.well-known/jwks.json"
    return JwtAuthorizer(ISSUER, [CLIENT], jwks, fetch=issuer or Issuer(KEY), clock=lambda: NOW)


def test_a_token_of_the_issuer_for_the_client_is_let_through_with_its_claims() -> None:
    # Given an ID token and an access token of the issuer, for the client
    sent_id = claims(email="a@example.com")
    sent_access = claims(aud=None, client_id=CLIENT, token_use="access", scope="openid profile")
    # Then each is let through, with its claims
    assert authorizer().verify(token(sent_id)) == sent_id
    assert authorizer().verify(token(sent_access)) == sent_access
    # And one that becomes valid this very second, issued this very second
    assert authorizer().verify(token(claims(nbf=NOW, iat=NOW)))["nbf"] == NOW


@pytest.mark.parametrize(
    ("sent", "reason"),
    [
        (claims(iss=ISSUER + "/other"), "the token does not have a valid issuer"),
        (claims(aud="client-2"), "the token does not have a valid audience"),
        # API Gateway reads aud when there is one, and client_id only without it
        (claims(aud="client-2", client_id=CLIENT), "the token does not have a valid audience"),
        (claims(aud=None, client_id="client-2", token_use="access"), "the token does not have a valid audience"),
        (claims(exp=NOW), "the token has expired"),
        (claims(exp=None), "the token has expired"),
        (claims(exp="soon"), "the token's exp is not a number"),
        (claims(nbf=NOW + 1), "the token is not valid yet"),
        (claims(iat=NOW + 1), "the token was issued in the future"),
        (claims(token_use="access"), "the token's token_use does not match the claim naming its client"),
        (claims(token_use=None), "the token's token_use does not match the claim naming its client"),
        (claims(aud=None, client_id=CLIENT), "the token's token_use does not match the claim naming its client"),
        (claims(token_use="refresh"), "the token's token_use does not match the claim naming its client"),
    ],
)
def test_each_claim_api_gateway_checks_refuses_the_token(sent: dict[str, Any], reason: str) -> None:
    # When a well-signed token has one claim API Gateway's authorizer would not let through
    with pytest.raises(Refused) as refused:
        authorizer().verify(token(sent))
    # Then it is refused, saying which
    assert refused.value.reason == reason


def test_a_signature_by_another_key_or_algorithm_is_refused() -> None:
    other = jwk.RSAKey.generate_key(2048, parameters={"kid": "k1"})  # the same kid, another key
    cases = {
        token(claims(), key=other): "the token's signature is invalid",
        str(jwt.encode({"alg": "HS256", "kid": "k1"}, claims(), jwk.OctKey.import_key(b"k" * 32))): (
            "signing method HS256 is invalid"
        ),
        token(claims()).rsplit(".", 1)[0] + ".": "the token's signature is invalid",
        by_hand({"alg": "RS256", "kid": "k1", "crit": ["b64"], "b64": True}, claims()): (
            "the token names critical header parameters"
        ),
    }
    assert authorizer().verify(by_hand({"alg": "RS256", "kid": "k1"}, claims()))["sub"] == "s-1"  # as made, but crit
    for sent, reason in cases.items():
        with pytest.raises(Refused) as refused:
            authorizer().verify(sent)
        assert refused.value.reason == reason


def test_the_keys_are_read_once_and_again_for_a_kid_they_lack() -> None:
    # Given an issuer whose JWKS has one key
    issuer = Issuer(KEY)
    check = authorizer(issuer)
    check.verify(token(claims()))
    check.verify(token(claims()))
    assert issuer.reads == 1
    # When it rotates a new key in, and a token signed with it comes
    rotated = jwk.RSAKey.generate_key(2048, parameters={"kid": "k2"})
    issuer.keys.append(rotated)
    # Then the keys are read again, and the token is let through
    assert check.verify(token(claims(), key=rotated))["sub"] == "s-1"
    assert issuer.reads == 2
    # And a kid nobody has is refused after one more read
    with pytest.raises(Refused, match="not in the issuer's JWKS"):
        check.verify(token(claims(), key=jwk.RSAKey.generate_key(2048, parameters={"kid": "k3"})))
    assert issuer.reads == 3


def test_an_issuer_that_cannot_be_read_is_a_refusal_not_an_error() -> None:
    # Given an issuer whose JWKS endpoint is down
    issuer = Issuer(KEY)
    issuer.down = True
    # Then a token is refused, saying so (and the next one tries again)
    with pytest.raises(Refused, match="JWKS could not be read"):
        authorizer(issuer).verify(token(claims()))


@pytest.mark.parametrize("alg", ["RS256", "RS384", "RS512"])
def test_each_rsa_algorithm_is_checked_and_a_changed_byte_anywhere_refuses(alg: str) -> None:
    # Given a token signed with the issuer's key by joserfc, in each RSA algorithm API Gateway takes
    sent = str(jwt.encode({"alg": alg, "kid": "k1"}, claims(), KEY, algorithms=[alg]))
    # Then it is let through
    assert authorizer().verify(sent)["sub"] == "s-1"
    head, body, signature = sent.split(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    numbers = KEY.private_key.public_key().public_numbers()
    signed = f"{head}.{body}".encode()
    assert pkcs1_v15_valid(numbers.n, numbers.e, alg, signed, bytes(raw))
    # And a signature with any one bit changed, or for another payload, or under another hash, is not
    for position in (0, len(raw) // 2, len(raw) - 1):
        changed = bytearray(raw)
        changed[position] ^= 0x01
        assert not pkcs1_v15_valid(numbers.n, numbers.e, alg, signed, bytes(changed))
    assert not pkcs1_v15_valid(numbers.n, numbers.e, alg, signed + b"x", bytes(raw))
    other = {"RS256": "RS384", "RS384": "RS512", "RS512": "RS256"}[alg]
    assert not pkcs1_v15_valid(numbers.n, numbers.e, other, signed, bytes(raw))
    # And one a byte short or the modulus itself (out of range) is refused without an error
    assert not pkcs1_v15_valid(numbers.n, numbers.e, alg, signed, bytes(raw[1:]))
    assert not pkcs1_v15_valid(numbers.n, numbers.e, alg, signed, numbers.n.to_bytes(len(raw), "big"))


def test_a_key_under_2048_bits_is_refused_whatever_it_signed() -> None:
    # Given an issuer whose key is 1024 bits, and a token it signed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # joserfc warns of the small key: the point of the test
        weak = jwk.RSAKey.generate_key(1024, parameters={"kid": "k1"}, private=True, auto_kid=False)
    # Then the token is refused: the key is not usable
    with pytest.raises(Refused, match="not a usable RSA key"):
        authorizer(Issuer(weak)).verify(str(jwt.encode({"alg": "RS256", "kid": "k1"}, claims(), weak)))


def test_the_identity_source_is_the_token_alone_or_after_bearer() -> None:
    assert token_from("Bearer a.b.c") == token_from("bearer  a.b.c") == token_from("a.b.c") == "a.b.c"
    assert token_from(None) is None and token_from("  ") is None and token_from("Bearer ") is None


def test_local_auth_is_strict_or_unset() -> None:
    assert strict_auth({}) is False and strict_auth({"LOCAL_AUTH": ""}) is False
    assert strict_auth({"LOCAL_AUTH": "strict"}) is True
    with pytest.raises(ValueError, match="LOCAL_AUTH must be strict or unset"):
        strict_auth({"LOCAL_AUTH": "off"})


segment = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. \u00e9", max_size=60)


@given(st.one_of(st.text(max_size=200), st.builds(lambda a, b, c: f"{a}.{b}.{c}", segment, segment, segment)))
def test_whatever_is_sent_is_refused_never_an_error(sent: str) -> None:
    # Given any text as a token, from noise to three parts of base64-ish text
    try:
        authorizer().verify(sent)
    except Refused as refused:
        # Then it is a refusal with a reason (here: never let through, as nothing is signed)
        assert refused.reason
    else:
        pytest.fail(f"{sent!r} was let through")
