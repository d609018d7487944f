-- ListStore schema, version 7: sparse row positions, counted in blocks and pages, so that an edit at any
-- index costs about the same at a million rows as at a thousand.
--
-- Rows are still ordered by `rows.position` within their section, but positions no longer need to be
-- dense: a row goes between two others at any position between theirs (ListStore leaves gaps of 2^20),
-- and no other row moves. To find the row at an index without counting rows, a section's position
-- range is cut into blocks and the blocks into pages, each with the number of rows it holds:
--
--   row_blocks(section_id, start, row_count): the block holds the section's rows whose position is at
--     least `start` and below the next block's start. Every section has a block whose start is the
--     smallest integer, so every row is in exactly one block.
--   row_pages(section_id, start, row_count): the same over pages; every page starts where a block starts,
--     so a page holds whole blocks. Every section has a page whose start is the smallest integer.
--
-- A row's index is the number of rows in the pages before its page, plus those in the blocks before its
-- block within its page, plus the rows before it in its block (ListStore's addressing rule; the
-- `list_rows` view computes the same). The triggers below keep the counts for every write by another
-- program (the sqlite3 shell, Python): a row inserted, deleted or moved by hand is counted in the block
-- and page its position falls in. ListStore's own connections run without triggers and keep the counts
-- themselves. `sections.row_base` is gone: a row's index no longer depends on its position's value.
--
-- The migration gives every row the position 2^20 times its index (keeping its order), then cuts each
-- section into blocks of 96 rows and pages of 96 blocks (three quarters full: the next inserts split nothing).

DROP VIEW list_rows;
DROP TRIGGER sections_logged_moves;
DROP TRIGGER rows_counted_on_insert;
DROP TRIGGER rows_counted_on_delete;
DROP TRIGGER rows_counted_on_section_change;

-- Every row first moves to its section's negated id (no section has one), then back with its new
-- position: UNIQUE (section_id, position) holds at every step, whatever positions a hand edit left and
-- whatever order SQLite visits the rows in. The foreign key to `sections` is checked at the commit.
PRAGMA defer_foreign_keys = ON;
UPDATE rows SET section_id = -section_id;
UPDATE rows SET section_id = -rows.section_id, position = ranked.new_position
FROM (SELECT id, (row_number() OVER (PARTITION BY section_id ORDER BY position, id) - 1) * 1048576 AS new_position FROM rows) AS ranked
WHERE rows.id = ranked.id;

ALTER TABLE sections DROP COLUMN row_base;

CREATE TABLE row_blocks (
    section_id INTEGER NOT NULL REFERENCES sections (id) ON DELETE CASCADE ON UPDATE CASCADE,
    start      INTEGER NOT NULL,  -- the lowest position the block holds
    row_count  INTEGER NOT NULL,  -- rows with start <= position < the next block's start
    PRIMARY KEY (section_id, start)
) STRICT, WITHOUT ROWID;

