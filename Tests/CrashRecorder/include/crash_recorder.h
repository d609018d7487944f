/* Tests only: a VFS over the default one that records what reaches the files, for crash-state tests. */
#ifndef CRASH_RECORDER_H
#define CRASH_RECORDER_H

#include <stdint.h>

/* What one recorded call did to a file. */
enum crash_recorder_kind {
    CRASH_RECORDER_WRITE = 1,    /* `length` bytes of `data` at `offset` */
    CRASH_RECORDER_TRUNCATE = 2, /* the file cut to `offset` bytes */
    CRASH_RECORDER_SYNC = 3,     /* the file's writes so far made durable */
    CRASH_RECORDER_DELETE = 4,   /* the file removed */
    CRASH_RECORDER_MARK = 5      /* not a file call: the test's marker `offset` (a commit returned) */
};

typedef struct crash_recorder_operation {
    int kind;
    int file; /* the index of the file's path (crash_recorder_file_name); -1 for a mark */
    int64_t offset;
    int64_t length;
    const unsigned char *data;
} crash_recorder_operation;

/* Registers the recorder as SQLite's default VFS, over the one that was the default; once. SQLITE_OK or an error. */
int crash_recorder_install(void);
/* Starts recording the calls on files whose path begins with `directory`, forgetting an earlier recording. */
void crash_recorder_begin(const char *directory);
/* Stops recording; what was recorded stays readable until the next begin. */
void crash_recorder_end(void);
/* Records a marker among the file calls. */
void crash_recorder_mark(int64_t value);
/* How many operations were recorded. */
int64_t crash_recorder_count(void);
/* The operation at `index`; 0 when there is none. Its data stays valid until the next begin. */
int crash_recorder_operation_at(int64_t index, crash_recorder_operation *operation);
/* The path of file `index`, or NULL. */
const char *crash_recorder_file_name(int index);

#endif
