/*
 * jtape.c - the strict JSON reader of jtape.h: one recursive pass over the
 * bytes into tokens, each object's keys in a small hash table (duplicates
 * refused, lookups by key), strings unescaped only when asked for.
 *
 * What jansson (2.14, load.c) refuses and so this refuses: a byte that is
 * not UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
 * U+10FFFF) or a control character inside a string; an escape other than
 * \" \\ \/ \b \f \n \r \t \uXXXX; \u0000; a lone or unpaired surrogate; a
 * number not in the JSON grammar; an integer outside int64_t (strtoll's
 * ERANGE); a real that overflows (strtod's ERANGE with HUGE_VAL); a value
 * nested deeper than 2048 (its lex->depth counts every value, scalars too);
 * a key twice in one object (JSON_REJECT_DUPLICATES, compared unescaped).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jtape.h"

struct jp {
	struct jtape *t;
	const unsigned char *s;
	size_t p, end;
	int final;
};

/* Byte classes inside a string: 0 plain, 1 quote, 2 backslash, 3 control, 4 not ASCII. */
#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
static const uint8_t str_class[256] = {
	R16(3), R16(3),
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	R16(0), R16(0),
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
	R16(0), R16(0),
	R16(4), R16(4), R16(4), R16(4), R16(4), R16(4), R16(4), R16(4),
};

static int value(struct jp *p, int depth);

/* Out of bytes: wait for more, or (at the end of the input) refuse. */
static int more(const struct jp *p)
{
	return p->final ? JT_BAD : JT_MORE;
}

static uint32_t new_tok(struct jtape *t, int type)
{
	if (t->ntok == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->tok = xrealloc(t->tok, sizeof *t->tok * t->cap);
	}
	memset(&t->tok[t->ntok], 0, sizeof *t->tok);
	t->tok[t->ntok].type = (uint8_t)type;
	return t->ntok++;
}

static int skip_ws(struct jp *p)
{
	while (p->p < p->end) {
		unsigned char c = p->s[p->p];

		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return JT_OK;
		p->p++;
	}
	return more(p);
}

/* A UTF-8 sequence at s[i] (its first byte >= 0x80): its length, 0 if it is
 * not valid UTF-8, -1 if the bytes end inside it. */
static int utf8_seq(const unsigned char *s, size_t i, size_t end)
{
	unsigned c = s[i], lo = 0x80, hi = 0xbf;
	int n;

	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	for (int k = 1; k < n; k++) {
		if (i + (size_t)k >= end)
			return -1;
		unsigned d = s[i + (size_t)k];

		if (d < (k == 1 ? lo : 0x80) || d > (k == 1 ? hi : 0xbf))
			return 0;
	}
	return n;
}

static int hex4(const unsigned char *s, unsigned *out)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		unsigned c = s[k], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* An escape at s[i] ('\\'): its length in the input, 0 if refused, -1 if cut. */
static int escape_len(const unsigned char *s, size_t i, size_t end)
{
	unsigned u, w;

	if (i + 1 >= end)
		return -1;
	if (strchr("\"\\/bfnrt", s[i + 1]) && s[i + 1])
		return 2;
	if (s[i + 1] != 'u')
		return 0;
	if (i + 6 > end)
		return -1;
	if (hex4(s + i + 2, &u) < 0 || u == 0 || (u >= 0xdc00 && u <= 0xdfff))
		return 0;
	if (u < 0xd800 || u > 0xdbff)
		return 6;
	if (i + 8 > end)
		return -1;
	if (s[i + 6] != '\\' || s[i + 7] != 'u')
		return 0;
	if (i + 12 > end)
		return -1;
	return hex4(s + i + 8, &w) < 0 || w < 0xdc00 || w > 0xdfff ? 0 : 12;
}

