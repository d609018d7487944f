#!/usr/bin/env python3
"""Loro's side of `liststore-bench --merge` (Sources/liststore-bench/MergeBench.swift), run by it.

Doc A: a LoroMovableList of ROWS short strings ("row 0", ...), pushed one by one in one commit (a
movable list has no insert of many values). Doc B: A's snapshot imported into a new doc (another peer),
as a copy of the file is. B makes the same kinds and counts of edits as ListStore's copy, each its own
commit, with its own fixed seed: single inserts, runs of inserts, moves within and across "sections"
(tenths of the list: a movable list has no sections), sets of a value, deletes of one element. B's
updates since A's version are exported; the merge is `A.import_(updates)` and reading back the length.
Then again with nothing new. Prints `key value` lines; exits 3 when loro cannot be imported.

    python3 loro_merge.py --check
    python3 loro_merge.py ROWS SECTIONS SINGLE_INSERTS RUNS MOVES_WITHIN MOVES_ACROSS TITLES DELETES SEED [PEER_A PEER_B]

The peers' ids are drawn from SEED (below 2**63) unless given. Loro's import of many moves into a large
list took seconds with every pair of ids tried (1,000 moves into 1,000,000 elements: 4-12 s) except
when A's id is 2**63 or more and B's below it (0.02 s), so LoroDoc's random ids would not repeat a run.
"""

import gc
import importlib.metadata
import hashlib
import random
import sys
import time

try:
    import loro
    from loro import ExportMode, LoroDoc
except ImportError as error:
    print(f"cannot import loro ({error})")
    sys.exit(3)


def status_kib(field):
    """This process's VmRSS or VmHWM in KiB (Linux), or -1."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def reset_peak():
    """Sets VmHWM back to the current RSS (Linux: 5 written to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        pass


def digest(values):
    return hashlib.sha256("\n".join(values).encode()).hexdigest()


def edit(doc, rows, kinds, sections, rng):
    """Makes the edits of `kinds` on movable list `rows` of `doc`, each its own commit; returns rows inserted."""
    inserted = 0
    for k, kind in enumerate(kinds):
        length = len(rows)
        band = max(1, length // sections)
        if kind == "insert":
            rows.insert(rng.randrange(length + 1), f"new {k}")
            inserted += 1
        elif kind == "run":
            at = rng.randrange(length + 1)
            count = rng.randint(10, 50)
            for j in range(count):
                rows.insert(at + j, f"run {k}.{j}")
            inserted += count
        elif kind == "move-within" or kind == "move-across":
            source = rng.randrange(length)
            home = min(source // band, sections - 1)
            if kind == "move-within":
                target_band = home
            else:
                target_band = rng.randrange(sections - 1)
                target_band += 1 if target_band >= home else 0
            low = target_band * band
            high = length - 1 if target_band == sections - 1 else min(low + band, length) - 1
            rows.mov(source, rng.randint(low, max(low, high)))
        elif kind == "title":
            rows.set(rng.randrange(length), f"edited {k}")
        elif kind == "delete":
            rows.delete(rng.randrange(length), 1)
        doc.commit()
    return inserted


def main(argv):
    try:
        version = importlib.metadata.version("loro")
    except importlib.metadata.PackageNotFoundError:
        version = loro.LORO_VERSION
    print(f"loro {version}")
    if argv[1:] == ["--check"]:
        return 0
    n, sections, singles, runs, within, across, titles, deletes, seed = map(int, argv[1:10])
    peers = random.Random(-seed)
    peer_a, peer_b = map(int, argv[10:12]) if len(argv) >= 12 else (peers.getrandbits(63), peers.getrandbits(63))
    print(f"peer_a {peer_a}")
    print(f"peer_b {peer_b}")

    start = time.perf_counter()
    a = LoroDoc()
    a.peer_id = peer_a
    a_rows = a.get_movable_list("rows")
    for i in range(n):
        a_rows.push(f"row {i}")
    a.commit()
    print(f"build_seconds {time.perf_counter() - start:.6f}")

    start = time.perf_counter()
    snapshot = a.export(ExportMode.Snapshot())
    b = LoroDoc()
    b.import_(snapshot)
    b.peer_id = peer_b
    print(f"copy_seconds {time.perf_counter() - start:.6f}")
    print(f"snapshot_bytes_before {len(snapshot)}")
    del snapshot

    kinds = (["insert"] * singles + ["run"] * runs + ["move-within"] * within + ["move-across"] * across
             + ["title"] * titles + ["delete"] * deletes)
    rng = random.Random(seed)
    rng.shuffle(kinds)
    b_rows = b.get_movable_list("rows")
    start = time.perf_counter()
    inserted = edit(b, b_rows, kinds, sections, rng)
    print(f"edit_seconds {time.perf_counter() - start:.6f}")
    print(f"edits {len(kinds)}")
    print(f"rows_inserted {inserted}")

    start = time.perf_counter()
    updates = b.export(ExportMode.Updates(a.oplog_vv))
    print(f"export_seconds {time.perf_counter() - start:.6f}")
    print(f"update_bytes {len(updates)}")
    # What B sends once A holds all it has: the updates since B's own version (none).
    nothing = b.export(ExportMode.Updates(b.oplog_vv))
    b_version = b.oplog_vv
    b_digest = digest(b_rows.to_vec())
    b_length = len(b_rows)
    del b_rows, b
    gc.collect()

    print(f"rss_before_kib {status_kib('VmRSS')}")
    reset_peak()
    start = time.perf_counter()
    a.import_(updates)
    length = len(a_rows)
    print(f"merge_seconds {time.perf_counter() - start:.6f}")
    print(f"peak_kib {status_kib('VmHWM')}")
    print(f"length {length}")
    converged = a.oplog_vv == b_version and length == b_length and digest(a_rows.to_vec()) == b_digest
    print(f"converged {'yes' if converged else 'no'}")

    start = time.perf_counter()
    a.import_(nothing)
    length = len(a_rows)
    print(f"nothing_new_seconds {time.perf_counter() - start:.6f}")
    print(f"snapshot_bytes_after {len(a.export(ExportMode.Snapshot()))}")
    return 0 if converged else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
