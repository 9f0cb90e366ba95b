/*
 * nodeset_ranges.c - the keys of indexes (nodeset_int.h: length and value in
 * one number, ordered as ClusterShell orders indexes) and sorted sets of
 * their ranges: building, normalizing, union, intersection, difference,
 * symmetric difference, search, count and comparison; and the radix sort
 * that orders pending additions.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodeset_int.h"

const uint64_t nsi_p10[MAX_DIGITS + 1] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
};

int nsi_ndigits(uint64_t v)
{
	int d = 1;

	while (d < MAX_DIGITS && v >= nsi_p10[d])
		d++;
	return d;
}

bool nsi_key_padded(uint64_t k)
{
	return key_len(k) > nsi_ndigits(key_val(k));
}

size_t nsi_key_str(char *buf, uint64_t k)
{
	uint64_t v = key_val(k);
	int len = key_len(k), i;

	for (i = len - 1; i >= 0; i--, v /= 10)
		buf[i] = (char)('0' + v % 10);
	buf[len] = '\0';
	return (size_t)len;
}

void nsi_add_key(struct sbuf *b, uint64_t k)
{
	char num[24];

	sbuf_add(b, num, nsi_key_str(num, k));
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
void nsi_rs_push(struct rset *s, uint64_t lo, uint64_t hi)
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
	for (i = 1; i < n && s->r[i - 1].lo <= s->r[i].lo; i++)
		;
	if (i < n)
		qsort(s->r, n, sizeof *s->r, range_cmp);
	s->n = 1;
	for (i = 1; i < n; i++)   /* writes never pass the read index */
		nsi_rs_push(s, s->r[i].lo, s->r[i].hi);
}

void nsi_rs_add_values(struct rset *s, uint64_t lo, uint64_t hi, int width)
{
	for (;;) {
		int len = MAX(width, nsi_ndigits(lo));
		uint64_t top = len >= MAX_DIGITS ? hi : MIN(hi, nsi_p10[len] - 1);

		nsi_rs_append(s, key_make(len, lo), key_make(len, top));
		if (top == hi)
			return;
		lo = top + 1;
	}
}

static void rs_union(struct rset *out, const struct rset *a, const struct rset *b)
{
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		bool take_a = j == b->n || (i < a->n && a->r[i].lo <= b->r[j].lo);
		const struct range *r = take_a ? &a->r[i++] : &b->r[j++];

		nsi_rs_push(out, r->lo, r->hi);
	}
}

static void rs_inter(struct rset *out, const struct rset *a, const struct rset *b)
{
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		uint64_t lo = MAX(a->r[i].lo, b->r[j].lo);
		uint64_t hi = MIN(a->r[i].hi, b->r[j].hi);

		if (lo <= hi)
			nsi_rs_push(out, lo, hi);
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
				nsi_rs_push(out, lo, b->r[k].lo - 1);
			lo = b->r[k].hi + 1;
		}
		if (lo <= hi)
			nsi_rs_push(out, lo, hi);
	}
}

void nsi_rs_op(struct rset *out, const struct rset *a, const struct rset *b, enum op op)
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

/* The first range with hi >= k (s->n if none). */
size_t nsi_rs_find(const struct rset *s, uint64_t k)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].hi < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t nsi_rs_count(const struct rset *s)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		c = sat_add(c, s->r[i].hi - s->r[i].lo + 1);
	return c;
}

int nsi_rs_cmp(const struct rset *a, const struct rset *b)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		if (a->r[i].lo != b->r[i].lo)
			return a->r[i].lo < b->r[i].lo ? -1 : 1;
		if (a->r[i].hi != b->r[i].hi)
			return a->r[i].hi < b->r[i].hi ? -1 : 1;
	}
	return (a->n > b->n) - (a->n < b->n);
}

/* a is a subset of b (both normalized). */
bool nsi_rs_within(const struct rset *a, const struct rset *b)
{
	size_t i, j = 0;

	for (i = 0; i < a->n; i++) {
		j += nsi_rs_find(&(struct rset){b->r + j, b->n - j, 0}, a->r[i].lo);
		if (j == b->n || b->r[j].lo > a->r[i].lo || b->r[j].hi < a->r[i].hi)
			return false;
	}
	return true;
}

/* Sorts n entries of stride words by their first nkey words: a radix sort
 * (least significant byte first, bytes that never vary skipped), stable. */
void nsi_sort_entries(uint64_t *a, size_t n, size_t stride, size_t nkey)
{
	uint64_t *tmp, *src = a, *dst;
	size_t i, w, cnt[256];

	if (n < 2)
		return;
	tmp = xmalloc(n * stride * sizeof *a);
	dst = tmp;
	for (w = nkey; w-- > 0;) {
		uint64_t vary = 0;

		for (i = 1; i < n; i++)
			vary |= src[i * stride + w] ^ src[w];
		for (int sh = 0; sh < 64; sh += 8) {
			size_t sum = 0;

			if (!((vary >> sh) & 0xff))
				continue;
			memset(cnt, 0, sizeof cnt);
			for (i = 0; i < n; i++)
				cnt[(src[i * stride + w] >> sh) & 0xff]++;
			for (i = 0; i < 256; i++) {
				size_t c = cnt[i];

				cnt[i] = sum;
				sum += c;
			}
			for (i = 0; i < n; i++) {
				size_t to = cnt[(src[i * stride + w] >> sh) & 0xff]++;

				memcpy(dst + to * stride, src + i * stride, stride * sizeof *a);
			}
			uint64_t *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != a)
		memcpy(a, src, n * stride * sizeof *a);
	free(tmp);
}

