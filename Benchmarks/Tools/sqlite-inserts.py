"""Committed single-row inserts per second on one connection, with the server's settings (WAL,
synchronous=NORMAL), one transaction per row: the storage half of the sign-in's physical limit.
Usage: sqlite-inserts.py FILE SECONDS"""
import os
import sqlite3
import sys
import time

path, seconds = sys.argv[1], float(sys.argv[2])
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(path + suffix):
        os.remove(path + suffix)
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, value BLOB NOT NULL)")
row = b"x" * 200
count = 0
start = time.perf_counter()
deadline = start + seconds
while time.perf_counter() < deadline:
    for _ in range(100):
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t (value) VALUES (?)", (row,))
        db.execute("COMMIT")
    count += 100
print("%.0f" % (count / (time.perf_counter() - start)))
