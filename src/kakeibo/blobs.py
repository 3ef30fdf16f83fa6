"""The receipts bucket: the only module that talks to S3 (presigned URLs, the object's size and
checksum, deletes). Objects live at `receipts/{ledger}/{sha256}`: the key is the content's hash.
A ledger's archives live beside them at `exports/{ledger}/{export id}.jsonl.gz`, each written as one
multipart upload, part by part."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

from kakeibo import errors
from kakeibo.settings import get_settings

PREFIX = "receipts/"
UNAVAILABLE = "the receipts storage did not answer; nothing was changed: retry"
REFUSED = "the receipts storage refused the request ({storage_code}); nothing was changed: retry later"
RETRY_SECONDS = 5


@cache
def _client() -> Any:
    import boto3  # noqa: PLC0415 - receipts only
    from botocore.config import Config  # noqa: PLC0415

    settings = get_settings()
    return boto3.client(
        "s3",
        endpoint_url=settings.s3_endpoint_url or None,
        # within a request's seconds: a bucket that does not answer is a 503 the caller retries
        config=Config(
            signature_version="s3v4",
            s3={"addressing_style": "path"},
            connect_timeout=2,
            read_timeout=5,
            retries={"max_attempts": 2, "mode": "standard"},
        ),
    )


@contextmanager
def answering() -> Iterator[None]:
    """S3 failing to answer (timeouts, connections refused, its 5xx), or refusing the function (a 4xx
    the caller cannot mend: a bucket policy or key that refuses it), as StorageUnavailable. A missing
    object is the caller's answer and is handled where it is asked for."""
    from botocore.exceptions import BotoCoreError, ClientError  # noqa: PLC0415

    try:
        yield
    except BotoCoreError as exc:
        raise errors.StorageUnavailable(UNAVAILABLE, retry_after=RETRY_SECONDS) from exc
    except ClientError as exc:
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))
        if status >= 500:
            raise errors.StorageUnavailable(UNAVAILABLE, retry_after=RETRY_SECONDS) from exc
        code = str(exc.response.get("Error", {}).get("Code") or status)
        raise errors.StorageUnavailable(
            REFUSED.format(storage_code=code), retry_after=RETRY_SECONDS, storage_code=code
        ) from exc


def key_of(ledger: str, sha256: str) -> str:
    return f"{PREFIX}{ledger.replace('#', '/')}/{sha256}"


def checksum_of(sha256: str) -> str:
    """The x-amz-checksum-sha256 of content whose hex sha256 is `sha256`: its digest in base64."""
    return base64.b64encode(bytes.fromhex(sha256)).decode("ascii")


def upload_url(key: str, *, size: int, content_type: str, sha256: str, expires: int) -> tuple[str, dict[str, str]]:
    """A presigned PUT that writes `key` once: the size, content type and checksum are signed, and
    If-None-Match: * refuses a second write. The headers the client must send with it."""
    checksum = checksum_of(sha256)
    url = _client().generate_presigned_url(
        "put_object",
        Params={
            "Bucket": get_settings().receipts_bucket,
            "Key": key,
            "ContentType": content_type,
            "ContentLength": size,
            "ChecksumSHA256": checksum,
            "IfNoneMatch": "*",
        },
        ExpiresIn=expires,
    )
    return url, {"Content-Type": content_type, "x-amz-checksum-sha256": checksum, "If-None-Match": "*"}


def download_url(key: str, *, expires: int) -> str:
    return str(
        _client().generate_presigned_url(
            "get_object", Params={"Bucket": get_settings().receipts_bucket, "Key": key}, ExpiresIn=expires
        )
    )


@dataclass(frozen=True)
class Found:
    size: int
    content_type: str | None
    sha256: str | None  # hex; None when it could not be known


def find(key: str, size: int) -> Found | None:
    """The object at `key` (None if there is none), with the sha256 of its bytes when it has the
    `size` expected: S3's own checksum where the server keeps one, else read and hashed here (a
    server that does not verify checksums on upload may hold other bytes than were declared)."""
    bucket = get_settings().receipts_bucket
    with answering():
        return _find(bucket, key, size)


