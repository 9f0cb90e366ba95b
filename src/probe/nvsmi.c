/*
 * nvsmi.c - parser for `nvidia-smi --query-gpu=... --format=csv[,noheader]
 * [,nounits]` lines (myriad-design(7), SOURCES AND FORMATS: nvidia-smi).
 *
 * A line is (ptr, len) and may hold anything: NULs, control bytes, units or
 * none, "[N/A]" and friends. Fields are split on commas (nvidia-smi prints
 * ", "); each column the layout knows is checked for its unit and range.
 * A query may have any number of columns (exporters ask for every field the
 * driver knows, 200-250 of them): the header names say which are ours, the
 * rest are skipped. No allocation, no strtod, no sscanf: one pass over the
 * line, hand-rolled decimal parsing, so 10,240 lines cost a millisecond or two.
 */
#include <stdio.h>
#include <string.h>
#include "parse.h"
#include "../util.h"

struct span {
	const char *p;
	size_t n;
};

/* ---- column names ---- */

struct col_name {
	const char *name;
	enum nvsmi_col col;
};

/* Canonical names (what the CSV header prints) and the aliases --query-gpu
 * accepts. When two columns map to one field the first one wins. */
static const struct col_name col_names[] = {
	{"index", NVC_INDEX},
	{"uuid", NVC_UUID}, {"gpu_uuid", NVC_UUID},
	{"name", NVC_NAME}, {"gpu_name", NVC_NAME},
	{"pci.bus_id", NVC_PCI}, {"gpu_bus_id", NVC_PCI},
	{"utilization.gpu", NVC_UTIL},
	{"memory.used", NVC_MEM_USED},
	{"memory.total", NVC_MEM_TOTAL},
	{"temperature.gpu", NVC_TEMP},
	{"power.draw", NVC_POWER}, {"power.draw.average", NVC_POWER},
	{"power.limit", NVC_POWER_LIMIT}, {"enforced.power.limit", NVC_POWER_LIMIT},
	{"clocks.sm", NVC_SM_CLOCK}, {"clocks.current.sm", NVC_SM_CLOCK},
	{"ecc.errors.uncorrected.volatile.total", NVC_ECC_UNCORR},
	{"clocks_event_reasons.active", NVC_THROTTLE},
	{"clocks_throttle_reasons.active", NVC_THROTTLE},
};

static enum nvsmi_col col_from_name(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_LEN(col_names); i++)
		if (strlen(col_names[i].name) == n && !memcmp(col_names[i].name, s, n))
			return col_names[i].col;
	return NVC_OTHER;
}

/* ---- metric columns: unit, range, kind ---- */

enum kind { K_NONE, K_INT, K_CENTI, K_HEX };

struct met_spec {
	enum kind kind;
	int metric;
	const char *unit;       /* "" for none */
	int64_t min, max;
};

static const struct met_spec specs[NVC_COUNT] = {
	[NVC_UTIL] = {K_INT, MET_UTIL, "%", 0, 100},
	[NVC_MEM_USED] = {K_INT, MET_MEM_USED, "MiB", 0, 1 << 24},
	[NVC_MEM_TOTAL] = {K_INT, MET_MEM_TOTAL, "MiB", 0, 1 << 24},
	[NVC_TEMP] = {K_INT, MET_TEMP, "", -50, 200},
	[NVC_POWER] = {K_CENTI, MET_POWER, "W", 0, 10000000},
	[NVC_POWER_LIMIT] = {K_CENTI, MET_POWER_LIMIT, "W", 0, 10000000},
	[NVC_SM_CLOCK] = {K_INT, MET_SM_CLOCK, "MHz", 0, 100000},
	[NVC_ECC_UNCORR] = {K_INT, MET_ECC_UNCORR, "", 0, INT32_MAX},
	[NVC_THROTTLE] = {K_HEX, MET_THROTTLE, "", 0, 0},
};

/* ---- layouts ---- */

/* Appends column c; a known column seen before is skipped (first wins). */
static void layout_add(struct nvsmi_layout *l, enum nvsmi_col c, unsigned *seen)
{
	if (c < NVC_OTHER && !(*seen & (1u << c))) {
		*seen |= 1u << c;
		l->pos[l->nknown] = (uint16_t)l->ncols;
		l->col[l->nknown++] = (uint8_t)c;
	}
	l->ncols++;
}

static inline struct span trim(const char *p, size_t n)
{
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return (struct span){p, n};
}

