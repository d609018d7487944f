-- ListStore schema, version 15: what the copies of one list need to merge their edits (Docs/Merging.md):
-- where each row, section and list stands on every copy, the stamp of the write that last set each of its
-- values, and what was deleted. Nothing merges yet; every ListStore write keeps these from now on.
--
-- order_key — where the element stands among its siblings on every copy: a byte string between its
--             neighbours' keys when it was inserted or moved there, ending with that write's stamp (see
--             `OrderKey`). Positions still order the file for reading and are renumbered when room runs
--             out; keys never change but by a move, so their order is the positions' order. The migration
--             gives every element there now a key from its position (stamp 0); NULL only for an element
--             another program inserted since.
-- *_stamp   — the stamp of the write that last set the title (a list's name) or the payload, or that put the
--             element back after a delete (an undo): 0 while it is the value the element was inserted with
--             (or had before this version): any later change is newer. A stamp is
--             `logical << 20 | replica` (`MergeClock`); the last logical time given is the `sqlite_sequence`
--             row `liststore_clock`, which every commit writes anyway.
--
-- `liststore_tombstones` holds a row for every row, section and list deleted since: its id and the stamp of
-- the write that deleted it, so that a copy that has not seen the delete learns of it. An element put back
-- by an undo loses its tombstone.

ALTER TABLE lists ADD COLUMN order_key BLOB;
ALTER TABLE lists ADD COLUMN name_stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lists ADD COLUMN revived_stamp INTEGER NOT NULL DEFAULT 0;

ALTER TABLE sections ADD COLUMN order_key BLOB;
ALTER TABLE sections ADD COLUMN title_stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sections ADD COLUMN revived_stamp INTEGER NOT NULL DEFAULT 0;

ALTER TABLE rows ADD COLUMN order_key BLOB;
ALTER TABLE rows ADD COLUMN title_stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rows ADD COLUMN payload_stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rows ADD COLUMN revived_stamp INTEGER NOT NULL DEFAULT 0;

CREATE TABLE liststore_tombstones (
    kind  TEXT    NOT NULL CHECK (kind IN ('row', 'section', 'list')),
    id    INTEGER NOT NULL,
    stamp INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
) STRICT, WITHOUT ROWID;

INSERT INTO sqlite_sequence (name, seq)
SELECT 'liststore_clock', 0
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'liststore_clock');

-- Edits another program makes (the sqlite3 shell) are merged like this copy's own where a trigger can tell
-- what they did: a value changed or an element deleted takes a stamp — the clock's next logical time, at
-- least the wall clock's quarter milliseconds since 2020 (julianday 2458849.5) — and a delete leaves its
-- tombstone. (ListStore's own writes mark `liststore_state.writing` and keep these themselves.) An element
-- inserted or moved by hand has no key where it stands: a merge refuses the file until `repair` gives it one.
CREATE VIEW liststore_hand_stamp AS
SELECT (max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_clock'), 0) + 1,
            CAST((julianday('now') - 2458849.5) * 345600000 AS INTEGER)) << 20)
       | coalesce((SELECT number FROM liststore_replica WHERE id = 1), 0) AS stamp;

CREATE TRIGGER rows_stamped_by_hand AFTER UPDATE OF title, payload ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    UPDATE rows SET title_stamp = CASE WHEN NEW.title IS OLD.title THEN title_stamp ELSE (SELECT stamp FROM liststore_hand_stamp) END,
                    payload_stamp = CASE WHEN NEW.payload IS OLD.payload THEN payload_stamp ELSE (SELECT stamp FROM liststore_hand_stamp) END
    WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER sections_stamped_by_hand AFTER UPDATE OF title ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    UPDATE sections SET title_stamp = (SELECT stamp FROM liststore_hand_stamp) WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER lists_stamped_by_hand AFTER UPDATE OF name ON lists
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    UPDATE lists SET name_stamp = (SELECT stamp FROM liststore_hand_stamp) WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER rows_buried_by_hand AFTER DELETE ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp) VALUES ('row', OLD.id, (SELECT stamp FROM liststore_hand_stamp));
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER sections_buried_by_hand AFTER DELETE ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp) VALUES ('section', OLD.id, (SELECT stamp FROM liststore_hand_stamp));
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER lists_buried_by_hand AFTER DELETE ON lists
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp) VALUES ('list', OLD.id, (SELECT stamp FROM liststore_hand_stamp));
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;
