/* A VFS over the default one that gathers a -wal file's writes into large ones.

   SQLite appends a transaction's frames to the -wal with two writes each (the frame's 24-byte header,
   then its page), and a large commit is thousands of frames: a 1,000-row delete at a million rows is some
   2,100 frames, 4,200 pwrite calls, about 12 ms of the kernel's time on Linux, where the same bytes in
   writes of 120 KiB take about 3 ms. This VFS keeps the writes that continue one
   another in a buffer and writes them out as one:

   - when the frame that commits the transaction is written (a frame header whose "database size after
     commit" field is not zero): its page and everything before it are written before that write returns,
     so the write that makes the transaction durable fails as it did, and nothing of it is left in memory
     when SQLite then publishes the transaction in the -shm index for other connections to read;
   - before anything else is done to the file (a read, a sync, a truncation, its size, a lock, a file
     control, closing it), and before a write that does not continue the buffered ones (a page written
     again in the same transaction, a -wal started again from its beginning);
   - when the buffer is full.

   So every frame reaches the file in the order and at the offset SQLite wrote it, before any read of
   the file, and the commit frame is in the file before the transaction is visible: what another
   connection or process reads, and what a crash leaves, is what it would be without this VFS, with
   the writes of an uncommitted transaction at most later. Files other than -wal files, and -wal files
   of connections opened without this VFS, are untouched. */

#include "wal_writes.h"

#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

const char *const liststore_wal_writes_vfs_name = "liststore-wal-writes";

/* Writes gathered for one -wal file at most: 29 frames of 4 KiB pages. Under 128 KiB, because the unix
   VFS writes at most 0x1ffff bytes in one call (it masks the length to 17 bits) and reports a longer
   write as a full disk. */
#define BUFFER_CAPACITY (120 * 1024)
/* A WAL frame header: page number, database size after commit (0 for other frames), salts, checksums. */
#define FRAME_HEADER_SIZE 24

typedef struct GatheringFile {
    sqlite3_file base;
    sqlite3_file *real; /* the default VFS's file, in the memory right after this struct */
    int isWAL;
    unsigned char *buffer; /* BUFFER_CAPACITY bytes once a write was gathered */
    int used;
    sqlite3_int64 offset; /* where buffer[0] goes in the file */
    int commitPending;    /* the commit frame's header is buffered: its page completes the commit */
} GatheringFile;

static sqlite3_vfs gatheringVFS;
static sqlite3_vfs *realVFS;

static sqlite3_file *real(sqlite3_file *file) { return ((GatheringFile *)file)->real; }

/* Writes the buffered bytes out; the buffer is empty afterwards, whatever happened. */
static int flush(GatheringFile *file) {
    if (file->used == 0) return SQLITE_OK;
    int used = file->used;
    file->used = 0;
    return file->real->pMethods->xWrite(file->real, file->buffer, used, file->offset);
}

static int flushFile(sqlite3_file *file) { return flush((GatheringFile *)file); }

static int gatherClose(sqlite3_file *file) {
    GatheringFile *gathering = (GatheringFile *)file;
    int flushed = flush(gathering);
    int closed = gathering->real->pMethods ? gathering->real->pMethods->xClose(gathering->real) : SQLITE_OK;
    sqlite3_free(gathering->buffer);
    gathering->buffer = 0;
    return flushed != SQLITE_OK ? flushed : closed;
}

static int gatherRead(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xRead(real(file), data, amount, offset);
}

/* Whether `data` (`amount` bytes) begins with the header of a frame that commits a transaction. A write
   of a frame's header alone is 24 bytes; one of header and page together (no SQLite release does that
   yet) is 24 bytes more than a page size, a power of two from 512. */
static int beginsCommitFrame(const unsigned char *data, int amount) {
    int page = amount - FRAME_HEADER_SIZE;
    int header = amount == FRAME_HEADER_SIZE || (page >= 512 && page <= 65536 && (page & (page - 1)) == 0);
    return header && (data[4] | data[5] | data[6] | data[7]) != 0;
}

