"""`python -m kakeibo.local.moto_server -H HOST -p PORT [--codes FILE]`: moto's server (PyPI
`moto[server]`), the one local server of make run and the tests for S3 (receipts), SQS (webhook
queues) and Cognito's user pools (sign-in), with what a real user pool does that moto's does not:

- **Confirmation codes.** Cognito emails a code on SignUp and ConfirmSignUp takes only that code;
  moto sends nothing and takes any code. Here SignUp (and ResendConfirmationCode, which moto lacks)
  makes a six-digit code, prints `confirmation code for EMAIL: CODE` on stdout (make run's log) and
  appends that line to FILE; ConfirmSignUp with another code is Cognito's CodeMismatchException, and
  of a user confirmed already its NotAuthorizedException.
- **Password reset codes.** Cognito emails a code on ForgotPassword and ConfirmForgotPassword takes
  only that one; moto hands its code in a response header and takes any other. Here ForgotPassword
  makes a six-digit code, printed and appended as `password reset code for EMAIL: CODE`, and
  ConfirmForgotPassword with another code is Cognito's CodeMismatchException.
- **RevokeToken** (sign-out; moto lacks it): the refresh token is revoked, REFRESH_TOKEN_AUTH with it
  is then Cognito's NotAuthorizedException. Its access and ID tokens stay valid until they expire
  (the API's authorizer checks signatures, not revocation, on AWS as here).
- **Ids that outlive a restart.** make run replays moto's recording of earlier runs (kakeibo.local.s3).
  A pool's and an app client's ids are derived from what created them (moto's HASH strategy), and a
  user's `sub` from their pool, their user name and how many users of that name the pool made before
  (moto draws a random one): the replayed sign-up is the same person, with the same `sub` -- the
  same ledger. A code is derived from its user's `sub` and how many codes they were sent before, so
  the replay makes the same codes and refuses the same wrong ones (it prints none again). It guards
  nothing: a local pool accepts any SRP proof anyway.
- **TOTP codes checked.** Cognito takes only the authenticator app's current code at
  VerifySoftwareToken and at the SOFTWARE_TOKEN_MFA challenge; moto takes any code unless
  MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP=true, which is set here (a wrong code is then its
  CodeMismatchException). Its secret is one fixed value for every user. The replay does not check
  them (the codes it replays were current when they were recorded).
- **UpdateUserPool keeps what it cannot change** (the username attributes, the schema): moto's
  replaces the whole configuration, and a pool updated to a newer template would forget that its
  users sign in with their email.

Everything else is moto's own (kakeibo.local.cognito says what it does not check).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import threading
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

# uuid5 namespace of the local users' `sub`s (any fixed value: only its staying fixed matters)
SUB_NAMESPACE = uuid.UUID("6f1c2a52-3f55-4c36-9d35-8a4f0f6c1d2e")
CODE_LINE = "confirmation code for {who}: {code}"
RESET_LINE = "password reset code for {who}: {code}"


class _State:
    def __init__(self, codes: Path | None) -> None:
        self.codes = codes
        self.replaying = False
        self.made: Counter[tuple[str, str]] = Counter()  # users made per (pool, user name)
        self.sent: Counter[str] = Counter()  # codes sent per user (sub)
        self.lock = threading.Lock()

    def announce(self, who: str, code: str, form: str = CODE_LINE) -> None:
        line = form.format(who=who, code=code)
        with self.lock:
            print(line, flush=True)
            if self.codes is not None:
                with self.codes.open("a", encoding="utf-8") as out:
                    out.write(line + "\n")


def _patch(owner: Any, name: str, replacement: Any) -> None:
    setattr(owner, name, replacement)


def _flag_the_replay(state: _State) -> None:
    from moto.moto_api._internal.recorder.models import Recorder

    replay = Recorder.replay_recording

    def replay_recording(self: Any, target_host: str | None = None) -> None:
        state.replaying = True
        try:
            replay(self, target_host)
        finally:
            state.replaying = False

    _patch(Recorder, "replay_recording", replay_recording)


def _stable_subs(state: _State) -> None:
    from moto.cognitoidp import models

    user_init = models.CognitoIdpUser.__init__

    def init_user(self: Any, user_pool_id: str, username: str | None, *args: Any, **kwargs: Any) -> None:
        user_init(self, user_pool_id, username, *args, **kwargs)
        name = username or self.attribute_lookup.get("email") or self.attribute_lookup.get("phone_number") or ""
        with state.lock:
            state.made[(user_pool_id, name)] += 1
            sub = str(uuid.uuid5(SUB_NAMESPACE, f"{user_pool_id}\n{name}\n{state.made[(user_pool_id, name)]}"))
        if self.username == self.id:
            self.username = sub
        self.id = sub
        self.update_attributes([{"Name": "sub", "Value": sub}])

    _patch(models.CognitoIdpUser, "__init__", init_user)


def _update_keeps_what_is_fixed() -> None:
    from moto.cognitoidp import models

    update = models.CognitoIdpBackend.update_user_pool

    def update_keeping_fixed(self: Any, user_pool_id: str, extended_config: dict[str, Any]) -> None:
        kept = self.describe_user_pool(user_pool_id).extended_config
        fixed = {k: kept[k] for k in ("UsernameAttributes", "AliasAttributes", "UsernameConfiguration") if k in kept}
        update(self, user_pool_id, {**fixed, **extended_config})

    _patch(models.CognitoIdpBackend, "update_user_pool", update_keeping_fixed)


def _totp_not_checked_in_the_replay(state: _State) -> None:
    from moto.cognitoidp import models, utils

    verify = utils.verify_totp  # what models calls by that name

    def verify_unless_replaying(totp: Any, code: bytes, valid_window: int = 0) -> None:
        if not state.replaying:
            verify(totp, code, valid_window)

    _patch(models, "verify_totp", verify_unless_replaying)


def _pool_and_user(response: Any) -> tuple[Any, Any]:
    """The pool of the request's ClientId, and its user named by Username (None if there is none)."""
    from moto.cognitoidp import exceptions

    client_id = response._get_param("ClientId")
    backend = response._get_region_agnostic_backend()._find_backend_for_clientid(client_id)
    for pool in backend.user_pools.values():
        if client_id in pool.clients:
            user = pool._get_user(response._get_param("Username"))
            if user is None:
                raise exceptions.UserNotFoundError("Username/client id combination not found.")
            return pool, user
    raise exceptions.ResourceNotFoundError(client_id)


