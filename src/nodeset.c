/*
 * nodeset.c - sets of node names: the ClusterShell/Slurm nodeset syntax
 * (parse and fold), set algebra, count and iteration. nodeset.h has the syntax.
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

#include "nodeset.h"
#include "util.h"

#define MAX_DIGITS 18              /* indexes stay below 10^18 */
#define PARSE_BUDGET (1ULL << 17)  /* expansion work one nodeset_parse may do */

enum op { OP_UNION, OP_INTER, OP_DIFF, OP_XOR };

struct range {
	uint64_t lo, hi;
};

struct rset {
	struct range *r;   /* sorted, disjoint, not adjacent (once normalized) */
	size_t n, cap;
};

struct pattern {
	char *prefix, *suffix;
	int width;         /* -1: no index, 0: unpadded, >= 2: zero padded */
	struct rset rs;    /* {0, 0} when width is -1 */
};

struct nodeset {
	struct pattern *p; /* sorted by prefix, suffix, width */
	size_t n, cap;
};

static const uint64_t p10[MAX_DIGITS + 1] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_namechar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '-' || c == '_' || c == '.' || c == ':';
}

static bool is_op(char c)
{
	return c == ',' || c == '!' || c == '&' || c == '^';
}

static int ndigits(uint64_t v)
{
	int d = 1;

	while (d < MAX_DIGITS && v >= p10[d])
		d++;
	return d;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
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

static void rs_append(struct rset *s, uint64_t lo, uint64_t hi)
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
	rs_append(s, lo, hi);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

static void rs_normalize(struct rset *s)
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
		rs_append(s, v, v);
		memmove(s->r + i + 1, s->r + i, (s->n - 1 - i) * sizeof *s->r);
		s->r[i].lo = s->r[i].hi = v;
	}
}

static uint64_t rs_count(const struct rset *s)
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
static struct pattern *ns_grow(struct nodeset *ns)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 4;
		ns->p = xrealloc(ns->p, ns->cap * sizeof *ns->p);
	}
	memset(&ns->p[ns->n], 0, sizeof ns->p[0]);
	return &ns->p[ns->n++];
}

static void pat_copy(struct pattern *dst, const struct pattern *src)
{
	dst->prefix = xstrdup(src->prefix);
	dst->suffix = xstrdup(src->suffix);
	dst->width = src->width;
	dst->rs.n = dst->rs.cap = src->rs.n;
	dst->rs.r = xmalloc(src->rs.n * sizeof *src->rs.r);
	memcpy(dst->rs.r, src->rs.r, src->rs.n * sizeof *src->rs.r);
}

/* dst = dst op src; both sorted. Patterns left empty are dropped. */
static void ns_combine(struct nodeset *dst, const struct nodeset *src, enum op op)
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
				*ns_grow(&out) = *d;
			i++;
		} else if (c > 0) {
			if (op == OP_UNION || op == OP_XOR)
				pat_copy(ns_grow(&out), &src->p[j]);
			j++;
		} else {
			struct rset rs = {0};

			rs_op(&rs, &d->rs, &src->p[j].rs, op);
			free(d->rs.r);
			d->rs = rs;
			if (rs.n)
				*ns_grow(&out) = *d;
			else
				pat_free(d);
			i++, j++;
		}
	}
	free(dst->p);
	*dst = out;
}

static void ns_apply(struct nodeset *dst, const struct nodeset *src, enum op op)
{
	if (dst != src)
		ns_combine(dst, src, op);
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
	p = ns_grow(ns);
	p->prefix = xstrndup(pre, plen);
	p->suffix = xstrndup(suf, slen);
	p->width = width;
	return p;
}

