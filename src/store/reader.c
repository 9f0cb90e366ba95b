/*
 * reader.c - a recording back into events (see store_int.h): the ticks of
 * the log, each group's events in the order they were delivered (rows of
 * `events` at their seq, packed events from the window's chunks or, while
 * the window has tail rows, the tick's tail row, in the seqs between), and
 * keyframes into a model.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "evjson.h"
#include "keyframe.h"
#include "store_int.h"

static const char TICK_COLS[] = "SELECT tick, time, num, source, events FROM ticks ";
/* The ticks a recording can hold: an event's id is tick * 2^32 + seq. */
#define TICKS_SANE "tick BETWEEN 0 AND 2147483647"

/* Says once per damaged row (the same message) that it was skipped: through
 * on_bad when set, on stderr otherwise; past 64 rows, says so and stops. */
void reader_bad(struct reader *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	uint64_t h = 1469598103934665603ULL;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (const char *p = msg; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ULL;
	for (int i = 0; i < r->nbad && i < (int)ARRAY_LEN(r->bad_seen); i++)
		if (r->bad_seen[i] == h)
			return;
	if (r->nbad < (int)ARRAY_LEN(r->bad_seen))
		r->bad_seen[r->nbad] = h;
	else if (r->nbad > (int)ARRAY_LEN(r->bad_seen))
		return;
	else
		snprintf(msg, sizeof msg, "%s: more damaged rows are skipped without a word", r->path);
	r->nbad++;
	if (r->on_bad)
		r->on_bad(r->bad_ctx, msg);
	else
		fprintf(stderr, "myriad: %s\n", msg);
}

int reader_open(struct reader *r, const char *path, char **warn, char **err)
{
	static const char *const sql[] = {
		"SELECT tick, time, num, source, events FROM ticks WHERE tick = ?",
		("SELECT seq, time, type, source, data FROM events WHERE id >= ?1 * 4294967296 AND id < (?1 + 1) * 4294967296"
		 " ORDER BY id"),
		"SELECT kind, node, data, step, t1 FROM samples WHERE t0 = ?",
		"SELECT tick, data FROM tail WHERE tick <= ? ORDER BY tick DESC LIMIT 1",
		"SELECT tick, static, data, hash FROM keyframes WHERE tick <= ? ORDER BY tick DESC LIMIT 1",
		"SELECT data FROM kfstatic WHERE digest = ?",
		("SELECT t0, max(t1) FROM samples WHERE t0 = (SELECT max(t0) FROM samples WHERE t0 <= ?1)"
		 " AND t1 > t0 AND t1 - t0 <= ?2"),
		"SELECT 1 FROM tail WHERE tick >= ? AND tick < ? LIMIT 1",
		"SELECT tick, data FROM tail WHERE tick >= ? AND tick <= ? ORDER BY tick",
	};
	sqlite3_stmt **out[] = {&r->q_tick, &r->q_events, &r->q_chunks, &r->q_tail, &r->q_kf, &r->q_kfstatic,
				&r->q_window, &r->q_has_tail, &r->q_tail_rows};

	memset(r, 0, sizeof *r);
	if (db_open(path, 0, 0, &r->db, warn, err) < 0)
		return -1;
	r->w0 = r->w1 = -1;
	for (unsigned i = 0; i < ARRAY_LEN(sql); i++)
		if (!(*out[i] = db_prep(r->db, sql[i], err))) {
			reader_close(r);
			return -1;
		}
	r->path = xstrdup(path);
	r->kf = xcalloc(1, sizeof *r->kf);
	r->pred_k = -1;
	r->first = MAX(db_i64(r->db, "SELECT min(tick) FROM ticks WHERE " TICKS_SANE, 0),
		       db_meta_i64(r->db, "first_tick", 0));
	r->last = db_i64(r->db, "SELECT max(tick) FROM ticks WHERE " TICKS_SANE, -1);
	r->start_time = db_meta_i64(r->db, "start", db_i64(r->db, "SELECT min(time) FROM ticks", 0));
	int64_t chunk = db_meta_i64(r->db, "chunk_ticks", CHUNK_TICKS);
	r->nnodes = (int32_t)db_meta_i64(r->db, "nodes", 0);
	r->per_node[PK_GPU] = r->per_node[PK_IB] = (int32_t)db_meta_i64(r->db, "gpus_per_node", 8);
	if (r->first < 0 || r->first > 2147483647 || chunk < 1 || chunk > MAX_CHUNK_TICKS) {
		*err = xasprintf("%s: implausible first_tick or chunk_ticks in meta", path);
		reader_close(r);
		return -1;
	}
	r->chunk_ticks = (int)chunk;
	r->hash_version = (int)db_meta_i64(r->db, "hash_version", 1);
	if (r->nnodes < 0 || r->nnodes > 1 << 20 || r->per_node[0] < 1 || r->per_node[0] > 32) {
		*err = xasprintf("%s: implausible inventory in meta", path);
		reader_close(r);
		return -1;
	}
	for (int k = 0; k < PK_COUNT; k++)
		window_init(&r->win[k], k, r->nnodes, r->per_node[k]);
	r->srcs = xcalloc((size_t)r->nnodes * PK_COUNT + 1, sizeof *r->srcs);
	r->w0 = r->w1 = -1;
	r->kf_usable = 1;
	/* a recording's ticks follow each other from first to last */
	int64_t rows = db_i64(r->db, "SELECT count(*) FROM ticks WHERE tick >= (SELECT min(tick) FROM ticks WHERE "
			      TICKS_SANE ") AND " TICKS_SANE, 0);
	int64_t span = r->last - db_i64(r->db, "SELECT min(tick) FROM ticks WHERE " TICKS_SANE, 0) + 1;

	if (warn && r->last >= 0 && rows != span) {
		char *w = xasprintf("%s%s%s: %lld of the ticks %lld to %lld are missing (lost while the log could "
				    "not be written, or damaged)", *warn ? *warn : "", *warn ? "; " : "", path,
				    (long long)(span - rows), (long long)(r->last - span + 1), (long long)r->last);

		free(*warn);
		*warn = w;
	}
	return 0;
}

void reader_close(struct reader *r)
{
	sqlite3_stmt **all[] = {&r->q_tick, &r->q_events, &r->q_chunks, &r->q_tail, &r->q_kf, &r->q_kfstatic,
				&r->q_window, &r->q_has_tail, &r->q_tail_rows};

	for (unsigned i = 0; i < ARRAY_LEN(all); i++)
		sqlite3_finalize(*all[i]);
	sqlite3_close(r->db);
	for (int k = 0; k < PK_COUNT; k++)
		window_free(&r->win[k]);
	free(r->srcs);
	free(r->tsrcs);
	free(r->bucket);
	free(r->refs);
	free(r->lrefs);
	free(r->lay);
	free(r->path);
	if (r->kf)
		kf_scratch_free(r->kf);
	free(r->kf);
	free(r->pred_buf);
	chain_free(&r->chain);
	chain_free(&r->pchain);
	tail_scratch_free(&r->ts);
	free(r->tv.v32);
	free(r->tv.v64);
	arena_free(&r->w_arena);
	arena_free(&r->g_arena);
	memset(r, 0, sizeof *r);
}

void reader_refresh(struct reader *r)
{
	r->last = db_i64(r->db, "SELECT max(tick) FROM ticks WHERE " TICKS_SANE, -1);
}

static int tick_row(sqlite3_stmt *st, struct tick_row *out)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		out->tick = sqlite3_column_int64(st, 0);
		out->time = sqlite3_column_int64(st, 1);
		out->num = sqlite3_column_int64(st, 2);
		out->has_tick = sqlite3_column_type(st, 3) != SQLITE_NULL;
		snprintf(out->source, sizeof out->source, "%s",
			 out->has_tick ? (const char *)sqlite3_column_text(st, 3) : "");
		out->nevents = sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : 1;
}

