/*
 * faultvfs.c - a SQLite VFS that makes the disk fail on demand (see
 * faultvfs.h): a shim over the default VFS whose files pass every call on
 * to the real file, but writes, syncs and truncations that the current plan
 * says must fail return its error instead and change nothing on disk.
 */
#include <stdio.h>
#include <string.h>
#include "faultvfs.h"

struct ffile {
	sqlite3_file base;
	sqlite3_file *real;          /* right after this struct */
	char name[256];
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fvfs;
static struct faultvfs_plan plan;
static int armed;
static long seen[8], failures;
static char file_text[256], during_text[128], current_sql[512];

#define REAL(f) (((struct ffile *)(f))->real)

/* Whether this call (op on file f) fails; counts it either way. */
static int fails(sqlite3_file *f, unsigned op)
{
	const struct ffile *ff = (const struct ffile *)f;

	seen[op]++;
	if (!armed || !(plan.ops & op) || (file_text[0] && !strstr(ff->name, file_text)))
		return 0;
	if (during_text[0] && !strstr(current_sql, during_text))
		return 0;
	if (plan.after > 0) {
		plan.after--;
		return 0;
	}
	failures++;
	if (plan.once)
		armed = 0;
	return 1;
}

static int f_close(sqlite3_file *f)
{
	int rc = REAL(f)->pMethods->xClose(REAL(f));

	f->pMethods = NULL;
	return rc;
}

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	if (fails(f, FV_WRITE))
		return plan.code;
	return REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	if (fails(f, FV_TRUNCATE))
		return plan.code;
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	if (fails(f, FV_SYNC))
		return plan.code;
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int f_lock(sqlite3_file *f, int lock)
{
	return REAL(f)->pMethods->xLock(REAL(f), lock);
}

static int f_unlock(sqlite3_file *f, int lock)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), lock);
}

static int f_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int f_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int f_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int f_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int f_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, out);
}

static int f_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int f_shm_unmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

static int f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **out)
{
	return REAL(f)->pMethods->xFetch(REAL(f), off, n, out);
}

static int f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods methods = {
	3, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock, f_reserved, f_control,
	f_sector, f_device, f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch, f_unfetch,
};

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct ffile *ff = (struct ffile *)f;
	int rc;

	(void)vfs;
	ff->real = (sqlite3_file *)(ff + 1);
	snprintf(ff->name, sizeof ff->name, "%s", name ? name : "");
	rc = real_vfs->xOpen(real_vfs, name, ff->real, flags, out);
	/* The wrapper has the methods of the real file's version (unix: 3). */
	f->pMethods = ff->real->pMethods ? &methods : NULL;
	return rc;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int sync)
{
	(void)vfs;
	return real_vfs->xDelete(real_vfs, name, sync);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int v_full(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return real_vfs->xFullPathname(real_vfs, name, n, out);
}

static void *v_dlopen(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xDlOpen(real_vfs, name);
}

static void v_dlerror(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	real_vfs->xDlError(real_vfs, n, out);
}

static void (*v_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return real_vfs->xDlSym(real_vfs, h, sym);
}

static void v_dlclose(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	real_vfs->xDlClose(real_vfs, h);
}

static int v_random(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return real_vfs->xRandomness(real_vfs, n, out);
}

static int v_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return real_vfs->xSleep(real_vfs, us);
}

static int v_time(sqlite3_vfs *vfs, double *out)
{
	(void)vfs;
	return real_vfs->xCurrentTime(real_vfs, out);
}

static int v_lasterror(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return real_vfs->xGetLastError(real_vfs, n, out);
}

static int v_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
	(void)vfs;
	return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

static int v_set_syscall(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr p)
{
	(void)vfs;
	return real_vfs->xSetSystemCall(real_vfs, name, p);
}

static sqlite3_syscall_ptr v_get_syscall(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xGetSystemCall(real_vfs, name);
}

static const char *v_next_syscall(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xNextSystemCall(real_vfs, name);
}

static int on_statement(unsigned type, void *ctx, void *stmt, void *sql)
{
	(void)ctx;
	(void)stmt;
	if (type == SQLITE_TRACE_STMT)
		snprintf(current_sql, sizeof current_sql, "%s", (const char *)sql);
	return 0;
}

/* Every connection opened while installed: its statements are watched. */
static int watch(sqlite3 *db, char **err, const struct sqlite3_api_routines *api)
{
	(void)err;
	(void)api;
	sqlite3_trace_v2(db, SQLITE_TRACE_STMT, on_statement, NULL);
	return SQLITE_OK;
}

void faultvfs_install(void)
{
	if (real_vfs)
		return;
	sqlite3_initialize();
	real_vfs = sqlite3_vfs_find(NULL);
	fvfs = (sqlite3_vfs){
		.iVersion = 3,
		.szOsFile = (int)sizeof(struct ffile) + real_vfs->szOsFile,
		.mxPathname = real_vfs->mxPathname,
		.zName = "myriad-test-faulty",
		.xOpen = v_open,
		.xDelete = v_delete,
		.xAccess = v_access,
		.xFullPathname = v_full,
		.xDlOpen = v_dlopen,
		.xDlError = v_dlerror,
		.xDlSym = v_dlsym,
		.xDlClose = v_dlclose,
		.xRandomness = v_random,
		.xSleep = v_sleep,
		.xCurrentTime = v_time,
		.xGetLastError = v_lasterror,
		.xCurrentTimeInt64 = v_time64,
		.xSetSystemCall = v_set_syscall,
		.xGetSystemCall = v_get_syscall,
		.xNextSystemCall = v_next_syscall,
	};
	memset(seen, 0, sizeof seen);
	faultvfs_heal();
	sqlite3_vfs_register(&fvfs, 1);
	sqlite3_auto_extension((void (*)(void))watch);
}

void faultvfs_uninstall(void)
{
	if (!real_vfs)
		return;
	sqlite3_cancel_auto_extension((void (*)(void))watch);
	sqlite3_vfs_unregister(&fvfs);
	sqlite3_vfs_register(real_vfs, 1);
	real_vfs = NULL;
}

void faultvfs_fail(const struct faultvfs_plan *p)
{
	plan = *p;
	snprintf(file_text, sizeof file_text, "%s", p->file ? p->file : "");
	snprintf(during_text, sizeof during_text, "%s", p->during ? p->during : "");
	plan.file = plan.during = NULL;
	failures = 0;
	armed = 1;
}

void faultvfs_heal(void)
{
	armed = 0;
}



long faultvfs_calls(unsigned ops)
{
	long n = 0;

	for (unsigned op = 1; op < 8; op <<= 1)
		if (ops & op)
			n += seen[op];
	return n;
}

long faultvfs_failures(void)
{
	return failures;
}
