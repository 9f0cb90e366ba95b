/*
 * nodeset.c - sets of node names: storage, set algebra, count, fold and
 * iteration. The syntax is parsed in nodeset_parse.c; nodeset.h describes it.
 *
 * Every name has exactly one stored form (prefix, suffix, width, index). The
 * index is the name's last run of digits, so the suffix holds no digit and the
 * prefix does not end in one. width is the run's length when the run starts
 * with '0' and is longer than one digit, else 0: gpu0007 is ("gpu", "", 4, 7)
 * and gpu1000 is ("gpu", "", 0, 1000). A pattern of width w >= 2 therefore
 * only holds indexes below 10^(w-1); fold prints the unpadded indexes that
 * look the same inside the padded bracket again: gpu[0001-1280]. Names with no
 * digit, or whose last run is longer than 18 digits, are kept whole (width -1).
 * One form per name makes every set operation a merge of sorted range arrays.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodeset_int.h"

static const uint64_t p10[MAX_DIGITS + 1] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
};

static int ndigits(uint64_t v)
{
	int d = 1;

	while (d < MAX_DIGITS && v >= p10[d])
		d++;
	return d;
}

static size_t fmt_index(char *buf, uint64_t v, int width)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)n < width)
		tmp[n++] = '0';
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* ---- range sets ---- */

void nsi_rs_append(struct rset *s, uint64_t lo, uint64_t hi)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->r = xrealloc(s->r, s->cap * sizeof *s->r);
	}
	s->r[s->n].lo = lo;
	s->r[s->n].hi = hi;
	s->n++;
}

/* Adds [lo, hi] to a sorted set whose last range starts at or below lo. */
static void rs_push(struct rset *s, uint64_t lo, uint64_t hi)
{
	struct range *last = s->n ? &s->r[s->n - 1] : NULL;

	if (last && lo <= last->hi + 1) {
		if (hi > last->hi)
			last->hi = hi;
		return;
	}
	nsi_rs_append(s, lo, hi);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

void nsi_rs_normalize(struct rset *s)
{
	size_t i, n = s->n;

	if (n < 2)
		return;
	qsort(s->r, n, sizeof *s->r, range_cmp);
	s->n = 1;
	for (i = 1; i < n; i++)   /* writes never pass the read index */
		rs_push(s, s->r[i].lo, s->r[i].hi);
}

static void rs_union(struct rset *out, const struct rset *a, const struct rset *b)
{
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		bool take_a = j == b->n || (i < a->n && a->r[i].lo <= b->r[j].lo);
		const struct range *r = take_a ? &a->r[i++] : &b->r[j++];

		rs_push(out, r->lo, r->hi);
	}
}

static void rs_inter(struct rset *out, const struct rset *a, const struct rset *b)
{
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		uint64_t lo = MAX(a->r[i].lo, b->r[j].lo);
		uint64_t hi = MIN(a->r[i].hi, b->r[j].hi);

		if (lo <= hi)
			rs_push(out, lo, hi);
		if (a->r[i].hi < b->r[j].hi)
			i++;
		else
			j++;
	}
}

static void rs_diff(struct rset *out, const struct rset *a, const struct rset *b)
{
	size_t i, j = 0, k;

	for (i = 0; i < a->n; i++) {
		uint64_t lo = a->r[i].lo, hi = a->r[i].hi;

		while (j < b->n && b->r[j].hi < lo)
			j++;
		for (k = j; k < b->n && b->r[k].lo <= hi && lo <= hi; k++) {
			if (b->r[k].lo > lo)
				rs_push(out, lo, b->r[k].lo - 1);
			lo = b->r[k].hi + 1;
		}
		if (lo <= hi)
			rs_push(out, lo, hi);
	}
}

static void rs_op(struct rset *out, const struct rset *a, const struct rset *b, enum op op)
{
	struct rset x = {0}, y = {0};

	switch (op) {
	case OP_UNION: rs_union(out, a, b); break;
	case OP_INTER: rs_inter(out, a, b); break;
	case OP_DIFF: rs_diff(out, a, b); break;
	case OP_XOR:
		rs_diff(&x, a, b);
		rs_diff(&y, b, a);
		rs_union(out, &x, &y);
		free(x.r);
		free(y.r);
		break;
	}
}

