"""POST /imports and GET /slips.csv through the handler (moto): media types, sizes, encodings,
row errors, the response shape; and the no-body maintenance routes."""

from __future__ import annotations

import pytest

from tests.events import Client

HEADER = "date,kind,amount,account,to_account,category,memo,external_id\r\n"
CSV = {"Content-Type": "text/csv"}


def upload(api: Client, data: bytes | str, content_type: str = "text/csv") -> tuple[int, dict[str, object]]:
    reply = api.post("/imports", raw=data, headers={"Content-Type": content_type})
    return reply.status, reply.json


def test_a_shift_jis_bank_file_is_imported(api: Client) -> None:
    # Given accounts, and a bank's CSV in Shift_JIS (CP932), as Japanese banks export them
    api.account("bank", 100000, type="bank")
    api.account("cash", 5000)
    text = (
        HEADER
        + "2026-11-01,income,250000,bank,,給与,１１月分給与,\r\n"
        + "2026-11-02,transfer,20000,bank,cash,,ＡＴＭ引出し,\r\n"
        + "2026-11-03,expense,1980,cash,,食費,スーパー①,\r\n"
    )
    # When it is uploaded with its charset
    status, body = upload(api, text.encode("cp932"), "text/csv; charset=Shift_JIS")
    # Then every row is a slip and the balances moved
    assert status == 200, body
    assert body["status"] == "complete" and body["encoding"] == "shift_jis"
    counts = (body["rows"], body["created"], body["skipped"], body["failed"], body["errors"])
    assert counts == (3, 3, 0, 0, [])
    assert api.balances() == {"bank": 330000, "cash": 23020}
    memos = {s["memo"] for s in api.get("/slips").json["items"]}
    assert memos == {"スーパー①", "ＡＴＭ引出し", "１１月分給与"}


def test_shift_jis_is_detected_without_a_charset_and_a_rerun_creates_nothing(api: Client) -> None:
    api.account("cash", 5000)
    data = (HEADER + "2026-11-03,expense,500,cash,,食費,おにぎり,\r\n").encode("cp932")
    first = upload(api, data)
    again = upload(api, data)
    assert first[0] == again[0] == 200
    assert (first[1]["created"], again[1]["created"], again[1]["skipped"]) == (1, 0, 1)
    assert first[1]["import_id"] == again[1]["import_id"]
    assert api.balances() == {"cash": 4500}


def test_unknown_accounts_and_invalid_rows_are_row_errors_the_rest_is_imported(api: Client) -> None:
    api.account("cash", 5000)
    text = (
        HEADER
        + "2026-11-03,expense,500,cash,,食費,,\r\n"
        + "2026-11-03,expense,500,wallet,,食費,,\r\n"
        + "2026-11-03,transfer,500,cash,suica,,,\r\n"
        + "2026-11-31,expense,500,cash,,食費,,\r\n"
    )
    status, body = upload(api, text)
    assert status == 200
    assert (body["rows"], body["created"], body["failed"]) == (4, 1, 3)
    assert body["errors"] == [
        {"line": 3, "message": "account 'wallet' does not exist"},
        {"line": 4, "message": "account 'suica' does not exist"},
        {"line": 5, "message": "date is not a real calendar date"},
    ]
    assert api.balances() == {"cash": 4500}


@pytest.mark.parametrize("content_type", ["application/json", "text/plain", "multipart/form-data"])
def test_other_media_types_are_415_and_change_nothing(api: Client, content_type: str) -> None:
    api.account("cash", 5000)
    status, body = upload(api, HEADER + "2026-11-03,expense,500,cash,,,,\r\n", content_type)
    assert status == 415 and body["code"] == "unsupported_media_type"
    assert body["accepted"] == ["text/csv"]
    assert api.get("/slips").json["items"] == []


def test_an_unsupported_charset_is_415(api: Client) -> None:
    status, body = upload(api, HEADER, "text/csv; charset=utf-16")
    assert status == 415 and "utf-16" in body["detail"]


