/*
 * nodeset.c - sets of node names: storage (patterns of rows of range sets,
 * see nodeset_int.h), pending additions and their merge, set algebra, single
 * names (add, remove, contains), count, equality and subsets. Keys and range
 * sets are in nodeset_ranges.c, the syntax in nodeset_parse.c, fold and
 * iteration in nodeset_fold.c and nodeset_boxes.c, positions in
 * nodeset_pick.c; nodeset.h describes the whole.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodeset_int.h"

/* ---- keys ---- */

static int keys_cmp(const uint64_t *a, const uint64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* ---- patterns ---- */

static void pat_free(struct pattern *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->rs[i].r);
	free(p->pat);
	free(p->keys);
	free(p->rs);
	free(p->pend);
}

static void row_grow(struct pattern *p)
{
	size_t kw = pat_kw(p);

	if (p->n < p->cap)
		return;
	p->cap = p->cap ? 2 * p->cap : 4;
	p->rs = xrealloc(p->rs, p->cap * sizeof *p->rs);
	if (kw)
		p->keys = xrealloc(p->keys, p->cap * kw * sizeof *p->keys);
}

/* Appends [lo, hi] to the last row if it has these keys, else to a new last
 * row. Rows and ranges must come in order. */
void nsi_row_append(struct pattern *p, const uint64_t *keys, uint64_t lo, uint64_t hi)
{
	size_t kw = pat_kw(p);

	if (!p->n || keys_cmp(row_keys(p, p->n - 1), keys, kw)) {
		row_grow(p);
		if (kw)
			memcpy(p->keys + p->n * kw, keys, kw * sizeof *keys);
		memset(&p->rs[p->n], 0, sizeof p->rs[0]);
		p->n++;
	}
	nsi_rs_push(&p->rs[p->n - 1], lo, hi);
}

/* Moves row i of src (its range set taken, not copied) or a copy to dst. */
static void row_put(struct pattern *dst, const uint64_t *keys, struct rset rs)
{
	size_t kw = pat_kw(dst);

	row_grow(dst);
	if (kw)
		memcpy(dst->keys + dst->n * kw, keys, kw * sizeof *keys);
	dst->rs[dst->n++] = rs;
}

static struct rset rs_dup(const struct rset *s)
{
	struct rset c = {xmalloc(MAX(s->n, 1) * sizeof *s->r), s->n, MAX(s->n, 1)};

	memcpy(c.r, s->r, s->n * sizeof *s->r);
	return c;
}

/* dst's rows = dst op src (same pattern). Rows left empty are dropped. */
static void rows_combine(struct pattern *dst, const struct pattern *src, enum op op)
{
	struct pattern out = {.dim = dst->dim};
	size_t kw = pat_kw(dst), i = 0, j = 0;

	while (i < dst->n || j < src->n) {
		const uint64_t *ka = row_keys(dst, i), *kb = row_keys(src, j);
		int c = i == dst->n ? 1 : j == src->n ? -1 : keys_cmp(ka, kb, kw);

		if (c < 0) {
			if (op == OP_INTER)
				free(dst->rs[i].r);
			else
				row_put(&out, ka, dst->rs[i]);
			i++;
		} else if (c > 0) {
			if (op == OP_UNION || op == OP_XOR)
				row_put(&out, kb, rs_dup(&src->rs[j]));
			j++;
		} else {
			struct rset rs = {0};

			nsi_rs_op(&rs, &dst->rs[i], &src->rs[j], op);
			free(dst->rs[i].r);
			if (rs.n)
				row_put(&out, ka, rs);
			else
				free(rs.r);
			i++, j++;
		}
	}
	free(dst->keys);
	free(dst->rs);
	dst->keys = out.keys;
	dst->rs = out.rs;
	dst->n = out.n;
	dst->cap = out.cap;
}

