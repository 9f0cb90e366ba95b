/*
 * readtail.c - the reader's windows that are read from tail rows (reader.c,
 * store_int.h), densely: no series, each series' last value in a chain
 * (pack.h), each tick's events as row references into that tick's own
 * value arrays. A window is read from its start only as far as the tick
 * asked for, its GPU samples only from the newest keyframe at or before
 * that tick (where the recorder of a large cluster starts their rows over:
 * store_int.h, TAIL_ONLY_GPUS), and further ticks are read on as play goes
 * on, each in place of the one before (drop_before). A recording whose GPU
 * rows do not start over there is read from the window's start (-2 from
 * tail_read_dense says so). The IB readings a keyframe's prediction needs
 * come from the rows of the same windows.
 */
#include <string.h>
#include "keyframe.h"
#include "store_int.h"

/* Room for n more references. */
static struct rowref *more_refs(struct reader *r, size_t n)
{
	if (r->nrefs + n > r->refs_cap) {
		r->refs_cap = MAX(r->nrefs + n, r->refs_cap * 2);
		r->refs = xrealloc(r->refs, sizeof *r->refs * r->refs_cap);
	}
	return r->refs + r->nrefs;
}

struct tick_ctx {
	struct reader *r;
	struct tick_vals *tv;
};

/* A kind's rows of the tick being read: their values kept, their
 * references added (v an offset until the tick is whole: the arrays may
 * move as they grow). */
static void on_rows(void *ctx, const struct dense_rows *d)
{
	struct tick_ctx *c = ctx;
	struct tick_vals *tv = c->tv;
	struct rowref *f = more_refs(c->r, d->n);
	size_t off;

	if (d->kind == PK_GPU) {
		if (tv->n32 + d->n * NV_GPU > tv->cap32) {
			tv->cap32 = MAX(tv->n32 + d->n * NV_GPU, tv->cap32 * 2);
			tv->v32 = xrealloc(tv->v32, sizeof *tv->v32 * tv->cap32);
		}
		off = tv->n32;
		for (size_t i = 0; i < d->n * NV_GPU; i++)
			tv->v32[off + i] = (int32_t)d->v[i];
		tv->n32 += d->n * NV_GPU;
	} else {
		if (tv->n64 + d->n * NV_IB > tv->cap64) {
			tv->cap64 = MAX(tv->n64 + d->n * NV_IB, tv->cap64 * 2);
			tv->v64 = xrealloc(tv->v64, sizeof *tv->v64 * tv->cap64);
		}
		off = tv->n64;
		memcpy(tv->v64 + off, d->v, sizeof *d->v * d->n * NV_IB);
		tv->n64 += d->n * NV_IB;
	}
	for (size_t i = 0; i < d->n; i++)
		f[i] = (struct rowref){(const void *)(uintptr_t)(off + i * (size_t)d->nv), c->r->tsrcs[d->src[i]],
				       d->tdelta ? d->tdelta[i] : 0, d->node[i], (int16_t)d->idx[i], (uint8_t)d->kind};
	c->r->nrefs += d->n;
}

/* The tick's references point into its arrays, now that they stay put. */
static void fix_refs(struct reader *r, size_t from, const struct tick_vals *tv)
{
	for (size_t i = from; i < r->nrefs; i++) {
		size_t off = (size_t)(uintptr_t)r->refs[i].v;

		r->refs[i].v = r->refs[i].kind == PK_GPU ? (const void *)(tv->v32 + off) : (const void *)(tv->v64 + off);
	}
}

/* Each tick read drops the ones before it: their values (13 MB a tick at
 * 102,400 GPUs, in r->tv) and references (6.5 MB). A group is emitted as it is read, so
 * nothing needs them, and a seek back reads again from its keyframe; one
 * tick's buffers, paged in once, then serve every tick, not a fresh 20 MB
 * for each tick of a window. Every series' last value (the chain) goes on. */
static void drop_before(struct reader *r, int64_t t)
{
	r->gpu_from = t;
	r->nrefs = 0;
	r->bucket[t - r->w0] = 0;
}

