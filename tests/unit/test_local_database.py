"""make run's DynamoDB Local keeps its SQLite file in write-ahead-log mode (kakeibo.local.dynamodb)."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from kakeibo.local.dynamodb import DATABASE, write_ahead


def _mode(database: Path) -> str:
    with contextlib.closing(sqlite3.connect(database)) as db:
        return str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower()


def test_a_new_data_dir_s_database_starts_in_write_ahead_log_mode(tmp_path: Path) -> None:
    # Given a data dir with no database yet
    database = tmp_path / DATABASE
    # When it is prepared for DynamoDB Local
    done = write_ahead(database)
    # Then the file exists, in write-ahead-log mode
    assert done is True
    assert _mode(database) == "wal"


def test_an_older_data_dir_s_database_is_switched_and_keeps_its_rows(tmp_path: Path) -> None:
    # Given a database written in SQLite's default rollback-journal mode, with a row
    database = tmp_path / DATABASE
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("CREATE TABLE kept (v TEXT)")
        db.execute("INSERT INTO kept VALUES ('slip')")
        db.commit()
    assert _mode(database) == "delete"
    # When it is prepared for DynamoDB Local
    write_ahead(database)
    # Then it is in write-ahead-log mode and its row is still there
    assert _mode(database) == "wal"
    with contextlib.closing(sqlite3.connect(database)) as db:
        assert db.execute("SELECT v FROM kept").fetchall() == [("slip",)]


def test_a_database_another_process_holds_is_left_as_it_is(tmp_path: Path) -> None:
    # Given a database another connection holds an exclusive lock on
    database = tmp_path / DATABASE
    with contextlib.closing(sqlite3.connect(database, isolation_level=None)) as holder:
        holder.execute("CREATE TABLE t (v TEXT)")
        holder.execute("BEGIN EXCLUSIVE")
        # When it is prepared for DynamoDB Local
        done = write_ahead(database)
        holder.execute("COMMIT")
    # Then nothing is changed, and the caller is told so
    assert done is False
    assert _mode(database) == "delete"
