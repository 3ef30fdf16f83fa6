"""`python -m kakeibo.local run` (what `make run` starts) as a user runs it: the data survives a
restart, a port in use is a clear error, Ctrl-C stops both processes."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from kakeibo.local.dynamodb import free_port

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def running(data_dir: Path, port: int, ddb_port: int) -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "PORT": str(port), "DDB_PORT": str(ddb_port), "DATA_DIR": str(data_dir)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kakeibo.local", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            try:
                if requests.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.2)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _port_closed(port: int) -> bool:
    try:
        requests.get(f"http://127.0.0.1:{port}/", timeout=1)
    except requests.ConnectionError:
        return True
    return False


def test_data_survives_a_restart_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    port, ddb_port = free_port(), free_port()
    auth = {"Authorization": "Bearer hanako"}
    # Given the stack is started and an account and a slip are recorded
    with running(tmp_path, port, ddb_port) as proc:
        base = f"http://127.0.0.1:{port}"
        made = requests.post(
            f"{base}/accounts",
            json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 1000},
            headers=auth,
            timeout=10,
        )
        assert made.status_code == 201, made.text
        slip = {"date": "2026-11-03", "kind": "expense", "amount": 300, "account": "cash"}
        assert requests.post(f"{base}/slips", json=slip, headers=auth, timeout=10).status_code == 201
        # When Ctrl-C is pressed
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    # Then both the front and DynamoDB Local are gone
    assert _port_closed(port) and _port_closed(ddb_port)
    # And a second run on the same data directory sees the earlier data
    with running(tmp_path, port, ddb_port):
        balances = requests.get(f"http://127.0.0.1:{port}/balances", headers=auth, timeout=10).json()
        assert balances["items"] == [{"account": "cash", "balance": 700}]


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PORT": str(port), "DDB_PORT": str(free_port()), "DATA_DIR": str(tmp_path)}
        result = subprocess.run(
            [sys.executable, "-m", "kakeibo.local", "run"],
            check=False,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1
    assert f"port {port} is already in use" in result.stderr
    assert "Traceback" not in result.stderr


def test_due_recurring_slips_are_posted_at_start_up(tmp_path: Path) -> None:
    from kakeibo.recurrence import today

    port, ddb_port = free_port(), free_port()
    auth = {"Authorization": "Bearer hanako"}
    start = (today() - dt.timedelta(days=3)).isoformat()
    # Given a recurrence whose only occurrence is already due, defined while the server runs
    with running(tmp_path, port, ddb_port):
        base = f"http://127.0.0.1:{port}"
        account = {"id": "bank", "name": "銀行", "type": "bank", "opening_balance": 100_000}
        assert requests.post(f"{base}/accounts", json=account, headers=auth, timeout=10).status_code == 201
        body = {
            "slip": {"kind": "expense", "amount": 5000, "account": "bank", "category": "通信費"},
            "rule": {"freq": "daily", "start": start, "count": 1},
        }
        assert requests.post(f"{base}/recurrences", json=body, headers=auth, timeout=10).status_code == 201
    # When the server starts again
    with running(tmp_path, port, ddb_port) as proc:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        items: list[dict[str, object]] = []
        while time.monotonic() < deadline and not items:
            items = requests.get(f"{base}/slips", headers=auth, timeout=10).json()["items"]
            time.sleep(0.2)
        # Then the start-up run has posted it, once
        assert [(s["date"], s["amount"]) for s in items] == [(start, 5000)]
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=30)
    assert "recurring slips due by" in output and "1 posted" in output
