/*
 * prom.c - parsers of what Prometheus and its exporters print (parse.h):
 * the text exposition format 0.0.4 as dcgm-exporter and node-exporter write
 * it (with OpenMetrics 1.0's "# EOF", float-second timestamps and exemplars
 * accepted), and the HTTP API's answer to an instant query (jansson).
 *
 * The grammar read (Prometheus "Exposition formats", text format 0.0.4):
 *   line    = ws* ( "#" comment | sample )?
 *   sample  = name ( "{" ws* ( label ( ws* "," ws* label )* ws* ","? )? ws* "}" )?
 *             ws+ value ( ws+ timestamp )? ( ws+ "#" exemplar )? ws*
 *   name    = [a-zA-Z_:][a-zA-Z0-9_:]*     label = [a-zA-Z_][a-zA-Z0-9_]* ws* "=" ws* quoted
 *   quoted  = '"' ( escape | any byte but '"' '\' NUL )* '"', escapes \\ \" \n only
 *   value   = a Go float: [+-]? ( digits ( "." digits? )? | "." digits ) ( [eE] [+-]? digits )?
 *             or NaN, Inf, +Inf, -Inf (any case)
 *   timestamp = integer ms (0.0.4); with "." or an exponent, float seconds (OpenMetrics)
 * A label name given twice, a label value that is not UTF-8, more than
 * PROM_LABELS_MAX labels, or anything left over on the line is an error:
 * the line gives no number at all.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
#include "../util.h"

/* ---- records ---- */

const char *prom_label_name(const struct prom_rec *r, int i)
{
	return r->text + r->lab[i].name;
}

const char *prom_label_value(const struct prom_rec *r, int i)
{
	return r->text + r->lab[i].value;
}

const char *prom_label(const struct prom_rec *r, const char *name)
{
	for (int i = 0; i < r->nlabels; i++)
		if (!strcmp(prom_label_name(r, i), name))
			return prom_label_value(r, i);
	return NULL;
}

/* Appends n bytes and a NUL to r->text at *used. Offset, or -1 if full. */
static int text_put(struct prom_rec *r, size_t *used, const char *s, size_t n)
{
	size_t at = *used;

	if (at + n + 1 > sizeof r->text || at > UINT16_MAX)
		return -1;
	memcpy(r->text + at, s, n);
	r->text[at + n] = '\0';
	*used = at + n + 1;
	return (int)at;
}

/* A label name/value pair; the value is already unescaped. */
static int add_label(struct prom_rec *r, size_t *used, const char *name, size_t nlen, const char *val,
		     size_t vlen, const char **err)
{
	int n, v;

	if (r->nlabels >= PROM_LABELS_MAX) {
		*err = "more than 32 labels";
		return -1;
	}
	for (int i = 0; i < r->nlabels; i++) {
		const char *o = prom_label_name(r, i);

		if (strlen(o) == nlen && !memcmp(o, name, nlen)) {
			*err = "label name given twice";
			return -1;
		}
	}
	if ((n = text_put(r, used, name, nlen)) < 0 || (v = text_put(r, used, val, vlen)) < 0) {
		*err = "labels too long";
		return -1;
	}
	r->lab[r->nlabels].name = (uint16_t)n;
	r->lab[r->nlabels].value = (uint16_t)v;
	r->nlabels++;
	return 0;
}

/* ---- the text format ---- */

static int is_ws(char c) { return c == ' ' || c == '\t'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static size_t skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && is_ws(s[i]))
		i++;
	return i;
}

/* Length of a metric name (colons allowed) or a label name at s[i..n). */
static size_t name_len(const char *s, size_t i, size_t n, int colon)
{
	size_t j = i;

	if (j >= n || !(is_alpha(s[j]) || (colon && s[j] == ':')))
		return 0;
	while (j < n && (is_alpha(s[j]) || is_digit(s[j]) || (colon && s[j] == ':')))
		j++;
	return j - i;
}

/* Well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF). */
static int utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t k;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			k = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			k = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 3, cp = c & 0x07;
		else
			return 0;
		if (i + k >= n)
			return 0;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += k + 1;
	}
	return 1;
}

/* A quoted label value at s[i] == '"', unescaped into out (cap >= n).
 * Returns the index after the closing quote, 0 on error. */