/* Adds indexes lo..hi printed with width, split into their stored forms. */
static void raw_add(struct nodeset *ns, const char *pre, size_t plen, const char *suf,
		    size_t slen, int width, uint64_t lo, uint64_t hi)
{
	if (width >= 2 && lo < p10[width - 1]) {
		uint64_t top = MIN(hi, p10[width - 1] - 1);

		rs_append(&raw_pattern(ns, pre, plen, suf, slen, width)->rs, lo, top);
		if (top == hi)
			return;
		lo = top + 1;
	}
	rs_append(&raw_pattern(ns, pre, plen, suf, slen, width < 0 ? -1 : 0)->rs, lo, hi);
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

static void raw_add_name(struct nodeset *ns, const char *s, size_t len)
{
	size_t st, e;
	uint64_t v;
	int w = name_split(s, len, &st, &e, &v);

	if (w < 0)
		raw_add(ns, s, len, "", 0, -1, 0, 0);
	else
		raw_add(ns, s, st, s + e, len - e, w, v, v);
}

/* Sorts a raw set and merges patterns with the same key. */
static void ns_normalize(struct nodeset *ns)
{
	size_t i, j, n = 0;

	if (ns->n > 1)
		qsort(ns->p, ns->n, sizeof *ns->p, pat_cmp);
	for (i = 0; i < ns->n; i++) {
		struct pattern *p = &ns->p[i], *last = n ? &ns->p[n - 1] : NULL;

		if (last && !pat_cmp(last, p)) {
			for (j = 0; j < p->rs.n; j++)
				rs_append(&last->rs, p->rs.r[j].lo, p->rs.r[j].hi);
			pat_free(p);
		} else {
			ns->p[n++] = *p;
		}
	}
	ns->n = n;
	for (i = 0; i < n; i++)
		rs_normalize(&ns->p[i].rs);
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
		pat_copy(ns_grow(c), &ns->p[i]);
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
		ns_grow(ns);
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
		ns_combine(ns, &one, OP_DIFF);
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
		c = sat_add(c, rs_count(&ns->p[i].rs));
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

void nodeset_union(struct nodeset *dst, const struct nodeset *src) { ns_apply(dst, src, OP_UNION); }
void nodeset_intersect(struct nodeset *dst, const struct nodeset *src) { ns_apply(dst, src, OP_INTER); }
void nodeset_difference(struct nodeset *dst, const struct nodeset *src) { ns_apply(dst, src, OP_DIFF); }
void nodeset_xor(struct nodeset *dst, const struct nodeset *src) { ns_apply(dst, src, OP_XOR); }

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

static void add_index(struct sbuf *b, uint64_t v, int width)
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
		add_index(b, v->rs->r[0].lo, v->width);
	} else {
		sbuf_addc(b, '[');
		for (i = 0; i < v->rs->n; i++) {
			if (i)
				sbuf_addc(b, ',');
			add_index(b, v->rs->r[i].lo, v->width);
			if (v->rs->r[i].hi == v->rs->r[i].lo)
				continue;
			sbuf_addc(b, '-');
			add_index(b, v->rs->r[i].hi, v->width);
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
			add_index(&e->name, x, v->width);
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

/* ---- parsing ---- */

struct parser {
	const char *s;
	size_t i;               /* offset of the next character */
	char *err;
	uint64_t budget;        /* names and stepped indexes left to generate */
	nodeset_group_fn groups;
	void *ctx;
};

struct num {
	uint64_t v;
	size_t pos, len;
};

struct item {
	struct num lo, hi;
	uint64_t step;
};

struct seg {                    /* literal text, then one bracket */
	size_t lit, litlen;
	int width;
	struct rset rs;
};

struct elem {
	struct seg *seg;
	size_t n, cap;
	size_t start, tail, end; /* tail: text after the last bracket */
};

PRINTF_LIKE(3, 4) static int perr(struct parser *p, size_t at, const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;

	sbuf_printf(&b, "position %zu: ", at + 1);
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(p->err);
	p->err = b.s;
	return -1;
}

/* Takes work from the parse budget, or fails. */
static int charge(struct parser *p, uint64_t work, size_t at)
{
	if (work > p->budget)
		return perr(p, at, "nodeset is too large to expand");
	p->budget -= work;
	return 0;
}

/* The error for an unexpected character at p->i; open is an unclosed '['. */
static int unexpected(struct parser *p, const size_t *open, const char *expected)
{
	unsigned char c = (unsigned char)p->s[p->i];

	if (!c && open)
		return perr(p, *open, "'[' is not closed");
	if (c < 0x20 || c == 0x7f)
		return perr(p, p->i, "control character 0x%02x", c);
	if (expected)
		return perr(p, p->i, "expected %s", expected);
	if (c == ']')
		return perr(p, p->i, "unexpected ']'");
	if (c >= 0x80)
		return perr(p, p->i, "invalid character 0x%02x", c);
	return perr(p, p->i, "invalid character '%c'", c);
}

static int parse_num(struct parser *p, size_t open, struct num *n)
{
	n->pos = p->i;
	n->v = 0;
	while (is_digit(p->s[p->i]))
		p->i++;
	n->len = p->i - n->pos;
	if (!n->len)
		return unexpected(p, &open, "a number");
	if (n->len > MAX_DIGITS)
		return perr(p, n->pos, "number longer than %d digits", MAX_DIGITS);
	for (size_t k = n->pos; k < p->i; k++)
		n->v = n->v * 10 + (uint64_t)(p->s[k] - '0');
	return 0;
}

static int parse_item(struct parser *p, size_t open, struct item *it)
{
	struct num step;

	it->step = 1;
	if (parse_num(p, open, &it->lo) < 0)
		return -1;
	it->hi = it->lo;
	if (p->s[p->i] != '-')
		return 0;
	p->i++;
	if (parse_num(p, open, &it->hi) < 0)
		return -1;
	if (it->hi.v < it->lo.v)
		return perr(p, it->lo.pos, "range %.*s-%.*s is reversed", (int)it->lo.len,
			    p->s + it->lo.pos, (int)it->hi.len, p->s + it->hi.pos);
	if (p->s[p->i] != '/')
		return 0;
	p->i++;
	if (parse_num(p, open, &step) < 0)
		return -1;
	if (!step.v)
		return perr(p, step.pos, "step must be at least 1");
	it->step = step.v;
	return 0;
}

static bool num_padded(const struct parser *p, const struct num *n)
{
	return n->len > 1 && p->s[n->pos] == '0';
}

/* The bracket's width: that of its first padded number, which all others
 * must print like (ClusterShell: [01-100] is 01..09,10..100). */
static int bracket_width(struct parser *p, const struct item *it, size_t n, int *width)
{
	const struct num *pad = NULL, *x;
	size_t i;

	for (i = 0; i < 2 * n && !pad; i++) {
		x = i % 2 ? &it[i / 2].hi : &it[i / 2].lo;
		pad = num_padded(p, x) ? x : NULL;
	}
	*width = pad ? (int)pad->len : 0;
	for (i = 0; pad && i < 2 * n; i++) {
		x = i % 2 ? &it[i / 2].hi : &it[i / 2].lo;
		if (num_padded(p, x) ? x->len != pad->len : x->len < pad->len)
			return perr(p, x->pos, "%.*s is not padded like %.*s", (int)x->len,
				    p->s + x->pos, (int)pad->len, p->s + pad->pos);
	}
	return 0;
}

static int bracket_ranges(struct parser *p, const struct item *it, size_t n, struct rset *rs)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v, count = (it[i].hi.v - it[i].lo.v) / it[i].step + 1;

		if (it[i].step == 1) {
			rs_append(rs, it[i].lo.v, it[i].hi.v);
			continue;
		}
		if (charge(p, count, it[i].lo.pos) < 0)
			return -1;
		for (v = it[i].lo.v; count--; v += it[i].step)
			rs_append(rs, v, v);
	}
	rs_normalize(rs);
	return 0;
}

/* Parses "[...]" at p->i into g. */
static int parse_bracket(struct parser *p, struct seg *g)
{
	size_t open = p->i, n = 0, cap = 0;
	struct item *it = NULL;
	int rc = 0;

	p->i++;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			it = xrealloc(it, cap * sizeof *it);
		}
		if ((rc = parse_item(p, open, &it[n])) < 0)
			break;
		n++;
		if (p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->s[p->i] != ']')
			rc = unexpected(p, &open, "']'");
		break;
	}
	if (!rc)
		p->i++;
	if (!rc)
		rc = bracket_width(p, it, n, &g->width);
	if (!rc)
		rc = bracket_ranges(p, it, n, &g->rs);
	free(it);
	return rc;
}

