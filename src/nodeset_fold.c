/*
 * nodeset_fold.c - printing sets: the fold (ClusterShell's, every index
 * folded), the fold Slurm's hostlist reads, and iteration over the names.
 * One index prints as ClusterShell prints a RangeSet: its slices, runs of
 * consecutive indexes that print with one padding ("1-9,01,10-100"); a
 * pattern of several indexes prints as the boxes of nodeset_boxes.c.
 */
#include <stdlib.h>
#include <string.h>

#include "nodeset_int.h"

/* ---- one index: ClusterShell's slices ---- */

/* ClusterShell's fold of a RangeSet (autostep off), replayed on ranges: it
 * walks the indexes in order, keeping a run's start, its padding and the
 * step from the last index; a run of step 1 is one slice, a run of a larger
 * step is cut into single indexes. A run goes on across lengths when it is
 * unpadded (9-10), not when padded; the padding is the run's first index's,
 * and stays when a step breaks and the run restarts at the last index:
 * "05,99,100" is not "05,99-100". Within a range nothing happens after its
 * second index, so the walk costs O(ranges). */
struct walk {
	const struct rset *s;
	struct slices *out;
	bool have, padded;
	int pad;
	size_t sa, last_ri;     /* the run's first range, the last index's range */
	int64_t step, last_v;   /* step 0: none yet */
};

static void emit(struct walk *w, size_t a, size_t b)
{
	struct slices *o = w->out;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		o->sl = xrealloc(o->sl, o->cap * sizeof *o->sl);
	}
	o->sl[o->n++] = (struct slice){w->s->r[a].lo, w->s->r[b].hi, a, b + 1};
}

static void emit_singles(struct walk *w, size_t a, size_t b)
{
	for (size_t i = a; i <= b; i++)
		emit(w, i, i);
}

static void feed(struct walk *w, size_t ri, uint64_t k)
{
	int64_t v = (int64_t)key_val(k);
	int len = key_len(k);
	bool padded = nsi_key_padded(k), pm, sm;

	if (!w->have) {
		*w = (struct walk){w->s, w->out, true, padded, len, ri, ri, 0, v};
		return;
	}
	pm = w->padded ? len != w->pad : padded;
	sm = !pm && w->step && w->step != v - w->last_v;
	if (pm || sm) {
		if (!w->step || w->step == 1) {
			emit(w, w->sa, w->last_ri);
			w->sa = ri;
			w->padded = padded;
			w->pad = len;
		} else if (pm) {
			emit_singles(w, w->sa, w->last_ri);
			w->sa = ri;
			w->padded = padded;
			w->pad = len;
		} else {
			if (w->last_ri > w->sa)
				emit_singles(w, w->sa, w->last_ri - 1);
			w->sa = w->last_ri;
		}
		w->step = sm ? v - w->last_v : 0;
	} else {
		w->step = v - w->last_v;
	}
	w->last_v = v;
	w->last_ri = ri;
}

void nsi_slices(const struct rset *s, struct slices *out)
{
	struct walk w = {s, out, false, false, 0, 0, 0, 0, 0};

	out->n = 0;
	for (size_t i = 0; i < s->n; i++) {
		feed(&w, i, s->r[i].lo);
		if (s->r[i].hi > s->r[i].lo) {
			feed(&w, i, s->r[i].lo + 1);
			w.last_v = (int64_t)key_val(s->r[i].hi);
		}
	}
	if (!w.have)
		return;
	if (w.step <= 1)
		emit(&w, w.sa, w.last_ri);
	else
		emit_singles(&w, w.sa, w.last_ri);
}

/* Value v of a slice that starts with key first, as a key. */
static uint64_t slice_key(uint64_t first, uint64_t v)
{
	return nsi_key_padded(first) ? key_make(key_len(first), v) : key_make(nsi_ndigits(v), v);
}

/* The slices; one of 10^9 indexes or more is cut in pieces ClusterShell
 * reads (its ranges hold fewer), so that a fold always parses back. */
void nsi_print_rset(struct sbuf *b, const struct rset *s)
{
	struct slices sl = {0};
	bool first = true;

	nsi_slices(s, &sl);
	for (size_t i = 0; i < sl.n; i++) {
		uint64_t lo = sl.sl[i].lo, vlo = key_val(lo), vhi = key_val(sl.sl[i].hi);

		for (;;) {
			uint64_t top = vhi - vlo >= RANGE_LIMIT - 1 ? vlo + RANGE_LIMIT - 2 : vhi;

			if (!first)
				sbuf_addc(b, ',');
			first = false;
			nsi_add_key(b, slice_key(lo, vlo));
			if (top != vlo) {
				sbuf_addc(b, '-');
				nsi_add_key(b, slice_key(lo, top));
			}
			if (top == vhi)
				break;
			vlo = top + 1;
		}
	}
	free(sl.sl);
}

/* ---- printing ---- */

static void print_dim(struct sbuf *b, const struct rset *s, bool bracket)
{
	if (!bracket && s->n == 1 && s->r[0].lo == s->r[0].hi) {
		nsi_add_key(b, s->r[0].lo);
		return;
	}
	sbuf_addc(b, '[');
	nsi_print_rset(b, s);
	sbuf_addc(b, ']');
}

