"""The local user pool make run serves (kakeibo.local.cognito on kakeibo.local.moto_server): made from
template.yaml's UserPool and UserPoolClient; confirmation codes printed, and only the right one
confirms; a restart on the same data keeps the pool, its client and its people (the same `sub`: the
same ledger); a changed template updates the pool in place; only the authenticator's current TOTP code
turns two-step verification on and answers its challenge."""

from __future__ import annotations

import base64
import copy
import hmac
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest

from kakeibo.local import template
from kakeibo.local.cognito import UserPool, create_user_pool
from kakeibo.local.dynamodb import free_port
from kakeibo.local.s3 import RECORDING, S3Local
from tests.users import PASSWORD, IdpError, confirm, idp, new_email, person, sign_up, tokens


def test_the_local_pool_has_the_template_s_policy_flows_and_token_validity(user_pool: UserPool) -> None:
    resources = template.load()["Resources"]
    wanted_pool, wanted_client = resources["UserPool"]["Properties"], resources["UserPoolClient"]["Properties"]
    client = boto3.client("cognito-idp", endpoint_url=user_pool.endpoint, region_name=user_pool.region)
    # When the local pool and its app client are described
    pool = client.describe_user_pool(UserPoolId=user_pool.pool_id)["UserPool"]
    app = client.describe_user_pool_client(UserPoolId=user_pool.pool_id, ClientId=user_pool.client_id)
    mfa = client.get_user_pool_mfa_config(UserPoolId=user_pool.pool_id)
    # Then they are the template's: password policy, sign-in by email, recovery, MFA
    assert pool["Policies"] == wanted_pool["Policies"]
    assert pool["UsernameAttributes"] == wanted_pool["UsernameAttributes"] == ["email"]
    assert pool["AccountRecoverySetting"] == wanted_pool["AccountRecoverySetting"]
    assert mfa["MfaConfiguration"] == wanted_pool["MfaConfiguration"]
    assert mfa["SoftwareTokenMfaConfiguration"] == {"Enabled": "SOFTWARE_TOKEN_MFA" in wanted_pool["EnabledMfas"]}
    # And the client's auth flows and token validity are the template's too
    names = (
        "ExplicitAuthFlows",
        "IdTokenValidity",
        "AccessTokenValidity",
        "RefreshTokenValidity",
        "TokenValidityUnits",
        "EnableTokenRevocation",
        "AuthSessionValidity",
        "PreventUserExistenceErrors",
    )
    for name in names:
        assert app["UserPoolClient"][name] == wanted_client[name], name
    # And a password under the policy is refused by the pool itself
    with pytest.raises(IdpError) as weak:
        sign_up(user_pool, new_email(), password="short1A")
    assert weak.value.kind == "InvalidPasswordException"


def test_only_the_code_the_pool_printed_confirms_a_sign_up(s3_local: S3Local, user_pool: UserPool) -> None:
    # Given someone who signed up: the pool printed a six-digit code for them
    email = new_email()
    sign_up(user_pool, email)
    code = s3_local.confirmation_code(email)
    assert code is not None and len(code) == 6 and code.isdigit()
    # Then they cannot sign in yet
    with pytest.raises(IdpError) as early:
        tokens(user_pool, email)
    assert early.value.kind == "UserNotConfirmedException"
    # When another code is given: Cognito's CodeMismatchException, and they are still not confirmed
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    with pytest.raises(IdpError) as mismatch:
        idp(user_pool.endpoint, "ConfirmSignUp", {"ClientId": user_pool.client_id, "Username": email,
                                                  "ConfirmationCode": wrong})  # fmt: skip
    assert mismatch.value.kind == "CodeMismatchException"
    # When they ask for the code again: a new one is printed, and it confirms them
    sent = idp(user_pool.endpoint, "ResendConfirmationCode", {"ClientId": user_pool.client_id, "Username": email})
    assert sent["CodeDeliveryDetails"]["DeliveryMedium"] == "EMAIL"
    assert s3_local.confirmation_code(email) not in (None, code)
    confirm(s3_local, user_pool, email)
    assert tokens(user_pool, email)["IdToken"]
    # And confirming again is refused as Cognito refuses it
    with pytest.raises(IdpError) as again:
        confirm(s3_local, user_pool, email)
    assert again.value.kind == "NotAuthorizedException"