void nvsmi_layout_from_query(struct nvsmi_layout *l, const char *query)
{
	const char *p = query, *end = query + strlen(query);
	unsigned seen = 0;

	l->ncols = l->nknown = 0;
	while (p <= end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *e = c ? c : end;
		struct span f = trim(p, (size_t)(e - p));

		if (l->ncols == NVSMI_MAX_COLS) {
			l->ncols = l->nknown = 0;   /* unusable: every line will be rejected */
			return;
		}
		layout_add(l, col_from_name(f.p, f.n), &seen);
		p = e + 1;
	}
}


/* Byte classes: what a CSV byte may be, so one table load per byte does
 * the control check and the comma split together. */
enum { C_CTRL = 1, C_DIGIT = 2, C_HEX = 4, C_ALPHA = 8, C_DASH = 16, C_COLON_DOT = 32,
       C_COMMA = 64, C_NUM = 128 /* [0-9a-fA-FxX.+-] */ };
static const unsigned char cls[256] = {
	  1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,
	  1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0, 128,  64, 144, 160,   0,
	130, 130, 130, 130, 130, 130, 130, 130, 130, 130,  32,   0,   0,   0,   0,   0,
	  0, 140, 140, 140, 140, 140, 140,   8,   8,   8,   8,   8,   8,   8,   8,   8,
	  8,   8,   8,   8,   8,   8,   8,   8, 136,   8,   8,   0,   0,   0,   0,   0,
	  0, 140, 140, 140, 140, 140, 140,   8,   8,   8,   8,   8,   8,   8,   8,   8,
	  8,   8,   8,   8,   8,   8,   8,   8, 136,   8,   8,   0,   0,   0,   0,   1,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
};

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* SWAR: high bit set in each byte of v that is below 0x20 or equal to c.
 * Exact for the lowest flagged byte; later ones may be false alarms. */
static uint64_t flag_bytes(uint64_t v, int c)
{
	uint64_t x = v ^ (ONES * (uint64_t)c);

	return ((x - ONES) & ~x) & HIGHS;
}

/* Commas, a word at a time: the high bit of each byte of x that is zero
 * (exact: no carry crosses bytes), then the flags summed by a multiply. */
int nvsmi_count_fields(const char *line, size_t len)
{
	size_t i = 0;
	int n = 1;

	for (; i + 8 <= len; i += 8) {
		uint64_t v, x;

		memcpy(&v, line + i, 8);
		x = v ^ (ONES * ',');
		x = ~(((x & ~HIGHS) + ~HIGHS) | x) & HIGHS;
		n += (int)(((x >> 7) * ONES) >> 56);
	}
	for (; i < len; i++)
		n += line[i] == ',';
	return n;
}

/* Commas counted and control bytes looked for in one pass over the line:
 * the field count, or -1 if there is a control byte. */
static int scan_line(const char *s, size_t n)
{
	uint64_t acc = 0;
	size_t i = 0;
	int commas = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v, x;

		memcpy(&v, s + i, 8);
		acc |= (((v - ONES * 0x20) & ~v) & HIGHS) | flag_bytes(v, 0x7f);
		x = v ^ (ONES * ',');
		x = ~(((x & ~HIGHS) + ~HIGHS) | x) & HIGHS;
		commas += (int)(((x >> 7) * ONES) >> 56);
	}
	for (; i < n; i++) {
		acc |= cls[(unsigned char)s[i]] & C_CTRL;
		commas += s[i] == ',';
	}
	return acc & (HIGHS | C_CTRL) ? -1 : commas + 1;
}

/* Any control byte (below 0x20, NUL included, or DEL)? Word at a time. */
static int has_control(const char *s, size_t n)
{
	uint64_t acc = 0;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, s + i, 8);
		acc |= (((v - ONES * 0x20) & ~v) & HIGHS) | flag_bytes(v, 0x7f);
	}
	for (; i < n; i++)
		acc |= cls[(unsigned char)s[i]] & C_CTRL;
	return (acc & (HIGHS | C_CTRL)) != 0;
}

/* Offset of the first comma in s[i..n), or n. */
static inline size_t next_comma(const char *s, size_t i, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= n; i += 8) {
		uint64_t v, hit;

		memcpy(&v, s + i, 8);
		hit = (v ^ (ONES * ',')) - ONES;
		hit &= ~(v ^ (ONES * ',')) & HIGHS;
		if (hit)
			return i + (size_t)__builtin_ctzll(hit) / 8;
	}
#endif
	for (; i < n; i++)
		if (s[i] == ',')
			return i;
	return n;
}