static int string(struct jp *p)
{
	const unsigned char *s = p->s;
	size_t i = p->p + 1, end = p->end;
	uint32_t k = new_tok(p->t, JT_STR);
	int esc = 0, n;

	for (;;) {
		while (i < end && !str_class[s[i]])
			i++;
		if (i >= end)
			return more(p);
		switch (str_class[s[i]]) {
		case 1:
			p->t->tok[k].off = (uint32_t)(p->p + 1);
			p->t->tok[k].len = (uint32_t)(i - p->p - 1);
			p->t->tok[k].esc = (uint8_t)esc;
			p->p = i + 1;
			return JT_OK;
		case 2:
			n = escape_len(s, i, end);
			esc = 1;
			break;
		case 4:
			n = utf8_seq(s, i, end);
			break;
		default:
			return JT_BAD;
		}
		if (n < 0)
			return more(p);
		if (!n)
			return JT_BAD;
		i += (size_t)n;
	}
}

static int digits(struct jp *p, size_t *i)
{
	if (*i >= p->end)
		return more(p);
	if (p->s[*i] < '0' || p->s[*i] > '9')
		return JT_BAD;
	while (*i < p->end && p->s[*i] >= '0' && p->s[*i] <= '9')
		(*i)++;
	return JT_OK;
}