static void elem_free(struct elem *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->seg[i].rs.r);
	free(e->seg);
}

/* Scans a name with its brackets, from p->i to the first character that
 * cannot be part of it. */
static int parse_elem(struct parser *p, struct elem *e)
{
	struct seg *g;

	e->start = e->tail = p->i;
	for (;;) {
		char c = p->s[p->i];

		if (is_namechar(c)) {
			p->i++;
			continue;
		}
		if (c != '[')
			break;
		if (p->i == e->start)
			return perr(p, p->i, "expected a name before '['");
		if (e->n == e->cap) {
			e->cap = e->cap ? 2 * e->cap : 4;
			e->seg = xrealloc(e->seg, e->cap * sizeof *e->seg);
		}
		g = &e->seg[e->n++];
		memset(g, 0, sizeof *g);
		g->lit = e->tail;
		g->litlen = p->i - e->tail;
		if (parse_bracket(p, g) < 0)
			return -1;
		e->tail = p->i;
	}
	e->end = p->i;
	return 0;
}

/* Whether the last bracket is the names' last run of digits, so it can stay
 * a range; otherwise every name is built and split. */
static bool elem_folds(const struct parser *p, const struct elem *e)
{
	const struct seg *g = e->n ? &e->seg[e->n - 1] : NULL;
	size_t i;

	if (!g || !g->litlen || is_digit(p->s[g->lit + g->litlen - 1]))
		return false;
	for (i = e->tail; i < e->end; i++)
		if (is_digit(p->s[i]))
			return false;
	return true;
}

