#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro that Swift cannot import. */
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/* sqlite3_db_config is variadic, which Swift cannot call; this covers the integer on/off options. */
static inline int csqlite_db_config_flag(sqlite3 *db, int option, int enabled) {
    int current = 0;
    return sqlite3_db_config(db, option, enabled, &current);
}

/* Extended result codes are macros built with casts and shifts, which Swift does not import. */
static const int CSQLITE_READONLY_ROLLBACK = SQLITE_READONLY_ROLLBACK;

#endif