/* strtoll's range: [-2^63, 2^63 - 1]. */
static int int_value(const unsigned char *s, size_t n, int64_t *out)
{
	int neg = s[0] == '-';
	uint64_t v = 0, most = neg ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1;

	for (size_t i = (size_t)neg; i < n; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (v > (most - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* strtod of a real's n bytes of text (errno set as strtod sets it). */
static double real_of(struct jtape *t, const char *s, size_t n)
{
	char *buf = n < sizeof t->num ? t->num : xmalloc(n + 1);
	double v;

	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, NULL);
	if (buf != t->num)
		free(buf);
	return v;
}

/* Does strtod overflow on this real? */
static int real_overflows(struct jtape *t, const unsigned char *s, size_t n)
{
	double v = real_of(t, (const char *)s, n);

	return (v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE;
}

static int number(struct jp *p)
{
	size_t i = p->p + (p->s[p->p] == '-');
	int real = 0, rc;

	if (i >= p->end)
		return more(p);
	if (p->s[i] == '0')
		i++;
	else if ((rc = digits(p, &i)) != JT_OK)
		return rc;
	if (i < p->end && p->s[i] == '.') {
		real = 1;
		i++;
		if ((rc = digits(p, &i)) != JT_OK)
			return rc;
	}
	if (i < p->end && (p->s[i] == 'e' || p->s[i] == 'E')) {
		real = 1;
		i++;
		if (i < p->end && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		if ((rc = digits(p, &i)) != JT_OK)
			return rc;
	}
	if (i >= p->end && !p->final)
		return JT_MORE;   /* it may go on */
	uint32_t k = new_tok(p->t, real ? JT_REAL : JT_INT);

	p->t->tok[k].off = (uint32_t)p->p;   /* its text, for jt_real */
	p->t->tok[k].len = (uint32_t)(i - p->p);
	if (real ? real_overflows(p->t, p->s + p->p, i - p->p) : int_value(p->s + p->p, i - p->p, &p->t->tok[k].i) < 0)
		return JT_BAD;
	p->p = i;
	return JT_OK;
}

static int literal(struct jp *p, const char *word, int type)
{
	size_t n = strlen(word), have = MIN(n, p->end - p->p);

	if (memcmp(p->s + p->p, word, have))
		return JT_BAD;
	if (have < n)
		return more(p);
	new_tok(p->t, type);
	p->p += n;
	return JT_OK;
}

static uint32_t key_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* A key's text: its bytes, or its unescaped copy. */
static const char *key_text(struct jtape *t, uint32_t k, size_t *n)
{
	if (!t->tok[k].esc) {
		*n = t->tok[k].len;
		return t->src + t->tok[k].off;
	}
	const char *u = jt_str(t, (int)k);

	*n = strlen(u);
	return u;
}

/* The object's key table; JT_BAD on a key seen twice. */
static int key_table(struct jtape *t, uint32_t o)
{
	uint32_t n = t->tok[o].n, size = 4, k = o + 1;

	while (size < 2 * n)
		size *= 2;
	if (t->nslots + size > t->slots_cap) {
		t->slots_cap = MAX(t->nslots + size, t->slots_cap * 2);
		t->slots = xrealloc(t->slots, sizeof *t->slots * t->slots_cap);
	}
	uint32_t *slot = t->slots + t->nslots;

	memset(slot, 0xff, sizeof *slot * size);
	t->tok[o].off = t->nslots;
	t->tok[o].len = size;
	t->nslots += size;
	for (uint32_t m = 0; m < n; m++, k = t->tok[k + 1].next) {
		size_t len, olen;
		const char *text = key_text(t, k, &len);
		uint32_t h = key_hash(text, len), j = h & (size - 1);

		t->tok[k].hash = h;
		for (; slot[j] != UINT32_MAX; j = (j + 1) & (size - 1)) {
			const char *other = key_text(t, slot[j], &olen);

			if (t->tok[slot[j]].hash == h && olen == len && !memcmp(other, text, len))
				return JT_BAD;
		}
		slot[j] = k;
	}
	return JT_OK;
}

/* After a member or an element: ',' (1), the closing byte (0), else refused. */
static int separator(struct jp *p, char close, int *again)
{
	int rc = skip_ws(p);

	if (rc != JT_OK)
		return rc;
	*again = p->s[p->p] == ',';
	if (!*again && p->s[p->p] != close)
		return JT_BAD;
	p->p++;
	return JT_OK;
}

static int member(struct jp *p, int depth)
{
	int rc = skip_ws(p);

	if (rc != JT_OK)
		return rc;
	if (p->s[p->p] != '"')
		return JT_BAD;
	if ((rc = string(p)) != JT_OK || (rc = skip_ws(p)) != JT_OK)
		return rc;
	if (p->s[p->p++] != ':')
		return JT_BAD;
	return value(p, depth);
}

static int container(struct jp *p, int depth, int type)
{
	uint32_t c = new_tok(p->t, type), n = 0;
	char close = type == JT_OBJ ? '}' : ']';
	int rc, again = 1;

	p->p++;
	if ((rc = skip_ws(p)) != JT_OK)
		return rc;
	if (p->s[p->p] == close) {
		p->p++;
		again = 0;
	}
	while (again) {
		if ((rc = type == JT_OBJ ? member(p, depth + 1) : value(p, depth + 1)) != JT_OK ||
		    (rc = separator(p, close, &again)) != JT_OK)
			return rc;
		n++;
	}
	p->t->tok[c].n = n;
	p->t->tok[c].next = p->t->ntok;
	return type == JT_OBJ ? key_table(p->t, c) : JT_OK;
}

/* A value of nesting depth (the document is 1). */
static int value(struct jp *p, int depth)
{
	int rc = skip_ws(p);
	uint32_t first = p->t->ntok;

	if (rc != JT_OK)
		return rc;
	if (depth > JT_MAX_DEPTH)
		return JT_BAD;
	switch (p->s[p->p]) {
	case '{': return container(p, depth, JT_OBJ);
	case '[': return container(p, depth, JT_ARR);
	case '"': rc = string(p); break;
	case 't': rc = literal(p, "true", JT_TRUE); break;
	case 'f': rc = literal(p, "false", JT_FALSE); break;
	case 'n': rc = literal(p, "null", JT_NULL); break;
	default:
		if (p->s[p->p] != '-' && (p->s[p->p] < '0' || p->s[p->p] > '9'))
			return JT_BAD;
		rc = number(p);
	}
	if (rc == JT_OK)
		p->t->tok[first].next = p->t->ntok;
	return rc;
}

int jt_read(struct jtape *t, const char *src, size_t *pos, size_t end, int depth, int final)
{
	struct jp p = {t, (const unsigned char *)src, *pos, end, final};
	int rc;

	t->src = src;
	t->ntok = 0;
	t->nslots = 0;
	arena_reset(&t->strs);
	rc = value(&p, depth + 1);
	if (rc == JT_OK)
		*pos = p.p;
	return rc;
}

void jt_free(struct jtape *t)
{
	free(t->tok);
	free(t->slots);
	arena_free(&t->strs);
	memset(t, 0, sizeof *t);
}

/* ---- the DOM ---- */

int jt_get(const struct jtape *t, int obj, const char *key)
{
	if (!jt_is_obj(t, obj) || !t->tok[obj].n)
		return -1;
	size_t n = strlen(key);
	uint32_t h = key_hash(key, n), size = t->tok[obj].len, j = h & (size - 1);
	const uint32_t *slot = t->slots + t->tok[obj].off;

	for (; slot[j] != UINT32_MAX; j = (j + 1) & (size - 1)) {
		const struct jt_tok *k = &t->tok[slot[j]];
		const char *text = k->esc ? (const char *)(intptr_t)k->i : t->src + k->off;
		size_t len = k->esc ? strlen(text) : k->len;

		if (k->hash == h && len == n && !memcmp(text, key, n))
			return (int)slot[j] + 1;
	}
	return -1;
}

/* Appends code point u as UTF-8. */
static char *put_utf8(char *o, unsigned u)
{
	if (u < 0x80) {
		*o++ = (char)u;
	} else if (u < 0x800) {
		*o++ = (char)(0xc0 | u >> 6);
		*o++ = (char)(0x80 | (u & 0x3f));
	} else if (u < 0x10000) {
		*o++ = (char)(0xe0 | u >> 12);
		*o++ = (char)(0x80 | ((u >> 6) & 0x3f));
		*o++ = (char)(0x80 | (u & 0x3f));
	} else {
		*o++ = (char)(0xf0 | u >> 18);
		*o++ = (char)(0x80 | ((u >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((u >> 6) & 0x3f));
		*o++ = (char)(0x80 | (u & 0x3f));
	}
	return o;
}

/* The escapes of a string the reader accepted, decoded. */
static void unescape(const unsigned char *s, size_t n, char *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

	for (size_t i = 0; i < n;) {
		unsigned u = 0, w = 0;

		if (s[i] != '\\') {
			*o++ = (char)s[i++];
		} else if (s[i + 1] != 'u') {
			*o++ = to[strchr(from, s[i + 1]) - from];
			i += 2;
		} else {
			hex4(s + i + 2, &u);
			i += 6;
			if (u >= 0xd800 && u <= 0xdbff) {
				hex4(s + i + 2, &w);
				u = 0x10000 + ((u - 0xd800) << 10) + (w - 0xdc00);
				i += 6;
			}
			o = put_utf8(o, u);
		}
	}
	*o = '\0';
}

double jt_real(struct jtape *t, int v)
{
	const struct jt_tok *k = &t->tok[v];

	if (k->type == JT_INT)
		return (double)k->i;
	return k->type == JT_REAL ? real_of(t, t->src + k->off, k->len) : 0;
}

const char *jt_str(struct jtape *t, int v)
{
	struct jt_tok *k;
	char *out;

	if (!jt_is_str(t, v))
		return NULL;
	k = &t->tok[v];
	if (k->i)
		return (const char *)(intptr_t)k->i;
	out = arena_alloc(&t->strs, (size_t)k->len + 1);   /* unescaping never lengthens */
	if (k->esc)
		unescape((const unsigned char *)t->src + k->off, k->len, out);
	else {
		memcpy(out, t->src + k->off, k->len);
		out[k->len] = '\0';
	}
	k->i = (int64_t)(intptr_t)out;
	return out;
}
