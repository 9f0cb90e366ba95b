/*
 * db.c - the log's schema, its forward migrations, opening a log, and small
 * SQLite helpers. man/myriad-log.5 documents the tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "store_int.h"

#define PAGE_SIZE 1024

/* Version 1: the recording itself. */
static const char schema_v1[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
	"CREATE TABLE nodes(node INTEGER PRIMARY KEY, name TEXT NOT NULL, su INTEGER, rack INTEGER, gpus INTEGER);"
	"CREATE TABLE ticks(tick INTEGER PRIMARY KEY, time INTEGER NOT NULL, num INTEGER, source TEXT,"
	" events INTEGER NOT NULL, layout BLOB);"
	"CREATE INDEX ticks_time ON ticks(time);"
	"CREATE TABLE events(id INTEGER PRIMARY KEY, tick INTEGER NOT NULL, seq INTEGER NOT NULL,"
	" time INTEGER NOT NULL, type TEXT NOT NULL, node INTEGER, source TEXT NOT NULL, data TEXT NOT NULL);"
	"CREATE TABLE samples(kind TEXT NOT NULL, t0 INTEGER NOT NULL, node INTEGER NOT NULL, t1 INTEGER NOT NULL,"
	" rows INTEGER NOT NULL, step INTEGER NOT NULL DEFAULT 1, data BLOB NOT NULL, PRIMARY KEY(t0, kind, node));"
	"CREATE TABLE tail(tick INTEGER PRIMARY KEY, data BLOB NOT NULL);"
	"CREATE TABLE keyframes(tick INTEGER PRIMARY KEY, time INTEGER NOT NULL, hash TEXT NOT NULL,"
	" static INTEGER NOT NULL, data BLOB NOT NULL);"
	"CREATE TABLE kfstatic(digest INTEGER PRIMARY KEY, data BLOB NOT NULL);"
	"CREATE TABLE actions(id INTEGER PRIMARY KEY, tick INTEGER, time INTEGER NOT NULL, action INTEGER,"
	" phase TEXT, ok INTEGER, dry_run INTEGER, verb TEXT, target TEXT, args TEXT, who TEXT, detail TEXT,"
	" source TEXT);";

/* Forward migrations: migrations[v] takes a file from version v to v + 1. */
static const char *const migrations[SCHEMA_VERSION] = {
	[1] = "CREATE TABLE faults(id INTEGER PRIMARY KEY, fault INTEGER NOT NULL, tick INTEGER NOT NULL,"
	      " time INTEGER NOT NULL, node INTEGER, gpu INTEGER, kind TEXT, code INTEGER, severity TEXT,"
	      " text TEXT, action TEXT);"
	      "CREATE INDEX faults_tick ON faults(tick);",
	[2] = "ALTER TABLE actions ADD COLUMN status TEXT;",
};

char *db_errmsg(sqlite3 *db, const char *what)
{
	int code = db ? sqlite3_errcode(db) : SQLITE_ERROR;

	if (code == SQLITE_FULL)
		return xasprintf("%s: disk full", what);
	return xasprintf("%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

int db_exec(sqlite3 *db, const char *sql, char **err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	if (err)
		*err = sqlite3_errcode(db) == SQLITE_FULL ? xstrdup("disk full")
							  : xstrdup(msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

sqlite3_stmt *db_prep(sqlite3 *db, const char *sql, char **err)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		if (err && !*err)
			*err = db_errmsg(db, "prepare");
		return NULL;
	}
	return st;
}

int db_meta_set(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1, &st, NULL))
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int db_meta_set_i64(sqlite3 *db, const char *key, int64_t value)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1, &st, NULL))
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, value);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

char *db_meta_get(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st = NULL;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL))
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

