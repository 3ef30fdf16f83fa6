"""Start and stop the local S3-compatible server that keeps receipts (moto's server, from PyPI
`moto[server]`): a real HTTP server speaking S3's wire protocol, presigned URLs included. Where it
differs from S3 is in docs/receipts.md. The same server holds the webhook queues (SQS) and the user
pool (Cognito, kakeibo.local.cognito); it runs as kakeibo.local.moto_server, which prints the
confirmation codes a user pool would email.

It keeps objects in memory; with a data directory (make run's DATA_DIR) every request that changes
something is appended to `s3-recording.jsonl` there (moto's recorder) and replayed at the next
start, so receipts outlive a restart as DynamoDB Local's items do. What the webhook queues' poller
did (its receives, deletes and visibility changes, several a second) is not state: it is taken out
of the recording before the replay, where each receive would wait out its long poll again; so are
sign-ins and the reads of the user pool."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from kakeibo.local.dynamodb import START_SECONDS, LocalStackError, listening, port_free, server_log, terminate

RECORDING = "s3-recording.jsonl"
# The queue requests a replay must not make again: a receive waits for messages (POLL_SECONDS each,
# thousands of them after an hour's run), and deletes and visibility changes name receipt handles
# the replay's messages do not have. Queues, their attributes and sent messages are kept: a nudge
# sent again finds its webhook delivered already and does nothing.
NOT_STATE = frozenset(
    f"AmazonSQS.{action}"
    for action in (
        "ReceiveMessage",
        "DeleteMessage",
        "DeleteMessageBatch",
        "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch",
        "GetQueueAttributes",
        "GetQueueUrl",
        "ListQueues",
    )
) | frozenset(
    # A sign-in makes tokens and a session, which a replay could not use again (other ids, other
    # times): the replay keeps who signed up and was confirmed (and reset a password), not who
    # signed in or out.
    f"AWSCognitoIdentityProviderService.{action}"
    for action in (
        "InitiateAuth",
        "AdminInitiateAuth",
        "RespondToAuthChallenge",
        "RevokeToken",
        "AssociateSoftwareToken",
        "GetUser",
        "AdminGetUser",
        "ListUsers",
        "ListUserPools",
        "ListUserPoolClients",
        "DescribeUserPool",
        "DescribeUserPoolClient",
        "GetUserPoolMfaConfig",
    )
)


@dataclass
class S3Local:
    port: int
    data_dir: Path | None = None  # None: in memory only
    # where the user pool's confirmation codes are written (None: a temporary file of its own)
    codes: Path | None = None
    echo: bool = False  # the codes printed on this process's stdout too (make run's log)
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)
    log: IO[bytes] | None = field(default=None, init=False)
    _scratch: Path | None = field(default=None, init=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = START_SECONDS) -> S3Local:
        if not port_free(self.port):
            raise LocalStackError(
                f"port {self.port} is already in use; stop what uses it or set S3_PORT to another port"
            )
        if self.codes is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="kakeibo-codes-"))
            self.codes = self._scratch / "confirmation-codes.txt"
        args = [sys.executable, "-m", "kakeibo.local.moto_server", "-H", "127.0.0.1", "-p", str(self.port)]
        args += ["--codes", str(self.codes.resolve())]
        env = dict(os.environ)
        if self.data_dir is not None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            env["MOTO_RECORDER_FILEPATH"] = str((self.data_dir / RECORDING).resolve())
        self.log = server_log()  # it logs every request it answers
        self.process = subprocess.Popen(
            args, stdout=None if self.echo else subprocess.DEVNULL, stderr=self.log, start_new_session=True, env=env
        )
        listening(self.process, self.port, "the local S3 server", timeout, self.log)
        if self.data_dir is not None:
            recorder = f"{self.endpoint}/moto-api/recorder"
            if (self.data_dir / RECORDING).exists():
                compact_recording(self.data_dir / RECORDING)
                _post(f"{recorder}/replay-recording", timeout)  # what earlier runs stored
            _post(f"{recorder}/start-recording", timeout)  # and what this one stores, appended
        return self

    def stop(self) -> None:
        terminate(self.process)
        if self.log is not None:
            self.log.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def confirmation_code(self, who: str, kind: str = "confirmation") -> str | None:
        """The last code of `kind` (confirmation, password reset) the user pool sent `who` (an email), if any."""
        from kakeibo.local.cognito import confirmation_code

        return confirmation_code(self.codes, who, kind) if self.codes is not None else None


def _post(url: str, timeout: float) -> None:
    """A POST to the recorder of our own server; a replay that does not end within `timeout` (a
    bound on a hang), or fails, is a LocalStackError saying so."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=timeout) as answer:  # noqa: S310 - our own local server
            answer.read()
    except OSError as exc:
        raise LocalStackError(f"the local S3 server's recorder did not answer {url}: {exc}") from exc


def compact_recording(path: Path) -> int:
    """The recording at `path` without the requests that are not state (NOT_STATE), written back in
    its place: how many were taken out."""
    kept: list[str] = []
    dropped = 0
    with path.open(encoding="utf-8") as recording:
        for line in recording:
            entry = json.loads(line) if line.strip() else {}
            headers = entry.get("headers") or {}
            target = next((str(v) for k, v in headers.items() if k.lower() == "x-amz-target"), "")
            if target in NOT_STATE or _reads_keys(entry):
                dropped += 1
            elif line.strip():
                kept.append(line if line.endswith("\n") else line + "\n")
    if dropped:
        partial = path.with_suffix(".compacting")
        partial.write_text("".join(kept), encoding="utf-8")
        partial.replace(path)  # whole or not at all: a start stopped here replays the old recording
    return dropped


def _reads_keys(entry: dict[str, Any]) -> bool:
    """A read of a user pool's JWKS or OpenID configuration (the local front's, at its start)."""
    path = urllib.parse.urlsplit(str(entry.get("url") or "")).path
    return entry.get("method") == "GET" and "/.well-known/" in path


def create_bucket(client: Any, name: str, cors: dict[str, Any] | None = None) -> None:
    """A bucket as the template defines what a local server can hold (idempotent): its CORS rules, if
    it has any (the page's bucket has none: CloudFront reads it, never a browser)."""
    existing = {b["Name"] for b in client.list_buckets().get("Buckets", [])}
    if name not in existing:
        client.create_bucket(Bucket=name)
    if cors and cors.get("CORSRules"):
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
