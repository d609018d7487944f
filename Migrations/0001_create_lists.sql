-- ListStore schema, version 1: sectioned, ordered lists (the data behind a table view).
--
-- Sections are shown in `position` order, rows inside a section in `position` order.
-- Positions are dense and zero-based: sections 0..m-1, the rows of each section 0..n-1,
-- so a row's index path is (its section's position, its own position).
-- Ids never change and are never reused (AUTOINCREMENT): they are how a row is found again
-- after other rows moved.

CREATE TABLE sections (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    position INTEGER NOT NULL UNIQUE,  -- display order, 0..m-1
    title    TEXT    NOT NULL
) STRICT;

CREATE TABLE rows (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    section_id INTEGER NOT NULL REFERENCES sections (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,                    -- order within the section, 0..n-1
    title      TEXT    NOT NULL,
    payload    TEXT,                                -- optional JSON text (checked with json_valid before writing)
    UNIQUE (section_id, position)
) STRICT;

-- What a table view shows, in display order: `SELECT * FROM list_rows;`
CREATE VIEW list_rows AS
SELECT s.position AS section_index,
       r.position AS row_index,
       r.title    AS title,
       r.payload  AS payload,
       s.title    AS section_title,
       r.id       AS row_id,
       s.id       AS section_id
FROM rows AS r
JOIN sections AS s ON s.id = r.section_id
ORDER BY s.position, r.position;