/* The first range with hi >= v (s->n if none). */
static size_t rs_find(const struct rset *s, uint64_t v)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].hi < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void rs_insert(struct rset *s, uint64_t v)
{
	size_t i = rs_find(s, v ? v - 1 : 0);   /* first range with hi + 1 >= v */

	if (i < s->n && s->r[i].hi + 1 == v) {
		s->r[i].hi = v;
		if (i + 1 < s->n && s->r[i + 1].lo == v + 1) {   /* filled a gap */
			s->r[i].hi = s->r[i + 1].hi;
			s->n--;
			memmove(s->r + i + 1, s->r + i + 2, (s->n - i - 1) * sizeof *s->r);
		}
	} else if (i < s->n && s->r[i].lo <= v + 1) {
		s->r[i].lo = MIN(s->r[i].lo, v);
	} else {
		nsi_rs_append(s, v, v);
		memmove(s->r + i + 1, s->r + i, (s->n - 1 - i) * sizeof *s->r);
		s->r[i].lo = s->r[i].hi = v;
	}
}

uint64_t nsi_rs_count(const struct rset *s)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		c = sat_add(c, s->r[i].hi - s->r[i].lo + 1);
	return c;
}

/* ---- patterns and sets ---- */

static void pat_free(struct pattern *p)
{
	free(p->prefix);
	free(p->suffix);
	free(p->rs.r);
}

static int pat_cmp(const void *a, const void *b)
{
	const struct pattern *x = a, *y = b;
	int c = strcmp(x->prefix, y->prefix);

	if (!c)
		c = strcmp(x->suffix, y->suffix);
	return c ? c : (x->width > y->width) - (x->width < y->width);
}

/* A new zeroed pattern at the end of ns. */
struct pattern *nsi_ns_grow(struct nodeset *ns)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 4;
		ns->p = xrealloc(ns->p, ns->cap * sizeof *ns->p);
	}
	memset(&ns->p[ns->n], 0, sizeof ns->p[0]);
	return &ns->p[ns->n++];
}

void nsi_pat_copy(struct pattern *dst, const struct pattern *src)
{
	dst->prefix = xstrdup(src->prefix);
	dst->suffix = xstrdup(src->suffix);
	dst->width = src->width;
	dst->rs.n = dst->rs.cap = src->rs.n;
	dst->rs.r = xmalloc(src->rs.n * sizeof *src->rs.r);
	memcpy(dst->rs.r, src->rs.r, src->rs.n * sizeof *src->rs.r);
}

/* dst = dst op src; both sorted. Patterns left empty are dropped. */
void nsi_ns_combine(struct nodeset *dst, const struct nodeset *src, enum op op)
{
	struct nodeset out = {0};
	size_t i = 0, j = 0;

	while (i < dst->n || j < src->n) {
		int c = i == dst->n ? 1 : j == src->n ? -1 : pat_cmp(&dst->p[i], &src->p[j]);
		struct pattern *d = i < dst->n ? &dst->p[i] : NULL;

		if (c < 0) {
			if (op == OP_INTER)
				pat_free(d);
			else
				*nsi_ns_grow(&out) = *d;
			i++;
		} else if (c > 0) {
			if (op == OP_UNION || op == OP_XOR)
				nsi_pat_copy(nsi_ns_grow(&out), &src->p[j]);
			j++;
		} else {
			struct rset rs = {0};

			rs_op(&rs, &d->rs, &src->p[j].rs, op);
			free(d->rs.r);
			d->rs = rs;
			if (rs.n)
				*nsi_ns_grow(&out) = *d;
			else
				pat_free(d);
			i++, j++;
		}
	}
	free(dst->p);
	*dst = out;
}

void nsi_ns_apply(struct nodeset *dst, const struct nodeset *src, enum op op)
{
	if (dst != src)
		nsi_ns_combine(dst, src, op);
	else if (op == OP_DIFF || op == OP_XOR)
		nodeset_clear(dst);
}

/* ---- building: raw (unsorted) sets, sorted once at the end ---- */

