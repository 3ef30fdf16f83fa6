"""Start and stop the local S3-compatible server that keeps receipts (moto's server, from PyPI
`moto[server]`): a real HTTP server speaking S3's wire protocol, presigned URLs included. Where it
differs from S3 is in docs/receipts.md."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

from kakeibo.local.dynamodb import LocalStackError, listening, port_free, terminate


@dataclass
class S3Local:
    port: int
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> S3Local:
        if not port_free(self.port):
            raise LocalStackError(
                f"port {self.port} is already in use; stop what uses it or set S3_PORT to another port"
            )
        args = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        listening(self.process, self.port, "the local S3 server", timeout)
        return self

    def stop(self) -> None:
        terminate(self.process)


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