def test_up_to_5_mb_is_accepted_over_it_is_413(api: Client) -> None:
    # Given a file far over the 64 KiB JSON limit but under 5 MB (blank lines are skipped)
    api.account("cash", 5000)
    big = HEADER + "\r\n" * 100_000 + "2026-11-03,expense,1,cash,,,,\r\n"
    status, body = upload(api, big)
    # Then it is accepted, and the row's line counts the blank ones
    assert status == 200 and body["created"] == 1
    assert api.balances() == {"cash": 4999}
    big = HEADER + "\r\n" * 100_000 + "2026-11-03,expense,0,cash,,,,\r\n"
    assert upload(api, big)[1]["errors"][0]["line"] == 100_002
    # When the body is over 5 MB: 413, nothing imported
    status, body = upload(api, HEADER + "#" * (5 * 1024 * 1024))
    assert status == 413 and body["code"] == "payload_too_large" and body["limit"] == 5 * 1024 * 1024


def test_json_routes_keep_their_64_kib_limit(api: Client) -> None:
    reply = api.post("/slips", {"date": "2026-11-03", "kind": "expense", "amount": 1, "account": "c",
                                "memo": "x" * 70000})  # fmt: skip
    assert reply.status == 413 and reply.json["limit"] == 64 * 1024


def test_undecodable_bytes_are_400_and_a_bad_header_is_422(api: Client) -> None:
    status, body = upload(api, HEADER.encode() + b"\x81\x00\xff")
    assert status == 400 and body["code"] == "bad_request"
    status, body = upload(api, "day,what,how much\r\n2026-11-03,expense,1\r\n")
    assert status == 422 and body["code"] == "validation_error"
    assert body["errors"][0]["loc"] == ["body", "header"]


def test_an_empty_body_is_422(api: Client) -> None:
    status, body = upload(api, "")
    assert status == 422 and "empty" in body["detail"]


def test_import_needs_identity(api: Client) -> None:
    reply = api.post("/imports", raw=HEADER, headers=CSV, user=None)
    assert reply.status == 401


def test_export_is_csv_in_the_import_format_oldest_first(api: Client) -> None:
    # Given two slips
    api.account("cash", 5000)
    api.account("suica", 0, type="emoney")
    late = api.slip(date="2026-11-05", kind="expense", amount=300, account="cash", category="食", memo="a,b")
    early = api.slip(date="2026-11-01", kind="transfer", amount=1000, account="cash", to_account="suica")
    # When they are exported
    reply = api.get("/slips.csv", query={"from": "2026-11-01", "to": "2026-11-30"})
    # Then the body is the import format, external_id = slip id, oldest first
    assert reply.status == 200
    assert reply.header("Content-Type") == "text/csv; charset=utf-8"
    assert "attachment" in (reply.header("Content-Disposition") or "")
    assert reply.header("Link") is None
    assert reply.raw.decode("utf-8").split("\r\n") == [
        "date,kind,amount,account,to_account,category,memo,external_id,cleared,to_cleared",
        f"2026-11-01,transfer,1000,cash,suica,,,{early.json['id']},uncleared,uncleared",
        f'2026-11-05,expense,300,cash,,食,"a,b",{late.json["id"]},uncleared,',
        "",
    ]
    # And a range outside them is just the header
    empty = api.get("/slips.csv", query={"from": "2026-12-01"})
    assert empty.raw.decode() == "date,kind,amount,account,to_account,category,memo,external_id,cleared,to_cleared\r\n"


@pytest.mark.parametrize(
    "query", [{"from": "2026-11-30", "to": "2026-11-01"}, {"cursor": "bm90LWEtY3Vyc29y"}, {"from": "11/01"}]
)
def test_export_bad_query_is_400(api: Client, query: dict[str, str]) -> None:
    reply = api.get("/slips.csv", query=query)
    assert reply.status == 400 and reply.json["code"] == "bad_request"


@pytest.mark.parametrize("route", ["/ledger/verify", "/ledger/rebuild"])
def test_maintenance_routes_take_no_body(api: Client, route: str) -> None:
    api.account("cash", 5000)
    assert api.post(route).status == 200
    assert api.post(route, {}).status == 200
    reply = api.post(route, {"force": True})
    assert reply.status == 400 and "takes no body" in reply.json["detail"]
    assert api.post(route, raw="{bad").status == 400
    assert api.post(route, raw="go", headers={"Content-Type": "text/plain"}).status == 415
    assert api.post(route, user=None).status == 401