/* The last pattern if it has this key, else a new one. */
static struct pattern *raw_pattern(struct nodeset *ns, const char *pre, size_t plen,
				   const char *suf, size_t slen, int width)
{
	struct pattern *p = ns->n ? &ns->p[ns->n - 1] : NULL;

	if (p && p->width == width && !strncmp(p->prefix, pre, plen) && !p->prefix[plen] &&
	    !strncmp(p->suffix, suf, slen) && !p->suffix[slen])
		return p;
	p = nsi_ns_grow(ns);
	p->prefix = xstrndup(pre, plen);
	p->suffix = xstrndup(suf, slen);
	p->width = width;
	return p;
}

/* Adds indexes lo..hi printed with width, split into their stored forms. */
void nsi_raw_add(struct nodeset *ns, const char *pre, size_t plen, const char *suf,
		    size_t slen, int width, uint64_t lo, uint64_t hi)
{
	if (width >= 2 && lo < p10[width - 1]) {
		uint64_t top = MIN(hi, p10[width - 1] - 1);

		nsi_rs_append(&raw_pattern(ns, pre, plen, suf, slen, width)->rs, lo, top);
		if (top == hi)
			return;
		lo = top + 1;
	}
	nsi_rs_append(&raw_pattern(ns, pre, plen, suf, slen, width < 0 ? -1 : 0)->rs, lo, hi);
}

/* Splits s at its last run of digits [*st, *e). Returns the width, or -1. */
static int name_split(const char *s, size_t len, size_t *st, size_t *e, uint64_t *v)
{
	size_t a, b = len, i;

	while (b > 0 && !is_digit(s[b - 1]))
		b--;
	for (a = b; a > 0 && is_digit(s[a - 1]); a--)
		;
	if (a == b || b - a > MAX_DIGITS)
		return -1;
	*v = 0;
	for (i = a; i < b; i++)
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	*st = a;
	*e = b;
	return b - a > 1 && s[a] == '0' ? (int)(b - a) : 0;
}

void nsi_raw_add_name(struct nodeset *ns, const char *s, size_t len)
{
	size_t st, e;
	uint64_t v;
	int w = name_split(s, len, &st, &e, &v);

	if (w < 0)
		nsi_raw_add(ns, s, len, "", 0, -1, 0, 0);
	else
		nsi_raw_add(ns, s, st, s + e, len - e, w, v, v);
}

/* Sorts a raw set and merges patterns with the same key. */
void nsi_ns_normalize(struct nodeset *ns)
{
	size_t i, j, n = 0;

	if (ns->n > 1)
		qsort(ns->p, ns->n, sizeof *ns->p, pat_cmp);
	for (i = 0; i < ns->n; i++) {
		struct pattern *p = &ns->p[i], *last = n ? &ns->p[n - 1] : NULL;

		if (last && !pat_cmp(last, p)) {
			for (j = 0; j < p->rs.n; j++)
				nsi_rs_append(&last->rs, p->rs.r[j].lo, p->rs.r[j].hi);
			pat_free(p);
		} else {
			ns->p[n++] = *p;
		}
	}
	ns->n = n;
	for (i = 0; i < n; i++)
		nsi_rs_normalize(&ns->p[i].rs);
}

/* ---- single names ---- */

struct key {                    /* a name's stored form, pointing into it */
	const char *pre, *suf;
	size_t plen, slen;
	int width;
	uint64_t v;
};

/* strcmp of the first n bytes of a with the string b. */
static int slice_cmp(const char *a, size_t n, const char *b)
{
	int c = strncmp(a, b, n);

	return c ? c : -(b[n] != '\0');
}

static int key_cmp(const struct key *k, const struct pattern *p)
{
	int c = slice_cmp(k->pre, k->plen, p->prefix);

	if (!c)
		c = slice_cmp(k->suf, k->slen, p->suffix);
	return c ? c : (k->width > p->width) - (k->width < p->width);
}

static int key_of(const char *name, struct key *k)
{
	size_t len, st, e;

	if (!name || !name[0] || is_digit(name[0]))
		return -1;
	for (len = 0; name[len]; len++)
		if (!is_namechar(name[len]))
			return -1;
	k->width = name_split(name, len, &st, &e, &k->v);
	if (k->width < 0) {
		st = e = len;
		k->v = 0;
	}
	k->pre = name;
	k->plen = st;
	k->suf = name + e;
	k->slen = len - e;
	return 0;
}

