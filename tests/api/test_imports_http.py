"""Imports and exports over real HTTP (the local front): a Shift_JIS upload as curl would send
it, the CSV download, and the verify / rebuild endpoints."""

from __future__ import annotations

from kakeibo.csvio import slip_id_for
from tests.api.conftest import Http

HEADER = "date,kind,amount,account,to_account,category,memo,external_id\r\n"


def test_shift_jis_upload_then_download_then_verify(http: Http) -> None:
    # Given an account
    assert http.post("/accounts", json={"id": "bank", "name": "銀行", "type": "bank",
                                        "opening_balance": 50000}).status_code == 201  # fmt: skip
    # When a Shift_JIS file is uploaded as raw bytes (curl --data-binary @file.csv)
    body = (HEADER + "2026-11-25,income,300000,bank,,給与,１１月分,SAL202611\r\n"
            + "2026-11-27,expense,85000,bank,,住居費,家賃,\r\n").encode("cp932")  # fmt: skip
    reply = http.post("/imports", data=body, headers={"Content-Type": "text/csv; charset=Shift_JIS"})
    # Then both rows are in
    assert reply.status_code == 200, reply.text
    assert (reply.json()["created"], reply.json()["encoding"]) == (2, "shift_jis")
    assert http.get("/accounts/bank").json()["balance"] == 265000
    # And the download is UTF-8 CSV in the same format
    export = http.get("/slips.csv")
    assert export.status_code == 200
    assert export.headers["Content-Type"] == "text/csv; charset=utf-8"
    lines = export.content.decode("utf-8").splitlines()
    # (external_id = the slip id, which an imported external_id gets in the import's own namespace)
    salary = slip_id_for("", 0, "SAL202611")
    assert lines[1] == f"2026-11-25,income,300000,bank,,給与,１１月分,{salary},cleared," and len(lines) == 3
    # And the ledger verifies; a rebuild finds nothing to do
    assert http.post("/ledger/verify").json()["ok"] is True
    assert http.post("/ledger/rebuild").json()["written"] == 0


def test_wrong_type_and_oversize_uploads_are_refused(http: Http) -> None:
    reply = http.post("/imports", data=HEADER.encode(), headers={"Content-Type": "application/json"})
    assert reply.status_code == 415 and reply.headers["Content-Type"] == "application/problem+json"
    reply = http.post("/imports", data=b"x" * (5 * 1024 * 1024 + 1), headers={"Content-Type": "text/csv"})
    assert reply.status_code == 413 and reply.json()["code"] == "payload_too_large"
