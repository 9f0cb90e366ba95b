/*
 * query.c - store_query: read-only SQL on the current recording (the one
 * being replayed, else the one being written), on a connection of its own
 * so that a query never sees or disturbs an open transaction.
 */
#include "store_int.h"

struct qctx {
	int (*fn)(void *ctx, int ncols, char **names, char **values);
	void *ctx;
};

static int on_row(void *ctx, int n, char **values, char **names)
{
	struct qctx *q = ctx;

	return q->fn ? q->fn(q->ctx, n, names, values) : 0;
}

int store_query(struct myriad *app, const char *sql,
		int (*fn)(void *ctx, int ncols, char **names, char **values), void *ctx, char **err)
{
	const char *path = replay_path(app);
	sqlite3 *db = NULL;
	char *msg = NULL;
	struct qctx q = {fn, ctx};
	int rc;

	if (!path)
		path = recorder_path(app);
	if (!path) {
		*err = xstrdup("no recording: not recording and not replaying");
		return -1;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		*err = db_errmsg(db, path);
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 1000);
	rc = sqlite3_exec(db, "PRAGMA query_only=1", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, on_row, &q, &msg);
	if (rc != SQLITE_OK) {
		*err = xstrdup(msg ? msg : rc == SQLITE_ABORT ? "query stopped" : sqlite3_errmsg(db));
		sqlite3_free(msg);
		sqlite3_close(db);
		return -1;
	}
	sqlite3_close(db);
	return 0;
}