static int is_lower(char c) { return c >= 'a' && c <= 'z'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "memory.used [MiB]" -> name "memory.used"; 0 if not a header field. */
static int header_field(struct span f, struct span *name)
{
	size_t i = 0;

	if (!f.n || !is_lower(f.p[0]))
		return 0;
	while (i < f.n && (is_lower(f.p[i]) || is_digit(f.p[i]) || f.p[i] == '_' ||
			   f.p[i] == '.' || (f.p[i] >= 'A' && f.p[i] <= 'Z')))
		i++;
	*name = (struct span){f.p, i};
	if (i == f.n)
		return 1;
	if (f.n - i < 3 || f.p[i] != ' ' || f.p[i + 1] != '[' || f.p[f.n - 1] != ']')
		return 0;
	for (size_t j = i + 2; j < f.n - 1; j++)
		if (f.p[j] < 0x20 || f.p[j] > 0x7e || f.p[j] == '[' || f.p[j] == ']')
			return 0;
	return 1;
}

static size_t strip_cr(const char *line, size_t len)
{
	return len && line[len - 1] == '\r' ? len - 1 : len;
}

int nvsmi_parse_header(const char *line, size_t len, struct nvsmi_layout *l)
{
	struct nvsmi_layout tmp;
	struct span name;
	unsigned seen = 0;
	size_t start = 0, i;

	len = strip_cr(line, len);
	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i == len || !is_lower(line[i]))
		return 0;   /* a data line: its first field is no name (header_field() would say so, later) */
	if (len > PARSE_LINE_MAX || has_control(line, len))
		return 0;
	memset(&tmp, 0, sizeof tmp);
	for (;;) {
		i = next_comma(line, start, len);
		if (tmp.ncols == NVSMI_MAX_COLS || !header_field(trim(line + start, i - start), &name))
			return 0;
		layout_add(&tmp, col_from_name(name.p, name.n), &seen);
		if (i == len)
			break;
		start = i + 1;
	}
	if (!tmp.nknown)
		return 0;
	*l = tmp;
	return 1;
}

const char *nvsmi_reject_reason(int have_header, int ncols_line, int ncols_layout, char *buf, size_t cap)
{
	if (!have_header)
		snprintf(buf, cap, "no header, cannot map columns (%d columns; print the header: "
			 "--format=csv without noheader)", ncols_line);
	else
		snprintf(buf, cap, "wrong number of columns: %d, the header has %d", ncols_line, ncols_layout);
	return buf;
}

/* ---- values ---- */

