"""The bench runs end to end (`python -m bench --quick`, a tiny dataset): its JSON, not its speed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPS = ("create", "split", "update", "move", "delete", "list", "changes", "asof")


def test_quick_bench_reports_every_section(tmp_path: Path) -> None:
    # When the bench runs in quick mode, writing its JSON somewhere of our own
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(out.read_text(encoding="utf-8"))

    # Then every section reported, with the machine it ran on
    assert doc["mode"] == "quick"
    assert set(doc["sections"]) == {
        *OPS,
        *(
            "breakdown",
            "cold",
            "naive",
            "imports",
            "card_import",
            "front",
            "front_create",
            "ages",
            "settlement",
            "medical",
            "statements",
            "ahead",
            "authorizer",
            "receipts",
            "job",
            "webhooks",
            "budgets",
            "exports",
            "erasure",
            "rules",
            "reconcile",
            "points",
            "tags",
        ),
    }
    assert {"nproc", "cpu", "memory_gib", "python", "dynamodb_local"} <= set(doc["machine"])

    # And a ledger's export and deletion each moved every item of it, on our side and the floor's
    erasure = doc["sections"]["erasure"]
    for side in ("export", "deletion"):
        assert erasure[side]["items"] > erasure["slips"] and erasure[side]["floor_items"] > erasure["slips"]

    # And each operation has ours and the floor side by side, and its cost against the minimum
    for name in OPS:
        result = doc["sections"][name]
        for side in ("ours", "floor"):
            assert result[side]["n"] > 0
            assert 0 < result[side]["p50_ms"] <= result[side]["p95_ms"] <= result[side]["p99_ms"]
        assert result["ratio"]["p50"] > 0
        assert result["cost"]["calls"] >= result["minimum"]["calls"] >= 1
        assert result["cost"]["items_written"] >= result["minimum"]["transactional_writes"]
    # And the writes left both twin ledgers exactly right and identical
    for name in ("create", "update", "move", "delete"):
        verified = doc["sections"][name]["verified"]
        assert verified == {**verified, "drift_yen": 0, "twin_identical": True}
    assert doc["sections"]["create"]["cost"]["priced"]["wcu"] >= doc["sections"]["create"]["minimum"]["wcu"]

    # And the handler's own CPU is split by layer
    for op in doc["sections"]["breakdown"]["ops"].values():
        assert set(op["layers_us"]) == {
            "service_and_store",
            "powertools_resolver_validation_route",
            "precheck",
            "powertools_logger",
        }

    # And the reads were measured on a young, a middle-aged and an old ledger, each against its floor,
    # with the calls they made and the capacity they read
    ages = doc["sections"]["ages"]
    assert [size["label"] for size in ages["sizes"]] == ["1 month", "3 years", "10 years"]
    assert ages["sizes"][0]["slips"] < ages["sizes"][1]["slips"] < ages["sizes"][2]["slips"]
    for size in ages["sizes"]:
        for read in ("asof", "history", "yearly", "list_account", "list_category"):
            measured = size["reads"][read]
            assert measured["ours"]["n"] > 0 and measured["floor"]["n"] > 0
            assert measured["calls"] >= measured["floor_calls"] >= 1
            assert measured["rcu"] > 0 and measured["floor_rcu"] > 0
        # (each after the person's tombstone, the GetItem a personal ledger's request meets first)
        assert size["reads"]["asof"]["calls"] == 1 + 3  # whatever the ledger's age
        assert size["reads"]["list_account"]["calls"] == 1 + 2  # the index, then the page's slips

    # And the settlement was measured on a shared ledger of 1 month and of 10 years, against its floor
    settlement = doc["sections"]["settlement"]
    assert [size["label"] for size in settlement["sizes"]] == ["1 month", "10 years"]
    assert settlement["sizes"][0]["slips"] < settlement["sizes"][1]["slips"]
    for size in settlement["sizes"]:
        measured = size["read"]
        assert measured["ours"]["n"] > 0 and measured["floor"]["n"] > 0
        assert measured["calls"] >= measured["floor_calls"] == 2

    # And the medical report was measured on a ledger of 1 year and of 10 years: one read, whatever the age
    medical = doc["sections"]["medical"]
    assert [size["label"] for size in medical["sizes"]] == ["1 year", "10 years"]
    assert medical["sizes"][0]["slips"] < medical["sizes"][1]["slips"]
    for size in medical["sizes"]:
        measured = size["read"]
        assert measured["ours"]["n"] > 0 and measured["floor"]["n"] > 0
        assert measured["floor_calls"] == 1

    # And a card's statements were measured at 1 month and 10 years: the floor's five calls (and the
    # person's tombstone), whatever the age
    ahead = doc["sections"]["ahead"]  # the months-ahead reads, timed on both ledgers
    assert [s["label"] for s in ahead["sizes"]] == ["1 month", "10 years"]
    assert all(
        s[r]["ours"]["p50_ms"] > 0 and s[r]["calls"] > 0 for s in ahead["sizes"] for r in ("forecast", "net_worth")
    )
    # And the tag report was measured on a tagged ledger of 1 month and of 10 years, each window's totals
    # as its slips say, read from the window's accounts x months items alone; and the search read the
    # slips of its window, every one once and no other
    tags = doc["sections"]["tags"]
    assert [ledger["label"] for ledger in tags["ledgers"]] == ["1 month", "10 years"]
    assert tags["ledgers"][0]["slips"] < tags["ledgers"][1]["slips"]
    for read in tags["reports"]["reads"].values():
        assert read["ours"]["n"] > 0 and read["tags"] > 0
        assert read["queried"] == read["month_items"] > 0 and read["slips_read"] == 0
    assert tags["targets"]["reads_the_months_items"] is True
    search = tags["search"]
    assert search["words"]["住居"]["slips_read"] == search["window_slips"] == search["floor"]["slips_read"] > 0
    assert search["words"]["住居"]["found"] == search["words"]["住居"]["matching"] > 0
    assert tags["targets"]["reads_the_window_only"] is True
    statements = doc["sections"]["statements"]
    assert [size["label"] for size in statements["sizes"]] == ["1 month", "10 years"]
    for size in statements["sizes"]:
        measured = size["read"]
        assert measured["ours"]["n"] > 0 and measured["floor"]["n"] > 0
        assert measured["calls"] == 1 + measured["floor_calls"] == 1 + 5

    # And a busy month was reconciled (every slip once) beside its floor, and `holds` read at 1 month and
    # 10 years with the same calls, whatever the age
    reconcile = doc["sections"]["reconcile"]
    busy = reconcile["reconciling"]
    assert busy["reconciled"] == busy["slips"] > 0 and busy["slips_per_s"] > 0 and busy["floor"]["n"] == busy["runs"]
    assert [size["label"] for size in reconcile["holds"]] == ["1 month", "10 years"]
    assert reconcile["holds"][0]["read"]["calls"] == reconcile["holds"][1]["read"]["calls"]

    # And the daily job found every due recurrence across the shards and posted some
    job = doc["sections"]["job"]
    assert job["posted"] > 0 and job["index_read"]["serial_s"] > 0 and job["due"] == job["ledgers"] * 10

    # And the CSV import was timed both ways, every row created once, nothing drifting
    imports = doc["sections"]["imports"]
    assert imports["batched"]["rows_per_s"] > 0 and imports["per_row"]["rows_per_s"] > 0
    assert imports["reimport"]["created"] == 0 and imports["reimport"]["skipped"] == imports["rows"]
    assert imports["drift"] == {"batched": 0, "per_row": 0}

    # And a card's statement was imported beside the plain CSV of its rows, each file's rows all created
    card = doc["sections"]["card_import"]
    assert card["statement"]["median_s"] > 0 and card["plain"]["median_s"] > 0 and card["ratio"] > 0
    assert card["statement"]["calls"]["TransactWriteItems"] > 0 and card["plain"]["calls"]["TransactWriteItems"] > 0

    # And the cold start compares fresh processes
    cold = doc["sections"]["cold"]
    assert cold["median"]["ours"]["total_ms"] > 0 and cold["median"]["bare"]["total_ms"] > 0
    assert cold["median"]["floor"]["total_ms"] > 0
    assert set(cold["ratio"]) >= {"vs_floor", "vs_bare_boto3", "vs_boto3_same_calls", "restored_first_vs_second"}
    # and a restored instance (a fork of the primed process) whose first request imported nothing,
    # beside one restored without the priming
    assert cold["restore"]["restore"]["imported_by_first"] == 0
    assert cold["restore"]["unprimed"]["imported_by_first"] > 0
    # and each restored request's pages copied on write counted: the first request copies the pages
    # it writes of those it shares with the snapshot, the second finds most of them its own already
    assert cold["restore"]["restore"]["faults_first"] > cold["restore"]["restore"]["faults_second"]
    # and the floor restored the same way (primed, frozen, forked), its requests timed and counted as
    # ours are, the two restores' first/second set side by side
    floor_restored = cold["restore"]["floor_restore"]
    assert floor_restored["imported_by_first"] == 0
    assert floor_restored["first_request_ms"] > 0 and floor_restored["second_request_ms"] > 0
    assert floor_restored["faults_first"] > floor_restored["faults_second"]
    assert cold["ratio"]["restored_vs_floor_restored"] == round(
        cold["ratio"]["restored_first_vs_second"] / cold["ratio"]["floor_restored_first_vs_second"], 3
    )

    # And under concurrent writers our ledger verified with no drift (the naive one may drift)
    concurrent = doc["sections"]["naive"]["concurrent"]
    assert concurrent["ours"]["ops"] == concurrent["naive"]["ops"] > 0
    assert concurrent["ours"]["verify"]["mismatched_items"] == 0
    assert concurrent["ours"]["verify"]["balance_drift_yen"] == 0
    assert "lost_balance_updates" in concurrent["naive"]

    # And the local front was driven over HTTP by one writer and by several at once, nothing drifting
    front = doc["sections"]["front"]
    assert front["instances"] >= 1
    for run in ("one", "many", "serial"):
        assert front[run]["ops"] > 0 and front[run]["ops_per_s"] > 0
        assert front[run]["verify"] == {"mismatched_items": 0, "balance_drift_yen": 0, "day_total_drift_yen": 0}
    assert front["one"]["writers"] == 1 < front["many"]["writers"] == front["serial"]["writers"]

    # And POST /slips went through the front (its instances, the Lambda authorizer) and in-process alike,
    # /health through the front beside them, each timed and its hops named; the in-process POSTs'
    # DynamoDB calls were sent again to a DynamoDB Local on a data dir and to the bench's
    created = doc["sections"]["front_create"]
    assert created["front"]["n"] == created["in_process"]["n"] == created["health"]["n"] > 0
    assert set(created["hops_p50_ms"]) == {"http", "front", "instance", "authorizer"}
    assert created["authorizer_calls"] >= 1
    assert created["calls_replayed"]["data_dir"]["n"] == created["calls_replayed"]["in_memory"]["n"] > 0

    # And the webhooks delivered every entry to every up receiver, with some down and with none,
    # while the down ones delivered nothing and had their retry scheduled
    webhooks = doc["sections"]["webhooks"]
    ten_down, none_down = webhooks["scenarios"]
    assert ten_down["down"] == webhooks["webhooks"] // 10 >= 1 and none_down["down"] == 0
    for scenario in (ten_down, none_down):
        up = scenario["webhooks"] - scenario["down"]
        assert scenario["delivered"] == up * scenario["entries_per_webhook"] > 0
        assert scenario["deliveries_per_s"] > 0
    assert ten_down["down_webhooks"] == {
        "count": ten_down["down"],
        "delivered_entries": 0,
        "with_retry_scheduled": ten_down["down"],
    }

    # And the targets are reported (not asserted) and the table printed
    assert {t["name"] for t in doc["targets"]} >= {
        "create: ours/floor at p50",
        "cold start: ours / floor",
        "POST /slips: through the local front / in-process at p50",
    }
    assert "Latency" in done.stdout and "Cold start" in done.stdout and "Naive ledger" in done.stdout
    assert "Local front over HTTP" in done.stdout