static int gatherWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    GatheringFile *gathering = (GatheringFile *)file;
    if (!gathering->isWAL) return gathering->real->pMethods->xWrite(gathering->real, data, amount, offset);
    int rc = SQLITE_OK;
    int commits = beginsCommitFrame(data, amount);
    int completesCommit = gathering->commitPending && !commits;
    if (gathering->used > 0 && (offset != gathering->offset + gathering->used || gathering->used + amount > BUFFER_CAPACITY)) {
        rc = flush(gathering);
        if (rc != SQLITE_OK) {
            gathering->commitPending = 0;
            return rc;
        }
    }
    if (gathering->buffer == 0 && amount <= BUFFER_CAPACITY) gathering->buffer = sqlite3_malloc(BUFFER_CAPACITY);
    if (gathering->buffer == 0 || amount > BUFFER_CAPACITY) {
        /* No memory for a buffer, or a write larger than it: written as it comes. */
        gathering->commitPending = 0;
        return gathering->real->pMethods->xWrite(gathering->real, data, amount, offset);
    }
    if (gathering->used == 0) gathering->offset = offset;
    memcpy(gathering->buffer + gathering->used, data, (size_t)amount);
    gathering->used += amount;
    if (completesCommit || (commits && amount > FRAME_HEADER_SIZE)) {
        gathering->commitPending = 0;
        return flush(gathering);
    }
    if (commits) gathering->commitPending = 1;
    return SQLITE_OK;
}

static int gatherTruncate(sqlite3_file *file, sqlite3_int64 size) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xTruncate(real(file), size);
}

static int gatherSync(sqlite3_file *file, int flags) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xSync(real(file), flags);
}

static int gatherFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xFileSize(real(file), size);
}

static int gatherLock(sqlite3_file *file, int lock) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xLock(real(file), lock);
}

static int gatherUnlock(sqlite3_file *file, int lock) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xUnlock(real(file), lock);
}

static int gatherCheckReservedLock(sqlite3_file *file, int *out) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xCheckReservedLock(real(file), out);
}

static int gatherFileControl(sqlite3_file *file, int op, void *arg) {
    int rc = flushFile(file);
    if (rc != SQLITE_OK) return rc;
    rc = real(file)->pMethods->xFileControl(real(file), op, arg);
    if (op == SQLITE_FCNTL_VFSNAME && rc == SQLITE_OK) {
        /* The VFS stack's names, this one's first (as SQLite's own shims do). */
        char **names = (char **)arg;
        *names = sqlite3_mprintf("%s/%z", liststore_wal_writes_vfs_name, *names);
    }
    return rc;
}

static int gatherSectorSize(sqlite3_file *file) { return real(file)->pMethods->xSectorSize(real(file)); }

static int gatherDeviceCharacteristics(sqlite3_file *file) { return real(file)->pMethods->xDeviceCharacteristics(real(file)); }

static int gatherShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    return real(file)->pMethods->xShmMap(real(file), region, size, extend, out);
}

static int gatherShmLock(sqlite3_file *file, int offset, int count, int flags) {
    return real(file)->pMethods->xShmLock(real(file), offset, count, flags);
}

static void gatherShmBarrier(sqlite3_file *file) { real(file)->pMethods->xShmBarrier(real(file)); }

static int gatherShmUnmap(sqlite3_file *file, int deleteFlag) { return real(file)->pMethods->xShmUnmap(real(file), deleteFlag); }

static int gatherFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    int rc = flushFile(file);
    return rc != SQLITE_OK ? rc : real(file)->pMethods->xFetch(real(file), offset, amount, out);
}

static int gatherUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    return real(file)->pMethods->xUnfetch(real(file), offset, page);
}

/* The methods for files whose own methods are of version `version` (1 to 3): the same version, so that
   SQLite asks this file for nothing (shared memory, memory mapping) the real one cannot do. */