/* Box i as text; slurm_last: bracket the last index even if single. */
static void print_box(struct sbuf *b, const struct nodeset *ns, const struct boxes *bx, size_t i,
		      bool slurm_last)
{
	const struct pattern *p = &ns->p[bx->b[i].pi];
	const struct rset *const *d = box_dims(bx, i);
	const char *s = p->pat;
	int x = 0;

	if (b->len)
		sbuf_addc(b, ',');
	for (; *s; s++) {
		if (s[0] == '%' && s[1] == 's') {
			print_dim(b, d[x], slurm_last && x == p->dim - 1);
			x++;
			s++;
		} else {
			sbuf_addc(b, *s);
		}
	}
}

void nsi_print_box(struct sbuf *b, const struct nodeset *ns, const struct boxes *bx, size_t i)
{
	print_box(b, ns, bx, i, false);
}

char *nodeset_fold(const struct nodeset *ns)
{
	struct boxes bx;
	struct sbuf b = {0};

	nsi_boxes(ns, &bx);
	for (size_t i = 0; i < bx.n; i++)
		print_box(&b, ns, &bx, i, false);
	nsi_boxes_free(&bx);
	return b.s ? b.s : xstrdup("");
}

/* ---- names ---- */

/* The name of pattern p with the first keys k and the last key last. */
void nsi_format_name(struct sbuf *b, const struct pattern *p, const uint64_t *k, uint64_t last)
{
	const char *s = p->pat, *a = s;
	int x = 0;

	sbuf_reset(b);
	for (; *s; s++)
		if (s[0] == '%' && s[1] == 's') {
			sbuf_add(b, a, (size_t)(s - a));
			nsi_add_key(b, x == p->dim - 1 ? last : k[x]);
			x++;
			a = ++s + 1;
		}
	sbuf_add(b, a, (size_t)(s - a));
}

struct odo {
	size_t ri;
	uint64_t k;
};

/* Calls fn for every name of box i, in order. */
static int box_each(const struct nodeset *ns, const struct boxes *bx, size_t i,
		    int (*fn)(void *ctx, const char *name), void *ctx)
{
	const struct pattern *p = &ns->p[bx->b[i].pi];
	const struct rset *const *d = box_dims(bx, i);
	size_t dim = (size_t)p->dim, x;
	struct odo *o = xcalloc(dim + 1, sizeof *o);
	uint64_t *k = xcalloc(dim + 1, sizeof *k);
	struct sbuf name = {0};
	int rc = 0;

	for (x = 0; x < dim; x++)
		o[x].k = d[x]->r[0].lo;
	do {
		for (x = 0; x < dim; x++)
			k[x] = o[x].k;
		nsi_format_name(&name, p, k, dim ? k[dim - 1] : 0);
		if ((rc = fn(ctx, name.s)))
			break;
		for (x = dim; x-- > 0;) {
			if (o[x].k < d[x]->r[o[x].ri].hi) {
				o[x].k++;
				break;
			}
			if (o[x].ri + 1 < d[x]->n) {
				o[x].k = d[x]->r[++o[x].ri].lo;
				break;
			}
			o[x].ri = 0;
			o[x].k = d[x]->r[0].lo;
		}
	} while (x != (size_t)-1);
	sbuf_free(&name);
	free(o);
	free(k);
	return rc;
}

static int add_slurm_name(void *ctx, const char *name)
{
	struct sbuf *b = ctx;

	if (b->len)
		sbuf_addc(b, ',');
	sbuf_adds(b, name);
	return 0;
}

/* Slurm's hostlist reads brackets only when the text ends with one: a box
 * whose pattern has text after its last index is written name by name, one
 * whose last index is single gets that index in brackets ("r[1-2]-n[01]"). */
char *nodeset_fold_slurm(const struct nodeset *ns)
{
	struct boxes bx;
	struct sbuf b = {0};

	nsi_boxes(ns, &bx);
	for (size_t i = 0; i < bx.n; i++) {
		const struct pattern *p = &ns->p[bx.b[i].pi];
		const struct rset *const *d = box_dims(&bx, i);
		size_t plen = strlen(p->pat);
		bool multi = false, tail = p->dim && strcmp(p->pat + plen - 2, "%s");

		for (int x = 0; x < p->dim; x++)
			multi |= d[x]->n > 1 || d[x]->r[0].lo != d[x]->r[0].hi;
		if (multi && tail)
			box_each(ns, &bx, i, add_slurm_name, &b);
		else
			print_box(&b, ns, &bx, i, multi);
	}
	nsi_boxes_free(&bx);
	return b.s ? b.s : xstrdup("");
}

int nodeset_foreach(const struct nodeset *ns, int (*fn)(void *ctx, const char *name), void *ctx)
{
	struct sbuf name = {0};
	int rc = 0;

	nsi_flush(ns);
	for (size_t i = 0; i < ns->n && !rc; i++) {
		const struct pattern *p = &ns->p[i];

		for (size_t r = 0; r < p->n && !rc; r++)
			for (size_t q = 0; q < p->rs[r].n && !rc; q++)
				for (uint64_t k = p->rs[r].r[q].lo;; k++) {
					nsi_format_name(&name, p, row_keys(p, r), k);
					if ((rc = fn(ctx, name.s)) || k == p->rs[r].r[q].hi)
						break;
				}
	}
	sbuf_free(&name);
	return rc;
}
