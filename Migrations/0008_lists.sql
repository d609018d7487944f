-- ListStore schema, version 8: several named lists in one file.
--
-- A file holds any number of lists (`lists`), each with a stable id, a unique non-empty name and a
-- display position (dense, 0..k-1). Every section belongs to one list (`sections.list_id`), and section
-- positions are dense per list: a section's index is its position among its list's sections, so each
-- list has its own zero-based index paths. The list with id 1, named 'default', is the default list:
-- every section of an older file moves into it, and the API and CLI act on it unless told another.
--
-- `sections` is rebuilt, because its UNIQUE (position) becomes UNIQUE (list_id, position). The migration
-- runs inside ListStore's write transaction with foreign keys on (they cannot change inside a
-- transaction), where DROP TABLE deletes every row first and would cascade to every row, block and page.
-- So the children are parked on their section's negated id (no section has one) before the old table goes
-- and brought back once the new one has its name: the implicit delete finds no child, the foreign keys
-- (deferred) are checked at the commit, and nothing is deleted. ListStore's connections run without
-- triggers, so the parking moves no count.

CREATE TABLE lists (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    name     TEXT    NOT NULL UNIQUE CHECK (length(name) > 0),
    position INTEGER NOT NULL UNIQUE   -- display order, 0..k-1
) STRICT;

INSERT INTO lists (id, name, position) VALUES (1, 'default', 0);

DROP VIEW list_rows;

PRAGMA defer_foreign_keys = ON;

CREATE TABLE sections_rebuilt (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    list_id   INTEGER NOT NULL DEFAULT 1 REFERENCES lists (id) ON DELETE CASCADE,  -- a section inserted by hand without one is the default list's
    position  INTEGER NOT NULL,        -- display order within its list, 0..m-1
    title     TEXT    NOT NULL,
    row_count INTEGER NOT NULL DEFAULT 0,
    UNIQUE (list_id, position)
) STRICT;

INSERT INTO sections_rebuilt (id, list_id, position, title, row_count)
SELECT id, 1, position, title, row_count FROM sections;
-- Ids are never reused: the new table continues the old one's counter.
DELETE FROM sqlite_sequence WHERE name = 'sections_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'sections_rebuilt', seq FROM sqlite_sequence WHERE name = 'sections';

UPDATE rows SET section_id = -section_id;
UPDATE row_blocks SET section_id = -section_id;
UPDATE row_pages SET section_id = -section_id;

DROP TABLE sections;
-- The legacy rename only renames the table (and its counter): the views and triggers that name
-- `sections` — ListStore's on `rows`, an app's own views — are not re-checked while no `sections` exists.
PRAGMA legacy_alter_table = ON;
ALTER TABLE sections_rebuilt RENAME TO sections;
PRAGMA legacy_alter_table = OFF;

UPDATE rows SET section_id = -section_id;
UPDATE row_blocks SET section_id = -section_id;
UPDATE row_pages SET section_id = -section_id;

-- The triggers of the old table, again (its list changed by hand moves sections between indexes).
CREATE TRIGGER sections_logged_titles AFTER UPDATE OF title ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind, id) VALUES ('section', NEW.id);
END;

CREATE TRIGGER sections_logged_inserts AFTER INSERT ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_deletes AFTER DELETE ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_moves AFTER UPDATE OF position, id, list_id ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_given_blocks AFTER INSERT ON sections BEGIN
    INSERT INTO row_blocks (section_id, start, row_count) VALUES (NEW.id, -9223372036854775808, 0);
    INSERT INTO row_pages (section_id, start, row_count) VALUES (NEW.id, -9223372036854775808, 0);
END;

CREATE TRIGGER sections_blocks_follow_ids AFTER UPDATE OF id ON sections WHEN NEW.id IS NOT OLD.id BEGIN
    UPDATE row_blocks SET section_id = NEW.id WHERE section_id = OLD.id;
    UPDATE row_pages SET section_id = NEW.id WHERE section_id = OLD.id;
END;

CREATE TRIGGER sections_blocks_deleted AFTER DELETE ON sections BEGIN
    DELETE FROM row_blocks WHERE section_id = OLD.id;
    DELETE FROM row_pages WHERE section_id = OLD.id;
END;

-- A list deleted, or its id changed, by hand takes sections with it: observers read the store afresh.
CREATE TRIGGER lists_logged_changes AFTER UPDATE OF id ON lists
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER lists_logged_deletes AFTER DELETE ON lists
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

-- What a table view shows, list by list, in display order, with each list's own zero-based indexes
-- (the addressing rule of version 7): `SELECT * FROM list_rows WHERE list_name = 'default';`.
CREATE VIEW list_rows AS
WITH pages AS (
    SELECT section_id, start,
           lead(start) OVER (PARTITION BY section_id ORDER BY start) AS next,
           coalesce(sum(row_count) OVER (PARTITION BY section_id ORDER BY start ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base
    FROM row_pages
),
blocks AS (
    SELECT b.section_id, b.start, b.row_count,
           lead(b.start) OVER (PARTITION BY b.section_id ORDER BY b.start) AS next,
           p.base + coalesce(sum(b.row_count) OVER (PARTITION BY b.section_id, p.start ORDER BY b.start ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base
    FROM row_blocks AS b
    JOIN pages AS p ON p.section_id = b.section_id AND b.start >= p.start AND (p.next IS NULL OR b.start < p.next)
),
placed AS (
    SELECT r.id, r.section_id, r.position, r.title, r.payload,
           -- A row past as many rows as its block counts (written with the counting triggers off) has no index.
           CASE WHEN row_number() OVER (PARTITION BY r.section_id, k.start ORDER BY r.position) <= k.row_count
                THEN k.base + row_number() OVER (PARTITION BY r.section_id, k.start ORDER BY r.position) - 1 END AS row_index
    FROM rows AS r
    JOIN blocks AS k ON k.section_id = r.section_id AND r.position >= k.start AND (k.next IS NULL OR r.position < k.next)
)
SELECT s.position    AS section_index,
       x.row_index   AS row_index,
       x.title       AS title,
       x.payload     AS payload,
       s.title       AS section_title,
       x.id          AS row_id,
       s.id          AS section_id,
       x.position    AS position,
       l.name        AS list_name,
       l.id          AS list_id
FROM placed AS x
JOIN sections AS s ON s.id = x.section_id
JOIN lists AS l ON l.id = s.list_id
ORDER BY l.position, s.position, x.position;
