/*
 * evjson.c - event payloads as JSON, both ways (see evjson.h), driven by
 * the one event schema of the core (event_schema.c). A field the schema
 * marks optional (added after files were written) may be absent.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evjson.h"
#include "probe/jtape.h"




static void put_str(struct sbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	for (const unsigned char *q = p; *q;) {
		size_t n = utf8_len(q);

		if (!n) {   /* not UTF-8: the bytes in hex */
			sbuf_adds(b, "{\"hex\":\"");
			for (q = p; *q; q++)
				sbuf_printf(b, "%02x", *q);
			sbuf_adds(b, "\"}");
			return;
		}
		q += n;
	}
	sbuf_json_str(b, (const char *)p);
}

static void put_f64(struct sbuf *b, double v)
{
	if (isnan(v))
		sbuf_adds(b, "\"nan\"");
	else if (isinf(v))
		sbuf_adds(b, v > 0 ? "\"inf\"" : "\"-inf\"");
	else {   /* the shortest text that reads back as the same double */
		char buf[32];

		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		sbuf_adds(b, buf);
	}
}

static void put_field(struct sbuf *b, const struct event *ev, const struct ev_field *f)
{
	const char *p = (const char *)ev + f->off;

	switch (f->kind) {
	case EVF_I32: sbuf_printf(b, "%" PRId32, *(const int32_t *)p); break;
	case EVF_U32: sbuf_printf(b, "%" PRIu32, *(const uint32_t *)p); break;
	case EVF_I64: sbuf_printf(b, "%" PRId64, *(const int64_t *)p); break;
	case EVF_U64: {
		uint64_t v = *(const uint64_t *)p;

		sbuf_printf(b, v > INT64_MAX ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
		break;
	}
	case EVF_F64: put_f64(b, *(const double *)p); break;
	case EVF_STR: put_str(b, *(const char *const *)p); break;
	case EVF_MET: {
		int32_t v = *(const int32_t *)p;

		if (v == MET_UNKNOWN)
			sbuf_adds(b, "null");
		else
			sbuf_printf(b, "%" PRId32, v);
		break;
	}
	}
}

void evjson_encode(struct sbuf *b, const struct event *ev)
{
	const struct ev_schema *s = ev_schema(ev->type);

	sbuf_addc(b, '{');
	for (int i = 0; s && i < s->n; i++) {
		if (i)
			sbuf_addc(b, ',');
		sbuf_printf(b, "\"%s\":", s->f[i].name);
		put_field(b, ev, &s->f[i]);
	}
	sbuf_addc(b, '}');
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

const char *evjson_unhex(const char *s, struct arena *a)
{
	size_t n = s ? strlen(s) : 1;

	if (!s || n % 2)
		return NULL;
	char *out = arena_alloc(a, n / 2 + 1);

	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return NULL;
		out[i] = (char)(hi << 4 | lo);
	}
	out[n / 2] = '\0';
	return out;
}

static const char *get_str(struct jtape *t, int v, struct arena *a)
{
	if (jt_is_str(t, v))
		return arena_strdup(a, jt_str(t, v));   /* no NUL inside: jtape refuses \u0000 */
	return evjson_unhex(jt_str(t, jt_get(t, v, "hex")), a);
}

static int get_f64(struct jtape *t, int v, double *out)
{
	const char *s = jt_str(t, v);

	if (jt_type(t, v) == JT_INT || jt_type(t, v) == JT_REAL)
		*out = jt_real(t, v);
	else if (s && !strcmp(s, "nan"))
		*out = NAN;
	else if (s && (!strcmp(s, "inf") || !strcmp(s, "-inf")))
		*out = s[0] == '-' ? -INFINITY : INFINITY;
	else
		return -1;
	return 0;
}

static int get_field(struct event *ev, const struct ev_field *f, struct jtape *t, int v, struct arena *a)
{
	char *p = (char *)ev + f->off;
	int64_t i = jt_is_int(t, v) ? jt_int(t, v) : 0;

	switch (f->kind) {
	case EVF_STR: return (*(const char **)p = get_str(t, v, a)) ? 0 : -1;
	case EVF_F64: return get_f64(t, v, (double *)p);
	case EVF_MET:
		*(int32_t *)p = jt_is_null(t, v) ? MET_UNKNOWN : (int32_t)i;
		return jt_is_null(t, v) || jt_is_int(t, v) ? 0 : -1;
	case EVF_U64:
		if (jt_is_str(t, v)) {
			char *end;

			*(uint64_t *)p = strtoull(jt_str(t, v), &end, 10);
			return *end ? -1 : 0;
		}
		*(uint64_t *)p = (uint64_t)i;
		break;
	case EVF_I32: *(int32_t *)p = (int32_t)i; break;
	case EVF_U32: *(uint32_t *)p = (uint32_t)i; break;
	case EVF_I64: *(int64_t *)p = i; break;
	}
	return jt_is_int(t, v) ? 0 : -1;
}

/* An optional field that is absent: zero, "" or unknown. */
static void absent(struct event *ev, const struct ev_field *f)
{
	char *p = (char *)ev + f->off;

	if (f->kind == EVF_STR)
		*(const char **)p = "";
	else if (f->kind == EVF_MET)
		*(int32_t *)p = MET_UNKNOWN;
}

/* Read with jtape, not jansson: a seek to the start of a recording of
 * 102,400 GPUs decodes 130,000 events, and jtape reads the GPUs' identities
 * in a sixth of jansson's parse alone (bench-store: 26 ms against 165). One
 * tape, kept: the program has one thread. */
int evjson_decode(struct event *ev, const char *json, size_t len, struct arena *a)
{
	static struct jtape tape;
	const struct ev_schema *s = ev_schema(ev->type);
	size_t pos = 0;
	int rc = 0;

	if (!s || jt_read(&tape, json, &pos, len, 0, 1) != JT_OK || !jt_is_obj(&tape, 0))
		return -1;
	while (pos < len && (json[pos] == ' ' || json[pos] == '\t' || json[pos] == '\n' || json[pos] == '\r'))
		pos++;
	if (pos < len)   /* more after the object */
		return -1;
	memset(&ev->u, 0, sizeof ev->u);
	for (int i = 0; i < s->n && !rc; i++) {
		int v = jt_get(&tape, 0, s->f[i].name);

		if (v >= 0)
			rc = get_field(ev, &s->f[i], &tape, v, a);
		else if (s->f[i].optional)
			absent(ev, &s->f[i]);
		else
			rc = -1;
	}
	return rc;
}

static char *arena_dup(void *ctx, const char *s)
{
	return arena_strdup(ctx, s);
}

void evjson_own(struct event *ev, struct arena *a)
{
	ev_own_strings(ev, arena_dup, a);
}
