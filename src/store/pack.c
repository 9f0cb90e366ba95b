/*
 * pack.c - windows of packed events and their encodings (see pack.h):
 * chunk BLOBs (columnar, block codec), tail rows (one tick, row by row) and
 * the layout of a tick whose packed events arrived out of canonical order.
 */
#include <string.h>
#include "codec.h"
#include "pack.h"

#define CHUNK_VERSION 1

void window_init(struct window *w, int kind, int32_t nnodes, int32_t per_node)
{
	memset(w, 0, sizeof *w);
	w->kind = kind;
	w->nv = pack_nv(kind);
	w->nnodes = nnodes;
	w->per_node = per_node;
	w->s = xcalloc((size_t)nnodes * (size_t)per_node + 1, sizeof *w->s);
	tail_reset_bases(w);
}

void window_free(struct window *w)
{
	for (size_t i = 0; w->s && i < (size_t)w->nnodes * (size_t)w->per_node; i++) {
		struct series *s = &w->s[i];

		free(s->tick);
		free(s->tdelta);
		free(s->src);
		free(s->v32);
		free(s->v64);
	}
	free(w->s);
	free(w->scratch);
	memset(w, 0, sizeof *w);
}

void window_clear(struct window *w)
{
	for (size_t i = 0; i < (size_t)w->nnodes * (size_t)w->per_node; i++) {
		w->s[i].n = 0;
		w->s[i].pos = 0;
		w->s[i].tail_base = -1;
		free(w->s[i].tdelta);
		free(w->s[i].src);
		w->s[i].tdelta = NULL;
		w->s[i].src = NULL;
	}
	w->rows = 0;
}

static void series_grow(struct series *s, int kind, int32_t want)
{
	int nv = pack_nv(kind);

	if (want <= s->cap && (kind == PK_GPU ? s->v32 != NULL : s->v64 != NULL))
		return;
	if (want > s->cap) {
		s->cap = MAX(want, s->cap ? s->cap * 2 : 8);
		s->tick = xrealloc(s->tick, sizeof *s->tick * (size_t)s->cap);
		if (s->tdelta)
			s->tdelta = xrealloc(s->tdelta, sizeof *s->tdelta * (size_t)s->cap);
		if (s->src)
			s->src = xrealloc(s->src, sizeof *s->src * (size_t)s->cap);
	}
	/* a series holds one kind at a time; the other kind's values go */
	if (kind == PK_GPU) {
		free(s->v64);
		s->v64 = NULL;
		s->v32 = xrealloc(s->v32, sizeof *s->v32 * (size_t)s->cap * (size_t)nv);
	} else {
		free(s->v32);
		s->v32 = NULL;
		s->v64 = xrealloc(s->v64, sizeof *s->v64 * (size_t)s->cap * (size_t)nv);
	}
}

int32_t series_append(struct series *s, int kind, int64_t tick, int64_t tdelta, uint16_t src, const int64_t *v)
{
	int nv = pack_nv(kind);
	int32_t r = s->n;

	series_grow(s, kind, r + 1);
	s->tick[r] = tick;
	if (tdelta && !s->tdelta)
		s->tdelta = xcalloc((size_t)s->cap, sizeof *s->tdelta);
	if (s->tdelta)
		s->tdelta[r] = tdelta;
	if (src && !s->src)
		s->src = xcalloc((size_t)s->cap, sizeof *s->src);
	if (s->src)
		s->src[r] = src;
	for (int c = 0; c < nv; c++) {
		if (kind == PK_GPU)
			s->v32[(size_t)r * (size_t)nv + (size_t)c] = (int32_t)v[c];
		else
			s->v64[(size_t)r * (size_t)nv + (size_t)c] = v[c];
	}
	s->n++;
	return r;
}

void pack_values(const struct event *ev, int64_t *v)
{
	if (ev->type == EV_SAMPLE) {
		for (int c = 0; c < NV_GPU; c++)
			v[c] = ev->u.sample.m[c];
		return;
	}
	v[0] = ev->u.ib.state;
	v[1] = ev->u.ib.have;
	for (int c = 0; c < IBC_COUNT; c++)
		v[2 + c] = (int64_t)ev->u.ib.c[c];
}

