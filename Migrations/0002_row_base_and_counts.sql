-- ListStore schema, version 2: row positions relative to a per-section base, and row counts.
--
-- A row's index in its section is `rows.position - sections.row_base`. Positions stay contiguous
-- (row_base .. row_base + row_count - 1) but need not start at 0, so inserting at the head or the tail
-- of a section rewrites no other row: the base moves instead. A middle edit shifts the shorter side.
-- `row_count` is kept by the triggers below, whoever writes (ListStore or the sqlite3 shell), so a
-- section's positions can be checked with three index look-ups instead of a scan.
-- Files of version 1 have dense positions from 0: their base is 0.

ALTER TABLE sections ADD COLUMN row_base INTEGER NOT NULL DEFAULT 0;   -- position of the row at index 0
ALTER TABLE sections ADD COLUMN row_count INTEGER NOT NULL DEFAULT 0;  -- rows in the section (kept by triggers)

UPDATE sections SET row_count = (SELECT count(*) FROM rows WHERE rows.section_id = sections.id);

CREATE TRIGGER rows_counted_on_insert AFTER INSERT ON rows BEGIN
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
END;

CREATE TRIGGER rows_counted_on_delete AFTER DELETE ON rows BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
END;

CREATE TRIGGER rows_counted_on_section_change AFTER UPDATE OF section_id ON rows
WHEN NEW.section_id IS NOT OLD.section_id BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
END;

-- What a table view shows, in display order, with true zero-based indexes: `SELECT * FROM list_rows;`
DROP VIEW list_rows;
CREATE VIEW list_rows AS
SELECT s.position              AS section_index,
       r.position - s.row_base AS row_index,
       r.title                 AS title,
       r.payload               AS payload,
       s.title                 AS section_title,
       r.id                    AS row_id,
       s.id                    AS section_id
FROM rows AS r
JOIN sections AS s ON s.id = r.section_id
ORDER BY s.position, r.position;