/* "[N/A]", "[Not Supported]", "N/A", "[Unknown Error]", ...: no value. */
static inline int is_unknown(struct span v)
{
	if (v.n == 3 && !memcmp(v.p, "N/A", 3))
		return 1;
	if (v.n < 3 || v.p[0] != '[' || v.p[v.n - 1] != ']')
		return 0;
	for (size_t i = 1; i < v.n - 1; i++) {
		char c = v.p[i];

		if (!(is_lower(c) || (c >= 'A' && c <= 'Z') || is_digit(c) || c == ' ' ||
		      c == '/' || c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

/* The number parsers below read a prefix of s and return its length, 0 if
 * there is no number; parse_metric() then wants nothing or the unit after it. */

/* Optional '-', then 1..18 digits. */
static inline size_t parse_int(struct span s, int64_t *out)
{
	size_t i = s.n && s.p[0] == '-', start = i;
	int64_t v = 0;

	while (i < s.n && i - start < 18 && is_digit(s.p[i]))
		v = v * 10 + (s.p[i++] - '0');
	if (i == start)
		return 0;
	*out = start ? -v : v;
	return i;
}

/* "631.95" -> 63195 (hundredths, rounded half up on the third decimal). */
static inline size_t parse_centi(struct span s, int64_t *out)
{
	size_t i = 0, frac;
	int64_t v = 0;

	while (i < s.n && i < 12 && is_digit(s.p[i]))
		v = v * 10 + (s.p[i++] - '0');
	if (!i)
		return 0;
	v *= 100;
	if (i + 1 < s.n && s.p[i] == '.' && is_digit(s.p[i + 1])) {
		for (i++, frac = 0; i < s.n && is_digit(s.p[i]); i++, frac++) {
			if (frac == 0)
				v += (s.p[i] - '0') * 10;
			else if (frac == 1)
				v += s.p[i] - '0';
			else if (frac == 2 && s.p[i] >= '5')
				v++;
		}
	}
	*out = v;
	return i;
}

/* "0x0000000000000040": 1..16 hex digits; keeps the low 31 bits (NVML
 * defines bits up to 0x100; dropping bit 31 keeps clear of MET_UNKNOWN). */
static inline size_t parse_hex(struct span s, int64_t *out)
{
	uint64_t v = 0;
	size_t i = 2;

	if (s.n < 3 || s.p[0] != '0' || (s.p[1] != 'x' && s.p[1] != 'X'))
		return 0;
	for (; i < s.n && i < 18 && (cls[(unsigned char)s.p[i]] & (C_DIGIT | C_HEX)); i++) {
		char c = s.p[i];

		v = v << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	if (i == 2)
		return 0;
	*out = (int64_t)(v & 0x7fffffffu);
	return i;
}

static inline int span_is(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && !memcmp(s.p, lit, n);
}

static inline int parse_metric(const struct met_spec *sp, struct span v, int32_t *out,
			const char **err)
{
	struct span unit;
	int64_t x;
	size_t k;

	if (is_unknown(v)) {
		*out = MET_UNKNOWN;
		return 0;
	}
	if (sp->kind == K_HEX)
		k = parse_hex(v, &x);
	else if (sp->kind == K_CENTI)
		k = parse_centi(v, &x);
	else
		k = parse_int(v, &x);
	if (!k) {
		*err = "not a number";
		return -1;
	}
	unit = trim(v.p + k, v.n - k);
	if (unit.n && (!*sp->unit || !span_is(unit, sp->unit))) {
		*err = "unexpected unit or trailing garbage";
		return -1;
	}
	if (sp->kind != K_HEX && (x < sp->min || x > sp->max)) {
		*err = "value out of range";
		return -1;
	}
	*out = (int32_t)x;
	return 0;
}

/* uuid ("GPU-...", "MIG-...") and PCI bus id ("00000000:18:00.0"). */
static inline int parse_ident(struct span v, char *dst, size_t cap, int pci, const char **err)
{
	if (is_unknown(v)) {
		dst[0] = '\0';
		return 0;
	}
	if (!v.n || v.n >= cap) {
		*err = pci ? "bad PCI bus id" : "bad uuid";
		return -1;
	}
	unsigned ok = pci ? C_DIGIT | C_HEX | C_COLON_DOT : C_DIGIT | C_ALPHA | C_DASH;
	size_t i = 0;

	while (i < v.n && (cls[(unsigned char)v.p[i]] & ok))
		i++;
	if (i < v.n) {
		*err = pci ? "bad PCI bus id" : "bad uuid";
		return -1;
	}
	memcpy(dst, v.p, v.n);
	dst[v.n] = '\0';
	return 0;
}

static int parse_index(struct span v, int32_t *out, const char **err)
{
	int64_t x;

	if (v.n > 2 || parse_int(v, &x) != v.n || x < 0 || x > 63) {
		*err = "bad GPU index";
		return -1;
	}
	*out = (int32_t)x;
	return 0;
}

static int parse_field(enum nvsmi_col c, struct span v, struct nvsmi_rec *r, const char **err)
{
	if (!v.n) {
		*err = "empty field";
		return -1;
	}
	switch (c) {
	case NVC_INDEX:
		return parse_index(v, &r->index, err);
	case NVC_UUID:
		return parse_ident(v, r->uuid, sizeof r->uuid, 0, err);
	case NVC_PCI:
		return parse_ident(v, r->pci, sizeof r->pci, 1, err);
	case NVC_NAME:
		if (!is_unknown(v))   /* printable: control bytes were refused already */
			parse_copy(r->name, sizeof r->name, v.p, v.n);
		return 0;
	case NVC_OTHER:
	case NVC_COUNT:
		return 0;
	default:
		return parse_metric(&specs[c], v, &r->m[specs[c].metric], err);
	}
}

static void rec_init(struct nvsmi_rec *r)
{
	r->index = -1;
	r->uuid[0] = r->pci[0] = r->name[0] = '\0';
	for (int i = 0; i < MET_COUNT; i++)
		r->m[i] = MET_UNKNOWN;
}

int nvsmi_parse_line(const char *line, size_t len, const struct nvsmi_layout *l,
		     struct nvsmi_rec *out, const char **err)
{
	size_t start = 0, i;
	int k = 0, want = 0;

	rec_init(out);
	len = strip_cr(line, len);
	if (len > PARSE_LINE_MAX) {
		*err = "line too long";
		return -1;
	}
	int ncols = scan_line(line, len);

	if (ncols < 0) {
		*err = "control or NUL byte in line";
		return -1;
	}
	if (!l || l->ncols <= 0 || ncols != l->ncols) {
		*err = "wrong number of columns";
		return -1;
	}
	for (;; k++) {
		i = next_comma(line, start, len);
		if (want < l->nknown && l->pos[want] == k) {
			if (parse_field((enum nvsmi_col)l->col[want], trim(line + start, i - start), out, err)) {
				rec_init(out);
				return -1;
			}
			want++;
		}
		if (i == len || want == l->nknown)
			return 0;
		start = i + 1;
	}
}
