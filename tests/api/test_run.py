"""`python -m kakeibo.local run` (what `make run` starts) as a user runs it: the data survives a
restart, whether stopped by Ctrl-C or `make stop`, and what came due is posted at start-up; a port in
use is a clear error; Ctrl-C stops every process (front, function instances, DynamoDB Local); a
function instance that dies is replaced."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from kakeibo.local.cognito import UserPool
from kakeibo.local.dynamodb import free_port
from tests.users import idp, new_email, sign_up, tokens

ROOT = Path(__file__).resolve().parents[2]


START_BOUND = 600  # seconds: a bound on a hung start, never a speed check


class Output:
    """What the running process prints (stdout and stderr), collected as it comes."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.lines.append(line)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def wait_for(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + START_BOUND
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text)
            if found:
                return found
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} not in the output:\n{self.text}")


def _wait_until_gone(pid: int) -> None:
    """Until the process has ended (a zombie, or reaped): a kill is delivered after os.kill returns."""
    stat = Path(f"/proc/{pid}/stat")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return
        except (FileNotFoundError, ProcessLookupError):
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} still runs after SIGKILL")


@contextmanager
def running(
    data_dir: Path, port: int, ddb_port: int, *args: str, environ: dict[str, str] | None = None, **settings: str
) -> Iterator[tuple[subprocess.Popen[str], Output]]:
    """`make run` on `data_dir` until the block ends; its environment this process's (or `environ`)
    with the ports, the data directory and `settings`."""
    base = dict(os.environ) if environ is None else environ
    env = {**base, "PORT": str(port), "DDB_PORT": str(ddb_port), "DATA_DIR": str(data_dir), **settings}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kakeibo.local", "run", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = Output(proc)
    try:
        # until it answers (a start that stops first fails with what it printed); the bound only keeps a hung
        # start from hanging the suite: a loaded machine may take minutes to start Java and the servers
        deadline = time.monotonic() + START_BOUND
        while proc.poll() is None:
            try:
                if requests.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):  # not listening yet, or not answering yet
                time.sleep(0.2)
            if time.monotonic() > deadline:
                raise AssertionError(f"make run did not answer within {START_BOUND} s:\n{output.text}")
        else:
            raise AssertionError(f"make run stopped before it answered (exit {proc.returncode}):\n{output.text}")
        yield proc, output
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
        requests.get(f"http://127.0.0.1:{port}/", timeout=5)
    except requests.Timeout:
        return False  # something still listens there, or holds the port
    except requests.ConnectionError:
        return True
    return False


def _gone(pid: int) -> bool:
    """No such process, or only its exit status left (a zombie)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return bool(re.search(r"^State:\s+Z", status, re.MULTILINE))


def test_writes_survive_ctrl_c_and_make_stop_and_what_came_due_is_posted_at_start_up(tmp_path: Path) -> None:
    from kakeibo.settings import today

    port, ddb_port = free_port(), free_port()
    auth = {"Authorization": "Bearer hanako"}
    base = f"http://127.0.0.1:{port}"
    start = (today() - dt.timedelta(days=3)).isoformat()
    # Given the stack is started with two function instances
    with running(tmp_path, port, ddb_port, FUNCTION_CONCURRENCY="2") as (proc, output):
        serving = output.wait_for(r"serving with 2 function instances \(FUNCTION_CONCURRENCY\), pids (\d+), (\d+)")
        instances = [int(pid) for pid in serving.groups()]
        # And one of them dies while idle (the one that answered the start-up's /health: the next
        # request's, as instances are taken last-finished first)
        os.kill(instances[0], signal.SIGKILL)
        _wait_until_gone(instances[0])
        # When an account and a slip are recorded, and a recurrence whose only occurrence is already due
        made = requests.post(
            f"{base}/accounts",
            json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 1000},
            headers=auth,
            timeout=60,
        )
        assert made.status_code == 201, made.text
        slip = {"date": "2026-11-03", "kind": "expense", "amount": 300, "account": "cash"}
        assert requests.post(f"{base}/slips", json=slip, headers=auth, timeout=60).status_code == 201
        bank = {"id": "bank", "name": "銀行", "type": "bank", "opening_balance": 100_000}
        assert requests.post(f"{base}/accounts", json=bank, headers=auth, timeout=60).status_code == 201
        body = {
            "slip": {"kind": "expense", "amount": 5000, "account": "bank", "category": "通信費"},
            "rule": {"freq": "daily", "start": start, "count": 1},
        }
        assert requests.post(f"{base}/recurrences", json=body, headers=auth, timeout=60).status_code == 201
        # Then they are served (a new instance took the dead one's place)
        output.wait_for(rf"function instance \d \(pid {instances[0]}\) was killed by SIGKILL")
        # When Ctrl-C is pressed
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    # Then the front, its function instances and DynamoDB Local are gone, without a traceback
    assert _port_closed(port) and _port_closed(ddb_port)
    started = [int(pid) for pid in re.findall(r"function instance \d ready: pid (\d+)", output.text)]
    assert len(started) == 3 and all(_gone(pid) for pid in started), output.text
    assert "Traceback" not in output.text, output.text
    # When the stack starts again on the same data directory
    with running(tmp_path, port, ddb_port) as (proc, output):
        # Then it sees the earlier data, and its start-up run has posted the due slip, once
        deadline = time.monotonic() + 60
        posted: list[dict[str, object]] = []
        while time.monotonic() < deadline and not posted:
            items = requests.get(f"{base}/slips", headers=auth, timeout=60).json()["items"]
            posted = [s for s in items if s["account"] == "bank"]
            time.sleep(0.2)
        assert [(s["date"], s["amount"]) for s in posted] == [(start, 5000)]
        output.wait_for(r"recurring slips and card payments due by \d{4}-\d{2}-\d{2}: 1 posted")
        # When a burst of writes is each acknowledged just before `make stop` stops it (SIGTERM to the
        # pid it wrote)
        one = {"date": "2026-11-03", "kind": "expense", "amount": 1, "account": "cash"}
        for _ in range(30):
            assert requests.post(f"{base}/slips", json=one, headers=auth, timeout=60).status_code == 201
        stopped = subprocess.run(
            ["make", "--no-print-directory", "stop", f"DATA_DIR={tmp_path}"],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert stopped.returncode == 0 and "stopped" in stopped.stdout, stopped
        assert proc.wait(timeout=30) == 0
    # Then DynamoDB Local is gone, and the next run finds every acknowledged write, the due slip posted once
    assert _port_closed(ddb_port) and not (tmp_path / "run.pid").exists()
    with running(tmp_path, port, ddb_port):
        balances = requests.get(f"{base}/balances", headers=auth, timeout=60).json()
        assert sorted((b["account"], b["balance"]) for b in balances["items"]) == [
            ("bank", 95_000),
            ("cash", 1000 - 300 - 30),
        ]


def _run_once(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m kakeibo.local run` expected to stop by itself (a refused setting or port)."""
    return subprocess.run(
        [sys.executable, "-m", "kakeibo.local", "run"],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_bad_function_concurrency_is_a_clear_error(tmp_path: Path) -> None:
    env = {**os.environ, "FUNCTION_CONCURRENCY": "lots", "PORT": str(free_port()), "DATA_DIR": str(tmp_path)}
    result = _run_once(env)
    assert result.returncode == 1
    assert "FUNCTION_CONCURRENCY must be a whole number from 1 to 64, not 'lots'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PORT": str(port), "DDB_PORT": str(free_port()), "DATA_DIR": str(tmp_path)}
        result = _run_once(env)
    assert result.returncode == 1
    assert f"port {port} is already in use" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_local_auth_is_a_clear_error(tmp_path: Path) -> None:
    env = {**os.environ, "LOCAL_AUTH": "off", "PORT": str(free_port()), "DATA_DIR": str(tmp_path)}
    result = _run_once(env)
    assert result.returncode == 1
    assert "LOCAL_AUTH must be strict or unset, not 'off'" in result.stderr
    assert "Traceback" not in result.stderr