def test_a_restart_keeps_the_pool_its_client_and_its_people(tmp_path: Path) -> None:
    codes = tmp_path / "codes.txt"
    first = S3Local(free_port(), tmp_path / "s3", codes=codes).start()
    try:
        # Given a pool with Hanako signed up and confirmed, and Taro signed up who gave a wrong code
        pool = create_user_pool(first.endpoint, "us-east-1")
        hanako = person(first, pool)
        taro = new_email()
        sign_up(pool, taro)
        wrong = "000000" if first.confirmation_code(taro) != "000000" else "111111"
        with pytest.raises(IdpError):
            idp(pool.endpoint, "ConfirmSignUp", {"ClientId": pool.client_id, "Username": taro,
                                                 "ConfirmationCode": wrong})  # fmt: skip
        assert (
            pool.authorizer().authorizer.jwt.verify(hanako.id_token)["sub"] == hanako.sub
        )  # the JWKS read, as the front reads it
        printed = codes.read_text(encoding="utf-8")
    finally:
        first.stop()
    # When the server starts again on the same data (another port, as make run's S3_PORT=0 gives)
    second = S3Local(free_port(), tmp_path / "s3", codes=codes).start()
    recording = (tmp_path / "s3" / RECORDING).read_text(encoding="utf-8")  # as it was replayed
    try:
        again = create_user_pool(second.endpoint, "us-east-1")
        # Then the pool and its client have the same ids (the tokens' issuer and audience stay)
        assert (again.pool_id, again.client_id) == (pool.pool_id, pool.client_id)
        # And Hanako signs in with her password as the same person: the same sub, the same ledger
        signed_in = tokens(again, hanako.email)
        assert again.authorizer().authorizer.jwt.verify(signed_in["IdToken"])["sub"] == hanako.sub
        # And Taro's wrong code has not confirmed him on the way, nor was any code printed again
        with pytest.raises(IdpError) as unconfirmed:
            tokens(again, taro)
        assert unconfirmed.value.kind == "UserNotConfirmedException"
        assert codes.read_text(encoding="utf-8") == printed
        # And what was replayed kept the sign-ups and confirmations, not the sign-ins nor the key reads
        assert "AWSCognitoIdentityProviderService.SignUp" in recording
        assert "AWSCognitoIdentityProviderService.ConfirmSignUp" in recording
        assert "AWSCognitoIdentityProviderService.InitiateAuth" not in recording
        assert "/.well-known/jwks.json" not in recording
    finally:
        second.stop()


def test_a_changed_template_updates_the_pool_in_place(tmp_path: Path) -> None:
    server = S3Local(free_port()).start()
    try:
        # Given the pool as the template makes it, with someone in it
        pool = create_user_pool(server.endpoint, "us-east-1")
        hanako = person(server, pool)
        # When the template changes its password policy and the ID tokens' validity
        doc = copy.deepcopy(template.load())
        doc["Resources"]["UserPool"]["Properties"]["Policies"]["PasswordPolicy"]["MinimumLength"] = 20
        doc["Resources"]["UserPoolClient"]["Properties"]["IdTokenValidity"] = 30
        updated = create_user_pool(server.endpoint, "us-east-1", doc)
        # Then the same pool and client have the new settings
        assert (updated.pool_id, updated.client_id) == (pool.pool_id, pool.client_id)
        client = boto3.client("cognito-idp", endpoint_url=server.endpoint, region_name="us-east-1")
        described = client.describe_user_pool(UserPoolId=pool.pool_id)["UserPool"]
        assert described["Policies"]["PasswordPolicy"]["MinimumLength"] == 20
        app = client.describe_user_pool_client(UserPoolId=pool.pool_id, ClientId=pool.client_id)["UserPoolClient"]
        assert app["IdTokenValidity"] == 30
        # And its people still sign in with their email, as the same person
        assert updated.authorizer().authorizer.jwt.verify(tokens(updated, hanako.email)["IdToken"])["sub"] == hanako.sub
        # And the new policy is the pool's: 21 characters are enough, 16 no longer
        assert sign_up(updated, new_email(), password=PASSWORD)
        with pytest.raises(IdpError) as weak:
            sign_up(updated, new_email(), password="Short-but-0k-16c")
        assert weak.value.kind == "InvalidPasswordException"
    finally:
        server.stop()


def test_a_revoked_refresh_token_renews_nothing(s3_local: S3Local, user_pool: UserPool) -> None:
    # Given someone signed in: their refresh token renews their ID token
    someone = person(s3_local, user_pool)
    refresh = {"ClientId": user_pool.client_id, "AuthFlow": "REFRESH_TOKEN_AUTH",
               "AuthParameters": {"REFRESH_TOKEN": someone.refresh_token}}  # fmt: skip
    assert idp(user_pool.endpoint, "InitiateAuth", refresh)["AuthenticationResult"]["IdToken"]
    # When they sign out (RevokeToken, which moto lacks: kakeibo.local.moto_server)
    revoke = {"ClientId": user_pool.client_id, "Token": someone.refresh_token}
    assert idp(user_pool.endpoint, "RevokeToken", revoke) == {}
    # Then the refresh token is refused as Cognito refuses a revoked one, and revoking again is no error
    with pytest.raises(IdpError) as refused:
        idp(user_pool.endpoint, "InitiateAuth", refresh)
    assert refused.value.kind == "NotAuthorizedException"
    assert idp(user_pool.endpoint, "RevokeToken", revoke) == {}


