-- ListStore schema, version 16: what lets a merge read only what another copy changed since this file last
-- merged from it, instead of every row of both files (Docs/Merging.md).
--
-- changed_stamp — on rows, sections, lists and tombstones: the stamp of the last write *in this file* that
--             set one of the element's merge registers (its order key, a value, its revival, its deletion):
--             an edit, an undo, a merge that took another copy's value (the merge's own stamp then, while the
--             registers keep the other copy's), a repair, or another program's change (the triggers below).
--             0 for what no write changed since this version. Stamps in one file only grow, so "changed
--             after the clock read last time" is exactly what a merge from this file has not seen.
-- `liststore_merged` — for each copy (replica number) this file merged from, that file's clock (its
--             `liststore_clock`) when it was read, and this file's after the merge: the next merge from it
--             reads only what changed there after, and its side of what changed here after (a row deleted
--             here, whose changes there the merge passed over, may have been put back since). A copy this
--             file never merged from is read whole once.
--
-- Another program moving an element (a new position or container) now takes away its order key, as an
-- insert by another program has none: a merge refuses such a file until `repair` gives it one where it
-- stands, so the move reaches the other copies as a move.

ALTER TABLE rows ADD COLUMN changed_stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sections ADD COLUMN changed_stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lists ADD COLUMN changed_stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE liststore_tombstones ADD COLUMN changed_stamp INTEGER NOT NULL DEFAULT 0;

CREATE INDEX rows_by_changed_stamp ON rows (changed_stamp) WHERE changed_stamp > 0;
CREATE INDEX sections_by_changed_stamp ON sections (changed_stamp) WHERE changed_stamp > 0;
CREATE INDEX liststore_tombstones_by_changed_stamp ON liststore_tombstones (changed_stamp) WHERE changed_stamp > 0;
-- Elements without an order key (inserted or moved by another program): a merge finds them without a scan.
CREATE INDEX rows_without_order_key ON rows (id) WHERE order_key IS NULL;
CREATE INDEX sections_without_order_key ON sections (id) WHERE order_key IS NULL;

CREATE TABLE liststore_merged (
    replica     INTEGER PRIMARY KEY,   -- the replica number of a copy this file merged from
    clock       INTEGER NOT NULL,      -- that copy's liststore_clock when it was read
    local_clock INTEGER NOT NULL       -- this file's liststore_clock after that merge
) STRICT;

-- `liststore_overwritten` keeps, for each row title, row payload and section title a merge replaced with
-- another copy's newer value, the value this file had (NULL: no payload) and its stamp, and the stamp of the
-- value that replaced it (whose replica names the copy): what an app shows as "changed on another device".
-- One per element and field, the latest; gone with the element, whoever deletes it (ListStore's writes
-- delete them themselves, as its connections run no triggers).
CREATE TABLE liststore_overwritten (
    kind     TEXT    NOT NULL CHECK (kind IN ('row', 'section')),
    id       INTEGER NOT NULL,
    field    TEXT    NOT NULL CHECK (field IN ('title', 'payload')),
    value    TEXT,
    stamp    INTEGER NOT NULL,
    by_stamp INTEGER NOT NULL,
    PRIMARY KEY (kind, id, field)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER rows_overwritten_forgotten AFTER DELETE ON rows
WHEN EXISTS (SELECT 1 FROM liststore_overwritten) BEGIN
    DELETE FROM liststore_overwritten WHERE kind = 'row' AND id = OLD.id;
END;

CREATE TRIGGER sections_overwritten_forgotten AFTER DELETE ON sections
WHEN EXISTS (SELECT 1 FROM liststore_overwritten) BEGIN
    DELETE FROM liststore_overwritten WHERE kind = 'section' AND id = OLD.id;
END;

DROP TRIGGER rows_stamped_by_hand;
DROP TRIGGER sections_stamped_by_hand;
DROP TRIGGER lists_stamped_by_hand;
DROP TRIGGER rows_buried_by_hand;
DROP TRIGGER sections_buried_by_hand;
DROP TRIGGER lists_buried_by_hand;

CREATE TRIGGER rows_stamped_by_hand AFTER UPDATE OF title, payload ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    UPDATE rows SET title_stamp = CASE WHEN NEW.title IS OLD.title THEN title_stamp ELSE (SELECT stamp FROM liststore_hand_stamp) END,
                    payload_stamp = CASE WHEN NEW.payload IS OLD.payload THEN payload_stamp ELSE (SELECT stamp FROM liststore_hand_stamp) END,
                    changed_stamp = (SELECT stamp FROM liststore_hand_stamp)
    WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER sections_stamped_by_hand AFTER UPDATE OF title ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    UPDATE sections SET title_stamp = (SELECT stamp FROM liststore_hand_stamp), changed_stamp = (SELECT stamp FROM liststore_hand_stamp) WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER lists_stamped_by_hand AFTER UPDATE OF name ON lists
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    UPDATE lists SET name_stamp = (SELECT stamp FROM liststore_hand_stamp), changed_stamp = (SELECT stamp FROM liststore_hand_stamp) WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER rows_buried_by_hand AFTER DELETE ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp, changed_stamp)
    VALUES ('row', OLD.id, (SELECT stamp FROM liststore_hand_stamp), (SELECT stamp FROM liststore_hand_stamp));
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER sections_buried_by_hand AFTER DELETE ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp, changed_stamp)
    VALUES ('section', OLD.id, (SELECT stamp FROM liststore_hand_stamp), (SELECT stamp FROM liststore_hand_stamp));
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER lists_buried_by_hand AFTER DELETE ON lists
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp, changed_stamp)
    VALUES ('list', OLD.id, (SELECT stamp FROM liststore_hand_stamp), (SELECT stamp FROM liststore_hand_stamp));
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER rows_moved_by_hand AFTER UPDATE OF section_id, position ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0
     AND (NEW.section_id IS NOT OLD.section_id OR NEW.position IS NOT OLD.position) BEGIN
    UPDATE rows SET order_key = NULL, changed_stamp = (SELECT stamp FROM liststore_hand_stamp) WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER sections_moved_by_hand AFTER UPDATE OF list_id, position ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0
     AND (NEW.list_id IS NOT OLD.list_id OR NEW.position IS NOT OLD.position) BEGIN
    UPDATE sections SET order_key = NULL, changed_stamp = (SELECT stamp FROM liststore_hand_stamp) WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;

CREATE TRIGGER lists_moved_by_hand AFTER UPDATE OF position ON lists
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 AND NEW.position IS NOT OLD.position BEGIN
    UPDATE lists SET order_key = NULL, changed_stamp = (SELECT stamp FROM liststore_hand_stamp) WHERE id = NEW.id;
    UPDATE sqlite_sequence SET seq = (SELECT stamp FROM liststore_hand_stamp) >> 20 WHERE name = 'liststore_clock';
END;
