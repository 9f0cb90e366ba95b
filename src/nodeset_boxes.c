/*
 * nodeset_boxes.c - the fold of a pattern with several indexes, as
 * ClusterShell's RangeSetND folds them: the names cut into boxes, each the
 * product of one range set per index ("gpu[0001-1280]-ib[0-7]").
 *
 * The rows of a pattern (first indexes -> range set of the last) are
 * grouped by equal range sets; the keys of a group, one index less, are
 * rows again, grouped the same way, until one index is left: each group at
 * the end is a box. Indexes that are the same in every name are set aside
 * first. Which index is folded first is chosen among all of them (for
 * patterns of up to 2^16 names and 4 varying indexes): fewest boxes, then
 * shortest text, then the last index. The boxes depend on the set only, so
 * folds are stable; they are sorted by their first names.
 */
#include <stdlib.h>
#include <string.h>

#include "nodeset_int.h"

#define TRY_NAMES (1u << 16)   /* patterns up to this size try every index first */
#define TRY_DIMS 4

static struct rset *pool_new(struct boxes *bx)
{
	if (bx->npool == bx->cappool) {
		bx->cappool = bx->cappool ? 2 * bx->cappool : 16;
		bx->pool = xrealloc(bx->pool, bx->cappool * sizeof *bx->pool);
	}
	return bx->pool[bx->npool++] = xcalloc(1, sizeof(struct rset));
}

/* A new box of pattern pi with dim range sets; returns where they go. */
static const struct rset **box_new(struct boxes *bx, size_t pi, int dim)
{
	if (bx->n == bx->cap) {
		bx->cap = bx->cap ? 2 * bx->cap : 8;
		bx->b = xrealloc(bx->b, bx->cap * sizeof *bx->b);
	}
	while (bx->nptrs + (size_t)dim > bx->capptrs) {
		bx->capptrs = bx->capptrs ? 2 * bx->capptrs : 16;
		bx->ptrs = xrealloc(bx->ptrs, bx->capptrs * sizeof *bx->ptrs);
	}
	bx->b[bx->n++] = (struct box){pi, bx->nptrs};
	bx->nptrs += (size_t)dim;
	return dim ? bx->ptrs + bx->nptrs - dim : NULL;
}

void nsi_boxes_free(struct boxes *bx)
{
	for (size_t i = 0; i < bx->npool; i++) {
		free(bx->pool[i]->r);
		free(bx->pool[i]);
	}
	free(bx->pool);
	free(bx->b);
	free(bx->ptrs);
	memset(bx, 0, sizeof *bx);
}

/* A pattern's names as rows over the indexes that vary: the keys of the
 * first dim - 1 positions and a range set over the last; position x stands
 * for index orig[x]. The other indexes are fixed[] (NULL where one varies). */
struct view {
	int dim, full;
	size_t n;
	const uint64_t *keys;
	const struct rset *const *rs;
	const int *orig;
	const struct rset *const *fixed;
};

/* Rows keyed by m - 1 keys with a range set over position m - 1; tail holds
 * the range sets of positions m .. dim - 1 already decided. */
struct state {
	size_t m, n;
	uint64_t *keys;
	const struct rset **rs;
	const struct rset **tail;
};

struct grp {
	uint64_t h;
	size_t i;
	const struct rset *r;
};

static uint64_t rs_hash(const struct rset *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < s->n; i++) {
		h = (h ^ s->r[i].lo) * 1099511628211ULL;
		h = (h ^ s->r[i].hi) * 1099511628211ULL;
	}
	return h;
}

static int grp_cmp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;
	int c;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	if ((c = nsi_rs_cmp(x->r, y->r)))
		return c;
	return (x->i > y->i) - (x->i < y->i);
}

struct stack {
	struct state *s;
	size_t n, cap;
};

static void push(struct stack *st, struct state s)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 8;
		st->s = xrealloc(st->s, st->cap * sizeof *st->s);
	}
	st->s[st->n++] = s;
}

/* One step: rows with equal range sets become one state of one position
 * less, whose range sets are made of the groups' last keys. */
