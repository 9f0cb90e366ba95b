/*
 * faultvfs.h - a SQLite VFS for the unit tests that makes the disk fail.
 *
 * faultvfs_install() registers it as the default VFS, so that every file
 * SQLite opens from then on (the recorder's log, its -wal and journal) goes
 * through it; it wraps the VFS that was the default (unix) and passes every
 * call on, except the ones a plan says must fail. A plan fails writes,
 * syncs or truncations (FV_WRITE | FV_SYNC | FV_TRUNCATE) of files whose
 * name holds a given text, with a given SQLite error (SQLITE_FULL,
 * SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC, ...), either from the call after
 * `after` more calls on (for good until faultvfs_heal, or once), or only
 * while the statement running holds a given text (an INSERT into one table,
 * COMMIT: the statements of every connection opened while it is installed
 * are watched). Counters say how many calls were seen and failed.
 */
#ifndef MYRIAD_TEST_FAULTVFS_H
#define MYRIAD_TEST_FAULTVFS_H

#include <sqlite3.h>

enum { FV_WRITE = 1, FV_SYNC = 2, FV_TRUNCATE = 4 };

struct faultvfs_plan {
	unsigned ops;           /* FV_* that fail */
	const char *file;       /* only files whose name holds this ("" or NULL: all) */
	long after;             /* that many matching calls succeed first */
	int code;               /* what the failing call returns */
	int once;               /* fail one call, then heal */
	const char *during;     /* only while the watched statement's SQL holds this */
};

void faultvfs_install(void);
void faultvfs_uninstall(void);
void faultvfs_fail(const struct faultvfs_plan *plan);
void faultvfs_heal(void);
long faultvfs_calls(unsigned ops);     /* since install */
long faultvfs_failures(void);          /* since the last faultvfs_fail */

#endif
