-- ListStore schema, version 12: each list records how many sections it has.
--
-- Every edit and every read that names sections by index first checks that the list's section positions
-- are exactly 0..m-1 (a section's index is its position). Until version 11 that check counted the list's
-- sections: a scan of the list's entries in the sections' position index on every edit, about 90 µs at
-- 1,000 sections and 0.9 ms at 10,000, whatever the edit. With `lists.section_count` the check is three
-- index look-ups: the recorded count, the lowest position and the highest, which must be 0 and m-1. Since
-- positions are unique per list, that holds only when they are exactly 0..m-1.
--
-- ListStore keeps the count itself (its connections run without triggers); the triggers below keep it for
-- every other program's writes (the sqlite3 shell, Python), so inserting, deleting or moving a section
-- between lists by hand needs nothing more. A program that changes sections with triggers off, or deletes
-- one by REPLACE (SQLite fires no delete trigger for it), leaves the count behind: edits then refuse the
-- list (the positions no longer run 0..count-1) until `repair` counts the sections afresh. A deletion in
-- the middle that way leaves the highest position where it was, which the three look-ups cannot see: so
-- the first edit after another connection's commit counts the list's sections once, reads that hand out
-- the sections in an array check each position, and `check` counts.

ALTER TABLE lists ADD COLUMN section_count INTEGER NOT NULL DEFAULT 0;  -- sections of the list (kept by ListStore and the triggers below)

UPDATE lists SET section_count = (SELECT count(*) FROM sections WHERE sections.list_id = lists.id);

CREATE TRIGGER sections_counted_on_insert AFTER INSERT ON sections BEGIN
    UPDATE lists SET section_count = section_count + 1 WHERE id = NEW.list_id;
END;

CREATE TRIGGER sections_counted_on_delete AFTER DELETE ON sections BEGIN
    UPDATE lists SET section_count = section_count - 1 WHERE id = OLD.list_id;
END;

CREATE TRIGGER sections_counted_on_list_change AFTER UPDATE OF list_id ON sections
WHEN NEW.list_id IS NOT OLD.list_id BEGIN
    UPDATE lists SET section_count = section_count - 1 WHERE id = OLD.list_id;
    UPDATE lists SET section_count = section_count + 1 WHERE id = NEW.list_id;
END;
