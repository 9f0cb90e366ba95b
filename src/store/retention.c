/*
 * retention.c - keeping a recording within bounds while it is written:
 * down-sampling old samples (every sample for the last `full` seconds, one
 * in `step` ticks before that), and dropping the oldest stretch, from one
 * keyframe to the next, past an age or size bound. Events, faults, IB
 * readings (sparse already, and what keyframes are predicted from) and the
 * audit trail are never down-sampled; the audit trail (`actions`) is never
 * dropped. Runs in the recorder's transaction: down-sampling a slice of a
 * window's chunks a tick (retention_step, one window at a time, at twice
 * the pace windows come), dropping once a closed window's chunks are all
 * written (retention_run); slices.c says when.
 */
#include <stdio.h>
#include <string.h>
#include "recorder.h"

#define MAX_PER_NODE 32

void retention_default(struct retention *r)
{
	r->full_ticks = 6 * 3600;
	r->coarse_step = 10;
	r->max_age = 7 * 86400;
	r->max_bytes = 4LL << 30;
}

static int parse_size(const char *v, int64_t *out)
{
	size_t n = strlen(v);
	int shift = 0;

	if (n && strchr("kKmMgG", v[n - 1])) {
		shift = strchr("kK", v[n - 1]) ? 10 : strchr("mM", v[n - 1]) ? 20 : 30;
		n--;
	}
	if (parse_i64(v, n, out) < 0 || *out < 0 || *out > (INT64_MAX >> 30))
		return -1;
	*out <<= shift;
	return 0;
}

int retention_parse(struct retention *r, const char *text, char **err)
{
	struct retention t = *r;
	char *copy = xstrdup(text), *save = NULL;

	for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		int64_t v = -1;
		int bad;

		if (!eq) {
			*err = xasprintf("retention: \"%s\" is not key=value", kv);
			free(copy);
			return -1;
		}
		*eq++ = '\0';
		bad = parse_size(eq, &v) < 0;
		if (!bad && !strcmp(kv, "full"))
			t.full_ticks = v;
		else if (!bad && !strcmp(kv, "step") && v >= 1)
			t.coarse_step = v;
		else if (!bad && !strcmp(kv, "age"))
			t.max_age = v;
		else if (!bad && !strcmp(kv, "size"))
			t.max_bytes = v;
		else if (!bad && !strcmp(kv, "keyframe") && v >= 1)
			t.keyframe_ticks = v;
		else {
			*err = xasprintf("retention: bad %s=%s (keys: full, step, age, size, keyframe)", kv, eq);
			free(copy);
			return -1;
		}
	}
	free(copy);
	*r = t;
	return 0;
}

struct keep_ctx {
	int64_t step;
};

static int keep_tick(void *ctx, int64_t tick)
{
	return tick % ((struct keep_ctx *)ctx)->step == 0;
}

/* Re-encodes one chunk keeping one tick in step. */
static int downsample_row(struct rec *r, sqlite3_stmt *up, int kind, int64_t t0, int32_t node, const void *blob,
			  int len)
{
	struct window w;
	struct arena a = {0};
	const char **srcs = NULL;
	int nsrcs = 0, rc = -1;
	struct keep_ctx kc = {r->ret.coarse_step};

	window_init(&w, kind, 1, MAX_PER_NODE);
	if (chunk_decode(w.s, MAX_PER_NODE, kind, t0, blob, (size_t)len, &a, &srcs, &nsrcs) == 0) {
		int64_t rows = 0;

		for (int32_t i = 0; i < MAX_PER_NODE; i++) {
			const struct series *s = window_series(&w, 0, i);

			for (int32_t k = 0; k < s->n; k++)
				rows += keep_tick(&kc, s->tick[k]);
		}
		sbuf_reset(&r->buf2);
		chunk_encode(&r->buf2, &w, 0, t0, srcs, keep_tick, &kc);
		sqlite3_bind_blob(up, 1, r->buf2.s, (int)r->buf2.len, SQLITE_STATIC);
		sqlite3_bind_int64(up, 2, rows);
		sqlite3_bind_int64(up, 3, kc.step);
		sqlite3_bind_text(up, 4, pack_kind_name(kind), -1, SQLITE_STATIC);
		sqlite3_bind_int64(up, 5, t0);
		sqlite3_bind_int(up, 6, node);
		rc = rec_step(r, up, "retention");
	}
	window_free(&w);
	arena_free(&a);
	return rc;
}