int reader_tick(struct reader *r, int64_t tick, struct tick_row *out)
{
	sqlite3_bind_int64(r->q_tick, 1, tick);
	return tick_row(r->q_tick, out);
}

static int tick_query(struct reader *r, const char *where, int64_t arg, struct tick_row *out)
{
	char sql[256];
	sqlite3_stmt *st = NULL;
	int rc;

	snprintf(sql, sizeof sql, "%s%s", TICK_COLS, where);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int64(st, 1, arg);
	rc = tick_row(st, out);
	sqlite3_finalize(st);
	return rc;
}

int reader_find(struct reader *r, int64_t tick, int dir, struct tick_row *out)
{
	return tick_query(r, dir > 0 ? "WHERE tick >= ? AND " TICKS_SANE " ORDER BY tick LIMIT 1"
				     : "WHERE tick <= ? AND " TICKS_SANE " ORDER BY tick DESC LIMIT 1",
			  tick, out);
}

int reader_at_time(struct reader *r, int64_t t, struct tick_row *out)
{
	return tick_query(r, "WHERE time <= ? AND " TICKS_SANE " ORDER BY time DESC, tick DESC LIMIT 1", t, out);
}

/* ---- windows ---- */

static void index_window(struct reader *r);

/* Is a samples row what the recorder writes? Else why not. */
static const char *chunk_row_bad(const struct reader *r, sqlite3_stmt *st, int64_t t0, int *kind, int32_t *node)
{
	const char *k = (const char *)sqlite3_column_text(st, 0);
	int64_t step = sqlite3_column_int64(st, 3), t1 = sqlite3_column_int64(st, 4);

	*node = sqlite3_column_int(st, 1);
	*kind = k && !strcmp(k, "gpu") ? PK_GPU : k && !strcmp(k, "ib") ? PK_IB : -1;
	if (*kind < 0)
		return "no such kind";
	if (sqlite3_column_int64(st, 1) < 0 || sqlite3_column_int64(st, 1) >= r->nnodes)
		return "no such node";
	if (t1 <= t0 || t1 - t0 > r->chunk_ticks)
		return "its span is not a window";
	if (step < 1 || step > r->chunk_ticks)
		return "its step is not one the recorder writes";
	if (sqlite3_column_type(st, 2) != SQLITE_BLOB)
		return "its data is not a blob";
	return NULL;
}

