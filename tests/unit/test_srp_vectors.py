"""The page's SRP (web/srp.js, run by Node) against PyPI's pycognito (AWSSRP) on fixed inputs: the
same a, salt, B, secret block, timestamp, pool, user and password give the same A, u, x, S, key and
PASSWORD_CLAIM_SIGNATURE. A local pool accepts any proof (moto's), so this is what shows the page's
sign-in would convince Cognito's."""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import shutil
import subprocess
import types
from pathlib import Path
from typing import Any

import pytest
from pycognito import aws_srp  # the reference implementation (the dev extra)

ROOT = Path(__file__).resolve().parents[2]

CASES: list[dict[str, Any]] = [
    {  # moto's kind of challenge: short B and salt (uuid hex), the secret block a uuid (not base64)
        "a": "3a1f" * 64,
        "salt": "5d41402abc4b2a76b9719d911017c592",
        "B": "9e107d9d372bb6826bd81d3542a419d6",
        "secret_block": "8f14e45f-ceea-467e-9a5f-7e9c1c4a1b2d",
        "timestamp": "Tue Nov 3 09:05:07 UTC 2026",
        "pool_id": "ap-northeast-1_AbCdEf123",
        "user_id": "6f1c2a52-3f55-4c36-9d35-8a4f0f6c1d2e",
        "password": "Kakeibo-Passw0rd-Long",
        "date": "2026-11-03T09:05:07Z",
    },
    {  # Cognito's kind: a full-size B, a salt whose first digit is 8-f (hashed with a leading 00),
        # a base64 secret block, a password in Japanese
        "a": "c0ffee" * 40 + "1",
        "salt": "f3a9" * 16,
        "B": ("a5" * 383) + "1",
        "secret_block": base64.b64encode(hashlib.sha256(b"block").digest() * 12).decode(),
        "timestamp": "Sun Jan 10 00:00:59 UTC 2027",
        "pool_id": "us-east-1_Xyz",
        "user_id": "hanako@example.com",
        "password": "家計簿-パスワード-Abc123",
        "date": "2027-01-10T00:00:59Z",
    },
]


def reference(case: dict[str, Any]) -> dict[str, Any]:
    """pycognito's values for `case`: its AWSSRP with the case's `a`, its own functions throughout."""
    srp = aws_srp.AWSSRP(
        username=case["user_id"], password=case["password"], pool_id=case["pool_id"], client_id="c",
        client=object(),
    )  # fmt: skip
    srp.small_a_value = int(case["a"], 16)
    srp.large_a_value = srp.calculate_a()
    big_b = int(case["B"], 16)
    u = aws_srp.calculate_u(srp.large_a_value, big_b)
    identity = aws_srp.hash_sha256(f"{case['pool_id'].split('_')[1]}{case['user_id']}:{case['password']}".encode())
    x = aws_srp.hex_to_long(aws_srp.hex_hash(aws_srp.pad_hex(case["salt"]) + identity))
    s = pow(big_b - srp.val_k * pow(srp.val_g, x, srp.big_n), srp.small_a_value + u * x, srp.big_n)
    key = srp.get_password_authentication_key(case["user_id"], case["password"], big_b, case["salt"])
    message = (
        case["pool_id"].split("_")[1].encode()
        + case["user_id"].encode()
        + base64.standard_b64decode(case["secret_block"])
        + case["timestamp"].encode()
    )
    signature = base64.standard_b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()
    when = datetime.datetime.fromisoformat(case["date"])
    return {
        "A": f"{srp.large_a_value:x}",
        "u": f"{u:x}",
        "x": f"{x:x}",
        "S": f"{s:x}",
        "key": bytes(key).hex(),
        "signature": signature,
        "timestamp": srp.get_cognito_formatted_timestamp(when),
    }


def test_the_page_s_srp_gives_pycognito_s_values() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is required to run the page's SRP")
    # When the page's module computes every case
    result = subprocess.run(
        [node, "tests/web/srp_vectors.mjs"], cwd=ROOT, input=json.dumps(CASES), capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    page = json.loads(result.stdout)
    # Then each value is pycognito's, digit for digit
    assert len(page) == len(CASES)
    for case, got in zip(CASES, page, strict=True):
        wanted = reference(case)
        assert got == wanted, case["pool_id"]


def test_pycognito_s_own_claim_is_the_one_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given pycognito answering a challenge itself (its process_challenge, the clock fixed)
    case = CASES[1]
    srp = aws_srp.AWSSRP(
        username="x", password=case["password"], pool_id=case["pool_id"], client_id="c", client=object()
    )
    srp.small_a_value = int(case["a"], 16)
    srp.large_a_value = srp.calculate_a()
    fixed = datetime.datetime.fromisoformat(case["date"]).replace(tzinfo=None)

    class Clock(datetime.datetime):
        @classmethod
        def utcnow(cls) -> datetime.datetime:  # type: ignore[override]
            return fixed

    monkeypatch.setattr(aws_srp, "datetime", types.SimpleNamespace(datetime=Clock))
    answer = srp.process_challenge(
        {"USER_ID_FOR_SRP": case["user_id"], "SALT": case["salt"], "SRP_B": case["B"],
         "SECRET_BLOCK": case["secret_block"]},
        {"USERNAME": case["user_id"]},
    )  # fmt: skip
    # Then its signature and timestamp are the reference's above (the comparison is with pycognito itself)
    wanted = reference(case)
    assert answer["TIMESTAMP"] == wanted["timestamp"] == case["timestamp"]
    assert answer["PASSWORD_CLAIM_SIGNATURE"] == wanted["signature"]
