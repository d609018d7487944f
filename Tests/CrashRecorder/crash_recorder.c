/* Tests only: a VFS over the default one that passes every call through and records, in order, each
   write, truncation, sync and deletion of the files under one folder, with the bytes written: what a
   crash-state test needs to rebuild the files as they stood after any of those calls. */

#include "crash_recorder.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

typedef struct RecordingFile {
    sqlite3_file base;
    sqlite3_file *real; /* the default VFS's file, right after this struct */
    char *path;         /* as opened; NULL for a temporary file */
} RecordingFile;

static sqlite3_vfs recordingVFS;
static sqlite3_vfs *realVFS;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static char *directory;
static crash_recorder_operation *operations;
static int64_t operationCount, operationCapacity;
static char **fileNames;
static int fileCount, fileCapacity;

static sqlite3_file *real(sqlite3_file *file) { return ((RecordingFile *)file)->real; }

/* The index of `path` when it is recorded; -1 otherwise. Called holding the mutex. */
static int recordedFile(const char *path) {
    if (directory == NULL || path == NULL || strncmp(path, directory, strlen(directory)) != 0) return -1;
    for (int i = 0; i < fileCount; i++)
        if (strcmp(fileNames[i], path) == 0) return i;
    if (fileCount == fileCapacity) {
        int capacity = fileCapacity ? fileCapacity * 2 : 8;
        char **grown = realloc(fileNames, sizeof(char *) * capacity);
        if (grown == NULL) return -1;
        fileNames = grown;
        fileCapacity = capacity;
    }
    fileNames[fileCount] = strdup(path);
    return fileNames[fileCount] ? fileCount++ : -1;
}

/* Appends an operation (copying `data`) when `path` is recorded, or `path` is NULL for a mark. */
static void record(int kind, const char *path, int64_t offset, const void *data, int64_t length) {
    pthread_mutex_lock(&mutex);
    int file = path ? recordedFile(path) : -1;
    if (directory != NULL && (file >= 0 || kind == CRASH_RECORDER_MARK)) {
        if (operationCount == operationCapacity) {
            int64_t capacity = operationCapacity ? operationCapacity * 2 : 1024;
            crash_recorder_operation *grown = realloc(operations, sizeof(crash_recorder_operation) * capacity);
            if (grown == NULL) abort(); /* a test that cannot record has nothing to check */
            operations = grown;
            operationCapacity = capacity;
        }
        unsigned char *copy = NULL;
        if (length > 0) {
            copy = malloc((size_t)length);
            if (copy == NULL) abort();
            memcpy(copy, data, (size_t)length);
        }
        operations[operationCount++] = (crash_recorder_operation){kind, file, offset, length, copy};
    }
    pthread_mutex_unlock(&mutex);
}

static int recordingClose(sqlite3_file *file) {
    RecordingFile *recording = (RecordingFile *)file;
    int rc = recording->real->pMethods ? recording->real->pMethods->xClose(recording->real) : SQLITE_OK;
    free(recording->path);
    recording->path = NULL;
    return rc;
}
static int recordingRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    return real(file)->pMethods->xRead(real(file), buffer, amount, offset);
}
static int recordingWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    int rc = real(file)->pMethods->xWrite(real(file), buffer, amount, offset);
    if (rc == SQLITE_OK) record(CRASH_RECORDER_WRITE, ((RecordingFile *)file)->path, offset, buffer, amount);
    return rc;
}
static int recordingTruncate(sqlite3_file *file, sqlite3_int64 size) {
    int rc = real(file)->pMethods->xTruncate(real(file), size);
    if (rc == SQLITE_OK) record(CRASH_RECORDER_TRUNCATE, ((RecordingFile *)file)->path, size, NULL, 0);
    return rc;
}
static int recordingSync(sqlite3_file *file, int flags) {
    int rc = real(file)->pMethods->xSync(real(file), flags);
    if (rc == SQLITE_OK) record(CRASH_RECORDER_SYNC, ((RecordingFile *)file)->path, 0, NULL, 0);
    return rc;
}
static int recordingFileSize(sqlite3_file *file, sqlite3_int64 *size) { return real(file)->pMethods->xFileSize(real(file), size); }
static int recordingLock(sqlite3_file *file, int lock) { return real(file)->pMethods->xLock(real(file), lock); }
static int recordingUnlock(sqlite3_file *file, int lock) { return real(file)->pMethods->xUnlock(real(file), lock); }
static int recordingCheckReservedLock(sqlite3_file *file, int *out) { return real(file)->pMethods->xCheckReservedLock(real(file), out); }
static int recordingFileControl(sqlite3_file *file, int op, void *arg) {
    int rc = real(file)->pMethods->xFileControl(real(file), op, arg);
    if (op == SQLITE_FCNTL_VFSNAME && rc == SQLITE_OK) *(char **)arg = sqlite3_mprintf("crash-recorder/%z", *(char **)arg);
    return rc;
}
static int recordingSectorSize(sqlite3_file *file) { return real(file)->pMethods->xSectorSize(real(file)); }
static int recordingDeviceCharacteristics(sqlite3_file *file) { return real(file)->pMethods->xDeviceCharacteristics(real(file)); }
static int recordingShmMap(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    return real(file)->pMethods->xShmMap(real(file), page, size, extend, out);
}
static int recordingShmLock(sqlite3_file *file, int offset, int n, int flags) { return real(file)->pMethods->xShmLock(real(file), offset, n, flags); }
static void recordingShmBarrier(sqlite3_file *file) { real(file)->pMethods->xShmBarrier(real(file)); }
static int recordingShmUnmap(sqlite3_file *file, int deleteFlag) { return real(file)->pMethods->xShmUnmap(real(file), deleteFlag); }
static int recordingFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    return real(file)->pMethods->xFetch(real(file), offset, amount, out);
}
static int recordingUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) { return real(file)->pMethods->xUnfetch(real(file), offset, pointer); }

