#include "baseline.h"

#include <sqlite3.h>
#include <time.h>

static double now_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* As baseline_open's connections: no checkpoint inside a commit; the -wal's frames noted for an untimed one. */
static int note_frames(void *context, sqlite3 *db, const char *name, int frames) {
    (void)db;
    (void)name;
    *(int *)context = frames;
    return SQLITE_OK;
}

int limit_hot_spot(const char *path, int64_t section_id, int64_t count, int64_t per_write, double *seconds) {
    if (count < 0 || per_write < 1) return SQLITE_MISUSE;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", NULL, NULL, NULL);
    int frames = 0;
    if (rc == SQLITE_OK) sqlite3_wal_hook(db, note_frames, &frames);
    sqlite3_stmt *insert = NULL;
    /* Position -1 - step: each new row goes before the previous one, the same spot of the unique index every time. */
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, 'squeezed')", -1, &insert, NULL);
    int open = 0;
    for (int64_t step = 0; rc == SQLITE_OK && step < count; step++) {
        double start = now_seconds();
        if (!open) {
            rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
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
            rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
            open = 0;
        }
        seconds[step] = (per_write > 1 ? inserted : now_seconds()) - start;
        /* Untimed, as ListStore's run beside its writes: a passive checkpoint once the -wal holds 1,000 frames. */
        if (!open && frames >= 1000) {
            sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
            frames = 0;
        }
    }
    if (open) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return rc;
}