def _code_for(state: _State) -> Any:
    def code_for(user: Any) -> str:
        """The next code of `user`: from their `sub` and how many codes they were sent (replays alike)."""
        with state.lock:
            state.sent[user.id] += 1
            seed = hashlib.sha256(f"{user.id}\n{state.sent[user.id]}".encode()).digest()
        return f"{int.from_bytes(seed[:8], 'big') % 10**6:06d}"

    return code_for


def _confirmation_codes(state: _State) -> None:
    from moto.cognitoidp import exceptions, models, responses
    from moto.core.responses import ActionResult

    code_for = _code_for(state)

    def new_code(user: Any) -> None:
        user.kakeibo_signup_code = code_for(user)
        if not state.replaying:
            state.announce(user.attribute_lookup.get("email") or user.username, user.kakeibo_signup_code)

    sign_up = models.CognitoIdpBackend.sign_up

    def sign_up_with_code(self: Any, *args: Any, **kwargs: Any) -> Any:
        user, details = sign_up(self, *args, **kwargs)
        if user.status == models.UserStatus.UNCONFIRMED:
            new_code(user)
        return user, details

    confirm = responses.CognitoIdpResponse.confirm_sign_up

    def confirm_with_code(self: Any) -> Any:
        _, user = _pool_and_user(self)
        if user.status == models.UserStatus.CONFIRMED:
            raise exceptions.NotAuthorizedError("User cannot be confirmed. Current status is CONFIRMED")
        wanted = getattr(user, "kakeibo_signup_code", None)
        if wanted is not None and self._get_param("ConfirmationCode") != wanted:
            raise exceptions.CodeMismatchException("Invalid verification code provided, please try again.")
        return confirm(self)

    def resend_confirmation_code(self: Any) -> Any:
        pool, user = _pool_and_user(self)
        if user.status == models.UserStatus.CONFIRMED:
            raise exceptions.InvalidParameterException("User is already confirmed.")
        new_code(user)
        recovery = pool.extended_config.get("AccountRecoverySetting")
        details = pool.backend._get_code_delivery_details(recovery, user, user.username)
        return ActionResult({"CodeDeliveryDetails": details})

    _patch(models.CognitoIdpBackend, "sign_up", sign_up_with_code)
    _patch(responses.CognitoIdpResponse, "confirm_sign_up", confirm_with_code)
    _patch(responses.CognitoIdpResponse, "resend_confirmation_code", resend_confirmation_code)


