/*
 * nodeset_pick.c - names by position, as ClusterShell's NodeSet offers them:
 * the name at an index, a slice by positions ("0-9/2", like `nodeset -I`),
 * a split into N parts (`nodeset --split`), and the contiguous runs
 * (`nodeset --contiguous`). Positions follow the order of nodeset_foreach.
 */
#include <stdlib.h>
#include <string.h>

#include "nodeset_int.h"

/* A position in a set: pattern pi, row ri, range gi, key k. */
struct cursor {
	const struct nodeset *ns;
	size_t pi, ri, gi;
	uint64_t k;
	uint64_t pos;           /* names before this one */
	bool end;
};

static void cur_settle(struct cursor *c)
{
	for (;;) {
		const struct nodeset *ns = c->ns;

		if (c->pi >= ns->n) {
			c->end = true;
			return;
		}
		const struct pattern *p = &ns->p[c->pi];

		if (c->ri >= p->n) {
			c->pi++;
			c->ri = c->gi = 0;
			continue;
		}
		if (c->gi >= p->rs[c->ri].n) {
			c->ri++;
			c->gi = 0;
			continue;
		}
		c->k = p->rs[c->ri].r[c->gi].lo;
		return;
	}
}

static void cur_init(struct cursor *c, const struct nodeset *ns)
{
	nsi_flush(ns);
	memset(c, 0, sizeof *c);
	c->ns = ns;
	cur_settle(c);
}

/* Moves over (and with out, copies) the next n names. */
static void cur_take(struct cursor *c, uint64_t n, struct nodeset *out)
{
	while (n && !c->end) {
		const struct pattern *p = &c->ns->p[c->pi];
		uint64_t hi = p->rs[c->ri].r[c->gi].hi, avail = hi - c->k + 1, t = MIN(n, avail);

		if (out)
			nsi_row_append(nsi_pattern(out, p->pat, strlen(p->pat), p->dim), row_keys(p, c->ri),
				       c->k, c->k + t - 1);
		n -= t;
		c->pos += t;
		if (t == avail) {
			c->gi++;
			cur_settle(c);
		} else {
			c->k += t;
		}
	}
}

char *nodeset_name_at(const struct nodeset *ns, size_t i)
{
	struct cursor c;
	struct sbuf b = {0};

	cur_init(&c, ns);
	cur_take(&c, i, NULL);
	if (c.end)
		return NULL;
	nsi_format_name(&b, &ns->p[c.pi], row_keys(&ns->p[c.pi], c.ri), c.k);
	return b.s;
}

struct nodeset *nodeset_slice(const struct nodeset *ns, const char *positions, char **err)
{
	struct rset pos = {0};
	struct nodeset *out;
	struct cursor c;

	if (nsi_parse_positions(positions, &pos, err) < 0) {
		free(pos.r);
		return NULL;
	}
	out = nodeset_new();
	cur_init(&c, ns);
	for (size_t i = 0; i < pos.n && !c.end; i++) {
		if (pos.r[i].lo > c.pos)
			cur_take(&c, pos.r[i].lo - c.pos, NULL);
		cur_take(&c, pos.r[i].hi - pos.r[i].lo + 1, out);
	}
	free(pos.r);
	return out;
}

struct nodeset **nodeset_split(const struct nodeset *ns, size_t n, size_t *nparts)
{
	size_t total = nodeset_count(ns), parts = n ? MIN(n, total) : 0, i;
	struct nodeset **out = xcalloc(parts + 1, sizeof *out);
	struct cursor c;

	cur_init(&c, ns);
	for (i = 0; i < parts; i++) {
		out[i] = nodeset_new();
		cur_take(&c, total / n + (i < total % n), out[i]);
	}
	*nparts = parts;
	return out;
}

/* The slices of s as spans of ranges: slice i is ranges [span[i], span[i + 1]). */
static size_t slices(const struct rset *s, size_t **span)
{
	struct slices sl = {0};
	size_t n;

	nsi_slices(s, &sl);
	*span = xmalloc((sl.n + 1) * sizeof **span);
	for (n = 0; n < sl.n; n++)
		(*span)[n] = sl.sl[n].a;
	(*span)[n] = s->n;
	free(sl.sl);
	return n;
}

struct parts {
	struct nodeset **p;
	size_t n, cap;
};

/* One contiguous part: the product of slice sl[x] of every index of box. */
static void add_part(struct parts *pt, const struct pattern *p, const struct rset *const *d, size_t *const *span,
		     const size_t *sl)
{
	struct nodeset *ns = nodeset_new();
	struct pattern *q = nsi_pattern(ns, p->pat, strlen(p->pat), p->dim);
	size_t dim = (size_t)p->dim, x, last = dim ? dim - 1 : 0;
	size_t *gi = xcalloc(dim + 1, sizeof *gi);
	uint64_t *k = xcalloc(dim + 1, sizeof *k);

	if (pt->n == pt->cap) {
		pt->cap = pt->cap ? 2 * pt->cap : 8;
		pt->p = xrealloc(pt->p, pt->cap * sizeof *pt->p);
	}
	pt->p[pt->n++] = ns;
	if (!dim) {
		nsi_row_append(q, NULL, 0, 0);
		goto out;
	}
	for (x = 0; x < last; x++) {
		gi[x] = span[x][sl[x]];
		k[x] = d[x]->r[gi[x]].lo;
	}
	for (;;) {
		for (size_t g = span[last][sl[last]]; g < span[last][sl[last] + 1]; g++)
			nsi_row_append(q, last ? k : NULL, d[last]->r[g].lo, d[last]->r[g].hi);
		for (x = last; x-- > 0;) {   /* next keys within the slices */
			if (k[x] < d[x]->r[gi[x]].hi) {
				k[x]++;
				break;
			}
			if (gi[x] + 1 < span[x][sl[x] + 1]) {
				k[x] = d[x]->r[++gi[x]].lo;
				break;
			}
			gi[x] = span[x][sl[x]];
			k[x] = d[x]->r[gi[x]].lo;
		}
		if (x == (size_t)-1)
			break;
	}
out:
	free(gi);
	free(k);
}

struct nodeset **nodeset_contiguous(const struct nodeset *ns, size_t *nparts)
{
	struct parts pt = {0};
	struct boxes bx;

	nsi_boxes(ns, &bx);
	for (size_t i = 0; i < bx.n; i++) {
		const struct pattern *p = &ns->p[bx.b[i].pi];
		const struct rset *const *d = box_dims(&bx, i);
		size_t dim = (size_t)p->dim, x;
		size_t **span = xcalloc(dim + 1, sizeof *span), *cnt = xcalloc(dim + 1, sizeof *cnt);
		size_t *sl = xcalloc(dim + 1, sizeof *sl);

		for (x = 0; x < dim; x++)
			cnt[x] = slices(d[x], &span[x]);
		for (;;) {
			add_part(&pt, p, d, span, sl);
			for (x = dim; x-- > 0;) {
				if (++sl[x] < cnt[x])
					break;
				sl[x] = 0;
			}
			if (x == (size_t)-1)
				break;
		}
		for (x = 0; x < dim; x++)
			free(span[x]);
		free(span);
		free(cnt);
		free(sl);
	}
	nsi_boxes_free(&bx);
	*nparts = pt.n;
	if (!pt.p)
		pt.p = xcalloc(1, sizeof *pt.p);
	return pt.p;
}

void nodeset_free_parts(struct nodeset **parts, size_t n)
{
	for (size_t i = 0; parts && i < n; i++)
		nodeset_free(parts[i]);
	free(parts);
}