static void split_state(struct boxes *bx, struct stack *st, const struct state *s, int dim)
{
	size_t kw = s->m - 1, ck = kw - 1, i = 0, j, k;
	struct grp *g = xmalloc(s->n * sizeof *g);

	for (k = 0; k < s->n; k++)
		g[k] = (struct grp){rs_hash(s->rs[k]), k, s->rs[k]};
	qsort(g, s->n, sizeof *g, grp_cmp);
	for (; i < s->n; i = j) {
		struct state c = {s->m - 1, 0, NULL, NULL, NULL};
		size_t cap = 0;

		for (j = i + 1; j < s->n && g[j].h == g[i].h && !nsi_rs_cmp(g[j].r, g[i].r); j++)
			;
		c.tail = xmalloc((size_t)(dim - (int)c.m) * sizeof *c.tail);
		c.tail[0] = g[i].r;
		if (dim > (int)s->m)
			memcpy(c.tail + 1, s->tail, (size_t)(dim - (int)s->m) * sizeof *c.tail);
		for (k = i; k < j; k++) {   /* in key order: the group's rows are */
			const uint64_t *key = s->keys + g[k].i * kw;

			if (!c.n || (ck && memcmp(c.keys + (c.n - 1) * ck, key, ck * sizeof *key))) {
				if (c.n == cap) {
					cap = cap ? 2 * cap : 4;
					c.keys = xrealloc(c.keys, cap * MAX(ck, 1) * sizeof *c.keys);
					c.rs = xrealloc(c.rs, cap * sizeof *c.rs);
				}
				if (ck)
					memcpy(c.keys + c.n * ck, key, ck * sizeof *key);
				c.rs[c.n++] = pool_new(bx);
			}
			nsi_rs_push((struct rset *)c.rs[c.n - 1], key[ck], key[ck]);
		}
		push(st, c);
	}
	free(g);
}

/* The boxes of the view's names. */
static void fold_view(struct boxes *bx, size_t pi, const struct view *v)
{
	struct stack st = {0};
	struct state s0 = {(size_t)v->dim, v->n, xmalloc(MAX(v->n * ((size_t)v->dim - 1), 1) * sizeof *v->keys),
			   xmalloc(MAX(v->n, 1) * sizeof *v->rs), NULL};

	if (v->dim > 1)
		memcpy(s0.keys, v->keys, v->n * ((size_t)v->dim - 1) * sizeof *v->keys);
	memcpy(s0.rs, v->rs, v->n * sizeof *v->rs);
	push(&st, s0);
	while (st.n) {
		struct state s = st.s[--st.n];

		if (s.m == 1) {
			const struct rset **d = box_new(bx, pi, v->full);

			for (int x = 0; x < v->full; x++)
				d[x] = v->fixed[x];
			d[v->orig[0]] = s.rs[0];
			for (int x = 1; x < v->dim; x++)
				d[v->orig[x]] = s.tail[x - 1];
		} else {
			split_state(bx, &st, &s, v->dim);
		}
		free(s.keys);
		free(s.rs);
		free(s.tail);
	}
	free(st.s);
}

/* The boxes of the view's names with position first folded last: every
 * name expanded, its keys reordered, sorted and made rows again. */
static void fold_turned(struct boxes *bx, size_t pi, const struct view *v, uint64_t total, int first)
{
	size_t dim = (size_t)v->dim, kw = dim - 1, stride = dim + 1, n = 0, r, q;
	uint64_t *e = xmalloc(total * stride * sizeof *e), *tuple = xmalloc(dim * sizeof *tuple);
	int *perm = xmalloc(dim * sizeof *perm), *orig = xmalloc(dim * sizeof *orig);
	struct pattern t = {.dim = v->dim};
	const struct rset **rs;
	struct view tv = *v;

	for (size_t x = 0, y = 0; x < dim; x++)
		if ((int)x != first)
			perm[y++] = (int)x;
	perm[dim - 1] = first;
	for (size_t x = 0; x < dim; x++)
		orig[x] = v->orig[perm[x]];
	for (r = 0; r < v->n; r++)
		for (q = 0; q < v->rs[r]->n; q++)
			for (uint64_t k = v->rs[r]->r[q].lo;; k++) {
				memcpy(tuple, v->keys + r * kw, kw * sizeof *tuple);
				tuple[kw] = k;
				for (size_t x = 0; x < dim; x++)
					e[n * stride + x] = tuple[perm[x]];
				e[n * stride + dim] = e[n * stride + kw];
				n++;
				if (k == v->rs[r]->r[q].hi)
					break;
			}
	nsi_sort_entries(e, n, stride, dim);
	for (r = 0; r < n; r++)
		nsi_row_append(&t, e + r * stride, e[r * stride + kw], e[r * stride + kw]);
	rs = xmalloc(t.n * sizeof *rs);
	for (r = 0; r < t.n; r++) {
		struct rset *own = pool_new(bx);

		*own = t.rs[r];
		rs[r] = own;
	}
	tv.n = t.n;
	tv.keys = t.keys;
	tv.rs = rs;
	tv.orig = orig;
	fold_view(bx, pi, &tv);
	free(rs);
	free(t.keys);
	free(t.rs);
	free(e);
	free(tuple);
	free(perm);
	free(orig);
}

struct sortbox {
	struct box b;
	const struct rset *const *d;
	int dim;
};