def test_only_the_printed_code_resets_a_password(s3_local: S3Local, user_pool: UserPool) -> None:
    # Given someone who forgot their password: the pool printed a reset code for them
    someone = person(s3_local, user_pool)
    sent = idp(user_pool.endpoint, "ForgotPassword", {"ClientId": user_pool.client_id, "Username": someone.email})
    assert sent["CodeDeliveryDetails"]["DeliveryMedium"] == "EMAIL"
    code = s3_local.confirmation_code(someone.email, "password reset")
    assert code is not None and len(code) == 6 and code != s3_local.confirmation_code(someone.email)
    new = "Another-Passw0rd-Long"
    reset = {"ClientId": user_pool.client_id, "Username": someone.email, "Password": new}
    # When another code is given: Cognito's CodeMismatchException; a weak password: its policy's refusal
    with pytest.raises(IdpError) as mismatch:
        idp(
            user_pool.endpoint, "ConfirmForgotPassword", {**reset, "ConfirmationCode": f"{(int(code) + 1) % 10**6:06d}"}
        )
    assert mismatch.value.kind == "CodeMismatchException"
    with pytest.raises(IdpError) as weak:
        idp(user_pool.endpoint, "ConfirmForgotPassword", {**reset, "Password": "short1A", "ConfirmationCode": code})
    assert weak.value.kind == "InvalidPasswordException"
    # Then the printed code sets the new password: the old one no longer signs in
    idp(user_pool.endpoint, "ConfirmForgotPassword", {**reset, "ConfirmationCode": code})
    assert tokens(user_pool, someone.email, new)["IdToken"]
    with pytest.raises(IdpError) as old:
        tokens(user_pool, someone.email)
    assert old.value.kind == "NotAuthorizedException"


def totp(secret: str, at: float) -> str:
    """RFC 6238's code (HMAC-SHA1, 30 s steps, 6 digits) of the base32 `secret` at `at`."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    mac = hmac.digest(key, struct.pack(">Q", int(at) // 30), "sha1")
    at_byte = mac[19] & 0xF
    return f"{(int.from_bytes(mac[at_byte : at_byte + 4], 'big') & 0x7FFFFFFF) % 1_000_000:06d}"


def fresh_totp(secret: str) -> str:
    """The current code, with time left in its 30 s step (the pool takes the current step's only): when
    the step is about to end, the next one's, once it has begun."""
    now = time.time()
    if now % 30 >= 25:
        time.sleep(30 - now % 30)  # at most 5 s: the next step's start
    return totp(secret, time.time())


def with_current_code(secret: str, send: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """`send` the app's current code, as a person types it: when the pool refused it because its 30 s
    step ended before the code arrived (a loaded machine), the new step's code is sent (at most
    three codes); a refusal within the step is the pool's answer."""
    attempt = 1
    while True:
        code = fresh_totp(secret)
        step = int(time.time()) // 30
        try:
            return send(code)
        except IdpError as refused:
            stale = refused.kind == "CodeMismatchException" and int(time.time()) // 30 != step
            if not stale or attempt == 3:
                raise
        attempt += 1


def other_than(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def test_only_the_authenticator_s_current_code_turns_totp_on_and_signs_in(
    s3_local: S3Local, user_pool: UserPool
) -> None:
    # Given someone signed in, with the key the pool gives their authenticator app
    someone = person(s3_local, user_pool)
    secret = idp(user_pool.endpoint, "AssociateSoftwareToken", {"AccessToken": someone.access_token})["SecretCode"]
    # When they type another code than the app's: refused (moto takes any code unless told to check)
    code = fresh_totp(secret)
    verify = {"AccessToken": someone.access_token, "FriendlyDeviceName": "phone"}
    with pytest.raises(IdpError) as wrong:
        idp(user_pool.endpoint, "VerifySoftwareToken", {**verify, "UserCode": other_than(code)})
    assert wrong.value.kind == "CodeMismatchException"
    # When they type the app's code, and prefer TOTP: each sign-in asks for it
    verified = with_current_code(
        secret, lambda code: idp(user_pool.endpoint, "VerifySoftwareToken", {**verify, "UserCode": code})
    )
    assert verified["Status"] == "SUCCESS"
    prefer = {"AccessToken": someone.access_token, "SoftwareTokenMfaSettings": {"Enabled": True, "PreferredMfa": True}}
    idp(user_pool.endpoint, "SetUserMFAPreference", prefer)
    start = {"ClientId": user_pool.client_id, "AuthFlow": "USER_PASSWORD_AUTH",
             "AuthParameters": {"USERNAME": someone.email, "PASSWORD": PASSWORD}}  # fmt: skip
    challenge = idp(user_pool.endpoint, "InitiateAuth", start)
    assert challenge["ChallengeName"] == "SOFTWARE_TOKEN_MFA" and "AuthenticationResult" not in challenge

    def answer(code: str) -> dict[str, Any]:
        return idp(user_pool.endpoint, "RespondToAuthChallenge", {
            "ClientId": user_pool.client_id, "ChallengeName": "SOFTWARE_TOKEN_MFA", "Session": challenge["Session"],
            "ChallengeResponses": {"USERNAME": someone.email, "SOFTWARE_TOKEN_MFA_CODE": code}})  # fmt: skip

    # Then another code is refused at sign-in, as Cognito refuses it, and the app's code signs them in
    code = fresh_totp(secret)
    with pytest.raises(IdpError) as refused:
        answer(other_than(code))
    assert refused.value.kind == "CodeMismatchException"
    assert with_current_code(secret, answer)["AuthenticationResult"]["IdToken"]