def _user_pool(data_dir: Path) -> UserPool:
    """The user pool of the make run on `data_dir`, as its run.json describes it."""
    described = json.loads((data_dir / "run.json").read_text(encoding="utf-8"))["user_pool"]
    return UserPool(described["endpoint"], described["region"], described["user_pool_id"], described["client_id"])


def test_a_person_signs_up_and_in_with_make_run_s_pool_and_is_the_same_person_after_a_restart(tmp_path: Path) -> None:
    port, ddb_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    email = new_email()
    # Given make run started strict (the user pool's tokens only), and the pool it made from the template
    with running(tmp_path, port, ddb_port, LOCAL_AUTH="strict") as (_, output):
        output.wait_for("LOCAL_AUTH=strict: only the user pool's tokens and personal access tokens are let through")
        pool = _user_pool(tmp_path)
        output.wait_for(rf"user pool {pool.pool_id}, app client {pool.client_id}")
        # When Hanako signs up: make run's log shows her code
        sub = sign_up(pool, email)
        code = output.wait_for(rf"confirmation code for {re.escape(email)}: (\d{{6}})").group(1)
        # And she confirms with it, signs in, and records an account with her ID token
        idp(pool.endpoint, "ConfirmSignUp", {"ClientId": pool.client_id, "Username": email, "ConfirmationCode": code})
        auth = {"Authorization": f"Bearer {tokens(pool, email)['IdToken']}"}
        made = requests.post(f"{base}/accounts", json={"id": "cash", "name": "財布", "type": "cash"}, headers=auth,
                             timeout=60)  # fmt: skip
        assert made.status_code == 201, made.text
        # Then `Bearer <name>` is refused, even naming her sub: strict
        assert (
            requests.get(f"{base}/accounts", headers={"Authorization": f"Bearer {sub}"}, timeout=60).status_code == 401
        )
    # When make run starts again on the same data, not strict
    with running(tmp_path, port, ddb_port) as (_, output):
        output.wait_for(r"Bearer <name> for a local caller <name>")
        again = _user_pool(tmp_path)
        assert (again.pool_id, again.client_id) == (pool.pool_id, pool.client_id)
        # Then she signs in with her password as the same person, and finds her account
        auth = {"Authorization": f"Bearer {tokens(again, email)['IdToken']}"}
        found = requests.get(f"{base}/accounts", headers=auth, timeout=60)
        assert [a["id"] for a in found.json()["items"]] == ["cash"], found.text
        # And the shortcut reaches the same ledger, by her sub
        assert requests.get(f"{base}/accounts/cash", headers={"Authorization": f"Bearer {sub}"}, timeout=60).ok
        # And her code was not printed again, the codes file keeps the one she was sent
        assert f"confirmation code for {email}" not in output.text
        assert f"confirmation code for {email}: {code}" in (tmp_path / "confirmation-codes.txt").read_text()