static size_t quoted(const char *s, size_t i, size_t n, char *out, size_t *olen, const char **err)
{
	size_t o = 0;

	for (i++; i < n; i++) {
		char c = s[i];

		if (c == '"') {
			if (!utf8_ok((const unsigned char *)out, o)) {
				*err = "label value is not UTF-8";
				return 0;
			}
			*olen = o;
			return i + 1;
		}
		if (c == '\0') {
			*err = "NUL in a label value";
			return 0;
		}
		if (c == '\\') {
			if (++i >= n)
				break;
			c = s[i] == 'n' ? '\n' : s[i];
			if (s[i] != 'n' && s[i] != '\\' && s[i] != '"') {
				*err = "bad escape in a label value (only \\\\ \\\" \\n)";
				return 0;
			}
		}
		out[o++] = c;
	}
	*err = "label value without its closing quote";
	return 0;
}

static int ieq(const char *s, size_t n, const char *word)
{
	size_t k = strlen(word);

	if (n != k)
		return 0;
	for (size_t i = 0; i < k; i++)
		if ((s[i] | 0x20) != word[i])
			return 0;
	return 1;
}

/* A Go float at s[0..n) (no hex, no underscores). 0 or -1. */
static int read_float(const char *s, size_t n, double *out, int *is_int)
{
	size_t i = 0, digits = 0;
	char buf[64];
	char *end;

	*is_int = 0;
	if (n == 0 || n >= sizeof buf)
		return -1;
	if (s[0] == '+' || s[0] == '-')
		i++;
	if (ieq(s + i, n - i, "nan") && i == 0) {
		*out = NAN;
		return 0;
	}
	if (ieq(s + i, n - i, "inf") || ieq(s + i, n - i, "infinity")) {
		*out = s[0] == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	while (i < n && is_digit(s[i]))
		i++, digits++;
	*is_int = i == n && digits > 0;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && is_digit(s[i]))
			i++, digits++;
	}
	if (!digits)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		while (i < n && is_digit(s[i]))
			i++, e++;
		if (!e)
			return -1;
	}
	if (i != n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	return end == buf + n ? 0 : -1;
}

/* The timestamp: integer ms, or (OpenMetrics) float seconds. */
static int read_time(const char *s, size_t n, int64_t *ms)
{
	double v;
	int is_int;

	if (read_float(s, n, &v, &is_int) < 0 || !isfinite(v))
		return -1;
	if (is_int)
		return parse_i64(s, n, ms) ? -1 : 0;
	v *= 1000.0;
	if (!(v > -9.2e18 && v < 9.2e18))
		return -1;
	*ms = llround(v);
	return 0;
}

static int comment(const char *s, size_t i, size_t n, const char **err)
{
	static const char *const types[] = {
		"counter", "gauge", "histogram", "summary", "untyped",
		"unknown", "gaugehistogram", "stateset", "info",   /* OpenMetrics */
	};
	size_t w, nl, t;

	i = skip_ws(s, i + 1, n);
	for (w = i; w < n && !is_ws(s[w]); w++)
		;
	if (w - i == 3 && !memcmp(s + i, "EOF", 3) && skip_ws(s, w, n) == n)
		return 0;
	if (!((w - i == 4 && !memcmp(s + i, "TYPE", 4)) || (w - i == 4 && !memcmp(s + i, "HELP", 4)) ||
	      (w - i == 4 && !memcmp(s + i, "UNIT", 4))))
		return 0;   /* any other comment */
	i = skip_ws(s, w, n);
	if (!(nl = name_len(s, i, n, 1)) || (i + nl < n && !is_ws(s[i + nl]))) {
		*err = "HELP/TYPE/UNIT line without a metric name";
		return -1;
	}
	if (s[w - 4] != 'T')
		return 0;   /* HELP, UNIT: any text */
	i = skip_ws(s, i + nl, n);
	for (t = i; t < n && !is_ws(s[t]); t++)
		;
	if (skip_ws(s, t, n) == n)
		for (size_t k = 0; k < ARRAY_LEN(types); k++)
			if (t - i == strlen(types[k]) && !memcmp(s + i, types[k], t - i))
				return 0;
	*err = "TYPE line with an unknown type";
	return -1;
}