struct odo {
	size_t ri;
	uint64_t v;
};

static bool odo_next(struct odo *o, const struct elem *e, size_t m)
{
	while (m-- > 0) {
		const struct rset *rs = &e->seg[m].rs;

		if (o[m].v < rs->r[o[m].ri].hi) {
			o[m].v++;
			return true;
		}
		if (o[m].ri + 1 < rs->n) {
			o[m].v = rs->r[++o[m].ri].lo;
			return true;
		}
		o[m].ri = 0;
		o[m].v = rs->r[0].lo;
	}
	return false;
}

static void odo_text(const struct parser *p, const struct elem *e, const struct odo *o,
		     size_t m, struct sbuf *b)
{
	size_t i;

	sbuf_reset(b);
	for (i = 0; i < m; i++) {
		sbuf_add(b, p->s + e->seg[i].lit, e->seg[i].litlen);
		add_index(b, o[i].v, e->seg[i].width);
	}
	if (m < e->n)
		sbuf_add(b, p->s + e->seg[m].lit, e->seg[m].litlen);
	else
		sbuf_add(b, p->s + e->tail, e->end - e->tail);
}

typedef int (*name_fn)(struct parser *p, const struct elem *e, const struct sbuf *b,
		       struct nodeset *out);

/* Calls fn with the text of every combination of the first m brackets (and
 * the literal after them), charging the parse budget first: the text's length
 * and, when the last bracket stays a range set, its ranges per combination. */
static int expand(struct parser *p, const struct elem *e, size_t m, name_fn fn,
		  struct nodeset *out)
{
	uint64_t each = 1 + (e->end - e->start + m * MAX_DIGITS) / 16;
	uint64_t combos = 1, cost;
	struct sbuf b = {0};
	struct odo *o;
	size_t i;
	int rc = 0;

	for (i = 0; i < m; i++)
		combos = sat_mul(combos, rs_count(&e->seg[i].rs));
	if (m < e->n)
		each += e->seg[m].rs.n;
	cost = m ? sat_mul(combos, each) : 0;
	if (charge(p, cost, e->start) < 0)
		return -1;
	o = xcalloc(m + 1, sizeof *o);
	for (i = 0; i < m; i++)
		o[i].v = e->seg[i].rs.r[0].lo;
	do {
		odo_text(p, e, o, m, &b);
		rc = fn(p, e, &b, out);
	} while (!rc && odo_next(o, e, m));
	free(o);
	sbuf_free(&b);
	return rc;
}

static int add_ranges_cb(struct parser *p, const struct elem *e, const struct sbuf *b,
			 struct nodeset *out)
{
	const struct seg *g = &e->seg[e->n - 1];
	size_t i;

	for (i = 0; i < g->rs.n; i++)
		raw_add(out, b->s, b->len, p->s + e->tail, e->end - e->tail, g->width,
			g->rs.r[i].lo, g->rs.r[i].hi);
	return 0;
}

static int add_name_cb(struct parser *p, const struct elem *e, const struct sbuf *b,
		       struct nodeset *out)
{
	(void)p;
	(void)e;
	raw_add_name(out, b->s, b->len);
	return 0;
}

static int group_cb(struct parser *p, const struct elem *e, const struct sbuf *b,
		    struct nodeset *out)
{
	struct nodeset *g;
	char *cerr = NULL;
	size_t i;
	int rc;

