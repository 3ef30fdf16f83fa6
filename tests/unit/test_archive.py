"""A ledger's archive: whatever is written, in however many parts, reads back exactly; any altered,
cut or foreign file is refused with what is wrong."""

from __future__ import annotations

import gzip
import hashlib
import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kakeibo.core import archive
from kakeibo.core.archive import ArchiveProblem

_scalars = st.one_of(st.integers(-(10**12), 10**12), st.text(max_size=12), st.booleans())
_items = st.lists(
    st.fixed_dictionaries(
        {"SK": st.text(min_size=1, max_size=20)},
        optional={"amount": st.integers(-(10**9), 10**9), "memo": st.text(max_size=30), "tags": st.lists(_scalars)},
    ),
    max_size=30,
)
_receipts = st.dictionaries(st.binary(max_size=40).map(lambda b: b + b"r"), st.just(None), max_size=4)


def _write(ledger: str, items: list[dict[str, Any]], receipts: list[bytes], cuts: list[int]) -> bytes:
    """The archive as an export writes it: the header, then the items (each receipt after the first
    item), split into parts at `cuts`."""
    lines: list[dict[str, Any]] = [archive.header(ledger, "2026-01-02T03:04:05+09:00")]
    lines += [archive.item_line(item) for item in items]
    lines += [archive.receipt_line(hashlib.sha256(data).hexdigest(), data) for data in receipts]
    bounds = sorted({0, len(lines), *(c % (len(lines) + 1) for c in cuts)})
    parts = [lines[a:b] for a, b in itertools.pairwise(bounds)]
    body = b"".join(archive.encode_part(n, part) for n, part in enumerate(parts, 1))
    return body + archive.encode_end(len(parts), len(items), len(receipts))


@given(st.text(min_size=1, max_size=10), _items, _receipts, st.lists(st.integers(0, 100), max_size=5))
def test_an_archive_written_in_any_parts_reads_back_exactly(
    ledger: str, items: list[dict[str, Any]], receipts: dict[bytes, None], cuts: list[int]
) -> None:
    # Given any ledger's items and receipts, written in any number of parts
    data = _write(ledger, items, list(receipts), cuts)
    # When it is read
    found = archive.read(data)
    # Then the same ledger, items (in order) and receipt bytes come back
    assert (found.ledger, found.items) == (ledger, items)
    assert found.receipts == {hashlib.sha256(b).hexdigest(): b for b in receipts}


def test_the_same_lines_give_the_same_bytes() -> None:
    # Given the same part written twice (as a resumed export writes it again)
    lines = [archive.header("L", "t"), archive.item_line({"SK": "SLIP#1", "amount": 980})]
    # Then the bytes are the same
    assert archive.encode_part(1, lines) == archive.encode_part(1, lines)


@given(_items.filter(lambda items: len(items) >= 1), st.data())
def test_any_altered_line_is_refused(items: list[dict[str, Any]], data: st.DataObject) -> None:
    # Given an archive whose text has one line changed (a digit or letter flipped)
    text = gzip.decompress(_write("L", items, [b"photo"], [2])).split(b"\n")[:-1]
    index = data.draw(st.integers(0, len(text) - 1))
    line = text[index]
    text[index] = line.replace(b"}", b',"x":1}', 1)
    # When it is read
    with pytest.raises(ArchiveProblem) as refused:
        archive.read(gzip.compress(b"\n".join(text) + b"\n"))
    # Then it is refused, with a reason in words
    assert refused.value.reason


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"not gzip at all", "not gzip"),
        (gzip.compress(b""), "empty"),
        (gzip.compress(b'{"hello": 1}\n'), "not a ledger archive"),
        (gzip.compress(b"[1]\n"), "not a JSON object"),
        (archive.encode_part(1, [archive.header("L", "t")]), "no end line"),
        (archive.encode_part(1, [archive.header("L", "t")]) + archive.encode_end(2, 0, 0), "counts"),
        (archive.encode_part(1, [{**archive.header("L", "t"), "version": 9}]) + archive.encode_end(1, 0, 0), "version"),
        (_write("L", [{"SK": "A"}], [b"x"], [1])[:-9], "cut short"),
    ],
    ids=["not-gzip", "empty", "foreign", "not-an-object", "no-end", "counts", "version", "cut-short"],
)
def test_a_foreign_or_cut_file_is_refused_naming_what_is_wrong(data: bytes, words: str) -> None:
    # When a file that is not a whole archive is read, Then it is refused saying why
    with pytest.raises(ArchiveProblem, match=words):
        archive.read(data)


def test_a_receipt_whose_bytes_do_not_match_its_hash_is_refused() -> None:
    # Given a receipt line naming another content's hash
    line = {**archive.receipt_line(hashlib.sha256(b"a").hexdigest(), b"b")}
    data = archive.encode_part(1, [archive.header("L", "t"), line]) + archive.encode_end(1, 0, 1)
    # Then the archive is refused
    with pytest.raises(ArchiveProblem, match="do not match its hash"):
        archive.read(data)
