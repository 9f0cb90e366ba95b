/*
 * fuzz_recording.c - libFuzzer target for the readers of a recording: the
 * replay (keyframes, chunks, tail rows, events) and the exports. A small
 * real recording is made once; each input is a list of edits to its rows
 * (SQLite's format stays valid, the rows and blobs do not), and the damaged
 * file is replayed to several ticks, stepped back, and exported in every
 * format. Readers must give an error or skip what is damaged, and never
 * size an allocation from a damaged number: run with -malloc_limit_mb.
 *
 * One edit is: table (1 byte), row (2), column (1), what (1), then its
 * operand: an int64 (8 bytes), a small int (1), a blob offset and byte (3),
 * a length (2), or a count and bytes (1 + n).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "myriad.h"
#include "store/store.h"
#include "store/store_int.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char tmpl[64], work[64];
static const char *const tables[] = {"samples", "tail", "keyframes", "kfstatic", "ticks", "events",
				     "meta", "nodes", "faults", "actions"};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct myriad app;
	char *err = NULL;

	(void)argc, (void)argv;
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";   /* no journal on tmpfs */

	snprintf(tmpl, sizeof tmpl, "%s/fuzz-rec-%d.db", dir, (int)getpid());
	snprintf(work, sizeof work, "%s/fuzz-rec-%d-w.db", dir, (int)getpid());
	unlink(tmpl);
	app_init(&app);
	/* faults, jobs, IB readings; 80 ticks: a closed window and a tail */
	if (app_add_source(&app, "sim", "gpus=32,seed=3,accel=5000", &err) < 0 ||
	    recorder_open(&app, tmpl, &err) < 0) {
		fprintf(stderr, "fuzz_recording: %s\n", err);
		abort();
	}
	for (int i = 0; i < 80; i++)
		app_tick(&app);
	recorder_close(&app);
	app_free(&app);
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;

	if (!in || !out)
		abort();
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return fclose(out);
}

static const uint8_t *take(const uint8_t **p, const uint8_t *end, size_t n)
{
	const uint8_t *q = *p;

	if ((size_t)(end - q) < n)
		return NULL;
	*p += n;
	return q;
}

/* The name of column c of table t, in buf; the key expression in key. */
static int column(sqlite3 *db, const char *t, int c, char *buf, size_t len)
{
	char sql[128];
	sqlite3_stmt *st;
	int n = 0, ok = -1;

	snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", t);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW)
		n++;
	sqlite3_reset(st);
	for (int i = 0; n && sqlite3_step(st) == SQLITE_ROW; i++)
		if (i == c % n) {
			snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 1));
			ok = 0;
			break;
		}
	sqlite3_finalize(st);
	return ok;
}

