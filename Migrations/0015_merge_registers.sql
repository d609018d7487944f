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
