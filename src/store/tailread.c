/*
 * tailread.c - tail rows read back (pack.h): one tick's packed events
 * appended to the series of a window, of the kinds asked for, the other
 * kind passed over without decoding its values (a seek at 102,400 GPUs
 * reads a window's IB readings from its start but its GPU samples only from
 * the keyframe on), each row appended said to the caller, and the columns'
 * buffers kept from row to row instead of some 10 MB allocated per row.
 */
#include <string.h>
#include "codec.h"
#include "pack.h"

void tail_scratch_free(struct tail_scratch *t)
{
	free(t->node);
	free(t->idx);
	free(t->col);
	free(t->td);
	free(t->src);
	free(t->v);
	free(t->out);
	memset(t, 0, sizeof *t);
}

static void fit(struct tail_scratch *t, size_t n)
{
	if (n <= t->cap)
		return;
	t->cap = MAX(n, t->cap * 2);
	t->node = xrealloc(t->node, sizeof *t->node * t->cap);
	t->idx = xrealloc(t->idx, sizeof *t->idx * t->cap);
	t->col = xrealloc(t->col, sizeof *t->col * t->cap);
	t->td = xrealloc(t->td, sizeof *t->td * t->cap);
	t->src = xrealloc(t->src, sizeof *t->src * t->cap);
}

static int intern(const char *s, size_t n, struct arena *a, const char ***srcs, int *nsrcs)
{
	for (int i = 0; i < *nsrcs; i++)
		if (strlen((*srcs)[i]) == n && !memcmp((*srcs)[i], s, n))
			return i;
	if (*nsrcs >= PACK_MAX_SRC)
		return -1;
	*srcs = xrealloc(*srcs, sizeof **srcs * (size_t)(*nsrcs + 1));
	(*srcs)[*nsrcs] = arena_strndup(a, s, n);
	return (*nsrcs)++;
}

/* The runs of one kind: *n entries, into t->node and t->idx when keep. */
static int get_runs(struct rd *r, const struct window *w, struct tail_scratch *t, size_t *n, int keep)
{
	uint64_t runs = rd_uvarint(r);
	int64_t node = 0;

	*n = 0;
	for (uint64_t i = 0; i < runs && !r->err; i++) {
		node += rd_svarint(r);
		uint64_t idx = rd_uvarint(r), k = rd_uvarint(r);

		if (r->err || node < 0 || node >= w->nnodes || idx + k > (uint64_t)w->per_node || !k)
			return -1;
		if (keep) {
			fit(t, *n + k);
			for (uint64_t j = 0; j < k; j++) {
				t->node[*n + j] = (int32_t)node;
				t->idx[*n + j] = (int32_t)(idx + j);
			}
		}
		*n += k;
	}
	return r->err ? -1 : 0;
}

/* Past one kind's columns. */
static int skip_kind(struct rd *r, const struct window *w)
{
	size_t n;
	uint8_t flags;

	if (get_runs(r, w, NULL, &n, 0) < 0)
		return -1;
	if (!n)
		return 0;
	if (r->p >= r->end)
		return -1;
	flags = *r->p++;
	if (col_skip(r, n) < 0 || ((flags & 1) && col_skip(r, n) < 0) || ((flags & 2) && col_skip(r, n) < 0))
		return -1;
	for (int c = 0; c < w->nv; c++)
		if (col_skip(r, n) < 0)
			return -1;
	return 0;
}

struct rows {
	int64_t tick;
	const int *map;
	int nl;
	void (*row)(void *ctx, int kind, int32_t node, int32_t idx, int32_t r);
	void *ctx;
};

