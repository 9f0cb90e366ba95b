/*
 * util.c - allocation, fatal errors, time, string buffers, arenas, hashing
 * and the seeded random generator (see util.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "util.h"

static void (*fatal_hook)(void);

void fatal_set_hook(void (*hook)(void))
{
	fatal_hook = hook;
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	if (fatal_hook) {
		void (*h)(void) = fatal_hook;
		fatal_hook = NULL;
		h();
	}
	fputs("myriad: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		fatal("out of memory (%zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.s)
		return xstrdup("");
	return b.s;
}

static int64_t clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * US_PER_SEC + ts.tv_nsec / 1000;
}

int64_t wall_us(void) { return clock_us(CLOCK_REALTIME); }
int64_t mono_us(void) { return clock_us(CLOCK_MONOTONIC); }
int64_t cpu_us(void) { return clock_us(CLOCK_PROCESS_CPUTIME_ID); }

void fmt_iso(int64_t us, char out[32])
{
	time_t t = (time_t)(us / US_PER_SEC);
	struct tm tm;

	if (us < 0 && us % US_PER_SEC)
		t--;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int parse_iso(const char *s, int64_t *us)
{
	struct tm tm;
	int n = 0;
	int64_t v;

	memset(&tm, 0, sizeof tm);
	if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) == 6 && n > 0) {
		const char *rest = s + n;

		if (*rest == '.')
			for (rest++; *rest >= '0' && *rest <= '9'; rest++)
				;
		if (*rest == 'Z')
			rest++;
		else if (!strncmp(rest, "+00:00", 6))
			rest += 6;
		if (*rest)
			return -1;
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		*us = (int64_t)timegm(&tm) * US_PER_SEC;
		return 0;
	}
	if (parse_i64(s, strlen(s), &v) == 0) {
		*us = v * US_PER_SEC;
		return 0;
	}
	return -1;
}

int parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int neg = 0;

	if (n && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i++;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* ---- sbuf ---- */

static void sbuf_grow(struct sbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 64;

	while (cap < b->len + need + 1)
		cap *= 2;
	if (cap != b->cap) {
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
}

void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	sbuf_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s) { sbuf_add(b, s, strlen(s)); }
void sbuf_addc(struct sbuf *b, char c) { sbuf_add(b, &c, 1); }

void sbuf_vprintf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	sbuf_grow(b, 64);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	if (n >= 0 && (size_t)n >= b->cap - b->len) {
		sbuf_grow(b, (size_t)n);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
	}
	va_end(ap2);
	if (n > 0)
		b->len += (size_t)n;
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void sbuf_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void sbuf_free(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* Length of a valid UTF-8 sequence at p, 0 if invalid. */
size_t utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;

	if (!n || (n == 3 && p[0] >= 0xf0))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
	    (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;   /* overlong, surrogate, beyond U+10FFFF */
	return n;
}

void sbuf_json_str(struct sbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	sbuf_addc(b, '"');
	for (; *p; p++) {
		switch (*p) {
		case '"': sbuf_add(b, "\\\"", 2); break;
		case '\\': sbuf_add(b, "\\\\", 2); break;
		case '\n': sbuf_add(b, "\\n", 2); break;
		case '\r': sbuf_add(b, "\\r", 2); break;
		case '\t': sbuf_add(b, "\\t", 2); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				sbuf_printf(b, "\\u%04x", *p);
			} else if (*p < 0x80) {
				sbuf_addc(b, (char)*p);
			} else {   /* valid JSON whatever the bytes: bad UTF-8 is U+FFFD, C1 controls escaped */
				size_t n = utf8_len(p);

				if (!n)
					sbuf_adds(b, "\\ufffd");
				else if (p[0] == 0xc2 && p[1] < 0xa0)
					sbuf_printf(b, "\\u%04x", p[1]);
				else
					sbuf_add(b, (const char *)p, n);
				p += n ? n - 1 : 0;
			}
		}
	}
	sbuf_addc(b, '"');
}

/* ---- arena ---- */

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	char data[];
};

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->used + n > b->size) {
		size_t size = MAX(n, (size_t)64 * 1024);

		if (a->spare && a->spare->size >= n) {
			b = a->spare;
			a->spare = b->next;
		} else {
			b = xmalloc(sizeof *b + size);
			b->size = size;
		}
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	a->used += n;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_reset(struct arena *a)
{
	struct arena_block *b, *next;

	for (b = a->head; b; b = next) {   /* to the spare list, oversized ones freed */
		next = b->next;
		if (b->size > (size_t)64 * 1024) {
			free(b);
			continue;
		}
		b->next = a->spare;
		a->spare = b;
	}
	a->head = NULL;
	a->used = 0;
}

void arena_free(struct arena *a)
{
	struct arena_block *b, *next;

	arena_reset(a);
	for (b = a->spare; b; b = next) {
		next = b->next;
		free(b);
	}
	a->spare = NULL;
}

/* ---- hash, rng ---- */

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* FNV-1a waits for each byte's multiply before the next (some 4 cycles a
 * byte: a 102,400-GPU model's hash took 40 ms, bench-store). Here four
 * lanes take 8 bytes each a step; each step is a bijection of its lane for
 * a given word, so two arrays that differ in one word always hash apart. */
uint64_t hash_block(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t lane[4] = {h, h ^ 0x243f6a8885a308d3ULL, h ^ 0x13198a2e03707344ULL, h ^ 0xa4093822299f31d0ULL};
	uint64_t len = n;
	size_t i = 0;

	for (; i + 32 <= n; i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w, x;

			memcpy(&w, s + i + 8 * (size_t)k, sizeof w);
			x = (lane[k] ^ w) * 0x9e3779b97f4a7c15ULL;
			lane[k] = x ^ (x >> 29);
		}
	h = hash_bytes(h, lane, sizeof lane);
	h = hash_bytes(h, &len, sizeof len);
	return hash_bytes(h, s + i, n - i);
}

uint64_t hash_str(uint64_t h, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	h = hash_bytes(h, &n, sizeof n);
	return hash_bytes(h, s, n);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32) : 0;
}

double rng_normal(struct rng *r)
{
	/* Irwin-Hall with 12 uniforms: cheap, deterministic, no libm needed */
	double s = 0;

	for (int i = 0; i < 12; i++)
		s += rng_unit(r);
	return s - 6.0;
}

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{"HUP", 1}, {"INT", 2}, {"QUIT", 3}, {"KILL", 9}, {"USR1", 10}, {"USR2", 12},
	{"TERM", 15}, {"CONT", 18}, {"STOP", 19},
};

int sig_parse(const char *s)
{
	int64_t n;

	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (unsigned i = 0; i < ARRAY_LEN(signals); i++)
		if (!strcasecmp(s, signals[i].name))
			return signals[i].sig;
	if (!parse_i64(s, strlen(s), &n) && n >= 1 && n <= 64)
		return (int)n;
	return -1;
}

const char *sig_name(int sig, char buf[8])
{
	for (unsigned i = 0; i < ARRAY_LEN(signals); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	snprintf(buf, 8, "%d", sig);
	return buf;
}
