-- ListStore schema, version 3: a change log, so that observers in other processes learn what a commit
-- changed without reading the store again.
--
-- Every ListStore write transaction sets `liststore_state.writing` to 1 while it runs and appends one
-- entry of kind 'edits' to `liststore_log`, holding its edits (JSON), before it commits. Writes by
-- anything else — the sqlite3 shell, another program — run with `writing` = 0, so the triggers below
-- log them: a changed title or payload as kind 'row' or 'section' with the id, anything that can move
-- or remove rows and sections as kind 'structure' (observers then read the store afresh). ListStore
-- keeps the last entries only; an observer that falls further behind reads the store afresh too.

CREATE TABLE liststore_state (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    writing INTEGER NOT NULL DEFAULT 0 CHECK (writing IN (0, 1))
) STRICT;
INSERT INTO liststore_state (id) VALUES (1);

CREATE TABLE liststore_log (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    kind   TEXT NOT NULL CHECK (kind IN ('edits', 'row', 'section', 'structure')),
    id     INTEGER,  -- the row or section of a 'row' or 'section' entry
    events TEXT      -- the edits of an 'edits' entry
) STRICT;

CREATE TRIGGER rows_logged_content AFTER UPDATE OF title, payload ON rows
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind, id) VALUES ('row', NEW.id);
END;

CREATE TRIGGER rows_logged_moves AFTER UPDATE OF section_id, position ON rows
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER rows_logged_inserts AFTER INSERT ON rows
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER rows_logged_deletes AFTER DELETE ON rows
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_titles AFTER UPDATE OF title ON sections
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind, id) VALUES ('section', NEW.id);
END;

CREATE TRIGGER sections_logged_moves AFTER UPDATE OF position, row_base ON sections
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_inserts AFTER INSERT ON sections
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_deletes AFTER DELETE ON sections
WHEN (SELECT writing FROM liststore_state) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;
