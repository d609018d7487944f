#ifndef LISTSTORE_WAL_WRITES_H
#define LISTSTORE_WAL_WRITES_H

/* The VFS ListStore's writer connections open their files with: the default VFS, except that writes to
   a -wal file are gathered in memory and reach the file in large writes, at the latest when the commit
   frame is written (see wal_writes.c). */

/* The name of that VFS, for sqlite3_open_v2. */
extern const char *const liststore_wal_writes_vfs_name;

/* Registers the VFS (not as the default) over the default VFS of the moment; idempotent and safe to call
   from several threads. Returns SQLITE_OK, or SQLite's error when there is no default VFS or no memory. */
int liststore_wal_writes_register(void);

#endif
