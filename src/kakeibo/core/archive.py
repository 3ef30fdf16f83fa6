"""A ledger's archive: one gzip JSON Lines file holding every item of the ledger and its receipts' bytes.

The file is written in parts, each one gzip member (concatenated members are one gzip stream), so
that an export can be built batch by batch and resumed after the last part it stored:

    {"archive": "kakeibo", "version": 1, "ledger": ..., "exported_at": ...}    first line of part 1
    {"item": {...}}                      one item of the ledger (a slip, an account, a journal entry...)
    {"receipt": "<sha256>", "bytes": "<base64>"}                          a receipt's object
    {"seal": n, "lines": k, "sha256": "<hex>"}      last line of part n: its k lines before and their hash
    {"end": {"parts": n, "items": i, "receipts": r}}                       the very last line

`read` checks all of it (every part sealed, in order, nothing after the end, a receipt's bytes
matching its hash) and says what is wrong in words when it is not. Pure: no storage, no HTTP.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

ARCHIVE = "kakeibo"
VERSION = 1


class ArchiveProblem(ValueError):
    """The file is not a whole, unaltered archive of this kind: `reason` says what is wrong."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Archive:
    """What an archive holds, as read back."""

    ledger: str
    exported_at: str
    items: list[dict[str, Any]] = field(default_factory=list)
    receipts: dict[str, bytes] = field(default_factory=dict)
    parts: int = 0


def header(ledger: str, exported_at: str) -> dict[str, Any]:
    return {"archive": ARCHIVE, "version": VERSION, "ledger": ledger, "exported_at": exported_at}


def item_line(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"item": dict(item)}


def receipt_line(sha256: str, data: bytes) -> dict[str, Any]:
    return {"receipt": sha256, "bytes": base64.b64encode(data).decode("ascii")}


def end_line(parts: int, items: int, receipts: int) -> dict[str, Any]:
    return {"end": {"parts": parts, "items": items, "receipts": receipts}}


def _dump(line: Mapping[str, Any]) -> bytes:
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8") + b"\n"


class PartWriter:
    """Part `number` (from 1) of an archive, written line by line into one gzip member: `size` is
    its compressed length so far (S3 wants parts of a multipart upload to be at least 5 MiB), and
    `finish` seals it. The same lines always give the same bytes (no time in the gzip header), so a
    part written again after a crash is the part written before."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.lines = 0
        self._hash = hashlib.sha256()
        self._zip = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip member, header mtime 0
        self._out: list[bytes] = []
        self.size = 0

    def add(self, line: Mapping[str, Any]) -> None:
        data = _dump(line)
        self.lines += 1
        self._hash.update(data)
        self._push(self._zip.compress(data))

    def finish(self) -> bytes:
        seal = {"seal": self.number, "lines": self.lines, "sha256": self._hash.hexdigest()}
        self._push(self._zip.compress(_dump(seal)))
        self._push(self._zip.flush())
        return b"".join(self._out)

    def _push(self, chunk: bytes) -> None:
        if chunk:
            self._out.append(chunk)
            self.size += len(chunk)


def encode_part(number: int, lines: Iterable[Mapping[str, Any]]) -> bytes:
    """Part `number` of an archive holding `lines`, sealed."""
    writer = PartWriter(number)
    for line in lines:
        writer.add(line)
    return writer.finish()


def read(data: bytes) -> Archive:
    """The archive in `data`, checked whole; ArchiveProblem naming what is wrong otherwise."""
    try:
        text = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise ArchiveProblem("the file is not gzip, or it is cut short") from exc
    raw = text.split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()
    if not raw:
        raise ArchiveProblem("the file is empty")
    lines = [_parse(number, line) for number, line in enumerate(raw, 1)]
    first = lines[0]
    if first.get("archive") != ARCHIVE or not isinstance(first.get("ledger"), str):
        raise ArchiveProblem("the file is not a ledger archive (its first line does not say so)")
    if first.get("version") != VERSION:
        raise ArchiveProblem(f"the archive's version {first.get('version')!r} is not one this API reads")
    found = Archive(first["ledger"], str(first.get("exported_at", "")))
    _check_seals(raw, lines)
    end = lines[-1].get("end")
    if not isinstance(end, dict):
        raise ArchiveProblem("the archive is cut short: it has no end line")
    for number, line in enumerate(lines[1:-1], 2):
        if "item" in line and isinstance(line["item"], dict):
            found.items.append(line["item"])
        elif "receipt" in line:
            sha, data_b64 = line.get("receipt"), line.get("bytes")
            if not isinstance(sha, str) or not isinstance(data_b64, str):
                raise ArchiveProblem(f"line {number}: a receipt without its hash or bytes")
            try:
                content = base64.b64decode(data_b64, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ArchiveProblem(f"line {number}: a receipt's bytes are not base64") from exc
            if hashlib.sha256(content).hexdigest() != sha:
                raise ArchiveProblem(f"line {number}: a receipt's bytes do not match its hash")
            found.receipts[sha] = content
        elif "seal" not in line:
            raise ArchiveProblem(f"line {number}: not a line an archive holds")
    parts = sum(1 for line in lines if "seal" in line)
    if end != {"parts": parts, "items": len(found.items), "receipts": len(found.receipts)}:
        raise ArchiveProblem("the end line's counts are not what the archive holds")
    found.parts = parts
    return found


def _parse(number: int, line: bytes) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ArchiveProblem(f"line {number} is not JSON") from exc
    if not isinstance(value, dict):
        raise ArchiveProblem(f"line {number} is not a JSON object")
    return value


def _check_seals(raw: list[bytes], lines: list[dict[str, Any]]) -> None:
    """Every part ends with its seal, the seals are numbered 1, 2, ..., and the end line follows the
    last one alone."""
    start, expected = 0, 1
    for index, line in enumerate(lines):
        if "seal" not in line:
            continue
        body = b"".join(part + b"\n" for part in raw[start:index])
        if line != {"seal": expected, "lines": index - start, "sha256": hashlib.sha256(body).hexdigest()}:
            raise ArchiveProblem(f"part {expected} (line {index + 1}) was altered: its seal does not match")
        start, expected = index + 1, expected + 1
    if expected == 1:
        raise ArchiveProblem("the archive has no sealed part")
    if start == len(lines):
        raise ArchiveProblem("the archive is cut short: it has no end line")
    if start != len(lines) - 1:
        raise ArchiveProblem("the archive is cut short or has lines after its last sealed part")


def encode_end(parts: int, items: int, receipts: int) -> bytes:
    """The end line, as the archive's last gzip member."""
    return gzip.compress(_dump(end_line(parts, items, receipts)), mtime=0)