/* Rows (tail_upto, to] of the window; GPU samples of ticks before
 * gpu_from skipped, and no tick before it kept. 0, -1, or -2 (a GPU row
 * relative to one not read). */
static int read_rows(struct reader *r, int64_t to)
{
	sqlite3_stmt *st = r->q_tail_rows;
	int rc = 0;

	sqlite3_bind_int64(st, 1, r->tail_upto + 1);
	sqlite3_bind_int64(st, 2, to);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);

		if (t > r->gpu_from)
			drop_before(r, t);
		int keep = t >= r->gpu_from;
		struct tick_ctx c = {r, keep ? &r->tv : NULL};
		size_t from = r->nrefs;

		for (int64_t u = r->tail_upto + 1; u <= t; u++)   /* ticks without a row: no events */
			r->bucket[u - r->w0 + 1] = r->nrefs;
		if (c.tv)
			c.tv->n32 = c.tv->n64 = 0;
		rc = tail_read_dense(&r->chain, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
				     keep ? TAIL_KINDS : 1u << PK_IB, &r->ts, &r->w_arena, &r->tsrcs, &r->ntsrcs,
				     keep ? on_rows : NULL, &c);
		if (c.tv)
			fix_refs(r, from, c.tv);
		r->bucket[t - r->w0 + 1] = r->nrefs;
		r->tail_upto = t;
	}
	sqlite3_reset(st);
	for (int64_t u = r->tail_upto + 1; rc == 0 && u <= to; u++)
		r->bucket[u - r->w0 + 1] = r->nrefs;
	if (rc == 0)
		r->tail_upto = to;
	return rc;
}

/* The newest keyframe in [w0, tick], else w0: where GPU rows start over. */
static int64_t gpu_start(struct reader *r, int64_t w0, int64_t tick)
{
	char sql[128];

	snprintf(sql, sizeof sql, "SELECT max(tick) FROM keyframes WHERE tick BETWEEN %lld AND %lld", (long long)w0,
		 (long long)tick);
	return MAX(w0, db_i64(r->db, sql, w0));
}

static void fresh(struct reader *r, int64_t w0, int64_t w1, int64_t gpu_from)
{
	if (r->chain.nnodes != r->nnodes)
		chain_init(&r->chain, r->nnodes, r->per_node[PK_GPU], r->per_node[PK_IB]);
	chain_reset(&r->chain, PK_GPU);
	chain_reset(&r->chain, PK_IB);
	arena_reset(&r->w_arena);
	free(r->tsrcs);
	r->tsrcs = NULL;
	r->ntsrcs = 0;
	r->w0 = w0;
	r->w1 = w1;
	r->w_tail = 1;
	r->w_step = 1;
	r->gpu_from = gpu_from;
	r->tail_upto = w0 - 1;
	r->nrefs = 0;
	free(r->bucket);
	r->bucket = xcalloc((size_t)(w1 - w0) + 2, sizeof *r->bucket);
}

/* Makes the tail window [w0, w1) hold every event up to tick. */
int readtail_window(struct reader *r, int64_t w0, int64_t w1, int64_t tick, char **err)
{
	int rc;

	int64_t kf = gpu_start(r, w0, tick);

	if (w0 == r->w0 && r->w_tail && tick >= r->gpu_from && tick < w1 && tick <= r->tail_upto)
		return 0;
	if (w0 == r->w0 && r->w_tail && tick >= r->gpu_from && tick < w1 && !(r->pred_k == kf && kf > r->tail_upto + 1)) {
		rc = read_rows(r, tick);   /* on from where the window was read to (play) */
	} else {
		fresh(r, w0, w1, kf);
		if (r->pred_k == r->gpu_from && r->gpu_from > w0) {
			/* the keyframe's prediction read the IB rows up to it from where they start over: on from there */
			struct tail_chain c = r->chain;

			r->chain = r->pchain;
			r->pchain = c;
			chain_reset(&r->chain, PK_GPU);
			r->tail_upto = r->gpu_from - 1;
			r->pred_k = -1;
		}
		rc = read_rows(r, tick);
		if (rc == -2) {   /* GPU rows that do not start over at the keyframe */
			fresh(r, w0, w1, w0);
			rc = read_rows(r, tick);
		}
	}
	if (rc < 0) {
		*err = xasprintf("%s: malformed tail row at tick %lld", r->path, (long long)r->tail_upto + 1);
		r->w0 = r->w1 = -1;
		return -1;
	}
	return 0;
}

