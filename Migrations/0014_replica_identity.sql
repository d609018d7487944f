-- ListStore schema, version 14: which copy of its list a file is, so that copies of one list edited on
-- several devices never give one id to two rows (Docs/Merging.md).
--
-- `liststore_replica` holds one row:
--   number  — the replica's number. 0 for a file that was never copied: it gives new rows, sections and
--             lists ids as SQLite's AUTOINCREMENT does (1, 2, 3…, never one given before). 1…1,048,575
--             (20 random bits) for a copy: it gives ids number × 2^32 + 1, + 2, … of its own range, all
--             below 2^53, so that JSON readers that keep numbers as doubles (jq among them) keep them exact.
--   device, inode — the file (st_dev, st_ino) the number was claimed for; NULL until the first ListStore
--             write after this migration, which fills them in. A ListStore write to a file on another
--             device or inode — a `cp`, a `liststore backup`, a Litestream restore, a copy on another
--             device, a backup copied back by hand — first claims a new random number that no id in the
--             file uses, so that a copy and its original never write as one replica. A rename keeps both.
--   lineage — a random number the copies of one list share (here: the file's identity of schema 4, which
--             page-for-page copies share), so that files that were never one list are never merged.
--
-- The last id a numbered replica gave (in any of the three tables) is the `sqlite_sequence` row
-- `liststore_replica_ids`, which every commit writes anyway (see 0004): a new id is one more than that or
-- than the largest id of the table in the replica's range (a row another program inserted there),
-- whichever is larger, so an id is never given twice, even after its row was deleted.

CREATE TABLE liststore_replica (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    number  INTEGER NOT NULL CHECK (number BETWEEN 0 AND 1048575),
    device  INTEGER,           -- st_dev of the file the number was claimed for, or NULL before the first write
    inode   INTEGER,           -- st_ino of that file
    lineage INTEGER NOT NULL   -- shared by the copies of one list
) STRICT;

INSERT INTO liststore_replica (id, number, lineage)
VALUES (1, 0, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_file_identity'), (random() & 9223372036854775807) | 1));