int prom_parse_line(const char *s, size_t n, struct prom_rec *r, const char **err)
{
	size_t i, nl, used = 0, tok;
	int is_int;

	*err = NULL;
	if (n && s[n - 1] == '\r')
		n--;
	if ((i = skip_ws(s, 0, n)) >= n)
		return 0;
	if (s[i] == '#')
		return comment(s, i, n, err);
	r->nlabels = 0;
	r->has_time = 0;
	r->time_ms = 0;
	r->name[0] = '\0';
	if (!(nl = name_len(s, i, n, 1))) {
		*err = "not a metric name";
		return -1;
	}
	if (nl >= sizeof r->name) {
		*err = "metric name too long";
		return -1;
	}
	memcpy(r->name, s + i, nl);
	r->name[nl] = '\0';
	i += nl;
	if (skip_ws(s, i, n) < n && s[skip_ws(s, i, n)] == '{') {
		char *val = r->text + sizeof r->text / 2;   /* scratch for one value */

		i = skip_ws(s, skip_ws(s, i, n) + 1, n);
		while (i < n && s[i] != '}') {
			size_t ln = name_len(s, i, n, 0), vlen = 0, at = i;

			if (!ln) {
				*err = "bad label name";
				return -1;
			}
			i = skip_ws(s, i + ln, n);
			if (i >= n || s[i] != '=') {
				*err = "label without '='";
				return -1;
			}
			i = skip_ws(s, i + 1, n);
			if (i >= n || s[i] != '"') {
				*err = "label value not quoted";
				return -1;
			}
			if (n - i > sizeof r->text / 2 - 1) {
				*err = "labels too long";
				return -1;
			}
			if (!(i = quoted(s, i, n, val, &vlen, err)))
				return -1;
			if (used + ln + vlen + 2 > sizeof r->text / 2) {
				*err = "labels too long";
				return -1;
			}
			if (add_label(r, &used, s + at, ln, val, vlen, err) < 0)
				return -1;
			i = skip_ws(s, i, n);
			if (i < n && s[i] == ',')
				i = skip_ws(s, i + 1, n);
			else if (i < n && s[i] != '}') {
				*err = "labels not separated by ','";
				return -1;
			}
		}
		if (i >= n) {
			*err = "labels without their closing '}'";
			return -1;
		}
		i++;
	}
	if (i >= n || !is_ws(s[i])) {
		*err = i >= n ? "sample without a value" : "no space before the value";
		return -1;
	}
	i = skip_ws(s, i, n);
	for (tok = i; tok < n && !is_ws(s[tok]); tok++)
		;
	if (read_float(s + i, tok - i, &r->value, &is_int) < 0) {
		*err = "value is not a number";
		return -1;
	}
	i = skip_ws(s, tok, n);
	if (i < n && s[i] != '#') {
		for (tok = i; tok < n && !is_ws(s[tok]); tok++)
			;
		if (read_time(s + i, tok - i, &r->time_ms) < 0) {
			*err = "timestamp is not a number";
			return -1;
		}
		r->has_time = 1;
		i = skip_ws(s, tok, n);
	}
	if (i < n && s[i] == '#') {   /* OpenMetrics exemplar: # {labels} value [ts] */
		i = skip_ws(s, i + 1, n);
		if (i >= n || s[i] != '{' || !memchr(s + i, '}', n - i)) {
			*err = "text after the value";
			return -1;
		}
		return 1;
	}
	if (i < n) {
		*err = "text after the value";
		return -1;
	}
	return 1;
}

int prom_parse_text(const char *s, size_t len, prom_fn fn, void *ctx, int *rejected,
		    void (*bad)(void *ctx, long lineno, const char *err))
{
	struct prom_rec *r = xmalloc(sizeof *r);
	long lineno = 0;
	int count = 0, nbad = 0, eof = 0;
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (s + i)) : len - i;
		const char *err = NULL;
		int rc;

		lineno++;
		if (eof) {
			rc = -1;
			err = "text after # EOF";
		} else if (n > PARSE_LINE_MAX) {
			rc = -1;
			err = "line longer than PARSE_LINE_MAX (4096) bytes";
		} else {
			rc = prom_parse_line(s + i, n, r, &err);
			if (rc == 0 && n >= 5 && !memcmp(s + i, "# EOF", 5) && skip_ws(s + i, 5, n) == n)
				eof = 1;
		}
		if (rc > 0) {
			count++;
			if (fn)
				fn(ctx, r);
		} else if (rc < 0) {
			nbad++;
			if (bad)
				bad(ctx, lineno, err ? err : "malformed line");
		}
		i += n + (nl != NULL);
	}
	free(r);
	if (rejected)
		*rejected = nbad;
	return count;
}

