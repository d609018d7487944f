"""Checks ListStore's SQL against an older SQLite: the one bundled in an `apsw` wheel.

Usage: python3 prepare_all.py MIGRATIONS_DIR STATEMENTS_JSON EXPECTED_VERSION

Applies every numbered migration in MIGRATIONS_DIR to a new database file, in order, then prepares
(EXPLAIN, which compiles without running) every statement in STATEMENTS_JSON — a list of
{"sql": ..., "parameterCount": n} recorded while the library ran — and prints one line per statement
that this SQLite cannot compile. Exits 0 when all compile, 1 when any fails, 2 on a setup error.
"""
import glob
import json
import os
import sys
import tempfile

import apsw

migrations_dir, statements_path, expected_version = sys.argv[1:4]
if apsw.sqlitelibversion() != expected_version:
    print(f"setup: apsw carries SQLite {apsw.sqlitelibversion()}, expected {expected_version}")
    sys.exit(2)

folder = tempfile.mkdtemp()
connection = apsw.Connection(os.path.join(folder, "compat.sqlite"))
migrations = sorted(glob.glob(os.path.join(migrations_dir, "[0-9][0-9][0-9][0-9]_*.sql")))
if not migrations:
    print(f"setup: no migrations in {migrations_dir}")
    sys.exit(2)
failures = []
scripts = set()
for path in migrations:
    with open(path, encoding="utf-8") as file:
        script = file.read()
    scripts.add(script.strip())
    try:
        connection.execute("BEGIN; " + script + "; COMMIT")
    except apsw.Error as error:
        failures.append(f"migration {os.path.basename(path)}: {error}")
        break

with open(statements_path, encoding="utf-8") as file:
    statements = json.load(file)
for statement in statements:
    sql = statement["sql"]
    if sql.strip() in scripts:
        continue  # a migration, applied above
    try:
        for _ in connection.execute("EXPLAIN " + sql, [None] * statement["parameterCount"]):
            pass
    except apsw.Error as error:
        failures.append(f"{' '.join(sql.split())[:300]}: {error}")

for failure in failures:
    print(failure)
print(f"{len(migrations)} migrations, {len(statements)} statements checked on SQLite {apsw.sqlitelibversion()}: {len(failures)} failed")
sys.exit(1 if failures else 0)
