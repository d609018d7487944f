-- ListStore schema, version 5: a change log that cannot silently lie (see 0003_change_log.sql).
--
-- * Ids changed by hand (`UPDATE rows SET id = …`, as for ids that are used up) are logged as
--   'structure', like moves: observers holding the old ids read the store afresh.
-- * The triggers log unless the state row says ListStore is writing: a state row that is missing
--   means "log" (coalesce), not "do not log". ListStore re-creates it with its next write.
-- * The state row cannot be deleted, and entries of kind 'edits' (which only ListStore writes, while
--   `writing` = 1) cannot be added or entries changed by anything else: a hand edit of the log is
--   refused rather than believed. Deleting entries stays possible: observers then see the gap and
--   read the store afresh.
-- A state row left at `writing` = 1 by hand cannot be told from ListStore's own mark inside a
-- transaction; after a commit it is damage that observers and `check` notice (ListStore always
-- commits it as 0), and the next ListStore write resets it.

INSERT INTO liststore_state (id, writing) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;

DROP TRIGGER rows_logged_content;
DROP TRIGGER rows_logged_moves;
DROP TRIGGER rows_logged_inserts;
DROP TRIGGER rows_logged_deletes;
DROP TRIGGER sections_logged_titles;
DROP TRIGGER sections_logged_moves;
DROP TRIGGER sections_logged_inserts;
DROP TRIGGER sections_logged_deletes;

CREATE TRIGGER rows_logged_content AFTER UPDATE OF title, payload ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind, id) VALUES ('row', NEW.id);
END;

CREATE TRIGGER rows_logged_moves AFTER UPDATE OF section_id, position, id ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER rows_logged_inserts AFTER INSERT ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER rows_logged_deletes AFTER DELETE ON rows
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_titles AFTER UPDATE OF title ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind, id) VALUES ('section', NEW.id);
END;

CREATE TRIGGER sections_logged_moves AFTER UPDATE OF position, row_base, id ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_inserts AFTER INSERT ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER sections_logged_deletes AFTER DELETE ON sections
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    INSERT INTO liststore_log (kind) VALUES ('structure');
END;

CREATE TRIGGER liststore_state_kept BEFORE DELETE ON liststore_state BEGIN
    SELECT RAISE(ABORT, 'liststore_state is the change log''s state, which ListStore and its observers need: it cannot be deleted');
END;

CREATE TRIGGER liststore_log_guarded_inserts BEFORE INSERT ON liststore_log
WHEN NEW.kind IS NOT 'row' AND NEW.kind IS NOT 'section' AND NEW.kind IS NOT 'structure'
     AND coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    SELECT RAISE(ABORT, 'liststore_log entries of this kind are written by ListStore only: a hand-written entry would mislead its observers');
END;

CREATE TRIGGER liststore_log_guarded_updates BEFORE UPDATE ON liststore_log
WHEN coalesce((SELECT writing FROM liststore_state WHERE id = 1), 0) = 0 BEGIN
    SELECT RAISE(ABORT, 'liststore_log entries cannot be changed outside ListStore: a changed entry would mislead its observers (deleting entries is allowed: observers then read the store afresh)');
END;