	if (!p->groups)
		return perr(p, e->start - 1, "unknown group @%s (no group resolver)", b->s);
	g = nodeset_new();
	rc = p->groups(p->ctx, b->s, g, &cerr) ? -1 : 0;
	if (rc)
		perr(p, e->start - 1, "%s", cerr ? cerr : "unknown group");
	for (i = 0; !rc && i < g->n; i++) {
		rc = charge(p, 1 + g->p[i].rs.n, e->start - 1);
		if (!rc)
			pat_copy(ns_grow(out), &g->p[i]);
	}
	free(cerr);
	nodeset_free(g);
	return rc;
}

/* One operand: a name with brackets, or @group. Its names go to the raw out. */
static int parse_operand(struct parser *p, struct nodeset *out)
{
	struct elem e = {0};
	bool group = p->s[p->i] == '@';
	int rc;

	p->i += group;
	rc = parse_elem(p, &e);
	if (!rc && e.end == e.start) {
		if (is_op(p->s[p->i]) || !p->s[p->i] || p->s[p->i] == ' ')
			rc = perr(p, p->i, group ? "empty group name" : "empty name");
		else
			rc = unexpected(p, NULL, NULL);
	} else if (!rc && !group && is_digit(p->s[e.start])) {
		rc = perr(p, e.start, "a name must not start with a digit");
	}
	if (!rc && group) {
		rc = expand(p, &e, e.n, group_cb, out);
	} else if (!rc) {
		bool folds = elem_folds(p, &e);

		rc = expand(p, &e, folds ? e.n - 1 : e.n, folds ? add_ranges_cb : add_name_cb, out);
	}
	elem_free(&e);
	return rc;
}

static void skip_spaces(struct parser *p)
{
	while (p->s[p->i] == ' ')
		p->i++;
}

static enum op op_of(char c)
{
	return c == '!' ? OP_DIFF : c == '&' ? OP_INTER : c == '^' ? OP_XOR : OP_UNION;
}

/* acc = acc op el. Unions were appended raw to acc; sort before combining. */
static int combine(struct parser *p, struct nodeset *acc, struct nodeset *el, enum op op,
		   size_t at)
{
	if (charge(p, acc->n + el->n, at) < 0)
		return -1;
	ns_normalize(acc);
	ns_normalize(el);
	ns_combine(acc, el, op);
	return 0;
}

/* Evaluates the whole text left to right into the raw set acc. */
static int parse_all(struct parser *p, struct nodeset *acc)
{
	enum op op = OP_UNION;
	size_t end, at = 0;

	skip_spaces(p);
	if (!p->s[p->i])
		return 0;
	for (;;) {
		struct nodeset el = {0};
		int rc;

		skip_spaces(p);
		rc = parse_operand(p, op == OP_UNION ? acc : &el);
		if (!rc && op != OP_UNION)
			rc = combine(p, acc, &el, op, at);
		nodeset_clear(&el);
		free(el.p);
		if (rc)
			return -1;
		end = p->i;
		skip_spaces(p);
		if (!p->s[p->i])
			return 0;
		if (!is_op(p->s[p->i])) {
			if (p->i > end && (is_namechar(p->s[p->i]) || strchr("[@", p->s[p->i])))
				return perr(p, end, "space inside a name");
			return unexpected(p, NULL, NULL);
		}
		at = p->i;
		op = op_of(p->s[p->i++]);
	}
}

int nodeset_parse(struct nodeset *ns, const char *text, nodeset_group_fn groups, void *ctx,
		  char **err)
{
	struct parser p = {text ? text : "", 0, NULL, PARSE_BUDGET, groups, ctx};
	struct nodeset acc = {0};
	int rc = parse_all(&p, &acc);

	ns_normalize(&acc);
	if (!rc)
		ns_apply(ns, &acc, OP_UNION);
	nodeset_clear(&acc);
	free(acc.p);
	if (err)
		*err = p.err;
	else
		free(p.err);
	return rc;
}

struct nodeset *nodeset_from(const char *text, char **err)
{
	struct nodeset *ns = nodeset_new();

	if (nodeset_parse(ns, text, NULL, NULL, err) < 0) {
		nodeset_free(ns);
		return NULL;
	}
	return ns;
}