/* ---- a keyframe's prediction from tail rows ---- */

struct pred_ctx {
	struct reader *r;
	struct kf_pred *pred;
	int64_t tick, lo, k;
	const uint8_t *ok;
};

static void pred_rows_dense(void *ctx, const struct dense_rows *d)
{
	struct pred_ctx *c = ctx;
	int32_t per = c->r->per_node[PK_IB];

	if (d->kind != PK_IB || c->tick < c->lo || c->tick >= c->k || !c->ok[c->tick - c->lo])
		return;
	for (size_t i = 0; i < d->n; i++) {
		int32_t port = d->node[i] * per + d->idx[i];
		struct port_pred *q;

		if (i + 8 < d->n && d->node[i + 8] * per + d->idx[i + 8] < c->pred->nports)
			__builtin_prefetch(&c->pred->p[d->node[i + 8] * per + d->idx[i + 8]], 1);
		if (port >= c->pred->nports)
			continue;
		q = &c->pred->p[port];
		for (int k = 0; k < NV_IB; k++) {
			q->prev[k] = q->last[k];
			q->last[k] = d->v[i * NV_IB + (size_t)k];
		}
		q->have_prev = q->have;
		q->have = 1;
		q->time = c->r->ticks_time[c->tick - c->lo] + (d->tdelta ? d->tdelta[i] : 0);
	}
}

/* Rows [from, k) into pred (cleared first if clear); 0, or -2 when they
 * do not start over at from. */
static int pred_from(struct reader *r, int64_t from, struct pred_ctx *c, struct arena *a, const char ***srcs,
		     int *nsrcs, int clear)
{
	sqlite3_stmt *st = r->q_tail_rows;
	int rc = 0;

	if (clear)
		memset(c->pred->p, 0, sizeof *c->pred->p * (size_t)c->pred->nports);
	chain_reset(&r->pchain, PK_IB);
	r->pred_from = from;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, c->k - 1);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		c->tick = sqlite3_column_int64(st, 0);
		rc = tail_read_dense(&r->pchain, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
				     1u << PK_IB, &r->ts, a, srcs, nsrcs, pred_rows_dense, c);
	}
	sqlite3_reset(st);
	return rc;
}

/* The IB readings of the tail rows of [lo, k) into pred (after those of
 * the chunks: none where tail rows are): read from the last point before
 * lo where IB rows start over (TAIL_IB_TICKS, or the window's start in a
 * file that does not start them over there). */
void readtail_pred(struct reader *r, int64_t lo, int64_t k, const uint8_t *ok, struct kf_pred *pred)
{
	struct pred_ctx c = {r, pred, 0, lo, k, ok};
	struct arena a = {0};
	const char **srcs = NULL;
	int nsrcs = 0, rc;
	int64_t base = MAX(lo, 0);

	if (r->pchain.nnodes != r->nnodes)
		chain_init(&r->pchain, r->nnodes, r->per_node[PK_GPU], r->per_node[PK_IB]);
	if (db_i64(r->db, "SELECT 1 FROM samples WHERE kind = 'ib' LIMIT 1", 0)) {   /* readings from chunks before */
		rc = pred_from(r, base / r->chunk_ticks * r->chunk_ticks, &c, &a, &srcs, &nsrcs, 0);
	} else if ((rc = pred_from(r, base / TAIL_IB_TICKS * TAIL_IB_TICKS, &c, &a, &srcs, &nsrcs, 0)) == -2) {
		rc = pred_from(r, base / r->chunk_ticks * r->chunk_ticks, &c, &a, &srcs, &nsrcs, 1);
	}
	r->pred_k = rc == 0 ? k : -1;   /* pchain: the IB rows up to k, for readtail_window */
	free(srcs);
	arena_free(&a);
}