/* The pattern with k's key, or NULL; *at is where it is or would go. */
static struct pattern *ns_find(const struct nodeset *ns, const struct key *k, size_t *at)
{
	size_t lo = 0, hi = ns->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(k, &ns->p[mid]);

		if (!c) {
			*at = mid;
			return &ns->p[mid];
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*at = lo;
	return NULL;
}

/* ---- public: life cycle, single names, algebra ---- */

struct nodeset *nodeset_new(void)
{
	return xcalloc(1, sizeof(struct nodeset));
}

void nodeset_clear(struct nodeset *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		pat_free(&ns->p[i]);
	ns->n = 0;
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
	size_t i;

	for (i = 0; i < ns->n; i++)
		nsi_pat_copy(nsi_ns_grow(c), &ns->p[i]);
	return c;
}

int nodeset_add(struct nodeset *ns, const char *name)
{
	struct key k;
	struct pattern *p;
	size_t at;

	if (key_of(name, &k) < 0)
		return -1;
	p = ns_find(ns, &k, &at);
	if (!p) {
		nsi_ns_grow(ns);
		memmove(&ns->p[at + 1], &ns->p[at], (ns->n - 1 - at) * sizeof *ns->p);
		p = &ns->p[at];
		memset(p, 0, sizeof *p);
		p->prefix = xstrndup(k.pre, k.plen);
		p->suffix = xstrndup(k.suf, k.slen);
		p->width = k.width;
	}
	rs_insert(&p->rs, k.v);
	return 0;
}

int nodeset_remove(struct nodeset *ns, const char *name)
{
	struct nodeset one = {0};
	int rc = nodeset_contains(ns, name);

	if (nodeset_add(&one, name) < 0)
		return -1;
	if (rc)
		nsi_ns_combine(ns, &one, OP_DIFF);
	nodeset_clear(&one);
	free(one.p);
	return rc;
}

int nodeset_contains(const struct nodeset *ns, const char *name)
{
	const struct pattern *p;
	struct key k;
	size_t at, i;

	if (key_of(name, &k) < 0 || !(p = ns_find(ns, &k, &at)))
		return 0;
	i = rs_find(&p->rs, k.v);
	return i < p->rs.n && p->rs.r[i].lo <= k.v;
}

size_t nodeset_count(const struct nodeset *ns)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < ns->n; i++)
		c = sat_add(c, nsi_rs_count(&ns->p[i].rs));
	return c > SIZE_MAX ? SIZE_MAX : (size_t)c;
}

int nodeset_equal(const struct nodeset *a, const struct nodeset *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct pattern *x = &a->p[i], *y = &b->p[i];

		if (pat_cmp(x, y) || x->rs.n != y->rs.n ||
		    memcmp(x->rs.r, y->rs.r, x->rs.n * sizeof *x->rs.r))
			return 0;
	}
	return 1;
}

void nodeset_union(struct nodeset *dst, const struct nodeset *src) { nsi_ns_apply(dst, src, OP_UNION); }
void nodeset_intersect(struct nodeset *dst, const struct nodeset *src) { nsi_ns_apply(dst, src, OP_INTER); }
void nodeset_difference(struct nodeset *dst, const struct nodeset *src) { nsi_ns_apply(dst, src, OP_DIFF); }
void nodeset_xor(struct nodeset *dst, const struct nodeset *src) { nsi_ns_apply(dst, src, OP_XOR); }

/* ---- fold and foreach: one walk over the printed brackets ---- */

struct view {
	const char *prefix, *suffix;
	int width;
	const struct rset *rs;
};

typedef int (*emit_fn)(void *arg, const struct view *v);

/*
 * p[0..n) share prefix and suffix and are sorted by width. Each unpadded index
 * with d digits is printed in the widest padded bracket of width <= d, if
 * any, where it looks the same; the rest form the unpadded bracket.
 */