def test_a_large_export_comes_in_pages_linked_by_rel_next(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from kakeibo.services.imports import importer

    # Given 12 slips and pages of about 300 bytes
    api.account("cash", 100000)
    for day in range(1, 13):
        api.slip(date=f"2026-11-{day:02d}", kind="expense", amount=day, account="cash", memo="x" * 20)
    monkeypatch.setattr(importer, "MAX_EXPORT_BYTES", 300)
    # When the pages are followed
    lines: list[str] = []
    target, query = "/slips.csv", {"from": "2026-11-01"}
    pages = 0
    while True:
        reply = api.get(target, query=query)
        assert reply.status == 200
        text = reply.raw.decode()
        assert text.startswith("date,kind,amount,account,to_account,category,memo,external_id,cleared,to_cleared\r\n")
        lines += text.splitlines()[1:]
        pages += 1
        link = reply.header("Link")
        if link is None:
            break
        assert link.endswith('>; rel="next"') and "from=2026-11-01" in link
        target, _, raw_query = link[1 : link.index(">")].partition("?")
        query = dict(pair.split("=", 1) for pair in raw_query.split("&"))
    # Then every slip came exactly once, in date order, over several pages
    assert pages > 2
    assert [line.split(",")[0] for line in lines] == [f"2026-11-{d:02d}" for d in range(1, 13)]


def test_out_of_time_is_202_and_sending_again_finishes(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from kakeibo.services.imports import importer

    api.account("cash", 5000)
    text = HEADER + "2026-11-03,expense,500,cash,,食費,,\r\n2026-11-04,expense,500,cash,,食費,,\r\n"
    # Given an invocation with less time left than a batch needs
    monkeypatch.setattr(importer, "MIN_SECONDS_LEFT", 3600.0)
    status, body = upload(api, text)
    assert status == 202
    assert (body["status"], body["created"], body["pending"]) == ("partial", 0, 2)
    # When it is sent again with time to spare
    monkeypatch.setattr(importer, "MIN_SECONDS_LEFT", 0.0)
    status, body = upload(api, text)
    assert status == 200 and (body["status"], body["created"], body["pending"]) == ("complete", 2, 0)


def test_openapi_declares_every_status_of_the_new_routes_and_423_on_writes(api: Client) -> None:
    paths = api.get("/openapi.json").json["paths"]

    def statuses(path: str, method: str) -> set[str]:
        return set(paths[path][method]["responses"])

    assert {"200", "202", "400", "401", "409", "413", "415", "422", "423"} <= statuses("/imports", "post")
    assert "text/csv" in paths["/imports"]["post"]["requestBody"]["content"]
    assert {"200", "400", "401"} <= statuses("/slips.csv", "get")
    assert {"200", "400", "401", "415"} <= statuses("/ledger/verify", "post")
    assert {"200", "202", "400", "401", "409", "415", "423"} <= statuses("/ledger/rebuild", "post")
    for path, method in [("/slips", "post"), ("/slips/{date}/{id}", "put"), ("/slips/{date}/{id}", "patch"),
                         ("/slips/{date}/{id}", "delete"), ("/accounts", "post")]:  # fmt: skip
        assert "423" in statuses(path, method), (path, method)


def test_an_export_runs_no_formula_and_imports_back_exactly(api: Client, other_api: Client) -> None:
    # Given slips whose category and memo a spreadsheet would run as formulas, and a negative-looking memo
    for client in (api, other_api):
        client.account("cash", 50000)
    planted = [
        ('=HYPERLINK("http://evil","x")', "+cmd|calc!A0"),
        ("@SUM(A1)", "-5% 値引き"),
        ("'=x", "'quoted"),
    ]
    for category, memo in planted:
        reply = api.slip(date="2026-11-03", kind="expense", amount=100, account="cash", category=category, memo=memo)
        assert reply.status == 201, reply
    # When they are exported
    exported = api.get("/slips.csv").raw
    # Then every such cell starts with a quote, as text
    text = exported.decode()
    assert "'=HYPERLINK" in text and "'+cmd|calc!A0" in text and "'@SUM(A1)" in text and "'-5% 値引き" in text
    # And importing the export into another ledger gives back exactly the same categories and memos
    status, body = upload(other_api, exported)
    assert status == 200 and body["created"] == 3, body
    imported = {(s["category"], s["memo"]) for s in other_api.get("/slips").json["items"]}
    assert imported == set(planted)


RENT = {
    "slip": {"kind": "expense", "amount": 80_000, "account": "bank", "category": "家賃"},
    "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"},
    "shift": "none",
}


def test_an_external_id_equal_to_a_recurrences_slip_id_does_not_take_its_place(api: Client) -> None:
    import datetime as dt

    from kakeibo.core.recurrence import occurrence_slip_id

    # Given a monthly rent and the slip id its November occurrence will have (ids are computable)
    api.account("bank", 500_000, type="bank")
    made = api.post("/recurrences", RENT)
    assert made.status == 201, made
    taken = occurrence_slip_id(made.json["id"], dt.date(2026, 11, 27))
    # When a file whose row carries that id as its external_id is imported first
    status, body = upload(api, HEADER + f"2026-11-01,expense,100,bank,,雑費,,{taken}\r\n")
    assert status == 200 and body["created"] == 1, body
    # And the recurrence runs
    ran = api.post("/recurrences/run", query={"until": "2026-11-30"})
    assert ran.status == 200, ran
    # Then the rent is posted all the same, and the imported row is a slip of its own
    slips = sorted((s["date"], s["amount"], s["id"]) for s in api.get("/slips").json["items"])
    assert [(d, a) for d, a, _ in slips] == [("2026-11-01", 100), ("2026-11-27", 80_000)]
    assert slips[1][2] == taken and slips[0][2] != taken
    assert api.balances() == {"bank": 500_000 - 100 - 80_000}


def test_a_file_imported_before_external_ids_were_namespaced_is_not_imported_again(
    api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo import csvio

    # Given a file imported when an external_id that was a valid slip id became the slip id itself
    api.account("cash", 10_000)
    text = HEADER + "2026-11-03,expense,300,cash,,カフェ,,TX001\r\n2026-11-04,expense,500,cash,,カフェ,,\r\n"
    namespaced = csvio.slip_id_for

    def as_before(file_sha256: str, line: int, external_id: str | None) -> str:
        return external_id if external_id == "TX001" else namespaced(file_sha256, line, external_id)

    monkeypatch.setattr(csvio, "slip_id_for", as_before)
    status, body = upload(api, text)
    assert status == 200 and body["created"] == 2, body
    assert "TX001" in {s["id"] for s in api.get("/slips").json["items"]}
    monkeypatch.setattr(csvio, "slip_id_for", namespaced)
    # When the same file is imported (and previewed) again after the change
    preview = api.post("/imports", raw=text, headers=CSV, query={"dry_run": "true"}).json
    status, body = upload(api, text)
    # Then nothing is created twice
    assert preview["skipped"] == 2 and preview["created"] == 0, preview
    assert status == 200 and (body["created"], body["skipped"]) == (0, 2), body
    assert len(api.get("/slips").json["items"]) == 2
    assert api.balances() == {"cash": 10_000 - 800}


def test_a_reconciled_slip_reads_as_the_cleared_row_it_was_imported_from() -> None:
    from kakeibo.services.imports.sync import _current_slip
    from kakeibo.services.slips import fingerprint

    # Given an imported slip as stored, and the same slip after a reconciliation summed its cleared side
    stored = {
        "id": "mf-1", "no": 1, "version": 1, "created_at": "2026-11-03T00:00:00Z",
        "updated_at": "2026-11-03T00:00:00Z", "date": "2026-11-03", "kind": "expense", "amount": 1_200,
        "account": "bank", "category": "食費", "cleared": "cleared", "tags": [],
    }  # fmt: skip
    reconciled = {**stored, "version": 2, "cleared": "reconciled", "reconciled_by": "r1"}
    # When each is read as the request its row made
    as_imported, now = _current_slip(stored), _current_slip(reconciled)
    # Then both read as the same cleared row (no request can say "reconciled"), with the same fingerprint
    assert (now.cleared, fingerprint(now)) == ("cleared", fingerprint(as_imported))