int64_t db_i64(sqlite3 *db, const char *sql, int64_t dflt)
{
	sqlite3_stmt *st = NULL;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return dflt;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int64_t db_meta_i64(sqlite3 *db, const char *key, int64_t dflt)
{
	char *v = db_meta_get(db, key);
	int64_t x;

	if (!v || parse_i64(v, strlen(v), &x) < 0)
		x = dflt;
	free(v);
	return x;
}

int64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

const char *pack_kind_name(int kind)
{
	return kind == PK_GPU ? "gpu" : "ib";
}

int db_create_schema(sqlite3 *db, int version, char **err)
{
	if (db_exec(db, "BEGIN", err) < 0)
		return -1;
	if (db_exec(db, schema_v1, err) < 0)
		goto fail;
	for (int v = 1; v < version; v++)
		if (db_exec(db, migrations[v], err) < 0)
			goto fail;
	if (db_meta_set_i64(db, "schema_version", version) < 0 || db_meta_set(db, "created_by", "myriad " MYRIAD_VERSION) < 0)
		goto fail;
	return db_exec(db, "COMMIT", err);
fail:
	if (err && !*err)
		*err = db_errmsg(db, "creating the schema");
	db_exec(db, "ROLLBACK", NULL);
	return -1;
}

static int migrate(sqlite3 *db, int64_t from, char **err)
{
	if (db_exec(db, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	for (int64_t v = from; v < SCHEMA_VERSION; v++)
		if (db_exec(db, migrations[v], err) < 0) {
			db_exec(db, "ROLLBACK", NULL);
			return -1;
		}
	if (db_meta_set_i64(db, "schema_version", SCHEMA_VERSION) < 0) {
		*err = db_errmsg(db, "migration");
		db_exec(db, "ROLLBACK", NULL);
		return -1;
	}
	return db_exec(db, "COMMIT", err);
}

static int open_raw(const char *path, int flags, sqlite3 **db, char **err)
{
	if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
		*err = db_errmsg(*db, path);
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*db, 2000);
	return 0;
}

static int open_new(const char *path, sqlite3 **db, char **err)
{
	struct stat st;

	if (stat(path, &st) == 0 && st.st_size > 0) {
		*err = xasprintf("%s exists: a recording is never overwritten, choose another file", path);
		return -1;
	}
	if (open_raw(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, db, err) < 0)
		return -1;
	char sql[160];

	snprintf(sql, sizeof sql, "PRAGMA page_size=%d; PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL;",
		 PAGE_SIZE);
	if (db_exec(*db, sql, err) < 0 || db_create_schema(*db, SCHEMA_VERSION, err) < 0) {
		if (!*err)
			*err = db_errmsg(*db, path);
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}

static int check_version(const char *path, sqlite3 **db, int readonly, char **warn, char **err)
{
	int64_t v = db_meta_i64(*db, "schema_version", -1);

	if (v < 1) {
		*err = xasprintf("%s: not a myriad log (no schema_version in meta)", path);
		return -1;
	}
	if (v > SCHEMA_VERSION) {
		*warn = xasprintf("%s was written by a newer myriad (log schema %lld; this build knows up to %d): "
				  "opened read-only",
				  path, (long long)v, SCHEMA_VERSION);
		if (!readonly) {
			sqlite3_close(*db);
			return open_raw(path, SQLITE_OPEN_READONLY, db, err);
		}
		return 0;
	}
	if (v < SCHEMA_VERSION && (readonly || migrate(*db, v, err) < 0)) {
		free(*err);
		*err = NULL;
		*warn = xasprintf("%s has log schema %lld and could not be migrated to %d (read-only?): "
				  "some features are unavailable",
				  path, (long long)v, SCHEMA_VERSION);
	}
	return 0;
}

int store_can_read(const char *path, char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = fd < 0 ? errno : 0;
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		e = EISDIR;
	if (fd >= 0)
		close(fd);
	if (!e)
		return 0;
	*err = xasprintf("%s: cannot read it: %s", path, strerror(e));
	return -1;
}

int db_set_page_size(sqlite3 *db, int size, char **err)
{
	char sql[160];

	snprintf(sql, sizeof sql, "PRAGMA journal_mode=DELETE; PRAGMA page_size=%d; VACUUM; PRAGMA journal_mode=WAL;",
		 size);
	return db_exec(db, sql, err);
}

int db_open(const char *path, int create, int readonly, sqlite3 **db, char **warn, char **err)
{
	*db = NULL;
	*warn = NULL;
	if (create)
		return open_new(path, db, err);
	if (store_can_read(path, err) < 0)
		return -1;
	if (!readonly && access(path, W_OK) < 0)
		readonly = 1;
	if (open_raw(path, readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, db, err) < 0)
		return -1;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'meta'", -1, &st, NULL);
	int64_t metas = rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;

	if (metas != 1) {   /* SQLite's own word when it cannot read the file: "file is not a database" */
		*err = metas < 0 ? xasprintf("%s: not a myriad log: SQLite cannot read it: %s", path, sqlite3_errmsg(*db))
				 : xasprintf("%s: not a myriad log (an SQLite database without its tables)", path);
		sqlite3_finalize(st);
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	sqlite3_finalize(st);
	if (check_version(path, db, readonly, warn, err) < 0) {
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}
