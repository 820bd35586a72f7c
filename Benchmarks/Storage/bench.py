"""The same operations as StorageBenchmark, through Python's sqlite3 with the same schema and pragmas.

Usage: bench.py <directory> <count> <normal|full>. Prints `name value` lines (operations per second).
One connection, one transaction per sign-in (what a straightforward Python server does).
"""
import os
import sqlite3
import sys
import time
import uuid

SCHEMA = """
CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, username TEXT NOT NULL, email TEXT NOT NULL,
    is_private_email INTEGER NOT NULL DEFAULT 0, siwa_identifier TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE tokens (
    id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    value_hash BLOB NOT NULL UNIQUE, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX tokens_user_id ON tokens (user_id);
CREATE INDEX tokens_expires_at ON tokens (expires_at);
"""

LOOKUP = """SELECT users.id, users.name, users.username, users.email, users.is_private_email,
    users.siwa_identifier, users.created_at, users.updated_at
    FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.value_hash = ? AND tokens.expires_at > ?"""


def token_hash(run, index):
    return index.to_bytes(8, "little") + bytes(23) + bytes([run])


def main():
    directory, count, synchronous = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    path = os.path.join(directory, "python.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = " + ("FULL" if synchronous == "full" else "NORMAL"))
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA busy_timeout = 5000")
    db.execute("PRAGMA cache_size = -8192")
    db.executescript(SCHEMA)

    now = int(time.time() * 1000)
    start = time.perf_counter()
    for index in range(count):
        user_id = str(uuid.uuid4())
        email = "u1-%d@example.com" % index
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO users (id, name, username, email, is_private_email, siwa_identifier, created_at,"
                   " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (user_id, "User %d" % index, email, email, 0, "1.%d" % index, now, now))
        db.execute("INSERT INTO tokens (id, user_id, value_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                   (str(uuid.uuid4()), user_id, token_hash(1, index), now, now + 3_600_000))
        db.execute("COMMIT")
    print("signins_sequential", count / (time.perf_counter() - start))

    start = time.perf_counter()
    for index in range(count):
        if db.execute(LOOKUP, (token_hash(1, index), int(time.time() * 1000))).fetchone() is None:
            raise SystemExit("token %d not found" % index)
    print("lookups_sequential", count / (time.perf_counter() - start))


if __name__ == "__main__":
    main()
