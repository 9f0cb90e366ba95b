/*
 * evjson_ref.c - the reference for the events' JSON reader: src/store/
 * evjson.c's decoder as it was before it read with jtape (jansson's
 * json_loadb, here with JSON_REJECT_DUPLICATES, as jtape refuses duplicate
 * keys: the recorder never writes one). evjson_decode must accept the same
 * payloads and give the same fields (tests/unit/test_store_codec.c,
 * tests/fuzz/fuzz_evjson.c); evjson_same_fields compares two events. One
 * exception: jansson reads on past a raw NUL byte between values
 * ({"a":3<NUL>,"b":8} is an object to it), which RFC 8259 and jtape refuse.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store/evjson.h"
#include "evjson_ref.h"

static const char *get_str_ref(json_t *v, struct arena *a)
{
	if (json_is_string(v))
		return arena_strndup(a, json_string_value(v), json_string_length(v));
	json_t *h = json_is_object(v) ? json_object_get(v, "hex") : NULL;

	return evjson_unhex(json_is_string(h) ? json_string_value(h) : NULL, a);   /* shared: not JSON */
}

static int get_f64_ref(json_t *v, double *out)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	if (json_is_number(v))
		*out = json_number_value(v);
	else if (s && !strcmp(s, "nan"))
		*out = NAN;
	else if (s && (!strcmp(s, "inf") || !strcmp(s, "-inf")))
		*out = s[0] == '-' ? -INFINITY : INFINITY;
	else
		return -1;
	return 0;
}

static int get_field_ref(struct event *ev, const struct ev_field *f, json_t *v, struct arena *a)
{
	char *p = (char *)ev + f->off;
	json_int_t i = json_is_integer(v) ? json_integer_value(v) : 0;

	switch (f->kind) {
	case EVF_STR: return (*(const char **)p = get_str_ref(v, a)) ? 0 : -1;
	case EVF_F64: return get_f64_ref(v, (double *)p);
	case EVF_MET:
		*(int32_t *)p = json_is_null(v) ? MET_UNKNOWN : (int32_t)i;
		return json_is_null(v) || json_is_integer(v) ? 0 : -1;
	case EVF_U64:
		if (json_is_string(v)) {
			char *end;

			*(uint64_t *)p = strtoull(json_string_value(v), &end, 10);
			return *end ? -1 : 0;
		}
		*(uint64_t *)p = (uint64_t)i;
		break;
	case EVF_I32: *(int32_t *)p = (int32_t)i; break;
	case EVF_U32: *(uint32_t *)p = (uint32_t)i; break;
	case EVF_I64: *(int64_t *)p = (int64_t)i; break;
	}
	return json_is_integer(v) ? 0 : -1;
}

int evjson_decode_ref(struct event *ev, const char *json, size_t len, struct arena *a)
{
	const struct ev_schema *s = ev_schema(ev->type);
	json_t *o;
	int rc = 0;

	if (!s)
		return -1;
	if (!(o = json_loadb(json, len, JSON_REJECT_DUPLICATES, NULL)))
		return -1;
	memset(&ev->u, 0, sizeof ev->u);
	for (int i = 0; i < s->n && !rc; i++) {
		json_t *v = json_object_get(o, s->f[i].name);
		char *p = (char *)ev + s->f[i].off;

		if (v)
			rc = get_field_ref(ev, &s->f[i], v, a);
		else if (!s->f[i].optional)
			rc = -1;
		else if (s->f[i].kind == EVF_STR)
			*(const char **)p = "";
		else if (s->f[i].kind == EVF_MET)
			*(int32_t *)p = MET_UNKNOWN;
	}
	json_decref(o);
	return rc;
}

/* The schema's fields of a and b: the same values (strings by their text,
 * numbers by their bits). */
int evjson_same_fields(const struct event *a, const struct event *b)
{
	const struct ev_schema *s = ev_schema(a->type);

	for (int i = 0; s && i < s->n; i++) {
		const char *p = (const char *)a + s->f[i].off, *q = (const char *)b + s->f[i].off;

		if (s->f[i].kind == EVF_STR) {
			const char *x = *(const char *const *)p, *y = *(const char *const *)q;

			if (!x != !y || (x && strcmp(x, y)))
				return 0;
			continue;
		}
		size_t n = s->f[i].kind == EVF_I32 || s->f[i].kind == EVF_U32 || s->f[i].kind == EVF_MET ? 4 : 8;

		if (memcmp(p, q, n))
			return 0;
	}
	return 1;
}