void unpack_values(struct event *ev, int kind, int32_t node, int32_t idx, const int64_t *v)
{
	memset(&ev->u, 0, sizeof ev->u);
	if (kind == PK_GPU) {
		ev->type = EV_SAMPLE;
		ev->u.sample.node = node;
		ev->u.sample.gpu = idx;
		for (int c = 0; c < NV_GPU; c++)
			ev->u.sample.m[c] = (int32_t)v[c];
		return;
	}
	ev->type = EV_IB;
	ev->u.ib.node = node;
	ev->u.ib.port = idx;
	ev->u.ib.state = (int32_t)v[0];
	ev->u.ib.have = (uint32_t)v[1];
	for (int c = 0; c < IBC_COUNT; c++)
		ev->u.ib.c[c] = (uint64_t)v[2 + c];
}

/* ---- chunks ---- */

struct gather {
	int64_t *col;
	int32_t *rows;                /* kept row indexes */
	int32_t n;
	uint16_t *order;              /* local source k is global id order[k] */
	int nl;
};

static int local_of(const uint16_t *order, int n, uint16_t id)
{
	for (int k = 0; k < n; k++)
		if (order[k] == id)
			return k;
	return 0;
}

static void put_column(struct sbuf *out, struct gather *g, const int64_t *src)
{
	for (int32_t i = 0; i < g->n; i++)
		g->col[i] = src[g->rows[i]];
	col_encode(out, g->col, (size_t)g->n);
}

static void encode_series(struct sbuf *out, const struct series *s, int kind, int64_t t0, struct gather *g)
{
	int nv = pack_nv(kind);
	uint8_t flags = 0;

	for (int32_t i = 0; i < g->n; i++) {
		if (s->tdelta && s->tdelta[g->rows[i]])
			flags |= 1;
		if (local_of(g->order, g->nl, s->src ? s->src[g->rows[i]] : 0))
			flags |= 2;
	}
	put_uvarint(out, (uint64_t)g->n);
	sbuf_addc(out, (char)flags);
	for (int32_t i = 0; i < g->n; i++)
		g->col[i] = s->tick[g->rows[i]] - t0;
	col_encode(out, g->col, (size_t)g->n);
	if (flags & 1)
		put_column(out, g, s->tdelta);
	if (flags & 2) {
		for (int32_t i = 0; i < g->n; i++)
			g->col[i] = local_of(g->order, g->nl, s->src ? s->src[g->rows[i]] : 0);
		col_encode(out, g->col, (size_t)g->n);
	}
	for (int c = 0; c < nv; c++) {
		for (int32_t i = 0; i < g->n; i++)
			g->col[i] = series_value(s, nv, g->rows[i], c);
		col_encode(out, g->col, (size_t)g->n);
	}
}

/* Source ids used by the kept rows of a node, numbered locally from 0
 * (order[k] is the id numbered k). Few per node: a linear search. */
static int local_sources(const struct window *w, int32_t node, uint16_t *order, int (*keep)(void *, int64_t),
			 void *ctx)
{
	int n = 0;

	for (int32_t i = 0; i < w->per_node; i++) {
		const struct series *s = &w->s[(size_t)node * (size_t)w->per_node + (size_t)i];

		for (int32_t r = 0; r < s->n; r++) {
			uint16_t id = s->src ? s->src[r] : 0;
			int k = 0;

			if (keep && !keep(ctx, s->tick[r]))
				continue;
			while (k < n && order[k] != id)
				k++;
			if (k == n)
				order[n++] = id;
		}
	}
	return n;
}

void chunk_encode(struct sbuf *out, const struct window *w, int32_t node, int64_t t0, const char *const *srcs,
		  int (*keep)(void *ctx, int64_t tick), void *ctx)
{
	int32_t maxn = 0, nseries = 0;
	struct gather g;

	for (int32_t i = 0; i < w->per_node; i++)
		maxn = MAX(maxn, w->s[(size_t)node * (size_t)w->per_node + (size_t)i].n);
	g.col = xmalloc(sizeof *g.col * (size_t)(maxn + 1));
	g.rows = xmalloc(sizeof *g.rows * (size_t)(maxn + 1));
	g.order = xmalloc(sizeof *g.order * (size_t)(maxn * w->per_node + 1));
	g.nl = local_sources(w, node, g.order, keep, ctx);
	put_uvarint(out, CHUNK_VERSION);
	put_uvarint(out, (uint64_t)g.nl);
	for (int i = 0; i < g.nl; i++)
		put_bytes(out, srcs[g.order[i]], strlen(srcs[g.order[i]]));
	for (int32_t i = 0; i < w->per_node; i++)
		nseries += w->s[(size_t)node * (size_t)w->per_node + (size_t)i].n > 0;
	put_uvarint(out, (uint64_t)nseries);
	for (int32_t i = 0; i < w->per_node; i++) {
		const struct series *s = &w->s[(size_t)node * (size_t)w->per_node + (size_t)i];

		if (!s->n)
			continue;
		g.n = 0;
		for (int32_t r = 0; r < s->n; r++)
			if (!keep || keep(ctx, s->tick[r]))
				g.rows[g.n++] = r;
		put_uvarint(out, (uint64_t)i);
		encode_series(out, s, w->kind, t0, &g);
	}
	free(g.col);
	free(g.rows);
	free(g.order);
}

