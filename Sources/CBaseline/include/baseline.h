#ifndef LISTSTORE_BASELINE_H
#define LISTSTORE_BASELINE_H

#include <stdint.h>

/* The C baseline of liststore-bench: the same operations as ListStore, written directly against the
 * SQLite C API with plain dense renumbering (row positions 0..n-1, base always 0), on the same schema
 * with the same pragmas. It is what a careful hand-written program would do. */

typedef struct baseline baseline;

/* Opens a ListStore file, applies ListStore's pragmas and checks application_id and user_version. NULL on failure. */
baseline *baseline_open(const char *path);
void baseline_close(baseline *store);

/* Each returns 0 on success, or an SQLite result code. */
int baseline_section_count(baseline *store, int64_t *count);
int baseline_bulk_insert(baseline *store, int64_t section_id, int count);
/* Inserts one row at `index`, or at the end when index < 0. */
int baseline_insert_at(baseline *store, int64_t section_id, int index);
/* Deletes `count` rows at indexes 0, step, 2*step, ... then renumbers the survivors densely. */
int baseline_delete_every(baseline *store, int64_t section_id, int step, int count);
int baseline_move(baseline *store, int64_t section_id, int from, int to);
/* Reads `limit` rows from `offset`; stores how many were read in *read. */
int baseline_read_page(baseline *store, int64_t section_id, int offset, int limit, int *read);

#endif
