#ifndef LISTSTORE_BASELINE_H
#define LISTSTORE_BASELINE_H

#include <stdint.h>

/* The C side of liststore-bench, on a plain file of its own (no ListStore schema, no triggers):
 *
 *   sections(id INTEGER PRIMARY KEY, position INTEGER NOT NULL UNIQUE, title TEXT NOT NULL)
 *   rows(id INTEGER PRIMARY KEY, section_id INTEGER NOT NULL, position INTEGER NOT NULL,
 *        title TEXT NOT NULL, payload TEXT, UNIQUE(section_id, position))
 *
 * with ListStore's pragmas (WAL, synchronous=NORMAL). Two sets of operations run on it:
 *
 * - baseline_*: the dense baseline, what a peer's user writes by hand — row positions 0..n-1,
 *   renumbered with the best set-based SQL on every edit;
 * - limit_*: the physical limit, the least SQLite can do for the same request on that table — one
 *   statement touching one row (or the k rows of a k-row delete), one transaction, no renumbering.
 *
 * Sections have ids 1..m at positions 0..m-1; every function returns 0 or an SQLite result code. */

typedef struct baseline baseline;

/* Creates a plain file at `path` (which must not exist) with `sections` sections of `rows_per_section`
 * rows each ("row 0", "row 1", ... per section), in one transaction; row ids follow display order. */
int baseline_create(const char *path, int sections, int64_t rows_per_section);
/* Opens a file made by baseline_create and applies the pragmas. NULL on failure. It keeps SQLite's
 * automatic checkpoint, as ListStore's writer does: the commit that takes the -wal past 1,000 frames
 * checkpoints it, inside the timed operation on both sides. */
baseline *baseline_open(const char *path);
void baseline_close(baseline *store);

int baseline_section_count(baseline *store, int64_t *count);
/* The number of rows in all sections. */
int baseline_total_rows(baseline *store, int64_t *count);
/* The number of rows of section `section_id`, and whether their positions are exactly 0..count-1. */
int baseline_check_section(baseline *store, int64_t section_id, int64_t *count, int *dense);
/* The id of the row at `index` of section `section_id` (untimed set-up for the look-up rows). */
int baseline_row_id_at(baseline *store, int64_t section_id, int64_t index, int64_t *id);

/* Appends `count` rows through one prepared statement in one transaction (dense and limit alike). */
int baseline_bulk_insert(baseline *store, int64_t section_id, int count);
/* Inserts one row at `index` (index < 0: at the end), shifting the rows after it. */
int baseline_insert_at(baseline *store, int64_t section_id, int64_t index);
/* Deletes the row at `index`, shifting the rows after it down. */
int baseline_delete_at(baseline *store, int64_t section_id, int64_t index);
/* Deletes `count` rows at indexes 0, step, 2*step, ... then renumbers the survivors densely. */
int baseline_delete_every(baseline *store, int64_t section_id, int step, int count);
/* Moves the row at `from` of one section to `to` of another (or the same) section, renumbering both. */
int baseline_move(baseline *store, int64_t from_section_id, int64_t from, int64_t to_section_id, int64_t to);
/* Reads `limit` rows from `offset`; stores how many were read in *read (dense and limit alike). */
int baseline_read_page(baseline *store, int64_t section_id, int64_t offset, int limit, int *read);
/* The index path (section position, row position) of the row with `id` (dense and limit alike). */
int baseline_index_path(baseline *store, int64_t id, int64_t *section, int64_t *row);

/* The physical limit of a one-row insert: one INSERT at the end of the section, one transaction. */
int limit_insert_one(baseline *store, int64_t section_id);
/* The physical limit of a one-row delete: one DELETE of the row at (or, past a gap it left, first after) `index`, no renumbering. */
int limit_delete_at(baseline *store, int64_t section_id, int64_t index);
/* The physical limit of a k-row delete: the k DELETEs by (section, position), no renumbering. */
int limit_delete_every(baseline *store, int64_t section_id, int step, int count);
/* The physical limit of a move: one UPDATE giving the row at (or first after) `from` a free position (the end of `to_section_id`). */
int limit_move_one(baseline *store, int64_t from_section_id, int64_t from, int64_t to_section_id);

/* The physical limit of 100,000 inserts at one index: `count` INSERTs into section `section_id`, each before
 * the previous one — the same spot of the (section_id, position) index every time, nothing renumbered —
 * committed every `per_write` inserts. seconds[step] gets
 * each insert's wall-clock time: with per_write = 1 its BEGIN and COMMIT included, otherwise the INSERT alone. */
int limit_hot_spot(baseline *store, int64_t section_id, int64_t count, int64_t per_write, double *seconds);

#endif