/* Boxes of one pattern are disjoint: their smallest keys tell them apart. */
static int sortbox_cmp(const void *a, const void *b)
{
	const struct sortbox *x = a, *y = b;

	for (int i = 0; i < x->dim; i++)
		if (x->d[i]->r[0].lo != y->d[i]->r[0].lo)
			return x->d[i]->r[0].lo < y->d[i]->r[0].lo ? -1 : 1;
	return 0;
}

static void sort_boxes(struct boxes *bx, int dim)
{
	struct sortbox *t = xmalloc(MAX(bx->n, 1) * sizeof *t);
	size_t i;

	for (i = 0; i < bx->n; i++)
		t[i] = (struct sortbox){bx->b[i], box_dims(bx, i), dim};
	qsort(t, bx->n, sizeof *t, sortbox_cmp);
	for (i = 0; i < bx->n; i++)
		bx->b[i] = t[i].b;
	free(t);
}

/* Moves the boxes of src (one pattern) to the end of dst. */
static void boxes_move(struct boxes *dst, struct boxes *src, int dim)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct rset **d = box_new(dst, src->b[i].pi, dim);

		if (dim)
			memcpy(d, box_dims(src, i), (size_t)dim * sizeof *d);
	}
	for (size_t i = 0; i < src->npool; i++) {
		if (dst->npool == dst->cappool) {
			dst->cappool = dst->cappool ? 2 * dst->cappool : 16;
			dst->pool = xrealloc(dst->pool, dst->cappool * sizeof *dst->pool);
		}
		dst->pool[dst->npool++] = src->pool[i];
	}
	src->npool = 0;
	nsi_boxes_free(src);
}

static size_t boxes_text_len(const struct nodeset *ns, const struct boxes *bx)
{
	struct sbuf b = {0};
	size_t len;

	for (size_t i = 0; i < bx->n; i++)
		nsi_print_box(&b, ns, bx, i);
	len = b.len;
	sbuf_free(&b);
	return len;
}

/* The boxes of pattern pi (of 2 indexes or more) into bx. */
static void fold_several(struct boxes *bx, const struct nodeset *ns, size_t pi)
{
	const struct pattern *p = &ns->p[pi];
	size_t kw = pat_kw(p), n = p->n, r;
	int *orig = xmalloc((size_t)p->dim * sizeof *orig), nv = 0;
	const struct rset **fixed = xcalloc((size_t)p->dim, sizeof *fixed), **rs = xmalloc(n * sizeof *rs);
	uint64_t *keys, total = 0;
	struct boxes best = {0};

	for (size_t x = 0; x < kw; x++) {   /* the same in every row: set aside */
		for (r = 1; r < n && p->keys[r * kw + x] == p->keys[x]; r++)
			;
		if (r < n) {
			orig[nv++] = (int)x;
			continue;
		}
		struct rset *one = pool_new(bx);

		nsi_rs_push(one, p->keys[x], p->keys[x]);
		fixed[x] = one;
	}
	orig[nv] = p->dim - 1;
	keys = xmalloc(MAX(n * (size_t)nv, 1) * sizeof *keys);
	for (r = 0; r < n; r++) {
		for (int x = 0; x < nv; x++)
			keys[r * (size_t)nv + (size_t)x] = p->keys[r * kw + (size_t)orig[x]];
		rs[r] = &p->rs[r];
		if (total <= TRY_NAMES)
			total += nsi_rs_count(&p->rs[r]);
	}
	struct view v = {nv + 1, p->dim, n, keys, rs, orig, fixed};

	fold_view(&best, pi, &v);
	if (total <= TRY_NAMES && v.dim <= TRY_DIMS && best.n > 1) {
		size_t bestlen = boxes_text_len(ns, &best);

		for (int first = v.dim - 2; first >= 0; first--) {
			struct boxes t = {0};
			size_t len;

			fold_turned(&t, pi, &v, total, first);
			len = boxes_text_len(ns, &t);
			if (t.n < best.n || (t.n == best.n && len < bestlen)) {
				nsi_boxes_free(&best);
				best = t;
				bestlen = len;
			} else {
				nsi_boxes_free(&t);
			}
		}
	}
	sort_boxes(&best, p->dim);
	boxes_move(bx, &best, p->dim);
	free(orig);
	free(fixed);
	free(rs);
	free(keys);
}

void nsi_boxes(const struct nodeset *ns, struct boxes *out)
{
	nsi_flush(ns);
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < ns->n; i++) {
		const struct pattern *p = &ns->p[i];

		if (p->dim >= 2) {
			fold_several(out, ns, i);
		} else {
			const struct rset **d = box_new(out, i, p->dim);

			if (p->dim)
				d[0] = &p->rs[0];
		}
	}
}