/* Merges the pending additions of p into its rows. */
static void pat_flush(struct pattern *p)
{
	size_t kw = pat_kw(p), stride = kw + 2, i;
	struct pattern add = {.dim = p->dim};

	if (!p->npend)
		return;
	nsi_sort_entries(p->pend, p->npend, stride, kw + 1);
	for (i = 0; i < p->npend; i++) {
		const uint64_t *e = p->pend + i * stride;

		nsi_row_append(&add, e, e[kw], e[kw + 1]);
	}
	p->npend = 0;
	if (p->n)
		rows_combine(p, &add, OP_UNION);
	else {
		free(p->keys);
		free(p->rs);
		p->keys = add.keys;
		p->rs = add.rs;
		p->n = add.n;
		p->cap = add.cap;
		add.n = 0;
		add.keys = NULL;
		add.rs = NULL;
	}
	for (i = 0; i < add.n; i++)
		free(add.rs[i].r);
	free(add.keys);
	free(add.rs);
}

/* Reading a set first merges what was added to it: logically const. */
void nsi_flush(const struct nodeset *cns)
{
	struct nodeset *ns = (struct nodeset *)cns;

	if (!ns->dirty)
		return;
	for (size_t i = 0; i < ns->n; i++)
		pat_flush(&ns->p[i]);
	ns->dirty = false;
}

/* The pattern pat[0..len) of ns, created (empty) if absent. */
struct pattern *nsi_pattern(struct nodeset *ns, const char *pat, size_t len, int dim)
{
	size_t lo = 0, hi = ns->n;

	if (ns->last < ns->n && !strncmp(ns->p[ns->last].pat, pat, len) && !ns->p[ns->last].pat[len])
		return &ns->p[ns->last];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(ns->p[mid].pat, pat, len);

