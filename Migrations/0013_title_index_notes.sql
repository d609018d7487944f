-- ListStore schema, version 13: the stale-row notes serve the full-text index of titles too.
--
-- The index of titles is opt-in (`ListStore.addTitleIndex()`, `liststore index add --titles`): an FTS5
-- table, `liststore_title_words`, made when it is added and dropped when it is removed, so that a file
-- without it pays nothing per edit. It is an external-content table (`content = 'rows'`): it holds the
-- titles' words, not the titles again. Removing a row's words from such a table needs the text they were
-- made from, so a note of a row written since the index was last brought up to date keeps the title the
-- index holds for it (`title`; the first note of a row wins, and NULL means the index holds nothing for it,
-- as for a row inserted since).
--
-- ListStore opens files with `trusted_schema = OFF`, and SQLite then refuses a trigger that writes to a
-- virtual table. So, as for the payload-field indexes (0010), other programs' writes only note the rows
-- here, and ListStore's next write brings their words up to date; the triggers below fire when a payload
-- field is indexed or the index of titles exists, and note an update of a title too.

ALTER TABLE liststore_payload_stale ADD COLUMN title TEXT;  -- the title the index of titles holds for the row, when it holds one

DROP TRIGGER rows_payload_stale_on_insert;
DROP TRIGGER rows_payload_stale_on_update;
DROP TRIGGER rows_payload_stale_on_delete;

CREATE TRIGGER rows_payload_stale_on_insert AFTER INSERT ON rows
WHEN EXISTS (SELECT 1 FROM liststore_payload_indexes)
    OR EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'liststore_title_words') BEGIN
    INSERT OR IGNORE INTO liststore_payload_stale (row_id) VALUES (NEW.id);
END;

CREATE TRIGGER rows_payload_stale_on_update AFTER UPDATE OF id, title, payload ON rows
WHEN EXISTS (SELECT 1 FROM liststore_payload_indexes)
    OR EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'liststore_title_words') BEGIN
    INSERT OR IGNORE INTO liststore_payload_stale (row_id, title) VALUES (OLD.id, OLD.title), (NEW.id, NULL);
END;

CREATE TRIGGER rows_payload_stale_on_delete AFTER DELETE ON rows
WHEN EXISTS (SELECT 1 FROM liststore_payload_indexes)
    OR EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'liststore_title_words') BEGIN
    INSERT OR IGNORE INTO liststore_payload_stale (row_id, title) VALUES (OLD.id, OLD.title);
END;