/* The window's chunks; a damaged one is said (reader_bad) and skipped: its
 * node's samples of that window are missing, the rest replays. */
static void load_chunks(struct reader *r, int64_t t0)
{
	sqlite3_stmt *st = r->q_chunks;

	for (int k = 0; k < PK_COUNT; k++)
		window_clear(&r->win[k]);
	arena_reset(&r->w_arena);
	memset(r->srcs, 0, sizeof *r->srcs * (size_t)r->nnodes * PK_COUNT);
	r->w_step = 1;
	sqlite3_bind_int64(st, 1, t0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int kind, nsrcs = 0;
		int32_t node;
		const char *why = chunk_row_bad(r, st, t0, &kind, &node);
		struct series *s;

		if (!why) {
			s = window_series(&r->win[kind], node, 0);
			if (chunk_decode(s, r->per_node[kind], kind, t0, sqlite3_column_blob(st, 2),
					 (size_t)sqlite3_column_bytes(st, 2), &r->w_arena,
					 &r->srcs[kind * r->nnodes + node], &nsrcs) == 0) {
				r->w_step = MAX(r->w_step, sqlite3_column_int(st, 3));
				continue;
			}
			for (int32_t i = 0; i < r->per_node[kind]; i++)
				s[i].n = s[i].pos = 0;
			r->srcs[kind * r->nnodes + node] = NULL;
			why = "malformed chunk";
		}
		reader_bad(r, "%s: samples row (%s, t0 %lld, node %lld) skipped: %s", r->path,
			   sqlite3_column_type(st, 0) == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, 0) : "?",
			   (long long)t0, (long long)sqlite3_column_int64(st, 1), why);
	}
	sqlite3_reset(st);
}

