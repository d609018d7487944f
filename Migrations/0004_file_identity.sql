-- ListStore schema, version 4: a random identity for the file, so that a `-wal` file that does not belong
-- to it (another file's, or a newer one left beside an older copy of it) is recognised before anything is
-- read through it.
--
-- Both values are rows of `sqlite_sequence`, the table SQLite keeps the AUTOINCREMENT counters in. That
-- table fits in one page, and every commit that ListStore or the change log's triggers make writes that
-- page: each appends to `liststore_log`, whose counter is a row of it. So every `-wal` file holding such a
-- commit holds the page with the identity, and a reader can compare what the `-wal` shows with what the
-- main file holds alone. SQLite never reads these rows (no table has their names).
--
-- `liststore_file_identity`: a random positive 63-bit integer, fixed for the life of the file and its
--   page-for-page copies.
-- `liststore_file_base`: where the change log stood (its counter) when the latest ListStore write began;
--   every ListStore write sets it. The first version of this page in a `-wal` therefore says where the log
--   stood when that `-wal` began, and a main file whose log ends before that is older than the `-wal`.

INSERT INTO sqlite_sequence (name, seq)
SELECT 'liststore_file_identity', (random() & 9223372036854775807) | 1
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'liststore_file_identity');

INSERT INTO sqlite_sequence (name, seq)
SELECT 'liststore_file_base', coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_log'), 0)
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'liststore_file_base');
