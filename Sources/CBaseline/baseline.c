#include "baseline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct baseline {
    sqlite3 *db;
    /* The reads' statements, prepared once per connection as a careful program keeps them. */
    sqlite3_stmt *page;
    sqlite3_stmt *lookup;
};

/* `*stmt`, prepared from `sql` on first use, reset and with its bindings cleared. */
static int cached(sqlite3 *db, sqlite3_stmt **stmt, const char *sql) {
    if (*stmt) {
        sqlite3_reset(*stmt);
        sqlite3_clear_bindings(*stmt);
        return SQLITE_OK;
    }
    return sqlite3_prepare_v2(db, sql, -1, stmt, NULL);
}

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

int baseline_create(const char *path, int sections, int64_t rows_per_section) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) rc = exec(db,
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
        "CREATE TABLE sections (id INTEGER PRIMARY KEY, position INTEGER NOT NULL UNIQUE, title TEXT NOT NULL);"
        "CREATE TABLE rows (id INTEGER PRIMARY KEY, section_id INTEGER NOT NULL, position INTEGER NOT NULL,"
        " title TEXT NOT NULL, payload TEXT, UNIQUE (section_id, position));"
        "BEGIN IMMEDIATE");
    sqlite3_stmt *section = NULL, *row = NULL;
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "INSERT INTO sections (id, position, title) VALUES (?1, ?1 - 1, 'bench')", -1, &section, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, ?3)", -1, &row, NULL);
    char title[32];
    for (int s = 1; rc == SQLITE_OK && s <= sections; s++) {
        sqlite3_bind_int64(section, 1, s);
        rc = sqlite3_step(section) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_reset(section);
        for (int64_t i = 0; rc == SQLITE_OK && i < rows_per_section; i++) {
            int length = snprintf(title, sizeof title, "row %lld", (long long)i);
            sqlite3_bind_int64(row, 1, s);
            sqlite3_bind_int64(row, 2, i);
            sqlite3_bind_text(row, 3, title, length, SQLITE_TRANSIENT);
            rc = sqlite3_step(row) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
            sqlite3_reset(row);
        }
    }
    sqlite3_finalize(section);
    sqlite3_finalize(row);
    if (db) {
        rc = finish(db, rc);
        int closed = sqlite3_close_v2(db);
        if (rc == SQLITE_OK) rc = closed;
    }
    return rc;
}