struct colbuf {
	int64_t *v;
	size_t cap;
};

static int decode_series(struct rd *r, struct series *s, int kind, int64_t t0, int nsrc, struct colbuf *cb)
{
	int nv = pack_nv(kind);
	uint64_t n = rd_uvarint(r);
	uint8_t flags;
	int64_t *col;

	/* every column costs at least a byte per CODEC_BLOCK values */
	if (r->err || n > (uint64_t)(r->end - r->p) * CODEC_BLOCK + 1 || n > INT32_MAX / 16 || r->p >= r->end)
		return -1;
	flags = *r->p++;
	if (n + 1 > cb->cap) {
		cb->cap = n + 1;
		cb->v = xrealloc(cb->v, sizeof *cb->v * cb->cap);
	}
	col = cb->v;
	s->n = 0;
	series_grow(s, kind, (int32_t)n);
	if (col_decode(r, col, n) < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		s->tick[i] = (int64_t)((uint64_t)col[i] + (uint64_t)t0);   /* a crafted file may overflow: wrap, not UB */
	free(s->tdelta);
	free(s->src);
	s->tdelta = NULL;
	s->src = NULL;
	if (flags & 1) {
		s->tdelta = xmalloc(sizeof *s->tdelta * (size_t)s->cap);
		if (col_decode(r, s->tdelta, n) < 0)
			return -1;
	}
	if (flags & 2) {
		s->src = xmalloc(sizeof *s->src * (size_t)s->cap);
		if (col_decode(r, col, n) < 0)
			return -1;
		for (uint64_t i = 0; i < n; i++) {
			if (col[i] < 0 || col[i] >= nsrc)
				return -1;
			s->src[i] = (uint16_t)col[i];
		}
	}
	for (int c = 0; c < nv; c++) {
		if (col_decode(r, col, n) < 0)
			return -1;
		for (uint64_t i = 0; i < n; i++) {
			if (kind == PK_GPU)
				s->v32[i * (uint64_t)nv + (uint64_t)c] = (int32_t)col[i];
			else
				s->v64[i * (uint64_t)nv + (uint64_t)c] = col[i];
		}
	}
	s->n = (int32_t)n;
	s->pos = 0;
	return 0;
}

int chunk_decode(struct series *s, int32_t per_node, int kind, int64_t t0, const void *blob, size_t len,
		 struct arena *a, const char ***srcs, int *nsrcs)
{
	struct rd r = rd_make(blob, len);
	struct colbuf cb = {0};
	uint64_t nl, ns;
	int rc = -1;

	for (int32_t i = 0; i < per_node; i++)
		s[i].n = s[i].pos = 0;
	if (rd_uvarint(&r) != CHUNK_VERSION || (nl = rd_uvarint(&r)) > PACK_MAX_SRC || r.err)
		goto out;
	*srcs = arena_alloc(a, sizeof **srcs * (nl + 1));
	*nsrcs = (int)nl;
	for (uint64_t i = 0; i < nl; i++) {
		size_t n;
		const uint8_t *p = rd_bytes(&r, &n);

		if (!p)
			goto out;
		(*srcs)[i] = arena_strndup(a, (const char *)p, n);
	}
	ns = rd_uvarint(&r);
	for (uint64_t k = 0; k < ns && !r.err; k++) {
		uint64_t idx = rd_uvarint(&r);

		if (r.err || idx >= (uint64_t)per_node)
			goto out;
		if (decode_series(&r, &s[idx], kind, t0, (int)nl, &cb) < 0)
			goto out;
	}
	rc = r.err ? -1 : 0;
out:
	free(cb.v);
	return rc;
}

/* ---- layouts ---- */

void layout_encode(struct sbuf *out, const struct arrival *a, size_t n)
{
	size_t runs = 0;
	int32_t prev_node = 0;
	struct sbuf body = {0};

	for (size_t i = 0; i < n;) {
		size_t k = 1;

		while (i + k < n && a[i + k].kind == a[i].kind && a[i + k].node == a[i].node &&
		       a[i + k].idx == a[i].idx + (int32_t)k)
			k++;
		put_uvarint(&body, a[i].kind);
		put_svarint(&body, (int64_t)a[i].node - prev_node);
		put_uvarint(&body, (uint64_t)a[i].idx);
		put_uvarint(&body, k);
		prev_node = a[i].node;
		runs++;
		i += k;
	}
	put_uvarint(out, runs);
	if (body.len)
		sbuf_add(out, body.s, body.len);
	sbuf_free(&body);
}

long layout_decode(const void *blob, size_t len, struct arrival **out, size_t *cap)
{
	struct rd r = rd_make(blob, len);
	uint64_t runs = rd_uvarint(&r);
	int64_t node = 0;
	size_t n = 0;

	for (uint64_t i = 0; i < runs && !r.err; i++) {
		uint64_t kind = rd_uvarint(&r), idx, k;

		node += rd_svarint(&r);
		idx = rd_uvarint(&r);
		k = rd_uvarint(&r);
		if (r.err || kind >= PK_COUNT || n + k > len * 64 + 64 || idx > INT32_MAX || node < 0 || node > INT32_MAX)
			return -1;
		if (n + k > *cap) {
			*cap = MAX(n + k, *cap * 2);
			*out = xrealloc(*out, sizeof **out * *cap);
		}
		for (uint64_t j = 0; j < k; j++)
			(*out)[n++] = (struct arrival){(uint8_t)kind, (int32_t)node, (int32_t)(idx + j), -1};
	}
	return r.err ? -1 : (long)n;
}

/* ---- tail rows ---- */

struct ordered {
	uint64_t key;
	size_t i;
};

static int cmp_ordered(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static uint64_t arrival_key(const struct arrival *a)
{
	return (uint64_t)a->kind << 56 | (uint64_t)(uint32_t)a->node << 24 | (uint64_t)(uint32_t)a->idx;
}

/* Arrival indexes in canonical order (stable). */
size_t *pack_canonical(const struct arrival *a, size_t n)
{
	size_t *ix = xmalloc(sizeof *ix * (n + 1)), k;

	for (k = 1; k < n && arrival_key(&a[k - 1]) <= arrival_key(&a[k]); k++)
		;
	if (k >= n) {
		for (size_t i = 0; i < n; i++)
			ix[i] = i;
		return ix;
	}
	struct ordered *o = xmalloc(sizeof *o * n);

	for (size_t i = 0; i < n; i++)
		o[i] = (struct ordered){arrival_key(&a[i]), i};
	qsort(o, n, sizeof *o, cmp_ordered);
	for (size_t i = 0; i < n; i++)
		ix[i] = o[i].i;
	free(o);
	return ix;
}

void pack_put_runs(struct sbuf *out, const struct arrival *a, const size_t *ix, size_t n)
{
	size_t runs = 0;
	int32_t prev = 0;
	struct sbuf body = {0};

	for (size_t i = 0; i < n;) {
		size_t k = 1;

		while (i + k < n && a[ix[i + k]].node == a[ix[i]].node && a[ix[i + k]].idx == a[ix[i]].idx + (int32_t)k)
			k++;
		put_svarint(&body, (int64_t)a[ix[i]].node - prev);
		put_uvarint(&body, (uint64_t)a[ix[i]].idx);
		put_uvarint(&body, k);
		prev = a[ix[i]].node;
		runs++;
		i += k;
	}
	put_uvarint(out, runs);
	sbuf_add(out, body.s ? body.s : "", body.len);
	sbuf_free(&body);
}

/* One kind's events (a[ix[0..n)]) as columns. */
static void put_kind(struct sbuf *out, struct window *w, const struct arrival *a, const size_t *ix, size_t n,
		     const int32_t *local)
{
	size_t need = (n + 1) * (size_t)(w->nv + 1);
	uint8_t flags = 0;

	if (need > w->scratch_cap) {
		w->scratch_cap = need;
		w->scratch = xrealloc(w->scratch, sizeof *w->scratch * need);
	}
	int64_t *col = w->scratch, *v = w->scratch + n + 1;

	pack_put_runs(out, a, ix, n);
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {   /* values relative to the series' last tail row */
		struct series *s = window_series(w, a[ix[i]].node, a[ix[i]].idx);
		int32_t row = a[ix[i]].row, base = s->tail_base;

		if (s->v32) {
			const int32_t *x = s->v32 + (size_t)row * (size_t)w->nv;
			const int32_t *y = base >= 0 ? s->v32 + (size_t)base * (size_t)w->nv : NULL;

			for (int c = 0; c < w->nv; c++)
				v[(size_t)c * n + i] = y ? (int64_t)x[c] - y[c] : x[c];
		} else {
			const int64_t *x = s->v64 + (size_t)row * (size_t)w->nv;
			const int64_t *y = base >= 0 ? s->v64 + (size_t)base * (size_t)w->nv : NULL;

			for (int c = 0; c < w->nv; c++)
				v[(size_t)c * n + i] = (int64_t)((uint64_t)x[c] - (y ? (uint64_t)y[c] : 0));
		}
		col[i] = base >= 0;
		s->tail_base = row;
		flags |= (s->tdelta && s->tdelta[row] ? 1 : 0) | (local[s->src ? s->src[row] : 0] ? 2 : 0);
	}
	sbuf_addc(out, (char)flags);
	col_encode(out, col, n);
	if (flags & 1) {
		for (size_t i = 0; i < n; i++) {
			const struct series *s = window_series(w, a[ix[i]].node, a[ix[i]].idx);

			col[i] = s->tdelta ? s->tdelta[a[ix[i]].row] : 0;
		}
		col_encode(out, col, n);
	}
	if (flags & 2) {
		for (size_t i = 0; i < n; i++) {
			const struct series *s = window_series(w, a[ix[i]].node, a[ix[i]].idx);

			col[i] = local[s->src ? s->src[a[ix[i]].row] : 0];
		}
		col_encode(out, col, n);
	}
	for (int c = 0; c < w->nv; c++)
		col_encode(out, v + (size_t)c * n, n);
}

void tail_put_head(struct sbuf *out, int64_t w0, const uint16_t *ids, size_t n, const char *const *srcs, int nsrcs,
		   int32_t *local)
{
	uint16_t *order = xmalloc(sizeof *order * (size_t)(nsrcs + 1));
	int nl = 0;

	for (int i = 0; i <= nsrcs; i++)
		local[i] = -1;
	for (size_t i = 0; i < n; i++)
		if (local[ids[i]] < 0) {
			local[ids[i]] = nl;
			order[nl++] = ids[i];
		}
	put_uvarint(out, TAIL_VERSION);
	put_uvarint(out, (uint64_t)w0);
	put_uvarint(out, (uint64_t)nl);
	for (int k = 0; k < nl; k++)
		put_bytes(out, srcs[order[k]], strlen(srcs[order[k]]));
	free(order);
}

void tail_encode(struct sbuf *out, struct window *win, int64_t w0, int64_t tick, const struct arrival *a, size_t n,
		 const char *const *srcs, int nsrcs)
{
	int32_t *local = xmalloc(sizeof *local * (size_t)(nsrcs + 1));
	uint16_t *ids = xmalloc(sizeof *ids * (n + 1));
	size_t *ix = pack_canonical(a, n), split = 0;

	(void)tick;
	for (size_t i = 0; i < n; i++) {
		const struct window *w = &win[a[i].kind];
		const struct series *s = &w->s[(size_t)a[i].node * (size_t)w->per_node + (size_t)a[i].idx];

		ids[i] = s->src ? s->src[a[i].row] : 0;
		split += a[i].kind == PK_GPU;
	}
	tail_put_head(out, w0, ids, n, srcs, nsrcs, local);
	put_kind(out, &win[PK_GPU], a, ix, split, local);   /* canonical: GPU samples first */
	put_kind(out, &win[PK_IB], a, ix + split, n - split, local);
	free(ix);
	free(local);
	free(ids);
}

void tail_reset_bases(struct window *w)
{
	for (size_t i = 0; w->s && i < (size_t)w->nnodes * (size_t)w->per_node; i++)
		w->s[i].tail_base = -1;
}

int64_t tail_window(const void *blob, size_t len)
{
	struct rd r = rd_make(blob, len);
	uint64_t w0;

	if (rd_uvarint(&r) != TAIL_VERSION)
		return -1;
	w0 = rd_uvarint(&r);
	return r.err || w0 > INT64_MAX ? -1 : (int64_t)w0;
}