		if (!c && ns->p[mid].pat[len])
			c = 1;
		if (!c) {
			ns->last = mid;
			return &ns->p[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 4;
		ns->p = xrealloc(ns->p, ns->cap * sizeof *ns->p);
	}
	memmove(&ns->p[lo + 1], &ns->p[lo], (ns->n - lo) * sizeof *ns->p);
	ns->n++;
	memset(&ns->p[lo], 0, sizeof ns->p[0]);
	ns->p[lo].pat = xstrndup(pat, len);
	ns->p[lo].dim = dim;
	ns->last = lo;
	return &ns->p[lo];
}

/* Adds the names (keys, lo..hi of the last index) to p, pending. */
void nsi_pend(struct nodeset *ns, struct pattern *p, const uint64_t *keys, uint64_t lo, uint64_t hi)
{
	size_t kw = pat_kw(p), stride = kw + 2;

	if (p->npend == p->cappend) {
		p->cappend = p->cappend ? 2 * p->cappend : 8;
		p->pend = xrealloc(p->pend, p->cappend * stride * sizeof *p->pend);
	}
	if (kw)
		memcpy(p->pend + p->npend * stride, keys, kw * sizeof *keys);
	p->pend[p->npend * stride + kw] = lo;
	p->pend[p->npend * stride + kw + 1] = hi;
	p->npend++;
	ns->dirty = true;
}

/* dst = dst op src. Patterns left empty are dropped. */
void nsi_combine(struct nodeset *dst, const struct nodeset *src, enum op op)
{
	struct nodeset out = {0};
	size_t i = 0, j = 0;

	nsi_flush(dst);
	nsi_flush(src);
	while (i < dst->n || j < src->n) {
		int c = i == dst->n ? 1 : j == src->n ? -1 : strcmp(dst->p[i].pat, src->p[j].pat);
		struct pattern *d = i < dst->n ? &dst->p[i] : NULL, *o;

		if (c > 0 && op != OP_UNION && op != OP_XOR) {
			j++;
			continue;
		}
		if (c < 0 && op == OP_INTER) {
			pat_free(d);
			i++;
			continue;
		}
		if (out.n == out.cap) {
			out.cap = out.cap ? 2 * out.cap : 4;
			out.p = xrealloc(out.p, out.cap * sizeof *out.p);
		}
		o = &out.p[out.n];
		if (c > 0) {
			const struct pattern *s = &src->p[j++];

			memset(o, 0, sizeof *o);
			o->pat = xstrdup(s->pat);
			o->dim = s->dim;
			rows_combine(o, s, OP_UNION);
		} else {
			*o = *d;
			if (!c)
				rows_combine(o, &src->p[j++], op);
			i++;
		}
		if (o->n)
			out.n++;
		else
			pat_free(o);
	}
	free(dst->p);
	*dst = out;
}

static void apply(struct nodeset *dst, const struct nodeset *src, enum op op)
{
	if (dst != src)
		nsi_combine(dst, src, op);
	else if (op == OP_DIFF || op == OP_XOR)
		nodeset_clear(dst);
}

/* ---- single names ---- */

void nsi_kv_init(struct keyvec *kv)
{
	kv->k = kv->small;
	kv->n = 0;
	kv->cap = ARRAY_LEN(kv->small);
}

void nsi_kv_push(struct keyvec *kv, uint64_t key)
{
	if (kv->n == kv->cap) {
		kv->cap *= 2;
		if (kv->k == kv->small) {
			kv->k = xmalloc(kv->cap * sizeof *kv->k);
			memcpy(kv->k, kv->small, sizeof kv->small);
		} else {
			kv->k = xrealloc(kv->k, kv->cap * sizeof *kv->k);
		}
	}
	kv->k[kv->n++] = key;
}

void nsi_kv_free(struct keyvec *kv)
{
	if (kv->k != kv->small)
		free(kv->k);
	nsi_kv_init(kv);
}

int nsi_name_scan(const char *s, size_t len, struct sbuf *pat, struct keyvec *kv, size_t *bad)
{
	/* ClusterShell refuses an index above float(1e100): these 101 digits */
	static const char big[] = "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104";
	size_t i = 0, n = 0;

	while (i < len) {
		size_t a = i, z;
		uint64_t v = 0;

		if (!is_digit(s[i])) {
			for (; i < len && !is_digit(s[i]); i++)
				;
			sbuf_add(pat, s + a, i - a);
			continue;
		}
		for (; i < len && is_digit(s[i]); i++)
			;
		for (z = a; z < i - 1 && s[z] == '0'; z++)
			;
		if (i - z > sizeof big - 1 || (i - z == sizeof big - 1 && memcmp(s + z, big, i - z) > 0)) {
			if (bad)
				*bad = a;
			return -1;
		}
		if (i - a > MAX_DIGITS) {   /* too long to be an index: text */
			sbuf_add(pat, s + a, i - a);
			continue;
		}
		for (z = a; z < i; z++)
			v = v * 10 + (uint64_t)(s[z] - '0');
		nsi_kv_push(kv, key_make((int)(i - a), v));
		n++;
		sbuf_add(pat, "%s", 2);
	}
	return (int)n;
}

struct name {
	struct sbuf pat;
	struct keyvec kv;
	int dim;
};

static int name_of(const char *s, struct name *nm)
{
	size_t len;

	memset(&nm->pat, 0, sizeof nm->pat);
	nsi_kv_init(&nm->kv);
	nm->dim = -1;
	if (!s || !s[0])
		return -1;
	for (len = 0; s[len]; len++)
		if (!is_namechar(s[len]))
			return -1;
	nm->dim = nsi_name_scan(s, len, &nm->pat, &nm->kv, NULL);
	return nm->dim < 0 ? -1 : 0;
}

static void name_free(struct name *nm)
{
	sbuf_free(&nm->pat);
	nsi_kv_free(&nm->kv);
}

/* The last key of a name (0 for a name without index). */
static uint64_t name_last(const struct name *nm)
{
	return nm->dim > 0 ? nm->kv.k[nm->dim - 1] : 0;
}

/* ---- public: life cycle, single names, algebra ---- */

struct nodeset *nodeset_new(void)
{
	return xcalloc(1, sizeof(struct nodeset));
}

void nodeset_clear(struct nodeset *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		pat_free(&ns->p[i]);
	ns->n = 0;
	ns->dirty = false;
}

void nodeset_free(struct nodeset *ns)
{
	if (!ns)
		return;
	nodeset_clear(ns);
	free(ns->p);
	free(ns);
}

struct nodeset *nodeset_copy(const struct nodeset *ns)
{
	struct nodeset *c = nodeset_new();