baseline *baseline_open(const char *path) {
    baseline *store = calloc(1, sizeof *store);
    if (!store) return NULL;
    if (sqlite3_open_v2(path, &store->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) goto fail;
    sqlite3_busy_timeout(store->db, 5000);
    int64_t tables = 0;
    if (scalar(store->db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('sections', 'rows')", 0, &tables) || tables != 2) goto fail;
    if (exec(store->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")) goto fail;
    return store;
fail:
    sqlite3_close_v2(store->db);
    free(store);
    return NULL;
}

void baseline_close(baseline *store) {
    if (!store) return;
    sqlite3_finalize(store->page);
    sqlite3_finalize(store->lookup);
    sqlite3_close_v2(store->db);
    free(store);
}

int baseline_section_count(baseline *store, int64_t *count) {
    return scalar(store->db, "SELECT count(*) FROM sections", 0, count);
}

int baseline_total_rows(baseline *store, int64_t *count) {
    return scalar(store->db, "SELECT count(*) FROM rows", 0, count);
}

int baseline_check_section(baseline *store, int64_t section_id, int64_t *count, int *dense) {
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(store->db,
        "SELECT count(*), coalesce(min(position), 0), coalesce(max(position) + 1, 0) FROM rows WHERE section_id = ?1", -1, &stmt, NULL);
    if (rc) return rc;
    sqlite3_bind_int64(stmt, 1, section_id);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        *count = sqlite3_column_int64(stmt, 0);
        *dense = sqlite3_column_int64(stmt, 1) == 0 && sqlite3_column_int64(stmt, 2) == *count;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    return rc;
}

/* The id of the row at `position` of `section_id`, or SQLITE_NOTFOUND. */
static int row_id(sqlite3 *db, int64_t section_id, int64_t position, int64_t *id) {
    sqlite3_stmt *find = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT id FROM rows WHERE section_id = ?1 AND position = ?2", -1, &find, NULL);
    if (rc) return rc;
    sqlite3_bind_int64(find, 1, section_id);
    sqlite3_bind_int64(find, 2, position);
    rc = sqlite3_step(find) == SQLITE_ROW ? SQLITE_OK : SQLITE_NOTFOUND;
    if (rc == SQLITE_OK) *id = sqlite3_column_int64(find, 0);
    sqlite3_finalize(find);
    return rc;
}

int baseline_row_id_at(baseline *store, int64_t section_id, int64_t index, int64_t *id) {
    return row_id(store->db, section_id, index, id);
}

static int row_count(sqlite3 *db, int64_t section_id, int64_t *count) {
    return scalar(db, "SELECT coalesce(max(position) + 1, 0) FROM rows WHERE section_id = ?1", section_id, count);
}

int baseline_bulk_insert(baseline *store, int64_t section_id, int count) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    int64_t start = 0;
    rc = row_count(db, section_id, &start);
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

/* Shifts positions in [from, to) by `delta`, through negative positions so UNIQUE holds in any order. */
static int shift(sqlite3 *db, int64_t section_id, int64_t from, int64_t to, int64_t delta) {
    int rc = run4(db, "UPDATE rows SET position = -1 - (position + ?4) WHERE section_id = ?1 AND position >= ?2 AND position < ?3",
                  section_id, from, to, delta);
    if (rc) return rc;
    return run4(db, "UPDATE rows SET position = -1 - position WHERE section_id = ?1 AND position < 0", section_id, 0, 0, 0);
}

int baseline_insert_at(baseline *store, int64_t section_id, int64_t index) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    int64_t count = 0;
    rc = row_count(db, section_id, &count);
    int64_t position = index < 0 ? count : index;
    if (!rc && position > count) rc = SQLITE_RANGE;
    if (!rc) rc = shift(db, section_id, position, INT64_MAX, 1);
    if (!rc) rc = run4(db, "INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, 'new row')", section_id, position, 0, 0);
    return finish(db, rc);
}

int baseline_delete_at(baseline *store, int64_t section_id, int64_t index) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    rc = run4(db, "DELETE FROM rows WHERE section_id = ?1 AND position = ?2", section_id, index, 0, 0);
    if (!rc && sqlite3_changes(db) != 1) rc = SQLITE_NOTFOUND;
    if (!rc) rc = shift(db, section_id, index + 1, INT64_MAX, -1);
    return finish(db, rc);
}

/* Deletes the rows at positions 0, step, 2*step, ... (`count` of them) through one prepared statement. */
static int delete_positions(sqlite3 *db, int64_t section_id, int step, int count) {
    sqlite3_stmt *remove = NULL;
    int rc = sqlite3_prepare_v2(db, "DELETE FROM rows WHERE section_id = ?1 AND position = ?2", -1, &remove, NULL);
    for (int i = 0; !rc && i < count; i++) {
        sqlite3_bind_int64(remove, 1, section_id);
        sqlite3_bind_int64(remove, 2, (int64_t)i * step);
        rc = sqlite3_step(remove) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        if (!rc && sqlite3_changes(db) != 1) rc = SQLITE_NOTFOUND;
        sqlite3_reset(remove);
    }
    sqlite3_finalize(remove);
    return rc;
}

int baseline_delete_every(baseline *store, int64_t section_id, int step, int count) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    rc = delete_positions(db, section_id, step, count);
    /* The best set-based renumbering: rank the survivors from the first gap, through negatives. */
    if (!rc) rc = run4(db,
        "UPDATE rows SET position = -1 - ranked.new_position "
        "FROM (SELECT id, row_number() OVER (ORDER BY position) - 1 AS new_position FROM rows WHERE section_id = ?1 AND position >= 0) AS ranked "
        "WHERE rows.id = ranked.id AND rows.position <> ranked.new_position", section_id, 0, 0, 0);
    if (!rc) rc = run4(db, "UPDATE rows SET position = -1 - position WHERE section_id = ?1 AND position < 0", section_id, 0, 0, 0);
    return finish(db, rc);
}

/* Where a moving row waits while the rows around it shift (far below every shifted position). */
#define PARKED_POSITION (-((int64_t)1 << 40))

int baseline_move(baseline *store, int64_t from_section_id, int64_t from, int64_t to_section_id, int64_t to) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    int64_t count = 0, id = 0;
    rc = row_count(db, to_section_id, &count);
    if (!rc) rc = row_id(db, from_section_id, from, &id);
    if (!rc && to > (from_section_id == to_section_id ? count - 1 : count)) rc = SQLITE_RANGE;
    if (!rc) rc = run4(db, "UPDATE rows SET position = ?2 WHERE id = ?1", id, PARKED_POSITION, 0, 0);
    if (from_section_id == to_section_id) {
        if (!rc) rc = from < to ? shift(db, from_section_id, from + 1, to + 1, -1) : shift(db, from_section_id, to, from, 1);
    } else {
        if (!rc) rc = shift(db, from_section_id, from + 1, INT64_MAX, -1);
        if (!rc) rc = shift(db, to_section_id, to, INT64_MAX, 1);
    }
    if (!rc) rc = run4(db, "UPDATE rows SET section_id = ?2, position = ?3 WHERE id = ?1", id, to_section_id, to, 0);
    return finish(db, rc);
}

int baseline_read_page(baseline *store, int64_t section_id, int64_t offset, int limit, int *read) {
    int rc = cached(store->db, &store->page,
        "SELECT id, title, payload FROM rows WHERE section_id = ?1 AND position >= ?2 AND position < ?3 ORDER BY position");
    if (rc) return rc;
    sqlite3_stmt *stmt = store->page;
    sqlite3_bind_int64(stmt, 1, section_id);
    sqlite3_bind_int64(stmt, 2, offset);
    sqlite3_bind_int64(stmt, 3, offset + limit);
    int rows = 0;
    size_t bytes = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        (void)sqlite3_column_int64(stmt, 0);
        bytes += (size_t)sqlite3_column_bytes(stmt, 1);  /* touch the text, as a reader would */
        (void)sqlite3_column_text(stmt, 1);
        (void)sqlite3_column_text(stmt, 2);
        rows++;
    }
    sqlite3_reset(stmt);
    *read = rows;
    (void)bytes;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int baseline_index_path(baseline *store, int64_t id, int64_t *section, int64_t *row) {
    int rc = cached(store->db, &store->lookup,
        "SELECT s.position, r.position FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ?1");
    if (rc) return rc;
    sqlite3_stmt *stmt = store->lookup;
    sqlite3_bind_int64(stmt, 1, id);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        *section = sqlite3_column_int64(stmt, 0);
        *row = sqlite3_column_int64(stmt, 1);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_NOTFOUND;
    }
    sqlite3_reset(stmt);
    return rc;
}