#define GATHERING_METHODS(version)                                                                         \
    {version,        gatherClose,       gatherRead,      gatherWrite,        gatherTruncate,                \
     gatherSync,     gatherFileSize,    gatherLock,      gatherUnlock,       gatherCheckReservedLock,       \
     gatherFileControl, gatherSectorSize, gatherDeviceCharacteristics, gatherShmMap, gatherShmLock,       \
     gatherShmBarrier, gatherShmUnmap,  gatherFetch,     gatherUnfetch}
static const sqlite3_io_methods gatheringMethods[3] = {GATHERING_METHODS(1), GATHERING_METHODS(2), GATHERING_METHODS(3)};

static int gatherOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    GatheringFile *gathering = (GatheringFile *)file;
    memset(gathering, 0, sizeof(GatheringFile));
    gathering->real = (sqlite3_file *)&gathering[1];
    int rc = realVFS->xOpen(realVFS, name, gathering->real, flags, outFlags);
    if (gathering->real->pMethods == 0) return rc; /* nothing to close: SQLite calls no method of this file */
    int version = gathering->real->pMethods->iVersion;
    gathering->base.pMethods = &gatheringMethods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
    gathering->isWAL = (flags & SQLITE_OPEN_WAL) != 0;
    return rc;
}

static int gatherDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return realVFS->xDelete(realVFS, name, syncDirectory);
}

static int gatherAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return realVFS->xAccess(realVFS, name, flags, out);
}

static int gatherFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, out);
}

static void *gatherDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return realVFS->xDlOpen(realVFS, name);
}

static void gatherDlError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    realVFS->xDlError(realVFS, size, out);
}

static void (*gatherDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return realVFS->xDlSym(realVFS, handle, symbol);
}

static void gatherDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    realVFS->xDlClose(realVFS, handle);
}

static int gatherRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return realVFS->xRandomness(realVFS, size, out);
}

static int gatherSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return realVFS->xSleep(realVFS, microseconds);
}

static int gatherCurrentTime(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return realVFS->xCurrentTime(realVFS, out);
}

static int gatherGetLastError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return realVFS->xGetLastError ? realVFS->xGetLastError(realVFS, size, out) : 0;
}

static int gatherCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    if (realVFS->iVersion >= 2 && realVFS->xCurrentTimeInt64) return realVFS->xCurrentTimeInt64(realVFS, out);
    double now = 0;
    int rc = realVFS->xCurrentTime(realVFS, &now);
    *out = (sqlite3_int64)(now * 86400000.0);
    return rc;
}

static int registered = SQLITE_ERROR;
static pthread_once_t registering = PTHREAD_ONCE_INIT;

static void registerOnce(void) {
    registered = sqlite3_initialize();
    if (registered != SQLITE_OK) return;
    realVFS = sqlite3_vfs_find(0);
    if (realVFS == 0) {
        registered = SQLITE_ERROR;
        return;
    }
    gatheringVFS.iVersion = 2;
    gatheringVFS.szOsFile = (int)sizeof(GatheringFile) + realVFS->szOsFile;
    gatheringVFS.mxPathname = realVFS->mxPathname;
    gatheringVFS.zName = liststore_wal_writes_vfs_name;
    gatheringVFS.xOpen = gatherOpen;
    gatheringVFS.xDelete = gatherDelete;
    gatheringVFS.xAccess = gatherAccess;
    gatheringVFS.xFullPathname = gatherFullPathname;
    gatheringVFS.xDlOpen = gatherDlOpen;
    gatheringVFS.xDlError = gatherDlError;
    gatheringVFS.xDlSym = gatherDlSym;
    gatheringVFS.xDlClose = gatherDlClose;
    gatheringVFS.xRandomness = gatherRandomness;
    gatheringVFS.xSleep = gatherSleep;
    gatheringVFS.xCurrentTime = gatherCurrentTime;
    gatheringVFS.xGetLastError = gatherGetLastError;
    gatheringVFS.xCurrentTimeInt64 = gatherCurrentTimeInt64;
    registered = sqlite3_vfs_register(&gatheringVFS, 0);
}

int liststore_wal_writes_register(void) {
    pthread_once(&registering, registerOnce);
    return registered;
}