CREATE TABLE row_pages (
    section_id INTEGER NOT NULL REFERENCES sections (id) ON DELETE CASCADE ON UPDATE CASCADE,
    start      INTEGER NOT NULL,  -- the lowest position the page holds (a block's start)
    row_count  INTEGER NOT NULL,  -- rows with start <= position < the next page's start
    PRIMARY KEY (section_id, start)
) STRICT, WITHOUT ROWID;

INSERT INTO row_blocks (section_id, start, row_count)
SELECT id, -9223372036854775808, 0 FROM sections;
INSERT INTO row_blocks (section_id, start, row_count)
SELECT section_id, position, 0 FROM rows WHERE position > 0 AND position % (96 * 1048576) = 0;
UPDATE row_blocks SET row_count = (
    SELECT count(*) FROM rows
    WHERE rows.section_id = row_blocks.section_id AND rows.position >= row_blocks.start
      AND rows.position < coalesce(
          (SELECT min(next.start) FROM row_blocks AS next WHERE next.section_id = row_blocks.section_id AND next.start > row_blocks.start),
          9223372036854775807)
);

INSERT INTO row_pages (section_id, start, row_count)
SELECT id, -9223372036854775808, 0 FROM sections;
INSERT INTO row_pages (section_id, start, row_count)
SELECT section_id, start, 0 FROM row_blocks WHERE start > 0 AND start % (96 * 96 * 1048576) = 0;
UPDATE row_pages SET row_count = (
    SELECT coalesce(sum(row_blocks.row_count), 0) FROM row_blocks
    WHERE row_blocks.section_id = row_pages.section_id AND row_blocks.start >= row_pages.start
      AND row_blocks.start < coalesce(
          (SELECT min(next.start) FROM row_pages AS next WHERE next.section_id = row_pages.section_id AND next.start > row_pages.start),
          9223372036854775807)
);

-- Counts kept for writes by other programs (ListStore's connections run without triggers).
CREATE TRIGGER sections_given_blocks AFTER INSERT ON sections BEGIN
    INSERT INTO row_blocks (section_id, start, row_count) VALUES (NEW.id, -9223372036854775808, 0);
    INSERT INTO row_pages (section_id, start, row_count) VALUES (NEW.id, -9223372036854775808, 0);
END;

-- With foreign keys off (the sqlite3 shell's default) a section's blocks and pages follow it all the same.
CREATE TRIGGER sections_blocks_follow_ids AFTER UPDATE OF id ON sections WHEN NEW.id IS NOT OLD.id BEGIN
    UPDATE row_blocks SET section_id = NEW.id WHERE section_id = OLD.id;
    UPDATE row_pages SET section_id = NEW.id WHERE section_id = OLD.id;
END;

CREATE TRIGGER sections_blocks_deleted AFTER DELETE ON sections BEGIN
    DELETE FROM row_blocks WHERE section_id = OLD.id;
    DELETE FROM row_pages WHERE section_id = OLD.id;
END;

CREATE TRIGGER rows_counted_on_insert AFTER INSERT ON rows BEGIN
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
    UPDATE row_blocks SET row_count = row_count + 1
    WHERE section_id = NEW.section_id
      AND start = (SELECT max(start) FROM row_blocks WHERE section_id = NEW.section_id AND start <= NEW.position);
    UPDATE row_pages SET row_count = row_count + 1
    WHERE section_id = NEW.section_id
      AND start = (SELECT max(start) FROM row_pages WHERE section_id = NEW.section_id AND start <= NEW.position);
END;

CREATE TRIGGER rows_counted_on_delete AFTER DELETE ON rows BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
    UPDATE row_blocks SET row_count = row_count - 1
    WHERE section_id = OLD.section_id
      AND start = (SELECT max(start) FROM row_blocks WHERE section_id = OLD.section_id AND start <= OLD.position);
    UPDATE row_pages SET row_count = row_count - 1
    WHERE section_id = OLD.section_id
      AND start = (SELECT max(start) FROM row_pages WHERE section_id = OLD.section_id AND start <= OLD.position);
END;

CREATE TRIGGER rows_counted_on_move AFTER UPDATE OF section_id, position ON rows
WHEN NEW.section_id IS NOT OLD.section_id OR NEW.position IS NOT OLD.position BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
    UPDATE row_blocks SET row_count = row_count - 1
    WHERE section_id = OLD.section_id
      AND start = (SELECT max(start) FROM row_blocks WHERE section_id = OLD.section_id AND start <= OLD.position);
    UPDATE row_pages SET row_count = row_count - 1
    WHERE section_id = OLD.section_id
      AND start = (SELECT max(start) FROM row_pages WHERE section_id = OLD.section_id AND start <= OLD.position);
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
    UPDATE row_blocks SET row_count = row_count + 1
    WHERE section_id = NEW.section_id
      AND start = (SELECT max(start) FROM row_blocks WHERE section_id = NEW.section_id AND start <= NEW.position);
    UPDATE row_pages SET row_count = row_count + 1
    WHERE section_id = NEW.section_id
      AND start = (SELECT max(start) FROM row_pages WHERE section_id = NEW.section_id AND start <= NEW.position);
END;

CREATE TRIGGER sections_logged_moves AFTER UPDATE OF position, id ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

-- A changed count or block moves rows between indexes: observers read the store afresh.
CREATE TRIGGER row_blocks_logged_changes AFTER UPDATE ON row_blocks
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;
CREATE TRIGGER row_blocks_logged_inserts AFTER INSERT ON row_blocks
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;
CREATE TRIGGER row_blocks_logged_deletes AFTER DELETE ON row_blocks
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;
CREATE TRIGGER row_pages_logged_changes AFTER UPDATE ON row_pages
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;
CREATE TRIGGER row_pages_logged_inserts AFTER INSERT ON row_pages
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;
CREATE TRIGGER row_pages_logged_deletes AFTER DELETE ON row_pages
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

-- What a table view shows, in display order, with true zero-based indexes computed by the addressing
-- rule above: `SELECT * FROM list_rows;`. `position` is the row's stored position, for hand edits.
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
       x.position    AS position
FROM placed AS x
JOIN sections AS s ON s.id = x.section_id
ORDER BY s.position, x.position;