int limit_insert_one(baseline *store, int64_t section_id) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    rc = run4(db,
        "INSERT INTO rows (section_id, position, title) "
        "VALUES (?1, (SELECT coalesce(max(position) + 1, 0) FROM rows WHERE section_id = ?1), 'new row')", section_id, 0, 0, 0);
    return finish(db, rc);
}

int limit_delete_at(baseline *store, int64_t section_id, int64_t index) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    /* The row at `index`, or the first after it (the limit leaves gaps: a second delete at the same index takes the next row). */
    rc = run4(db, "DELETE FROM rows WHERE id = (SELECT id FROM rows WHERE section_id = ?1 AND position >= ?2 ORDER BY position LIMIT 1)",
              section_id, index, 0, 0);
    if (!rc && sqlite3_changes(db) != 1) rc = SQLITE_NOTFOUND;
    return finish(db, rc);
}

int limit_delete_every(baseline *store, int64_t section_id, int step, int count) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    rc = delete_positions(db, section_id, step, count);
    return finish(db, rc);
}

int limit_move_one(baseline *store, int64_t from_section_id, int64_t from, int64_t to_section_id) {
    sqlite3 *db = store->db;
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc) return rc;
    rc = run4(db,
        "UPDATE rows SET section_id = ?3, position = (SELECT coalesce(max(position) + 1, 0) FROM rows WHERE section_id = ?3) "
        "WHERE id = (SELECT id FROM rows WHERE section_id = ?1 AND position >= ?2 ORDER BY position LIMIT 1)", from_section_id, from, to_section_id, 0);
    if (!rc && sqlite3_changes(db) != 1) rc = SQLITE_NOTFOUND;
    return finish(db, rc);
}

static double now_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int limit_hot_spot(baseline *store, int64_t section_id, int64_t count, int64_t per_write, double *seconds) {
    if (count < 0 || per_write < 1) return SQLITE_MISUSE;
    sqlite3 *db = store->db;
    sqlite3_stmt *insert = NULL;
    /* Position -1 - step: each new row goes before the previous one, the same spot of the unique index every time. */
    int rc = sqlite3_prepare_v2(db, "INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, 'squeezed')", -1, &insert, NULL);
    int open = 0;
    for (int64_t step = 0; rc == SQLITE_OK && step < count; step++) {
        double start = now_seconds();
        if (!open) {
            rc = exec(db, "BEGIN IMMEDIATE");
            open = rc == SQLITE_OK;
            /* Several inserts per write: each is timed alone, as the positions engine's are (the BEGIN and COMMIT untimed). */
            if (per_write > 1) start = now_seconds();
        }
        double inserted = 0;
        if (rc == SQLITE_OK) {
            sqlite3_reset(insert);
            sqlite3_bind_int64(insert, 1, section_id);
            sqlite3_bind_int64(insert, 2, -1 - step);
            rc = sqlite3_step(insert) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
            inserted = now_seconds();
        }
        if (rc == SQLITE_OK && ((step + 1) % per_write == 0 || step + 1 == count)) {
            rc = exec(db, "COMMIT");
            open = 0;
        }
        seconds[step] = (per_write > 1 ? inserted : now_seconds()) - start;
    }
    if (open) exec(db, "ROLLBACK");
    sqlite3_finalize(insert);
    return rc;
}
