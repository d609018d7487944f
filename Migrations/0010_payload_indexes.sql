-- ListStore schema, version 10: indexes on payload fields, for searches by a field's value
-- (README, "Typed payloads and search").
--
-- SQLite can index `json_extract(payload, '$.city')` itself, but ListStore opens every file with
-- `trusted_schema = OFF` (a file's schema must not run functions on ListStore's connections), and
-- SQLite then refuses `json_extract` in an index, and with it every statement on the file. So an index
-- on a payload field is a table ListStore keeps: one entry per row and indexed field, holding the
-- field's value as `json_extract` reads it (a row whose field is missing or null has no entry: no
-- search matches it; a payload that is not valid JSON has none either).
--
-- ListStore's own writes bring the entries of the rows they insert, restore or update up to date in
-- the same transaction. Other programs' writes (the sqlite3 shell, Python) fire the triggers below,
-- which only note the row in `liststore_payload_stale`: a search reads those rows themselves, and
-- ListStore's next write brings their entries up to date. With no field indexed, the triggers do nothing.

CREATE TABLE liststore_payload_indexes (
    field TEXT PRIMARY KEY NOT NULL  -- the field's name, as ListStore's PayloadField accepts it: city, address.city
) STRICT;

CREATE TABLE liststore_payload_values (
    row_id INTEGER NOT NULL REFERENCES rows (id) ON DELETE CASCADE ON UPDATE CASCADE,
    field  TEXT NOT NULL REFERENCES liststore_payload_indexes (field) ON DELETE CASCADE,
    value  ANY NOT NULL,  -- json_extract(payload, '$.' || field): text, integer or real (true is 1, false 0)
    PRIMARY KEY (row_id, field)
) STRICT, WITHOUT ROWID;

CREATE INDEX liststore_payload_values_by_value ON liststore_payload_values (field, value, row_id);

CREATE TABLE liststore_payload_stale (
    row_id INTEGER PRIMARY KEY  -- a row written outside ListStore since its entries were last made
) STRICT;

CREATE TRIGGER rows_payload_stale_on_insert AFTER INSERT ON rows
WHEN EXISTS (SELECT 1 FROM liststore_payload_indexes) BEGIN
    INSERT OR IGNORE INTO liststore_payload_stale (row_id) VALUES (NEW.id);
END;

CREATE TRIGGER rows_payload_stale_on_update AFTER UPDATE OF id, payload ON rows
WHEN EXISTS (SELECT 1 FROM liststore_payload_indexes) BEGIN
    INSERT OR IGNORE INTO liststore_payload_stale (row_id) VALUES (OLD.id), (NEW.id);
END;

CREATE TRIGGER rows_payload_stale_on_delete AFTER DELETE ON rows
WHEN EXISTS (SELECT 1 FROM liststore_payload_indexes) BEGIN
    INSERT OR IGNORE INTO liststore_payload_stale (row_id) VALUES (OLD.id);
END;
