#include "baseline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

struct baseline {
    sqlite3 *db;
};

static int exec(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL); }

/* Runs `sql` with up to four integer parameters (unused ones ignored), discarding results. */
static int run4(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t c, int64_t d) {
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) return rc;
    int params = sqlite3_bind_parameter_count(stmt);
    int64_t values[4] = {a, b, c, d};
    for (int i = 0; i < params && i < 4; i++) sqlite3_bind_int64(stmt, i + 1, values[i]);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {}
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int scalar(sqlite3 *db, const char *sql, int64_t param, int64_t *out) {
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) return rc;
    if (sqlite3_bind_parameter_count(stmt) > 0) sqlite3_bind_int64(stmt, 1, param);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) { *out = sqlite3_column_int64(stmt, 0); rc = SQLITE_OK; }
    sqlite3_finalize(stmt);
    return rc;
}

static int finish(sqlite3 *db, int rc) {
    if (rc == SQLITE_OK) rc = exec(db, "COMMIT");
    if (rc != SQLITE_OK) exec(db, "ROLLBACK");
    return rc;
}

baseline *baseline_open(const char *path) {
    baseline *store = calloc(1, sizeof *store);
    if (!store) return NULL;
    if (sqlite3_open_v2(path, &store->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) goto fail;
    sqlite3_busy_timeout(store->db, 5000);
    int64_t app = 0, version = 0;
    if (scalar(store->db, "PRAGMA application_id", 0, &app) || app != 0x4C697374) goto fail;
    if (scalar(store->db, "PRAGMA user_version", 0, &version) || version < 1) goto fail;
    if (exec(store->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")) goto fail;
    return store;
fail:
    sqlite3_close_v2(store->db);
    free(store);
    return NULL;
}

void baseline_close(baseline *store) {
    if (!store) return;
    sqlite3_close_v2(store->db);
    free(store);
}

int baseline_section_count(baseline *store, int64_t *count) {
    return scalar(store->db, "SELECT count(*) FROM sections", 0, count);
}

int baseline_bulk_insert(baseline *store, int64_t section_id, int count) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    int64_t start = 0;
    rc = scalar(db, "SELECT coalesce(max(position) + 1, 0) FROM rows WHERE section_id = ?1", section_id, &start);
    sqlite3_stmt *insert = NULL;
    if (!rc) rc = sqlite3_prepare_v2(db, "INSERT INTO rows (section_id, position, title, payload) VALUES (?1, ?2, ?3, NULL)", -1, &insert, NULL);
    char title[32];
    for (int i = 0; !rc && i < count; i++) {
        int length = snprintf(title, sizeof title, "row %d", i);
        sqlite3_bind_int64(insert, 1, section_id);
        sqlite3_bind_int64(insert, 2, start + i);
        sqlite3_bind_text(insert, 3, title, length, SQLITE_TRANSIENT);
        rc = sqlite3_step(insert) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    return finish(db, rc);
}

/* Shifts positions >= from by +1 (delta 1) or -1, through negative positions so UNIQUE holds in any order. */
static int shift(sqlite3 *db, int64_t section_id, int64_t from, int64_t to, int64_t delta) {
    int rc = run4(db, "UPDATE rows SET position = -1 - (position + ?4) WHERE section_id = ?1 AND position >= ?2 AND position < ?3",
                  section_id, from, to, delta);
    if (rc) return rc;
    return run4(db, "UPDATE rows SET position = -1 - position WHERE section_id = ?1 AND position < 0", section_id, 0, 0, 0);
}

int baseline_insert_at(baseline *store, int64_t section_id, int index) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    int64_t count = 0;
    rc = scalar(db, "SELECT coalesce(max(position) + 1, 0) FROM rows WHERE section_id = ?1", section_id, &count);
    int64_t position = index < 0 ? count : index;
    if (!rc && position > count) rc = SQLITE_RANGE;
    if (!rc) rc = shift(db, section_id, position, INT64_MAX, 1);
    if (!rc) rc = run4(db, "INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, 'new row')", section_id, position, 0, 0);
    return finish(db, rc);
}

int baseline_delete_every(baseline *store, int64_t section_id, int step, int count) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    sqlite3_stmt *remove = NULL;
    rc = sqlite3_prepare_v2(db, "DELETE FROM rows WHERE section_id = ?1 AND position = ?2", -1, &remove, NULL);
    for (int i = 0; !rc && i < count; i++) {
        sqlite3_bind_int64(remove, 1, section_id);
        sqlite3_bind_int64(remove, 2, (int64_t)i * step);
        rc = sqlite3_step(remove) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        if (!rc && sqlite3_changes(db) != 1) rc = SQLITE_NOTFOUND;
        sqlite3_reset(remove);
    }
    sqlite3_finalize(remove);
    /* The best set-based renumbering: rank the survivors from the first gap, through negatives. */
    if (!rc) rc = run4(db,
        "UPDATE rows SET position = -1 - ranked.new_position "
        "FROM (SELECT id, row_number() OVER (ORDER BY position) - 1 AS new_position FROM rows WHERE section_id = ?1 AND position >= 0) AS ranked "
        "WHERE rows.id = ranked.id AND rows.position <> ranked.new_position", section_id, 0, 0, 0);
    if (!rc) rc = run4(db, "UPDATE rows SET position = -1 - position WHERE section_id = ?1 AND position < 0", section_id, 0, 0, 0);
    return finish(db, rc);
}

int baseline_move(baseline *store, int64_t section_id, int from, int to) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    int64_t count = 0, id = 0;
    rc = scalar(db, "SELECT coalesce(max(position) + 1, 0) FROM rows WHERE section_id = ?1", section_id, &count);
    if (!rc) {
        sqlite3_stmt *find = NULL;
        rc = sqlite3_prepare_v2(db, "SELECT id FROM rows WHERE section_id = ?1 AND position = ?2", -1, &find, NULL);
        if (!rc) {
            sqlite3_bind_int64(find, 1, section_id);
            sqlite3_bind_int64(find, 2, from);
            rc = sqlite3_step(find) == SQLITE_ROW ? SQLITE_OK : SQLITE_NOTFOUND;
            id = sqlite3_column_int64(find, 0);
        }
        sqlite3_finalize(find);
    }
    if (!rc) rc = run4(db, "UPDATE rows SET position = ?2 WHERE id = ?1", id, count, 0, 0);
    if (!rc) rc = from < to ? shift(db, section_id, from + 1, to + 1, -1) : shift(db, section_id, to, from, 1);
    if (!rc) rc = run4(db, "UPDATE rows SET position = ?2 WHERE id = ?1", id, to, 0, 0);
    return finish(db, rc);
}

int baseline_read_page(baseline *store, int64_t section_id, int offset, int limit, int *read) {
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(store->db,
        "SELECT id, title, payload FROM rows WHERE section_id = ?1 AND position >= ?2 AND position < ?3 ORDER BY position", -1, &stmt, NULL);
    if (rc) return rc;
    sqlite3_bind_int64(stmt, 1, section_id);
    sqlite3_bind_int64(stmt, 2, offset);
    sqlite3_bind_int64(stmt, 3, (int64_t)offset + limit);
    int rows = 0;
    size_t bytes = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        (void)sqlite3_column_int64(stmt, 0);
        bytes += (size_t)sqlite3_column_bytes(stmt, 1);  /* touch the text, as a reader would */
        (void)sqlite3_column_text(stmt, 1);
        (void)sqlite3_column_text(stmt, 2);
        rows++;
    }
    sqlite3_finalize(stmt);
    *read = rows;
    (void)bytes;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}
