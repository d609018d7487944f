-- ListStore schema, version 9: a durable, per-author undo history (README, "Undo and redo").
--
-- New tables only; no existing table, trigger or view changes. Every ListStore write transaction
-- that tracks changes, by a store opened with a history limit above 0, appends one entry to
-- `liststore_history` with what undoing it needs (its `record`, JSON, history record format 1) in
-- the same transaction as its change-log entry (`log_seq`). `undo()` reverts its author's last entry
-- still 'done' as a new transaction (an entry of kind 'undo'); `redo()` reverts that one ('redo').
-- An untracked write (`writeUntracked`, an import) adds a 'barrier' and marks every entry before it
-- 'blocked': those can no longer be undone. The rows of a deleted section are kept one per row in
-- `liststore_history_rows` (copied by SQL, so a large section costs no memory).

CREATE TABLE liststore_history (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    author  TEXT NOT NULL,
    list_id INTEGER NOT NULL DEFAULT 1,  -- the list (lists.id) the transaction edited; undo is per author and list
    kind    TEXT NOT NULL CHECK (kind IN ('do', 'undo', 'redo', 'barrier')),
    state   TEXT NOT NULL CHECK (state IN ('done', 'undone', 'cleared', 'blocked')),
    reverts INTEGER,  -- the entry an 'undo' or 'redo' took back
    action  TEXT,     -- the action name for menus ("Delete 2 Rows"), or NULL
    log_seq INTEGER NOT NULL,  -- liststore_log.seq of the same commit
    record  TEXT NOT NULL      -- what undoing it needs: {"v":1,"steps":[…]}
) STRICT;

CREATE INDEX liststore_history_by_author ON liststore_history (author, list_id, kind, state, id);

CREATE TABLE liststore_history_rows (
    entry   INTEGER NOT NULL REFERENCES liststore_history (id) ON DELETE CASCADE,
    section INTEGER NOT NULL,  -- the deleted section's id
    ord     INTEGER NOT NULL,  -- the row's index in that section when it was deleted
    row_id  INTEGER NOT NULL,
    title   TEXT NOT NULL,
    payload TEXT,
    PRIMARY KEY (entry, section, ord)
) STRICT, WITHOUT ROWID;