def _password_resets(state: _State) -> None:
    from moto.cognitoidp import exceptions, models

    code_for = _code_for(state)
    forgot = models.CognitoIdpBackend.forgot_password

    def forgot_with_code(self: Any, client_id: str, username: str) -> Any:
        _, details = forgot(self, client_id, username)
        for pool in self.user_pools.values():
            user = pool._get_user(username) if client_id in pool.clients else None
            if user is not None:
                user.kakeibo_reset_code = code_for(user)
                user.confirmation_code = None  # moto's own, never sent to anyone
                if not state.replaying:
                    who = user.attribute_lookup.get("email") or user.username
                    state.announce(who, user.kakeibo_reset_code, RESET_LINE)
        return None, details

    confirm = models.CognitoIdpBackend.confirm_forgot_password

    def confirm_with_code(self: Any, client_id: str, username: str, password: str, confirmation_code: str) -> None:
        for pool in self.user_pools.values():
            user = pool._get_user(username) if client_id in pool.clients else None
            if user is not None:
                wanted = getattr(user, "kakeibo_reset_code", None)
                if wanted is None or confirmation_code != wanted:
                    raise exceptions.CodeMismatchException("Invalid verification code provided, please try again.")
                self._validate_password(pool.id, password)
                confirm(self, client_id, username, password, confirmation_code)
                user.kakeibo_reset_code = None
                return
        confirm(self, client_id, username, password, confirmation_code)

    _patch(models.CognitoIdpBackend, "forgot_password", forgot_with_code)
    _patch(models.CognitoIdpBackend, "confirm_forgot_password", confirm_with_code)


def _revoke_token() -> None:
    from moto.cognitoidp import exceptions, responses
    from moto.core.responses import EmptyResult

    def revoke_token(self: Any) -> Any:
        token, client_id = self._get_param("Token"), self._get_param("ClientId")
        backend = self._get_region_agnostic_backend()._find_backend_for_clientid(client_id)
        for pool in backend.user_pools.values():
            if client_id not in pool.clients:
                continue
            issued = pool.refresh_tokens.get(token)
            if issued is not None and issued[0] != client_id:
                raise exceptions.NotAuthorizedError("The client is not the one the token was issued to.")
            if token in pool.refresh_tokens:
                pool.refresh_tokens[token] = None  # as GlobalSignOut leaves it: REFRESH_TOKEN_AUTH refused
            return EmptyResult()
        raise exceptions.ResourceNotFoundError(client_id)

    _patch(responses.CognitoIdpResponse, "revoke_token", revoke_token)


def install(codes: Path | None = None) -> None:
    """Add the behaviour above to moto (before its server starts)."""
    os.environ.setdefault("MOTO_COGNITO_IDP_USER_POOL_ID_STRATEGY", "HASH")
    os.environ.setdefault("MOTO_COGNITO_IDP_USER_POOL_CLIENT_ID_STRATEGY", "HASH")
    os.environ.setdefault("MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP", "true")
    state = _State(codes)
    _flag_the_replay(state)
    _stable_subs(state)
    _update_keeps_what_is_fixed()
    _confirmation_codes(state)
    _password_resets(state)
    _revoke_token()
    _totp_not_checked_in_the_replay(state)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kakeibo.local.moto_server", add_help=False)
    parser.add_argument("--codes", type=Path, help="append each confirmation code's line to this file")
    own, rest = parser.parse_known_args(argv if argv is not None else sys.argv[1:])
    install(own.codes)
    from moto.server import main as serve

    serve(rest)


if __name__ == "__main__":
    main()