/* A group's share of down-sampling: up to n chunks of the oldest window
 * kept in full that is past `full`. Every window before ds_from is
 * down-sampled already: the search starts there, not at the first window. */
void retention_step(struct rec *r, int n)
{
	int64_t before = r->group + 1 - r->ret.full_ticks, t0;
	sqlite3_stmt *q = NULL, *up = NULL;
	char sql[192];

	if (r->ret.coarse_step <= 1 || before <= 0 || n <= 0)
		return;
	snprintf(sql, sizeof sql, "SELECT min(t0) FROM samples WHERE t0 >= %lld AND t0 < %lld AND kind = 'gpu' AND step = 1"
		 " AND t1 <= %lld", (long long)r->ds_from, (long long)before, (long long)before);
	if ((t0 = db_i64(r->db, sql, -1)) < 0)
		return;
	r->ds_from = t0;
	if (sqlite3_prepare_v2(r->db, "SELECT kind, node, data FROM samples WHERE t0 = ? AND kind = 'gpu' AND step = 1 LIMIT ?",
			       -1, &q, NULL) ||
	    sqlite3_prepare_v2(r->db, "UPDATE samples SET data = ?, rows = ?, step = ? WHERE kind = ? AND t0 = ? AND node = ?",
			       -1, &up, NULL)) {
		rec_fail(r, "retention");
		goto out;
	}
	sqlite3_bind_int64(q, 1, t0);
	sqlite3_bind_int(q, 2, n);
	while (sqlite3_step(q) == SQLITE_ROW && !r->failed) {
		int kind = !strcmp((const char *)sqlite3_column_text(q, 0), "gpu") ? PK_GPU : PK_IB;

		downsample_row(r, up, kind, t0, sqlite3_column_int(q, 1), sqlite3_column_blob(q, 2),
			       sqlite3_column_bytes(q, 2));
	}
out:
	sqlite3_finalize(q);
	sqlite3_finalize(up);
}

/* Drops everything before the newest keyframe at or before `before`,
 * keeping the samples of the KF_PRED_TICKS ticks its prediction needs, in
 * tail rows from where their IB readings start over (TAIL_IB_TICKS: the
 * rows after it are relative to it). */
static void drop_before(struct rec *r, int64_t before)
{
	char sql[1024];
	int64_t first = MAX(db_i64(r->db, "SELECT min(tick) FROM ticks", -1), db_meta_i64(r->db, "first_tick", -1)), k;

	snprintf(sql, sizeof sql, "SELECT max(tick) FROM keyframes WHERE tick <= %lld", (long long)before);
	k = db_i64(r->db, sql, -1);
	if (k <= first || k < 0)
		return;
	snprintf(sql, sizeof sql,
		 "DELETE FROM events WHERE id < %1$lld * 4294967296; DELETE FROM ticks WHERE tick < %2$lld;"
		 "DELETE FROM tail WHERE tick < %3$lld; DELETE FROM samples WHERE t1 <= %2$lld;"
		 "DELETE FROM keyframes WHERE tick < %1$lld; DELETE FROM faults WHERE tick < %1$lld;"
		 "DELETE FROM kfstatic WHERE digest NOT IN (SELECT static FROM keyframes);"
		 "INSERT OR REPLACE INTO meta(key, value) VALUES('first_tick', %1$lld);"
		 "PRAGMA incremental_vacuum;",
		 (long long)k, (long long)(k - KF_PRED_TICKS),
		 (long long)(MAX(k - KF_PRED_TICKS, 0) / TAIL_IB_TICKS * TAIL_IB_TICKS));
	if (db_exec(r->db, sql, NULL) < 0)
		rec_fail(r, "retention");
}

static int64_t used_bytes(sqlite3 *db)
{
	return (db_i64(db, "PRAGMA page_count", 0) - db_i64(db, "PRAGMA freelist_count", 0)) *
	       db_i64(db, "PRAGMA page_size", 4096);
}

void retention_run(struct rec *r)
{
	if (!r->failed && r->ret.max_age > 0 && r->group + 1 > r->ret.max_age)
		drop_before(r, r->group + 1 - r->ret.max_age);
	if (!r->failed && r->ret.max_bytes > 0 && used_bytes(r->db) > r->ret.max_bytes) {
		int64_t next = db_i64(r->db, "SELECT min(tick) FROM keyframes WHERE tick > max((SELECT min(tick) FROM ticks),"
					     " coalesce((SELECT value FROM meta WHERE key = 'first_tick'), 0))", -1);

		if (next > 0)
			drop_before(r, next);
	}
}