/* The decoded columns of one kind into its series. */
static int append_rows(struct window *w, struct tail_scratch *t, size_t n, uint8_t flags, const struct rows *o)
{
	int64_t vals[NV_IB];

	for (size_t i = 0; i < n; i++) {
		struct series *s = window_series(w, t->node[i], t->idx[i]);

		if (t->col[i] && !s->n)
			return -2;
		if ((flags & 2) && (t->src[i] < 0 || t->src[i] >= o->nl))
			return -1;
		for (int c = 0; c < w->nv; c++)
			vals[c] = (int64_t)((uint64_t)t->v[(size_t)c * n + i] +
					    (t->col[i] ? (uint64_t)series_value(s, w->nv, s->n - 1, c) : 0));
		series_append(s, w->kind, o->tick, (flags & 1) ? t->td[i] : 0, (uint16_t)o->map[(flags & 2) ? t->src[i] : 0],
			      vals);
		if (o->row)
			o->row(o->ctx, w->kind, t->node[i], t->idx[i], s->n - 1);
	}
	return 0;
}

static int get_kind(struct rd *r, struct window *w, struct tail_scratch *t, const struct rows *o)
{
	size_t n;
	uint8_t flags;

	if (get_runs(r, w, t, &n, 1) < 0)
		return -1;
	if (!n)
		return 0;
	if (r->p >= r->end)
		return -1;
	flags = *r->p++;
	if (n * (size_t)w->nv > t->vcap) {
		t->vcap = MAX(n * (size_t)w->nv, t->vcap * 2);
		t->v = xrealloc(t->v, sizeof *t->v * t->vcap);
	}
	if (col_decode(r, t->col, n) < 0 || ((flags & 1) && col_decode(r, t->td, n) < 0) ||
	    ((flags & 2) && col_decode(r, t->src, n) < 0))
		return -1;
	for (int c = 0; c < w->nv; c++)
		if (col_decode(r, t->v + (size_t)c * n, n) < 0)
			return -1;
	return append_rows(w, t, n, flags, o);
}

/* A tail row's header and its sources, interned: their map (freed by the
 * caller) and count in *nl, or NULL for a row that does not read. */
static int *read_sources(struct rd *r, size_t len, struct arena *a, const char ***srcs, int *nsrcs, int *nl)
{
	uint64_t n_src;
	int *map;

	if (rd_uvarint(r) != TAIL_VERSION)
		return NULL;
	rd_uvarint(r);
	n_src = rd_uvarint(r);
	if (r->err || n_src > PACK_MAX_SRC || n_src > len)
		return NULL;
	map = xcalloc(n_src + 1, sizeof *map);
	for (uint64_t i = 0; i < n_src; i++) {
		size_t n;
		const uint8_t *p = rd_bytes(r, &n);

		if (!p || (map[i] = intern((const char *)p, n, a, srcs, nsrcs)) < 0) {
			free(map);
			return NULL;
		}
	}
	*nl = (int)n_src;
	return map;
}

int tail_read(struct window *win, int64_t tick, const void *blob, size_t len, unsigned kinds, struct tail_scratch *ts,
	      struct arena *a, const char ***srcs, int *nsrcs,
	      void (*row)(void *ctx, int kind, int32_t node, int32_t idx, int32_t r), void *ctx)
{
	struct rd r = rd_make(blob, len);
	struct tail_scratch own = {0};
	int nl, *map = read_sources(&r, len, a, srcs, nsrcs, &nl), rc = 0;

	if (!map)
		return -1;
	struct rows o = {tick, map, nl, row, ctx};

	for (int k = 0; k < PK_COUNT && rc == 0; k++)
		rc = kinds & (1u << k) ? get_kind(&r, &win[k], ts ? ts : &own, &o) : skip_kind(&r, &win[k]);
	free(map);
	tail_scratch_free(&own);
	return rc < 0 ? rc : r.err ? -1 : 0;
}

/* ---- dense: relative to a chain (pack.h, tail_read_dense) ---- */

struct dense {
	struct tail_chain *c;
	const int *map;
	int nl;
	void (*rows)(void *ctx, const struct dense_rows *d);
	void *ctx;
};

/* The decoded columns made absolute (row-major, in t->out) on the chain,
 * the sources mapped to the reader's table (in t->src), then handed over. */