/* The tail rows of the window that holds tick (none: an empty window). */
static int load_tail(struct reader *r, int64_t tick, char **err)
{
	sqlite3_stmt *st = r->q_tail;
	int64_t w0 = -1, w1;

	sqlite3_bind_int64(st, 1, tick);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t at = sqlite3_column_int64(st, 0);

		w0 = tail_window(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1));
		if (w0 >= 0 && (w0 > at || at - w0 >= r->chunk_ticks)) {   /* not the window of its tick */
			reader_bad(r, "%s: tail row (tick %lld) skipped: its window starts at %lld", r->path,
				   (long long)at, (long long)w0);
			w0 = -1;
		}
	}
	sqlite3_reset(st);
	w1 = w0 >= 0 ? (w0 / r->chunk_ticks + 1) * r->chunk_ticks : -1;
	if (w0 >= 0 && tick < w1)
		return readtail_window(r, w0, w1, tick, err);
	for (int k = 0; k < PK_COUNT; k++)   /* no packed event at this tick */
		window_clear(&r->win[k]);
	r->w_tail = 1;
	r->w_step = 1;
	r->w0 = r->gpu_from = tick;
	r->w1 = tick + 1;
	r->tail_upto = tick;
	index_window(r);
	return 0;
}

/* Are some of [t0, t1)'s packed events in tail rows? Then its chunks are
 * not all written yet (the recorder writes a closed window over the next
 * ticks and drops the tail rows with the last chunks; slices.c), and the
 * tail rows hold every one of them. */
static int has_tail(struct reader *r, int64_t t0, int64_t t1)
{
	int yes;

	sqlite3_bind_int64(r->q_has_tail, 1, t0);
	sqlite3_bind_int64(r->q_has_tail, 2, t1);
	yes = sqlite3_step(r->q_has_tail) == SQLITE_ROW;
	sqlite3_reset(r->q_has_tail);
	return yes;
}

/* Makes the window holding tick current: its chunks, or its tail rows. */
static int load_window(struct reader *r, int64_t tick, char **err)
{
	int64_t t0 = -1, t1 = -1;

	if (tick >= r->w0 && tick < r->w1 && (!r->w_tail || (tick <= r->tail_upto && tick >= r->gpu_from)))
		return 0;   /* a tail window holds the ticks [gpu_from, tail_upto] whole */
	sqlite3_bind_int64(r->q_window, 1, tick);
	sqlite3_bind_int64(r->q_window, 2, r->chunk_ticks);
	if (sqlite3_step(r->q_window) == SQLITE_ROW && sqlite3_column_type(r->q_window, 0) != SQLITE_NULL) {
		t0 = sqlite3_column_int64(r->q_window, 0);
		t1 = sqlite3_column_int64(r->q_window, 1);
	}
	sqlite3_reset(r->q_window);
	if (t0 < 0 || tick >= t1 || has_tail(r, t0, t1))
		return load_tail(r, tick, err);
	r->w_tail = 0;
	r->w0 = t0;
	r->w1 = t1;
	load_chunks(r, t0);
	index_window(r);
	return 0;
}

int reader_downsampled(struct reader *r, int64_t tick)
{
	char *err = NULL;

	if (load_window(r, tick, &err) < 0) {
		free(err);
		return 0;
	}
	return !r->w_tail && r->w_step > 1;
}

/* ---- one group ---- */

/* ---- the window's rows by tick ---- */

static struct rowref make_ref(const struct reader *r, int kind, int32_t node, int32_t idx, const struct series *s,
			      int32_t j)
{
	const char **srcs = r->srcs[kind * r->nnodes + node];
	int nv = pack_nv(kind);

	return (struct rowref){s->v32 ? (const void *)(s->v32 + (size_t)j * (size_t)nv)
				      : (const void *)(s->v64 + (size_t)j * (size_t)nv),
			       srcs ? srcs[s->src ? s->src[j] : 0] : "", s->tdelta ? s->tdelta[j] : 0, node,
			       (int16_t)idx, (uint8_t)kind};
}

