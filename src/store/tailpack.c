/*
 * tailpack.c - tail rows written from dense arrays (pack.h): the recorder
 * of a cluster whose samples stay in tail rows (102,400 GPUs) keeps no
 * series at all, only the tick's events in one array and, per series, the
 * value it was last written with (struct tail_chain), what the next row is
 * relative to. The rows are the bytes tail_encode writes from series; the
 * chain is read in the rows' own (canonical) order, so it is a walk through
 * memory rather than a jump to each series' own heap block.
 */
#include <string.h>
#include "codec.h"
#include "pack.h"

void chain_init(struct tail_chain *c, int32_t nnodes, int32_t gpus_per_node, int32_t ports_per_node)
{
	chain_free(c);
	c->nnodes = nnodes;
	c->per_node[PK_GPU] = gpus_per_node;
	c->per_node[PK_IB] = ports_per_node;
	for (int k = 0; k < PK_COUNT; k++) {
		size_t n = (size_t)nnodes * (size_t)c->per_node[k] + 1;

		c->last[k] = xcalloc(n * (size_t)pack_nv(k), sizeof *c->last[k]);
		c->has[k] = xcalloc(n, 1);
	}
}

void chain_free(struct tail_chain *c)
{
	for (int k = 0; k < PK_COUNT; k++) {
		free(c->last[k]);
		free(c->has[k]);
	}
	free(c->buf);
	memset(c, 0, sizeof *c);
}

void chain_reset(struct tail_chain *c, int kind)
{
	if (c->has[kind])
		memset(c->has[kind], 0, (size_t)c->nnodes * (size_t)c->per_node[kind]);
}

/* One kind's events (ev[a[ix[i]].row]) as columns, as put_kind does. */
static void put_kind_dense(struct sbuf *out, struct tail_chain *c, int kind, const struct tev *ev,
			   const struct arrival *a, const size_t *ix, size_t n, const int32_t *local)
{
	int nv = pack_nv(kind);
	size_t need = (n + 1) * (size_t)(nv + 1);
	uint8_t flags = 0;

	if (need > c->buf_cap) {
		c->buf_cap = need;
		c->buf = xrealloc(c->buf, sizeof *c->buf * need);
	}
	int64_t *col = c->buf, *v = c->buf + n + 1;

	pack_put_runs(out, a, ix, n);
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {   /* values relative to the series' last tail row */
		const struct tev *e = &ev[a[ix[i]].row];
		size_t sid = (size_t)e->node * (size_t)c->per_node[kind] + (size_t)e->idx;
		int64_t *last = c->last[kind] + sid * (size_t)nv;
		int based = c->has[kind][sid];

		if (i + 8 < n)   /* the series' last values are all over 10 MB: ask for them early */
			__builtin_prefetch(c->last[kind] + ((size_t)a[ix[i + 8]].node * (size_t)c->per_node[kind] +
							    (size_t)a[ix[i + 8]].idx) * (size_t)nv, 1);
		for (int k = 0; k < nv; k++) {
			v[(size_t)k * n + i] = (int64_t)((uint64_t)e->v[k] - (based ? (uint64_t)last[k] : 0));
			last[k] = e->v[k];
		}
		c->has[kind][sid] = 1;
		col[i] = based;
		flags |= (e->tdelta ? 1 : 0) | (local[e->src] ? 2 : 0);
	}
	sbuf_addc(out, (char)flags);
	col_encode(out, col, n);
	if (flags & 1) {
		for (size_t i = 0; i < n; i++)
			col[i] = ev[a[ix[i]].row].tdelta;
		col_encode(out, col, n);
	}
	if (flags & 2) {
		for (size_t i = 0; i < n; i++)
			col[i] = local[ev[a[ix[i]].row].src];
		col_encode(out, col, n);
	}
	for (int k = 0; k < nv; k++)
		col_encode(out, v + (size_t)k * n, n);
}

void tail_encode_dense(struct sbuf *out, struct tail_chain *c, int64_t w0, const struct tev *ev, const struct arrival *a,
		       size_t n, const char *const *srcs, int nsrcs)
{
	int32_t *local = xmalloc(sizeof *local * (size_t)(nsrcs + 1));
	uint16_t *ids = xmalloc(sizeof *ids * (n + 1));
	size_t *ix = pack_canonical(a, n), split = 0;

	for (size_t i = 0; i < n; i++) {
		ids[i] = ev[a[i].row].src;
		split += a[i].kind == PK_GPU;
	}
	tail_put_head(out, w0, ids, n, srcs, nsrcs, local);
	put_kind_dense(out, c, PK_GPU, ev, a, ix, split, local);   /* canonical: GPU samples first */
	put_kind_dense(out, c, PK_IB, ev, a, ix + split, n - split, local);
	free(ix);
	free(local);
	free(ids);
}