static int chain_rows(int kind, struct tail_scratch *t, size_t n, uint8_t flags, const struct dense *o)
{
	struct tail_chain *c = o->c;
	int nv = pack_nv(kind);
	int64_t *out = t->out;

	for (size_t i = 0; i < n; i++) {
		size_t sid = (size_t)t->node[i] * (size_t)c->per_node[kind] + (size_t)t->idx[i];
		int64_t *last = c->last[kind] + sid * (size_t)nv, *vals = out + i * (size_t)nv;
		int based = t->col[i] != 0;

		if (i + 8 < n)   /* the series' last values are all over 10 MB: ask for them early */
			__builtin_prefetch(c->last[kind] + ((size_t)t->node[i + 8] * (size_t)c->per_node[kind] +
							    (size_t)t->idx[i + 8]) * (size_t)nv, 1);
		if (based && !c->has[kind][sid])
			return -2;
		if ((flags & 2) && (t->src[i] < 0 || t->src[i] >= o->nl))
			return -1;
		t->src[i] = o->map[(flags & 2) ? t->src[i] : 0];
		for (int k = 0; k < nv; k++) {
			uint64_t x = (uint64_t)t->v[(size_t)k * n + i] + (based ? (uint64_t)last[k] : 0);

			last[k] = vals[k] = kind == PK_GPU ? (int32_t)x : (int64_t)x;   /* as a series holds it */
		}
		c->has[kind][sid] = 1;
	}
	if (o->rows) {
		struct dense_rows d = {kind, nv, n, t->node, t->idx, t->src, (flags & 1) ? t->td : NULL, out};

		o->rows(o->ctx, &d);
	}
	return 0;
}

/* A window of the chain's shape, for get_runs' bounds. */
static struct window shape(const struct tail_chain *c, int kind)
{
	struct window w = {.kind = kind, .nv = pack_nv(kind), .nnodes = c->nnodes, .per_node = c->per_node[kind]};

	return w;
}

static int dense_kind(struct rd *r, int kind, struct tail_scratch *t, const struct dense *o)
{
	struct window w = shape(o->c, kind);
	size_t n;
	uint8_t flags;

	if (get_runs(r, &w, t, &n, 1) < 0)
		return -1;
	if (!n)
		return 0;
	if (r->p >= r->end)
		return -1;
	flags = *r->p++;
	if (n * (size_t)w.nv > t->vcap) {
		t->vcap = MAX(n * (size_t)w.nv, t->vcap * 2);
		t->v = xrealloc(t->v, sizeof *t->v * t->vcap);
		t->out = xrealloc(t->out, sizeof *t->out * t->vcap);
	}
	if (col_decode(r, t->col, n) < 0 || ((flags & 1) && col_decode(r, t->td, n) < 0) ||
	    ((flags & 2) && col_decode(r, t->src, n) < 0))
		return -1;
	for (int k = 0; k < w.nv; k++)
		if (col_decode(r, t->v + (size_t)k * n, n) < 0)
			return -1;
	return chain_rows(kind, t, n, flags, o);
}

int tail_read_dense(struct tail_chain *c, const void *blob, size_t len, unsigned kinds, struct tail_scratch *ts,
		    struct arena *a, const char ***srcs, int *nsrcs,
		    void (*rows)(void *ctx, const struct dense_rows *d), void *ctx)
{
	struct rd r = rd_make(blob, len);
	struct tail_scratch own = {0};
	int nl, *map = read_sources(&r, len, a, srcs, nsrcs, &nl), rc = 0;

	if (!map)
		return -1;
	struct dense o = {c, map, nl, rows, ctx};

	for (int k = 0; k < PK_COUNT && rc == 0; k++) {
		struct window w = shape(c, k);

		rc = kinds & (1u << k) ? dense_kind(&r, k, ts ? ts : &own, &o) : skip_kind(&r, &w);
	}
	free(map);
	tail_scratch_free(&own);
	return rc < 0 ? rc : r.err ? -1 : 0;
}

int tail_decode(struct window *win, int64_t tick, const void *blob, size_t len, struct arena *a,
		const char ***srcs, int *nsrcs)
{
	return tail_read(win, tick, blob, len, TAIL_KINDS, NULL, a, srcs, nsrcs, NULL, NULL) < 0 ? -1 : 0;
}