static int walk_group(const struct pattern *p, size_t n, emit_fn emit, void *arg)
{
	struct rset out[MAX_DIGITS + 1] = {{0}};
	const struct rset *zero = NULL;
	int best[MAX_DIGITS + 1] = {0}, rc = 0, w, d;
	size_t i, j;

	for (i = 0; i < n && !rc; i++) {
		w = p[i].width;
		if (w < 0)
			rc = emit(arg, &(struct view){p[i].prefix, "", -1, &p[i].rs});
		else if (w == 0)
			zero = &p[i].rs;
		else
			for (j = 0, best[w] = w; j < p[i].rs.n; j++)
				rs_push(&out[w], p[i].rs.r[j].lo, p[i].rs.r[j].hi);
	}
	for (d = 1; d <= MAX_DIGITS; d++)
		best[d] = best[d] ? best[d] : best[d - 1];
	for (j = 0; zero && j < zero->n; j++) {
		uint64_t lo = zero->r[j].lo, hi = zero->r[j].hi, top;

		for (;; lo = top + 1) {
			d = ndigits(lo);
			top = d == MAX_DIGITS ? hi : MIN(hi, p10[d] - 1);
			rs_push(&out[best[d]], lo, top);
			if (top == hi)
				break;
		}
	}
	for (w = 0; w <= MAX_DIGITS; w++) {
		if (out[w].n && !rc)
			rc = emit(arg, &(struct view){p->prefix, p->suffix, w, &out[w]});
		free(out[w].r);
	}
	return rc;
}

static int walk(const struct nodeset *ns, emit_fn emit, void *arg)
{
	size_t i = 0, j;
	int rc = 0;

	while (i < ns->n && !rc) {
		for (j = i + 1; j < ns->n; j++)
			if (strcmp(ns->p[i].prefix, ns->p[j].prefix) ||
			    strcmp(ns->p[i].suffix, ns->p[j].suffix))
				break;
		rc = walk_group(&ns->p[i], j - i, emit, arg);
		i = j;
	}
	return rc;
}

void nsi_add_index(struct sbuf *b, uint64_t v, int width)
{
	char num[24];

	sbuf_add(b, num, fmt_index(num, v, width));
}

static int emit_fold(void *arg, const struct view *v)
{
	struct sbuf *b = arg;
	size_t i;

	if (b->len)
		sbuf_addc(b, ',');
	sbuf_adds(b, v->prefix);
	if (v->width < 0)
		return 0;
	if (v->rs->n == 1 && v->rs->r[0].lo == v->rs->r[0].hi) {
		nsi_add_index(b, v->rs->r[0].lo, v->width);
	} else {
		sbuf_addc(b, '[');
		for (i = 0; i < v->rs->n; i++) {
			if (i)
				sbuf_addc(b, ',');
			nsi_add_index(b, v->rs->r[i].lo, v->width);
			if (v->rs->r[i].hi == v->rs->r[i].lo)
				continue;
			sbuf_addc(b, '-');
			nsi_add_index(b, v->rs->r[i].hi, v->width);
		}
		sbuf_addc(b, ']');
	}
	sbuf_adds(b, v->suffix);
	return 0;
}

char *nodeset_fold(const struct nodeset *ns)
{
	struct sbuf b = {0};

	walk(ns, emit_fold, &b);
	return b.s ? b.s : xstrdup("");
}

struct each {
	int (*fn)(void *ctx, const char *name);
	void *ctx;
	struct sbuf name;
};

static int emit_each(void *arg, const struct view *v)
{
	struct each *e = arg;
	size_t i, plen = strlen(v->prefix);
	uint64_t x;
	int rc;

	if (v->width < 0)
		return e->fn(e->ctx, v->prefix);
	for (i = 0; i < v->rs->n; i++) {
		for (x = v->rs->r[i].lo;; x++) {
			sbuf_reset(&e->name);
			sbuf_add(&e->name, v->prefix, plen);
			nsi_add_index(&e->name, x, v->width);
			sbuf_adds(&e->name, v->suffix);
			if ((rc = e->fn(e->ctx, e->name.s)))
				return rc;
			if (x == v->rs->r[i].hi)
				break;
		}
	}
	return 0;
}

int nodeset_foreach(const struct nodeset *ns, int (*fn)(void *ctx, const char *name), void *ctx)
{
	struct each e = {fn, ctx, {0}};
	int rc = walk(ns, emit_each, &e);

	sbuf_free(&e.name);
	return rc;
}