static void edit(sqlite3 *db, const uint8_t **p, const uint8_t *end)
{
	const uint8_t *h = take(p, end, 5), *o;
	const char *t, *key;
	char col[64], sql[256];
	sqlite3_stmt *st = NULL;

	if (!h)
		return;
	t = tables[h[0] % ARRAY_LEN(tables)];
	key = !strcmp(t, "meta") ? "key" : "rowid";
	if (column(db, t, h[3], col, sizeof col) < 0)
		return;
	/* the row: the k-th of the table */
	char where[160];

	snprintf(where, sizeof where, "%s = (SELECT %s FROM %s ORDER BY %s LIMIT 1 OFFSET (%d %% max(1, (SELECT count(*) FROM %s))))",
		 key, key, t, key, h[1] | h[2] << 8, t);
	switch (h[4] % 8) {
	case 0:   /* any int64 */
		if (!(o = take(p, end, 8)))
			return;
		snprintf(sql, sizeof sql, "UPDATE %s SET %s = ? WHERE %s", t, col, where);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
			int64_t v;

			memcpy(&v, o, 8);
			sqlite3_bind_int64(st, 1, v);
		}
		break;
	case 1:   /* a small int, and the edges */
		if (!(o = take(p, end, 1)))
			return;
		snprintf(sql, sizeof sql, "UPDATE %s SET %s = ? WHERE %s", t, col, where);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
			static const int64_t edge[] = {0, -1, 1, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 2000000000};

			sqlite3_bind_int64(st, 1, o[0] < 8 ? edge[o[0]] : (int64_t)(int8_t)o[0]);
		}
		break;
	case 2:   /* flip a byte of a blob */
		if (!(o = take(p, end, 3)))
			return;
		snprintf(sql, sizeof sql, "UPDATE %s SET %s = substr(%s, 1, ?1) || CAST(char(unicode(substr(CAST(%s AS BLOB), ?1 + 1, 1)) # ?2) AS BLOB) || substr(%s, ?1 + 2) WHERE %s",
			 t, col, col, col, col, where);
		if (strlen(sql) < sizeof sql - 1 && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int(st, 1, o[0] | o[1] << 8);
			sqlite3_bind_int(st, 2, o[2] ? o[2] : 1);
		}
		break;
	case 3:   /* truncate */
		if (!(o = take(p, end, 2)))
			return;
		snprintf(sql, sizeof sql, "UPDATE %s SET %s = substr(%s, 1, ?) WHERE %s", t, col, col, where);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
			sqlite3_bind_int(st, 1, o[0] | o[1] << 8);
		break;
	case 4:   /* NULL */
		snprintf(sql, sizeof sql, "UPDATE %s SET %s = NULL WHERE %s", t, col, where);
		sqlite3_prepare_v2(db, sql, -1, &st, NULL);
		break;
	case 5:   /* bytes */
	case 6: {
		const uint8_t *n = take(p, end, 1), *b = n ? take(p, end, n[0] % 64) : NULL;

		if (!b)
			return;
		snprintf(sql, sizeof sql, "UPDATE %s SET %s = ? WHERE %s", t, col, where);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
			if (h[4] % 8 == 5)
				sqlite3_bind_blob(st, 1, b, n[0] % 64, SQLITE_TRANSIENT);
			else
				sqlite3_bind_text(st, 1, (const char *)b, n[0] % 64, SQLITE_TRANSIENT);
		}
		break;
	}
	default:   /* the row goes */
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s", t, where);
		sqlite3_prepare_v2(db, sql, -1, &st, NULL);
		break;
	}
	if (st)
		sqlite3_step(st);
	sqlite3_finalize(st);
}

static void replay(const char *path)
{
	struct myriad app;
	char *err = NULL;
	int64_t g = 0;

	app_init(&app);
	if (replay_open(&app, path, &err) == 0) {
		static const int64_t at[] = {0, 30, 59, 60, 75, INT64_MAX / 2, 10, -1};

		for (size_t i = 0; i < ARRAY_LEN(at); i++) {
			if (replay_goto(&app, at[i], &err) < 0 && !err)
				__builtin_trap();   /* an error says what */
			free(err);
			err = NULL;
		}
		if (replay_position(&app, &g) == 0 && replay_step(&app, -3, &err) < 0 && !err)
			__builtin_trap();
	} else if (!err) {
		__builtin_trap();
	}
	free(err);
	app_free(&app);
}

static void export(const char *path)
{
	static const char *const tabs[] = {"gpu", "ib", "events"};
	struct reader r;
	char *err = NULL, *warn = NULL;
	FILE *out = fopen("/dev/null", "w");

	if (reader_open(&r, path, &warn, &err) == 0) {
		for (int f = 0; f < 3; f++)
			for (int k = 0; k < (f == EXPORT_CSV ? 3 : 1); k++) {
				/* the end of the closed window and the start of the tail */
				struct export_opts o = {(enum export_fmt)f, tabs[k], 55, 65, NULL};

				if (export_log(&r, &o, out, &err) < 0 && !err)
					__builtin_trap();
				free(err);
				err = NULL;
			}
		reader_close(&r);
	}
	free(err);
	free(warn);
	fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	sqlite3 *db;

	copy_file(tmpl, work);
	if (sqlite3_open(work, &db) != SQLITE_OK)
		abort();
	sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", NULL, NULL, NULL);
	for (int i = 0; i < 32 && p < end; i++)
		edit(db, &p, end);
	sqlite3_close(db);
	replay(work);
	export(work);
	return 0;
}