	nsi_combine(c, ns, OP_UNION);
	return c;
}

int nodeset_add(struct nodeset *ns, const char *name)
{
	struct name nm;
	struct pattern *p;

	if (name_of(name, &nm) < 0) {
		name_free(&nm);
		return -1;
	}
	p = nsi_pattern(ns, nm.pat.s, nm.pat.len, nm.dim);
	nsi_pend(ns, p, nm.kv.k, name_last(&nm), name_last(&nm));
	name_free(&nm);
	return 0;
}

int nodeset_remove(struct nodeset *ns, const char *name)
{
	struct nodeset one = {0};
	int rc = nodeset_contains(ns, name);

	if (nodeset_add(&one, name) < 0)
		return -1;
	if (rc)
		nsi_combine(ns, &one, OP_DIFF);
	nodeset_clear(&one);
	free(one.p);
	return rc;
}

static const struct pattern *find_pattern(const struct nodeset *ns, const char *pat)
{
	size_t lo = 0, hi = ns->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ns->p[mid].pat, pat);

		if (!c)
			return &ns->p[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The row of p with these keys, or -1. */
static ptrdiff_t find_row(const struct pattern *p, const uint64_t *keys)
{
	size_t kw = pat_kw(p), lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = keys_cmp(row_keys(p, mid), keys, kw);

		if (!c)
			return (ptrdiff_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int nodeset_contains(const struct nodeset *ns, const char *name)
{
	const struct pattern *p;
	struct name nm;
	ptrdiff_t r;
	int in = 0;

	nsi_flush(ns);
	if (name_of(name, &nm) == 0 && (p = find_pattern(ns, nm.pat.s)) && (r = find_row(p, nm.kv.k)) >= 0) {
		const struct rset *s = &p->rs[r];
		size_t i = nsi_rs_find(s, name_last(&nm));

		in = i < s->n && s->r[i].lo <= name_last(&nm);
	}
	name_free(&nm);
	return in;
}

size_t nodeset_count(const struct nodeset *ns)
{
	uint64_t c = 0;

	nsi_flush(ns);
	for (size_t i = 0; i < ns->n; i++)
		for (size_t j = 0; j < ns->p[i].n; j++)
			c = sat_add(c, nsi_rs_count(&ns->p[i].rs[j]));
	return c > SIZE_MAX ? SIZE_MAX : (size_t)c;
}

/* Every name of a is in b; with same, b has no other name either. */
static int within(const struct nodeset *a, const struct nodeset *b, bool same)
{
	size_t i, j = 0, r, q;

	nsi_flush(a);
	nsi_flush(b);
	if (same && a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct pattern *x = &a->p[i], *y;
		size_t kw = pat_kw(x);

		while (j < b->n && strcmp(b->p[j].pat, x->pat) < 0)
			j++;
		if (j == b->n || strcmp(b->p[j].pat, x->pat) || (same && x->n != b->p[j].n))
			return 0;
		y = &b->p[j];
		for (r = 0, q = 0; r < x->n; r++) {
			while (q < y->n && keys_cmp(row_keys(y, q), row_keys(x, r), kw) < 0)
				q++;
			if (q == y->n || keys_cmp(row_keys(y, q), row_keys(x, r), kw))
				return 0;
			if (same ? nsi_rs_cmp(&x->rs[r], &y->rs[q]) != 0 : !nsi_rs_within(&x->rs[r], &y->rs[q]))
				return 0;
		}
	}
	return 1;
}

int nodeset_equal(const struct nodeset *a, const struct nodeset *b)
{
	return within(a, b, true);
}

int nodeset_subset(const struct nodeset *a, const struct nodeset *b)
{
	return within(a, b, false);
}

void nodeset_union(struct nodeset *dst, const struct nodeset *src) { apply(dst, src, OP_UNION); }
void nodeset_intersect(struct nodeset *dst, const struct nodeset *src) { apply(dst, src, OP_INTER); }
void nodeset_difference(struct nodeset *dst, const struct nodeset *src) { apply(dst, src, OP_DIFF); }
void nodeset_xor(struct nodeset *dst, const struct nodeset *src) { apply(dst, src, OP_XOR); }
