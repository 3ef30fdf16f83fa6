"""Start and stop the local S3-compatible server that keeps receipts (moto's server, from PyPI
`moto[server]`): a real HTTP server speaking S3's wire protocol, presigned URLs included. Where it
differs from S3 is in docs/receipts.md.

It keeps objects in memory; with a data directory (make run's DATA_DIR) every request that changes
something is appended to `s3-recording.jsonl` there (moto's recorder) and replayed at the next
start, so receipts outlive a restart as DynamoDB Local's items do."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from kakeibo.local.dynamodb import START_SECONDS, LocalStackError, listening, port_free, server_log, terminate

RECORDING = "s3-recording.jsonl"


@dataclass
class S3Local:
    port: int
    data_dir: Path | None = None  # None: in memory only
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)
    log: IO[bytes] | None = field(default=None, init=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = START_SECONDS) -> S3Local:
        if not port_free(self.port):
            raise LocalStackError(
                f"port {self.port} is already in use; stop what uses it or set S3_PORT to another port"
            )
        args = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)]
        env = dict(os.environ)
        if self.data_dir is not None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            env["MOTO_RECORDER_FILEPATH"] = str((self.data_dir / RECORDING).resolve())
        self.log = server_log()  # it logs every request it answers
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=self.log, start_new_session=True, env=env
        )
        listening(self.process, self.port, "the local S3 server", timeout, self.log)
        if self.data_dir is not None:
            recorder = f"{self.endpoint}/moto-api/recorder"
            if (self.data_dir / RECORDING).exists():
                _post(f"{recorder}/replay-recording")  # what earlier runs stored
            _post(f"{recorder}/start-recording")  # and what this one stores, appended
        return self

    def stop(self) -> None:
        terminate(self.process)
        if self.log is not None:
            self.log.close()


def _post(url: str) -> None:
    with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=60) as answer:  # noqa: S310 - our own local server
        answer.read()


def create_bucket(client: Any, name: str, cors: dict[str, Any] | None = None) -> None:
    """The receipts bucket as the template defines what a local server can hold (idempotent)."""
    existing = {b["Name"] for b in client.list_buckets().get("Buckets", [])}
    if name not in existing:
        client.create_bucket(Bucket=name)
    if cors:
        client.put_bucket_cors(Bucket=name, CORSConfiguration=cors)


def create_buckets(endpoint: str, origins: tuple[str, ...] = ()) -> None:
    """Every bucket of template.yaml on the local server at `endpoint`, with its CORS rules (and
    `origins`: where the page is actually served, which may be another port than the template's)."""
    import boto3

    from kakeibo.local import template

    client = boto3.client("s3", endpoint_url=endpoint)
    for logical in template.buckets():
        cors = template.bucket_cors(logical)
        for rule in cors.get("CORSRules", []):
            rule["AllowedOrigins"] = [*rule["AllowedOrigins"], *(o for o in origins if o not in rule["AllowedOrigins"])]
        create_bucket(client, template.bucket_name(logical), cors)
