-- ListStore schema, version 6: the change log's `edits` entries are written in record format
-- version 2 (README, "The change-log record"): `{"v":2,"events":[{"kind":"rows-deleted",…}]}`,
-- every key declared, instead of the shape Swift's synthesized Codable gave (format 1, schemas 3–5).
-- The tables do not change. Entries already in the log keep format 1 and are still read; the new
-- version number makes a ListStore of schema 5 or older refuse the file ("newer schema") rather
-- than read entries it does not know as damage.
-- A statement the migration runs: a no-op on the state row, so the step is not empty.
UPDATE liststore_state SET writing = writing WHERE id = 1 AND 0;