/* Every row of the window in canonical order, bucketed by tick: a group's
 * packed events are one slice, found without scanning every series. */
static void index_window(struct reader *r)
{
	int64_t span = r->w1 - r->w0;
	size_t total = 0;

	free(r->bucket);
	r->bucket = xcalloc((size_t)span + 2, sizeof *r->bucket);
	for (int k = 0; k < PK_COUNT; k++)
		for (size_t i = 0; i < (size_t)r->nnodes * (size_t)r->per_node[k]; i++) {
			const struct series *s = &r->win[k].s[i];

			for (int32_t j = 0; j < s->n; j++)
				if (s->tick[j] >= r->w0 && s->tick[j] < r->w1)
					r->bucket[s->tick[j] - r->w0 + 1]++, total++;
		}
	for (int64_t t = 1; t <= span; t++)
		r->bucket[t] += r->bucket[t - 1];
	r->refs_cap = total + 1;
	r->refs = xrealloc(r->refs, sizeof *r->refs * r->refs_cap);
	r->nrefs = total;
	size_t *fill = xmalloc(sizeof *fill * ((size_t)span + 1));

	memcpy(fill, r->bucket, sizeof *fill * ((size_t)span + 1));
	for (int k = 0; k < PK_COUNT; k++) {
		int nv = pack_nv(k);

		for (int32_t node = 0; node < r->nnodes; node++) {
			const char **srcs = r->srcs[k * r->nnodes + node];

			for (int32_t idx = 0; idx < r->per_node[k]; idx++) {
				const struct series *s = window_series(&r->win[k], node, idx);

				for (int32_t j = 0; j < s->n; j++) {
					int64_t t = s->tick[j] - r->w0;

					if (t < 0 || t >= span)
						continue;
					struct rowref *f = &r->refs[fill[t]++];

					f->v = s->v32 ? (const void *)(s->v32 + (size_t)j * (size_t)nv)
						      : (const void *)(s->v64 + (size_t)j * (size_t)nv);
					f->source = srcs ? srcs[s->src ? s->src[j] : 0] : "";
					f->tdelta = s->tdelta ? s->tdelta[j] : 0;
					f->node = node;
					f->idx = (int16_t)idx;
					f->kind = (uint8_t)k;
				}
			}
		}
	}
	free(fill);
}

static void ref_event(const struct rowref *f, const struct tick_row *tr, struct event *ev)
{
	memset(&ev->u, 0, sizeof ev->u);
	if (f->kind == PK_GPU) {
		ev->type = EV_SAMPLE;
		ev->u.sample.node = f->node;
		ev->u.sample.gpu = f->idx;
		memcpy(ev->u.sample.m, f->v, sizeof ev->u.sample.m);
	} else {
		const int64_t *v = f->v;

		ev->type = EV_IB;
		ev->u.ib.node = f->node;
		ev->u.ib.port = f->idx;
		ev->u.ib.state = (int32_t)v[0];
		ev->u.ib.have = (uint32_t)v[1];
		for (int c = 0; c < IBC_COUNT; c++)
			ev->u.ib.c[c] = (uint64_t)v[2 + c];
	}
	ev->time = tr->time + f->tdelta;
	ev->source = f->source;
}

static long group_layout(struct reader *r, int64_t tick)
{
	sqlite3_stmt *st = NULL;
	long n = 0;

	if (sqlite3_prepare_v2(r->db, "SELECT layout FROM ticks WHERE tick = ?", -1, &st, NULL))
		return -1;
	sqlite3_bind_int64(st, 1, tick);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		n = layout_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &r->lay, &r->lay_cap);
	sqlite3_finalize(st);
	return n;
}

/* A group listed in the order its packed events arrived: each entry takes
 * its series' next row at this tick. */
