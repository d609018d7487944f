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

/* Whether the path the main database file was opened with now names another file, or none
   (SQLITE_FCNTL_HAS_MOVED: the unix VFS compares the inode it holds open with a stat of the path).
   0 when it is in place or the file has no path (an in-memory database). */
static inline int csqlite_main_file_has_moved(sqlite3 *db) {
    int moved = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK) return 0;
    return moved != 0;
}

/* The name of the -wal file the connection reads and writes, while it has one open; NULL otherwise.
   (SQLITE_FCNTL_JOURNAL_POINTER gives the WAL file once the pager opened it. The unix VFS opens it
   without locks, so SQLITE_FCNTL_HAS_MOVED always says 0 for it: its identity is checked with stat.) */
static inline const char *csqlite_open_wal_name(sqlite3 *db) {
    sqlite3_file *journal = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) != SQLITE_OK) return 0;
    if (journal == 0 || journal->pMethods == 0) return 0;
    sqlite3_filename name = sqlite3_db_filename(db, "main");
    if (name == 0 || name[0] == 0) return 0;
    return sqlite3_filename_wal(name);
}

/* Reads the first `count` bytes of the file `name` through SQLite's own VFS, on a read-only connection
   opened for this and closed at once; returns `count`, or 0 when the file cannot be opened or is shorter.
   Not a plain open()/read()/close(): POSIX releases every lock a process holds on a file when the
   process closes any descriptor of that file, so closing one beside a connection of this process would
   drop that connection's locks, and another process could then take the file for unused (checkpoint
   and delete its -wal). SQLite's unix VFS keeps such a descriptor open until the locks are released. */
static inline int csqlite_read_file_prefix(const char *name, unsigned char *buffer, int count);

/* The same through the main file of the open connection `db` (no connection opened). */
static inline int csqlite_read_main_prefix(sqlite3 *db, unsigned char *buffer, int count) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == 0 || file->pMethods == 0) return 0;
    return file->pMethods->xRead(file, buffer, count, 0) == SQLITE_OK ? count : 0;
}

static inline int csqlite_read_file_prefix(const char *name, unsigned char *buffer, int count) {
    sqlite3 *db = 0;
    int read = 0;
    if (sqlite3_open_v2(name, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, 0) == SQLITE_OK) read = csqlite_read_main_prefix(db, buffer, count);
    sqlite3_close_v2(db);
    return read;
}

#endif
