-- ListStore schema, version 4: a random identity for the file, so that a `-wal` file that does not belong
-- to it (another file's, left beside a restored backup) is recognised before anything is read through it.
--
-- The identity is a row of `sqlite_sequence`, the table SQLite keeps the AUTOINCREMENT counters in. That
-- table fits in one page, and every commit that ListStore or the change log's triggers make writes that
-- page: each appends to `liststore_log`, whose counter is a row of it. So every `-wal` file holding such a
-- commit holds the page with the identity, and a reader can compare the identity the `-wal` shows with the
-- one the main file holds alone. SQLite never reads this row (no table has this name); the value is a
-- random positive 63-bit integer, fixed for the life of the file and its page-for-page copies.

INSERT INTO sqlite_sequence (name, seq)
SELECT 'liststore_file_identity', (random() & 9223372036854775807) | 1
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'liststore_file_identity');