static size_t plan_layout(struct reader *r, const struct tick_row *tr, long nl)
{
	size_t n = 0;

	if ((size_t)nl > r->lrefs_cap) {
		r->lrefs_cap = (size_t)nl;
		r->lrefs = xrealloc(r->lrefs, sizeof *r->lrefs * r->lrefs_cap);
	}
	for (int pass = 0; pass < 2; pass++)
		for (long i = 0; i < nl; i++) {
			const struct arrival *a = &r->lay[i];

			if (a->node >= r->nnodes || a->idx >= r->per_node[a->kind])
				continue;
			struct series *s = window_series(&r->win[a->kind], a->node, a->idx);

			if (!pass) {   /* first: each series at its first row of this tick */
				int32_t lo = 0, hi = s->n;

				while (lo < hi) {
					int32_t mid = (lo + hi) / 2;

					if (s->tick[mid] < tr->tick)
						lo = mid + 1;
					else
						hi = mid;
				}
				s->pos = lo;
			} else if (s->pos < s->n && s->tick[s->pos] == tr->tick) {
				r->lrefs[n++] = make_ref(r, a->kind, a->node, a->idx, s, s->pos++);
			}
		}
	return n;
}

static int ref_cmp(const struct rowref *f, const struct arrival *a)
{
	if (f->kind != a->kind)
		return f->kind < a->kind ? -1 : 1;
	if (f->node != a->node)
		return f->node < a->node ? -1 : 1;
	return f->idx < a->idx ? -1 : f->idx > a->idx;
}

/* The same for a tail window: the tick's references are in canonical
 * order; each entry takes the first one of its series not yet taken. */
static size_t plan_layout_tail(struct reader *r, const struct tick_row *tr, long nl)
{
	size_t b = r->bucket[tr->tick - r->w0], e = r->bucket[tr->tick - r->w0 + 1], n = 0;
	uint8_t *used = xcalloc(e - b + 1, 1);

	if ((size_t)nl > r->lrefs_cap) {
		r->lrefs_cap = (size_t)nl;
		r->lrefs = xrealloc(r->lrefs, sizeof *r->lrefs * r->lrefs_cap);
	}
	for (long i = 0; i < nl; i++) {
		size_t lo = b, hi = e;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ref_cmp(&r->refs[mid], &r->lay[i]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo < e && !ref_cmp(&r->refs[lo], &r->lay[i]) && used[lo - b])
			lo++;
		if (lo < e && !ref_cmp(&r->refs[lo], &r->lay[i])) {
			used[lo - b] = 1;
			r->lrefs[n++] = r->refs[lo];
		}
	}
	free(used);
	return n;
}

/* The group's packed events, in order, as row references. */
static int plan_group(struct reader *r, const struct tick_row *tr, const struct rowref **refs, size_t *n,
		      char **err)
{
	*n = 0;
	if (load_window(r, tr->tick, err) < 0)
		return -1;
	if (r->w_step > 1)
		r->downsampled_hit = 1;
	long nl = r->w_step > 1 ? 0 : group_layout(r, tr->tick);

	if (nl < 0) {
		*err = xasprintf("%s: malformed layout at tick %lld", r->path, (long long)tr->tick);
		return -1;
	}
	if (nl > 0) {
		*n = r->w_tail && tr->tick >= r->w0 && tr->tick < r->w1 ? plan_layout_tail(r, tr, nl) : plan_layout(r, tr, nl);
		*refs = r->lrefs;
	} else if (tr->tick >= r->w0 && tr->tick < r->w1 && r->bucket) {
		*refs = r->refs + r->bucket[tr->tick - r->w0];
		*n = r->bucket[tr->tick - r->w0 + 1] - r->bucket[tr->tick - r->w0];
	}
	return 0;
}

static int row_event(struct reader *r, sqlite3_stmt *st, struct event *ev)
{
	const char *data = (const char *)sqlite3_column_text(st, 4);
	int t = ev_type_from_name((const char *)sqlite3_column_text(st, 2));

	memset(ev, 0, sizeof *ev);
	ev->type = t > 0 ? (enum ev_type)t : EV_MARK;
	ev->time = sqlite3_column_int64(st, 1);
	ev->source = arena_strdup(&r->g_arena, (const char *)sqlite3_column_text(st, 3));
	return t > 0 ? evjson_decode(ev, data, (size_t)sqlite3_column_bytes(st, 4), &r->g_arena) : -1;
}

