"""The storage half of the sign-in's physical limit, on one connection with the server's settings (WAL,
synchronous=NORMAL), one transaction per commit:
  - committed single-row inserts per second into a bare table (an id and a 200-byte blob), for reference, and
  - with MIGRATED (a file `siwa migrate` created, so the real schema and page size), committed new-user sign-ins
    per second: a user row and a token row per transaction, ids time-ordered as the server makes them (the
    storage half of the benchmark's physical limit).
Usage: sqlite-inserts.py FILE SECONDS [MIGRATED]   prints "single_row_commits_per_s [signin_commits_per_s]" """
import hashlib
import os
import sqlite3
import sys
import time
import uuid


def fresh(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def connect(path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


def timed(seconds, commit):
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            commit(count)
            count += 1
    return count / (time.perf_counter() - start)


def single_rows(path, seconds):
    fresh(path)
    db = connect(path)
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, value BLOB NOT NULL)")
    row = b"x" * 200

    def commit(_):
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t (value) VALUES (?)", (row,))
        db.execute("COMMIT")
    return timed(seconds, commit)


def time_ordered_id(index):
    """A version 7 UUID in the server's text form: milliseconds first, then random bits."""
    raw = bytearray(os.urandom(16))
    raw[0:6] = (int(time.time() * 1000) + index // 1000).to_bytes(6, "big")
    raw[6] = 0x70 | (raw[6] & 0x0F)
    raw[8] = 0x80 | (raw[8] & 0x3F)
    return str(uuid.UUID(bytes=bytes(raw)))


def sign_ins(path, seconds):
    db = connect(path)
    now = int(time.time() * 1000)

    def commit(index):
        user_id, token_id = time_ordered_id(index), time_ordered_id(index)
        email = "u%d@privaterelay.appleid.com" % index
        sub = "%06d.%s.%04d" % (index % 1000000, os.urandom(16).hex(), index % 10000)
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO users (id, name, username, email, is_private_email, siwa_identifier, created_at,"
                   " updated_at) VALUES (?, '', ?, ?, 1, ?, ?, ?)", (user_id, email, email, sub, now, now))
        db.execute("INSERT INTO tokens (id, user_id, value_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                   (token_id, user_id, hashlib.sha256(os.urandom(48)).digest(), now, now + 2592000000))
        db.execute("COMMIT")
    return timed(seconds, commit)


path, seconds = sys.argv[1], float(sys.argv[2])
figures = ["%.0f" % single_rows(path, seconds)]
if len(sys.argv) > 3:
    figures.append("%.0f" % sign_ins(sys.argv[3], seconds))
print(" ".join(figures))
