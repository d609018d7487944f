-- ListStore schema, version 11: the payload-field index entries no longer have a foreign key into `rows`.
--
-- In version 10 `liststore_payload_values.row_id` was `REFERENCES rows (id) ON DELETE CASCADE ON UPDATE
-- CASCADE`. SQLite runs that cascade's sub-program for every row deleted, and since the child table is a
-- WITHOUT ROWID table, its DELETE opens and closes a temporary B-tree each time, even when it holds no
-- entry at all (no field indexed, the usual case). 1,000 single-row deletes on a 1,000,000-row file took
-- 7.3–11.5 ms with it and 4.2–6.1 ms without it (the same as with foreign keys off): about half the cost
-- of a delete's statements.
--
-- So the entries of deleted rows are dropped the way entries of rows written by other programs are made:
-- ListStore notes every row it deletes in `liststore_payload_stale` (only while a field is indexed), and
-- the refresh every write runs before it commits drops their entries; other programs' deletes are noted by
-- the trigger `rows_payload_stale_on_delete`. A program that deletes rows with triggers off leaves their
-- entries behind: a search never returns them (it reads the rows), `check` counts them, `repair` drops them.
-- An id changed by hand is noted, old and new, by `rows_payload_stale_on_update`.
--
-- The table is rebuilt (SQLite cannot drop a column's foreign key), with its entries, inside ListStore's
-- write transaction, where foreign keys are on: the new table is made and filled, the old one dropped
-- (nothing refers to it, so nothing cascades), the new one renamed, its index made again. Entries of a
-- field that has no index any more (a hand deletion without foreign keys; `check` reported them and
-- `repair` would drop them) cannot satisfy the new table's foreign key on `field` and are left behind.

CREATE TABLE liststore_payload_values_rebuilt (
    row_id INTEGER NOT NULL,  -- rows.id, without a foreign key (schema 11): a deleted row is noted in liststore_payload_stale, and its entries dropped
    field  TEXT NOT NULL REFERENCES liststore_payload_indexes (field) ON DELETE CASCADE,
    value  ANY NOT NULL,  -- json_extract(payload, '$.' || field): text, integer or real (true is 1, false 0)
    PRIMARY KEY (row_id, field)
) STRICT, WITHOUT ROWID;

INSERT INTO liststore_payload_values_rebuilt (row_id, field, value)
SELECT row_id, field, value FROM liststore_payload_values
WHERE field IN (SELECT field FROM liststore_payload_indexes)
ORDER BY row_id, field;

DROP TABLE liststore_payload_values;

-- The legacy rename only renames the table: an app's own views that name `liststore_payload_values`
-- are not re-checked while it is renamed.
PRAGMA legacy_alter_table = ON;
ALTER TABLE liststore_payload_values_rebuilt RENAME TO liststore_payload_values;
PRAGMA legacy_alter_table = OFF;

CREATE INDEX liststore_payload_values_by_value ON liststore_payload_values (field, value, row_id);