int reader_group(struct reader *r, const struct tick_row *tr, int64_t from_seq,
		 void (*fn)(void *ctx, const struct event *ev), void *ctx, char **err)
{
	const struct rowref *refs = NULL;
	sqlite3_stmt *st = r->q_events;
	int64_t seq = 0;
	size_t n = 0, pi = 0;
	int rc = 0;
	struct event ev;

	arena_reset(&r->g_arena);
	if (plan_group(r, tr, &refs, &n, err) < 0)
		return -1;
	if (tr->has_tick) {
		memset(&ev, 0, sizeof ev);
		ev.type = EV_TICK;
		ev.time = tr->time;
		ev.source = tr->source;
		ev.u.tick.tick = tr->num;
		if (from_seq <= 0)
			fn(ctx, &ev);
		seq = 1;
	}
	sqlite3_bind_int64(st, 1, tr->tick);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		int64_t q = sqlite3_column_int64(st, 0);

		for (; seq < q && pi < n; seq++, pi++)
			if (seq >= from_seq) {
				ref_event(&refs[pi], tr, &ev);
				fn(ctx, &ev);
			}
		seq = q + 1;
		if (row_event(r, st, &ev) < 0) {
			*err = xasprintf("%s: malformed event at tick %lld seq %lld", r->path, (long long)tr->tick,
					 (long long)q);
			rc = -1;
		} else if (q >= from_seq) {
			fn(ctx, &ev);
		}
	}
	sqlite3_reset(st);
	for (; rc == 0 && pi < n; seq++, pi++)
		if (seq >= from_seq) {
			ref_event(&refs[pi], tr, &ev);
			fn(ctx, &ev);
		}
	return rc;
}

/* ---- keyframes ---- */

/* Feeds the IB rows of the committed ticks in [lo, hi) of ports [p0, p1)
 * of w into pred. */
static void pred_rows(struct kf_pred *pred, const struct window *w, int32_t p0, int32_t p1, int64_t lo, int64_t hi,
		      const uint8_t *ok, const struct reader *r)
{
	for (int32_t port = p0; port < p1 && port < pred->nports; port++) {
		const struct series *s = &w->s[port - p0];
		struct port_pred *q = &pred->p[port];

		for (int32_t j = 0; j < s->n; j++) {
			if (s->tick[j] < lo || s->tick[j] >= hi || !ok[s->tick[j] - lo])
				continue;
			memcpy(q->prev, q->last, sizeof q->prev);
			for (int c = 0; c < NV_IB; c++)
				q->last[c] = s->v64[(size_t)j * NV_IB + (size_t)c];
			q->have_prev = q->have;
			q->have = 1;
			q->time = r->ticks_time[s->tick[j] - lo] + (s->tdelta ? s->tdelta[j] : 0);
		}
	}
}

/* The prediction the recorder made for a keyframe at tick k (keyframe.h):
 * each port's last two IB readings in the committed ticks of
 * [k - KF_PRED_TICKS, k), from chunks (of windows without tail rows), then
 * from tail rows (readtail.c). */