static const sqlite3_io_methods recordingMethods = {
    3, recordingClose, recordingRead, recordingWrite, recordingTruncate, recordingSync, recordingFileSize, recordingLock, recordingUnlock,
    recordingCheckReservedLock, recordingFileControl, recordingSectorSize, recordingDeviceCharacteristics, recordingShmMap, recordingShmLock,
    recordingShmBarrier, recordingShmUnmap, recordingFetch, recordingUnfetch,
};

static int recordingOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    RecordingFile *recording = (RecordingFile *)file;
    memset(recording, 0, sizeof(RecordingFile));
    recording->real = (sqlite3_file *)&recording[1];
    int rc = realVFS->xOpen(realVFS, name, recording->real, flags, outFlags);
    if (recording->real->pMethods == NULL) return rc; /* failed: SQLite calls no method of this file */
    recording->path = name ? strdup(name) : NULL;
    /* Version 3 methods only where the real file has them (xShmMap and xFetch are optional). */
    file->pMethods = &recordingMethods;
    return rc;
}
static int recordingDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    int rc = realVFS->xDelete(realVFS, name, syncDirectory);
    if (rc == SQLITE_OK) record(CRASH_RECORDER_DELETE, name, 0, NULL, 0);
    return rc;
}
static int recordingAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) { (void)vfs; return realVFS->xAccess(realVFS, name, flags, out); }
static int recordingFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, out);
}
static void *recordingDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return realVFS->xDlOpen(realVFS, name); }
static void recordingDlError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; realVFS->xDlError(realVFS, size, out); }
static void (*recordingDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { (void)vfs; return realVFS->xDlSym(realVFS, handle, symbol); }
static void recordingDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; realVFS->xDlClose(realVFS, handle); }
static int recordingRandomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xRandomness(realVFS, size, out); }
static int recordingSleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return realVFS->xSleep(realVFS, microseconds); }
static int recordingCurrentTime(sqlite3_vfs *vfs, double *out) { (void)vfs; return realVFS->xCurrentTime(realVFS, out); }
static int recordingGetLastError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xGetLastError(realVFS, size, out); }
static int recordingCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) { (void)vfs; return realVFS->xCurrentTimeInt64(realVFS, out); }

int crash_recorder_install(void) {
    static int installed = SQLITE_ERROR;
    pthread_mutex_lock(&mutex);
    if (installed != SQLITE_OK) {
        realVFS = sqlite3_vfs_find(NULL);
        if (realVFS != NULL && realVFS->iVersion >= 2) {
            recordingVFS = *realVFS;
            recordingVFS.iVersion = 2;
            recordingVFS.szOsFile = (int)sizeof(RecordingFile) + realVFS->szOsFile;
            recordingVFS.zName = "crash-recorder";
            recordingVFS.pNext = NULL;
            recordingVFS.xOpen = recordingOpen;
            recordingVFS.xDelete = recordingDelete;
            recordingVFS.xAccess = recordingAccess;
            recordingVFS.xFullPathname = recordingFullPathname;
            recordingVFS.xDlOpen = recordingDlOpen;
            recordingVFS.xDlError = recordingDlError;
            recordingVFS.xDlSym = recordingDlSym;
            recordingVFS.xDlClose = recordingDlClose;
            recordingVFS.xRandomness = recordingRandomness;
            recordingVFS.xSleep = recordingSleep;
            recordingVFS.xCurrentTime = recordingCurrentTime;
            recordingVFS.xGetLastError = recordingGetLastError;
            recordingVFS.xCurrentTimeInt64 = recordingCurrentTimeInt64;
            installed = sqlite3_vfs_register(&recordingVFS, 1);
        }
    }
    pthread_mutex_unlock(&mutex);
    return installed;
}

void crash_recorder_begin(const char *folder) {
    pthread_mutex_lock(&mutex);
    for (int64_t i = 0; i < operationCount; i++) free((void *)operations[i].data);
    operationCount = 0;
    for (int i = 0; i < fileCount; i++) free(fileNames[i]);
    fileCount = 0;
    free(directory);
    directory = strdup(folder);
    pthread_mutex_unlock(&mutex);
}

void crash_recorder_end(void) {
    pthread_mutex_lock(&mutex);
    free(directory);
    directory = NULL;
    pthread_mutex_unlock(&mutex);
}

void crash_recorder_mark(int64_t value) { record(CRASH_RECORDER_MARK, NULL, value, NULL, 0); }

int64_t crash_recorder_count(void) {
    pthread_mutex_lock(&mutex);
    int64_t count = operationCount;
    pthread_mutex_unlock(&mutex);
    return count;
}

int crash_recorder_operation_at(int64_t index, crash_recorder_operation *operation) {
    pthread_mutex_lock(&mutex);
    int found = index >= 0 && index < operationCount;
    if (found) *operation = operations[index];
    pthread_mutex_unlock(&mutex);
    return found;
}

const char *crash_recorder_file_name(int index) {
    pthread_mutex_lock(&mutex);
    const char *name = index >= 0 && index < fileCount ? fileNames[index] : NULL;
    pthread_mutex_unlock(&mutex);
    return name;
}