def _find(bucket: str, key: str, size: int) -> Found | None:
    from botocore.exceptions import ClientError  # noqa: PLC0415

    try:
        head = _client().head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
            return None
        raise
    found, content_type = int(head["ContentLength"]), head.get("ContentType")
    if found != size:
        return Found(found, content_type, None)  # not the bytes declared, whatever they hash to
    stored = head.get("ChecksumSHA256")
    if stored and "-" not in stored:
        return Found(found, content_type, base64.b64decode(stored).hex())
    digest = hashlib.sha256()
    with closing(_client().get_object(Bucket=bucket, Key=key)["Body"]) as body:
        for chunk in body.iter_chunks(chunk_size=256 * 1024):  # the whole body, as long as it says it is
            digest.update(chunk)
    return Found(found, content_type, digest.hexdigest())


def delete(key: str) -> None:
    with answering():
        _client().delete_object(Bucket=get_settings().receipts_bucket, Key=key)


def read(key: str) -> bytes | None:
    """The object's bytes; None if there is none."""
    from botocore.exceptions import ClientError  # noqa: PLC0415

    with answering():
        try:
            got = _client().get_object(Bucket=get_settings().receipts_bucket, Key=key)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return None
            raise
        with closing(got["Body"]) as body:
            return bytes(body.read())


EXPORTS = "exports/"
ARCHIVE_TYPE = "application/gzip"


def export_key(ledger: str, export_id: str) -> str:
    return f"{exports_of(ledger)}{export_id}.jsonl.gz"


RESTORES = "restores/"


def restore_key(user: str, sha256: str) -> str:
    """Where a user uploads an archive to restore (once per archive)."""
    return f"{restores_of(user)}{sha256}.jsonl.gz"


def write(key: str, data: bytes, *, content_type: str) -> None:
    """The object `key` holding `data` (written again, the same bytes)."""
    with answering():
        _client().put_object(Bucket=get_settings().receipts_bucket, Key=key, Body=data, ContentType=content_type)


def open_upload(key: str) -> str:
    """A multipart upload of `key`: its id."""
    with answering():
        started = _client().create_multipart_upload(
            Bucket=get_settings().receipts_bucket, Key=key, ContentType=ARCHIVE_TYPE
        )
    return str(started["UploadId"])


def upload_part(key: str, upload_id: str, number: int, data: bytes) -> str | None:
    """Part `number` of the upload (written again, it replaces the one before): its ETag. None: the
    upload is no longer open (completed or aborted)."""
    from botocore.exceptions import ClientError  # noqa: PLC0415

    with answering():
        try:
            done = _client().upload_part(
                Bucket=get_settings().receipts_bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=data
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "NoSuchUpload":
                return None
            raise
    return str(done["ETag"])


def complete_upload(key: str, upload_id: str, parts: list[dict[str, object]]) -> bool:
    """The upload becomes the object. False: it was no longer open (completed before)."""
    from botocore.exceptions import ClientError  # noqa: PLC0415

    with answering():
        try:
            _client().complete_multipart_upload(
                Bucket=get_settings().receipts_bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "NoSuchUpload":
                return False
            raise
    return True


def receipts_of(ledger: str) -> str:
    """The prefix of every receipt object of `ledger`."""
    return key_of(ledger, "")


def exports_of(ledger: str) -> str:
    """The prefix of every archive of `ledger`."""
    return f"{EXPORTS}{ledger.replace('#', '/')}/"


def restores_of(user: str) -> str:
    """The prefix of every archive `user` uploaded to restore."""
    return f"{RESTORES}{user}/"


def delete_under(prefix: str, *, enough: Callable[[], bool] = lambda: False) -> bool:
    """Every object under `prefix` deleted, a listed page at a time, and every multipart upload still
    open under it aborted (only archives are written in parts). True when none is left; False when
    `enough()` said to stop first."""
    from botocore.exceptions import ClientError  # noqa: PLC0415

    client, bucket = _client(), get_settings().receipts_bucket
    with answering():
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            if enough():
                return False
            objects = [{"Key": found["Key"]} for found in page.get("Contents", [])]
            if objects:
                done = client.delete_objects(Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
                if done.get("Errors"):
                    raise errors.StorageUnavailable(UNAVAILABLE, retry_after=RETRY_SECONDS)
        if not prefix.startswith(EXPORTS):
            return True
        for page in client.get_paginator("list_multipart_uploads").paginate(Bucket=bucket, Prefix=prefix):
            for upload in page.get("Uploads", []):
                if enough():
                    return False
                try:
                    client.abort_multipart_upload(Bucket=bucket, Key=upload["Key"], UploadId=upload["UploadId"])
                except ClientError as exc:
                    if exc.response.get("Error", {}).get("Code") != "NoSuchUpload":  # aborted meanwhile
                        raise
    return True


def reset() -> None:
    _client.cache_clear()