static void ib_pred(struct reader *r, int64_t k, struct kf_pred *pred)
{
	int64_t lo = k - KF_PRED_TICKS;
	uint8_t ok[KF_PRED_TICKS] = {0};
	struct window w[PK_COUNT];
	struct arena a = {0};
	sqlite3_stmt *st = NULL;
	const char **srcs = NULL;
	int nsrcs = 0;
	size_t bytes;

	pred->nports = r->nnodes * r->per_node[PK_IB];
	bytes = ((size_t)pred->nports + 1) * sizeof *pred->p;
	if (r->pred_bytes < bytes) {   /* kept: allocated per keyframe, its 18 MB were faulted in afresh */
		free(r->pred_buf);
		r->pred_buf = xmalloc(bytes);
		r->pred_bytes = bytes;
	}
	pred->p = r->pred_buf;
	memset(pred->p, 0, bytes);
	if (sqlite3_prepare_v2(r->db, "SELECT tick, time FROM ticks WHERE tick >= ? AND tick < ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, lo);
		sqlite3_bind_int64(st, 2, k);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t t = sqlite3_column_int64(st, 0) - lo;

			ok[t] = 1;
			r->ticks_time[t] = sqlite3_column_int64(st, 1);
		}
	}
	sqlite3_finalize(st);
	memset(w, 0, sizeof w);
	window_init(&w[PK_IB], PK_IB, 1, r->per_node[PK_IB]);   /* a node's chunk at a time */
	if (sqlite3_prepare_v2(r->db, "SELECT t0, node, data FROM samples WHERE t0 < ?1 AND t0 > ?2 - 600 AND t1 > ?2"
			       " AND kind = 'ib' AND NOT EXISTS (SELECT 1 FROM tail WHERE tail.tick >= samples.t0"
			       " AND tail.tick < samples.t1) ORDER BY t0", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, k);
		sqlite3_bind_int64(st, 2, lo);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int32_t node = sqlite3_column_int(st, 1);

			if (node >= 0 && node < r->nnodes &&
			    chunk_decode(window_series(&w[PK_IB], 0, 0), r->per_node[PK_IB], PK_IB,
					 sqlite3_column_int64(st, 0), sqlite3_column_blob(st, 2),
					 (size_t)sqlite3_column_bytes(st, 2), &a, &srcs, &nsrcs) == 0)
				pred_rows(pred, &w[PK_IB], node * r->per_node[PK_IB], (node + 1) * r->per_node[PK_IB],
					  lo, k, ok, r);
			arena_reset(&a);
		}
	}
	sqlite3_finalize(st);
	arena_free(&a);
	readtail_pred(r, lo, k, ok, pred);
	for (int kind = 0; kind < PK_COUNT; kind++)
		window_free(&w[kind]);
}

int reader_keyframe(struct reader *r, int64_t tick, struct model *m, int64_t *kf_tick, char **err)
{
	sqlite3_stmt *st = r->q_kf;
	int rc = 1;

	if (!r->kf_usable)
		return 1;
	sqlite3_bind_int64(st, 1, tick);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t digest = sqlite3_column_int64(st, 1);
		char hash[24];
		struct kf_pred pred = {0};

		*kf_tick = sqlite3_column_int64(st, 0);
		snprintf(hash, sizeof hash, "%s", (const char *)sqlite3_column_text(st, 3));
		sqlite3_bind_int64(r->q_kfstatic, 1, digest);
		if (sqlite3_step(r->q_kfstatic) != SQLITE_ROW) {
			*err = xasprintf("%s: keyframe at tick %lld lacks its static part", r->path, (long long)*kf_tick);
			rc = -1;
		} else if (ib_pred(r, *kf_tick, &pred),
			   kf_decode(m, &pred, sqlite3_column_blob(r->q_kfstatic, 0),
				     (size_t)sqlite3_column_bytes(r->q_kfstatic, 0), sqlite3_column_blob(st, 2),
				     (size_t)sqlite3_column_bytes(st, 2), r->kf, err) < 0) {
			r->kf_usable = 0;
			rc = -1;
		} else {
			char got[24];

			snprintf(got, sizeof got, "%016llx", (unsigned long long)model_hash_v(m, r->hash_version));
			rc = strcmp(got, hash) ? -1 : 0;
			if (rc)
				*err = xasprintf("%s: keyframe at tick %lld restores hash %s, not %s", r->path,
						 (long long)*kf_tick, got, hash);
		}
		sqlite3_reset(r->q_kfstatic);
	}
	sqlite3_reset(st);
	r->downsampled_hit = 0;
	return rc;
}