/* ---- the HTTP API ---- */

/* [time, "value"] into r. 0 or -1. */
static int api_point(json_t *pt, struct prom_rec *r)
{
	json_t *t = json_array_get(pt, 0), *v = json_array_get(pt, 1);
	const char *vs;
	int is_int;

	if (!json_is_array(pt) || json_array_size(pt) != 2 || !json_is_number(t) || !json_is_string(v))
		return -1;
	vs = json_string_value(v);
	if (read_float(vs, json_string_length(v), &r->value, &is_int) < 0)
		return -1;
	double ms = json_number_value(t) * 1000.0;

	if (!(ms > -9.2e18 && ms < 9.2e18))
		return -1;
	r->has_time = 1;
	r->time_ms = llround(ms);
	return 0;
}

/* The "metric" object of a series into r's name and labels. 0 or -1. */
static int api_labels(json_t *metric, struct prom_rec *r)
{
	const char *k, *err;
	json_t *v;
	size_t used = 0;

	r->nlabels = 0;
	r->name[0] = '\0';
	r->has_time = 0;
	if (!metric)
		return 0;
	if (!json_is_object(metric))
		return -1;
	json_object_foreach(metric, k, v) {
		const char *vs = json_string_value(v);
		size_t vl = json_string_length(v), kl = strlen(k);

		if (!vs || memchr(vs, '\0', vl))
			return -1;
		if (!strcmp(k, "__name__")) {
			if (vl >= sizeof r->name)
				return -1;
			memcpy(r->name, vs, vl + 1);
			continue;
		}
		if (!kl || add_label(r, &used, k, kl, vs, vl, &err) < 0)
			return -1;
	}
	return 0;
}

int prom_parse_api(const char *json, size_t len, prom_fn fn, void *ctx, int *rejected, char **err)
{
	json_error_t je;
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je), *data, *res;
	struct prom_rec *r;
	const char *status, *type;
	int count = 0, nbad = 0;

	*err = NULL;
	if (rejected)
		*rejected = 0;
	if (!root) {
		*err = xasprintf("not JSON: %s (line %d)", je.text, je.line);
		return -1;
	}
	status = json_string_value(json_object_get(root, "status"));
	if (status && !strcmp(status, "error")) {
		const char *et = json_string_value(json_object_get(root, "errorType"));
		const char *e = json_string_value(json_object_get(root, "error"));

		*err = xasprintf("Prometheus error %s: %s", et ? et : "(no type)", e ? e : "(no message)");
		json_decref(root);
		return -1;
	}
	data = json_object_get(root, "data");
	type = json_string_value(json_object_get(data, "resultType"));
	res = json_object_get(data, "result");
	if (!status || strcmp(status, "success") || !json_is_object(data) || !type) {
		*err = xstrdup("not a Prometheus API answer (no \"status\":\"success\" with data.resultType)");
		json_decref(root);
		return -1;
	}
	r = xmalloc(sizeof *r);
	if (!strcmp(type, "scalar")) {
		if (api_labels(NULL, r) < 0 || api_point(res, r) < 0) {
			*err = xstrdup("scalar result is not [time, \"value\"]");
			count = -1;
		} else {
			count = 1;
			if (fn)
				fn(ctx, r);
		}
	} else if ((!strcmp(type, "vector") || !strcmp(type, "matrix")) && json_is_array(res)) {
		int matrix = type[0] == 'm';
		size_t i, j;
		json_t *s, *p;

		json_array_foreach(res, i, s) {
			json_t *pts = json_object_get(s, matrix ? "values" : "value");

			if (!json_is_object(s) || api_labels(json_object_get(s, "metric"), r) < 0 ||
			    (matrix && !json_is_array(pts))) {
				nbad++;
				continue;
			}
			if (!matrix) {
				if (api_point(pts, r) < 0) {
					nbad++;
					continue;
				}
				count++;
				if (fn)
					fn(ctx, r);
				continue;
			}
			json_array_foreach(pts, j, p) {
				if (api_point(p, r) < 0) {
					nbad++;
					continue;
				}
				count++;
				if (fn)
					fn(ctx, r);
			}
		}
	} else {
		*err = xasprintf("resultType \"%.32s\" carries no samples myriad reads", type);
		count = -1;
	}
	free(r);
	json_decref(root);
	if (rejected)
		*rejected = nbad;
	return count;
}
