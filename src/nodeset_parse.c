/*
 * nodeset_parse.c - the nodeset syntax (nodeset.h), read as ClusterShell 1.9
 * reads it: ranges with padding and steps, digits glued to brackets, several
 * brackets, whitespace where ClusterShell strips it, @groups through a
 * callback, and the operators , ! & ^ applied left to right. Errors name the
 * 1-based position; a work budget bounds what one parse may expand. The
 * Slurm reading (nodeset_from_slurm) also takes Slurm's "n[01-100]" and, as
 * Slurm, refuses text after the last bracket.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "nodeset_int.h"

struct parser {
	const char *s;
	size_t i;               /* offset of the next character */
	char *err;
	uint64_t budget;        /* names and stepped indexes left to generate */
	nodeset_group_fn groups;
	void *ctx;
	bool slurm;
};

struct num {
	uint64_t v;
	size_t pos, len;        /* the digits */
	bool ws_after;          /* whitespace follows them */
};

struct item {
	struct num lo, hi, step;
	bool range, stepped;
};

struct bracket {
	size_t open;            /* offset of '[' */
	struct item *it;
	size_t n;
	bool slash;
	size_t tpos, tlen;      /* the digits right after ']' */
};

/* One index of a pattern: a bracket or a run of digits in the text. */
struct dim {
	struct rset rs;
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
	if ((c < 0x20 && !is_space((char)c)) || c == 0x7f)
		return perr(p, p->i, "control character 0x%02x", c);
	if (expected)
		return perr(p, p->i, "expected %s", expected);
	if (c == ']')
		return perr(p, p->i, "unexpected ']'");
	if (c >= 0x80)
		return perr(p, p->i, "invalid character 0x%02x", c);
	return perr(p, p->i, "invalid character '%c'", c);
}

static void skip_spaces(struct parser *p)
{
	while (is_space(p->s[p->i]))
		p->i++;
}

/* ---- brackets ---- */

static int parse_num(struct parser *p, size_t open, struct num *n)
{
	skip_spaces(p);
	n->pos = p->i;
	n->v = 0;
	while (is_digit(p->s[p->i]))
		p->i++;
	n->len = p->i - n->pos;
	if (!n->len)
		return unexpected(p, open == SIZE_MAX ? NULL : &open, "a number");
	if (n->len > MAX_DIGITS)
		return perr(p, n->pos, "number longer than %d digits", MAX_DIGITS);
	for (size_t k = n->pos; k < p->i; k++)
		n->v = n->v * 10 + (uint64_t)(p->s[k] - '0');
	n->ws_after = is_space(p->s[p->i]);
	skip_spaces(p);
	return 0;
}

static int parse_item(struct parser *p, size_t open, struct item *it)
{
	memset(it, 0, sizeof *it);
	if (parse_num(p, open, &it->lo) < 0)
		return -1;
	it->hi = it->lo;
	if (p->s[p->i] == '-') {
		p->i++;
		it->range = true;
		if (parse_num(p, open, &it->hi) < 0)
			return -1;
	}
	if (p->s[p->i] == '/') {
		p->i++;
		it->stepped = true;
		if (parse_num(p, open, &it->step) < 0)
			return -1;
	}
	return 0;
}

/* Reads "[...]" at p->i and the digits after it into b. */
static int parse_bracket(struct parser *p, struct bracket *b)
{
	size_t cap = 0;

	b->open = p->i++;
	for (;;) {
		if (b->n == cap) {
			cap = cap ? 2 * cap : 8;
			b->it = xrealloc(b->it, cap * sizeof *b->it);
		}
		if (parse_item(p, b->open, &b->it[b->n]) < 0)
			return -1;
		b->slash |= b->it[b->n++].stepped;
		if (p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->s[p->i] != ']')
			return unexpected(p, &b->open, "']'");
		p->i++;
		break;
	}
	b->tpos = p->i;
	while (is_digit(p->s[p->i]))
		p->i++;
	b->tlen = p->i - b->tpos;
	if (b->tlen && b->slash)
		return perr(p, b->tpos, "digits after a bracket with a step");
	if (p->s[p->i] == '[')
		return perr(p, p->i, "'[' right after a bracket%s", b->tlen ? " and digits" : "");
	return 0;
}

/* A number made of the text at pos (len digits) and the digits glued to it:
 * ClusterShell reads "n[1-2]0" as n[10-20/10] and "n1[0-2]" as n[10-12]. */
struct word {
	char d[2 * MAX_DIGITS + 24];
	size_t len;
	uint64_t v;
};

static int word_make(struct parser *p, struct word *w, const char *a, size_t alen, const char *b,
		     size_t blen, const char *c, size_t clen, size_t at)
{
	w->len = alen + blen + clen;
	if (w->len > MAX_DIGITS)
		return perr(p, at, "number longer than %d digits", MAX_DIGITS);
	memcpy(w->d, a, alen);
	memcpy(w->d + alen, b, blen);
	memcpy(w->d + alen + blen, c, clen);
	w->v = 0;
	for (size_t k = 0; k < w->len; k++)
		w->v = w->v * 10 + (uint64_t)(w->d[k] - '0');
	return 0;
}

static bool word_padded(const struct word *w)
{
	return w->len > 1 && w->d[0] == '0';
}

/* Adds lo..hi/step to rs with ClusterShell's checks; the width of the
 * indexes is that of zero-padded bounds, which must then be equally wide. */
static int add_range(struct parser *p, struct rset *rs, const struct word *lo, const struct word *hi,
		     uint64_t step, size_t at)
{
	bool pad = word_padded(lo), endpad = hi->v && word_padded(hi);
	int width = pad ? (int)lo->len : 1;

	if ((pad || endpad) && lo->len != hi->len) {
		if (!(p->slurm && pad && !endpad && hi->len > lo->len))
			return perr(p, at, "range %.*s-%.*s: zero-padded bounds must have the same width",
				    (int)lo->len, lo->d, (int)hi->len, hi->d);
	}
	if (lo->v > hi->v)
		return perr(p, at, "range %.*s-%.*s is reversed", (int)lo->len, lo->d, (int)hi->len, hi->d);
	if (hi->v - lo->v >= RANGE_LIMIT - 1)
		return perr(p, at, "range %.*s-%.*s is too large (ClusterShell takes fewer than 10^9 indexes)",
			    (int)lo->len, lo->d, (int)hi->len, hi->d);
	if (step == 1) {
		nsi_rs_add_values(rs, lo->v, hi->v, width);
		return 0;
	}
	uint64_t count = (hi->v - lo->v) / step + 1, v = lo->v;

	if (charge(p, count, at) < 0)
		return -1;
	for (; count--; v += step)
		nsi_rs_add_values(rs, v, v, width);
	return 0;
}

/* The indexes of bracket b, with the digits before it (lead, llen). */
static int bracket_set(struct parser *p, const struct bracket *b, size_t lead, size_t llen, struct rset *out)
{
	const char *t = p->s + b->tpos;
	struct rset rs = {0};
	struct word lo, hi;
	size_t i;
	int rc = 0;

	for (i = 0; i < b->n && !rc; i++) {
		const struct item *it = &b->it[i];
		uint64_t step = it->stepped ? it->step.v : 1;

		if (b->tlen && (it->lo.ws_after || (it->range && it->hi.ws_after)))
			rc = perr(p, it->lo.ws_after ? it->lo.pos + it->lo.len : it->hi.pos + it->hi.len,
				  "whitespace before the digits after ']'");
		else if (it->stepped && it->step.v == 0)
			rc = perr(p, it->step.pos, "step must be at least 1");
		else if (it->stepped && !it->range && it->step.v != 1)
			rc = perr(p, it->step.pos, "a step needs a range (lo-hi/step)");
		if (!rc && b->tlen && it->range) {
			if (b->tlen > MAX_DIGITS)
				rc = perr(p, b->tpos, "number longer than %d digits", MAX_DIGITS);
			else
				step = nsi_p10[b->tlen];
		}
		if (!rc)
			rc = word_make(p, &lo, p->s + it->lo.pos, it->lo.len, t, b->tlen, "", 0, it->lo.pos);
		if (!rc)
			rc = word_make(p, &hi, p->s + it->hi.pos, it->hi.len, t, b->tlen, "", 0, it->hi.pos);
		if (!rc)
			rc = add_range(p, &rs, &lo, &hi, step, it->lo.pos);
	}
	nsi_rs_normalize(&rs);
	if (rc || !llen) {
		*out = rs;
		return rc;
	}
	/* digits before '[': glued to each run of the set, as text */
	struct slices sl = {0};

	nsi_slices(&rs, &sl);
	for (i = 0; i < sl.n && !rc; i++) {
		char a[24], z[24];
		size_t alen = nsi_key_str(a, sl.sl[i].lo), zlen = nsi_key_str(z, sl.sl[i].hi);

		rc = word_make(p, &lo, p->s + lead, llen, a, alen, "", 0, lead);
		if (!rc)
			rc = word_make(p, &hi, p->s + lead, llen, z, zlen, "", 0, lead);
		if (!rc)
			rc = add_range(p, out, &lo, &hi, 1, lead);
	}
	free(sl.sl);
	free(rs.r);
	nsi_rs_normalize(out);
	return rc;
}

/* ---- patterns ---- */

struct operand {
	struct bracket *b;
	size_t nb, capb;
	size_t start, end;
	struct dim *d;
	size_t nd, capd;
	struct sbuf pat;
};

static void operand_free(struct operand *o)
{
	for (size_t i = 0; i < o->nb; i++)
		free(o->b[i].it);
	for (size_t i = 0; i < o->nd; i++)
		free(o->d[i].rs.r);
	free(o->b);
	free(o->d);
	sbuf_free(&o->pat);
}

static struct rset *dim_new(struct operand *o)
{
	if (o->nd == o->capd) {
		o->capd = o->capd ? 2 * o->capd : 4;
		o->d = xrealloc(o->d, o->capd * sizeof *o->d);
	}
	memset(&o->d[o->nd], 0, sizeof o->d[0]);
	return &o->d[o->nd++].rs;
}

/* Text [a, z) of the pattern: its digit runs become indexes. */
static int add_text(struct parser *p, struct operand *o, size_t a, size_t z)
{
	struct keyvec kv;
	size_t bad = 0;
	int n;

	if (a == z)
		return 0;
	nsi_kv_init(&kv);
	n = nsi_name_scan(p->s + a, z - a, &o->pat, &kv, &bad);
	if (n < 0) {
		nsi_kv_free(&kv);
		return perr(p, a + bad, "index too large (ClusterShell takes up to 1e100)");
	}
	for (int k = 0; k < n; k++)
		nsi_rs_append(dim_new(o), kv.k[k], kv.k[k]);
	nsi_kv_free(&kv);
	return 0;
}

/* Scans a name with its brackets, from p->i to the first character that
 * cannot be part of it, and works out its pattern and indexes. */
static int parse_pattern(struct parser *p, struct operand *o)
{
	size_t text = p->i, i;

	o->start = p->i;
	for (;;) {
		char c = p->s[p->i];

		if (is_namechar(c)) {
			p->i++;
			continue;
		}
		if (c == ']')
			return unexpected(p, NULL, NULL);
		if (c != '[')
			break;
		if (o->nb == o->capb) {
			o->capb = o->capb ? 2 * o->capb : 4;
			o->b = xrealloc(o->b, o->capb * sizeof *o->b);
		}
		memset(&o->b[o->nb], 0, sizeof o->b[0]);
		if (parse_bracket(p, &o->b[o->nb++]) < 0)
			return -1;
	}
	o->end = p->i;
	if (p->slurm && o->nb) {
		const struct bracket *b = &o->b[o->nb - 1];

		if (b->tpos != o->end)
			return perr(p, b->tpos, "text after the last ']' (Slurm hostlists end with ']')");
	}
	for (i = 0; i < o->nb; i++) {
		const struct bracket *b = &o->b[i];
		size_t lead = b->open;

		while (lead > text && is_digit(p->s[lead - 1]))
			lead--;
		if (add_text(p, o, text, lead) < 0)
			return -1;
		sbuf_add(&o->pat, "%s", 2);
		if (bracket_set(p, b, lead, b->open - lead, dim_new(o)) < 0)
			return -1;
		text = b->tpos + b->tlen;
	}
	if (add_text(p, o, text, o->end) < 0)
		return -1;
	if (!o->pat.s)
		sbuf_add(&o->pat, "", 0);
	return 0;
}

/* Work to expand every combination of the first m indexes: per combination
 * its keys, and the ranges of index m if it stays ranges (names), or its
 * text (groups). */
static int charge_combos(struct parser *p, const struct operand *o, size_t m, bool text, size_t at)
{
	uint64_t combos = 1, each = 1 + (o->nd - 1) / 4;

	for (size_t i = 0; i < m; i++)
		combos = sat_mul(combos, nsi_rs_count(&o->d[i].rs));
	if (text)
		each = 1 + (o->end - o->start + o->nd * MAX_DIGITS) / 16;
	else if (m < o->nd)
		each = o->d[m].rs.n + (o->nd - 1) / 4;
	return charge(p, m ? sat_mul(combos, each) : 0, at);
}

struct odo {
	size_t ri;
	uint64_t k;
};

static bool odo_next(struct odo *od, const struct operand *o, size_t m)
{
	while (m-- > 0) {
		const struct rset *rs = &o->d[m].rs;

		if (od[m].k < rs->r[od[m].ri].hi) {
			od[m].k++;
			return true;
		}
		if (od[m].ri + 1 < rs->n) {
			od[m].k = rs->r[++od[m].ri].lo;
			return true;
		}
		od[m].ri = 0;
		od[m].k = rs->r[0].lo;
	}
	return false;
}

/* Adds the names of a pattern to out: every combination of its first
 * indexes, the last one as ranges. */
static int add_names(struct parser *p, const struct operand *o, struct nodeset *out)
{
	size_t m = o->nd ? o->nd - 1 : 0, i;
	struct pattern *pt;
	struct odo *od;
	uint64_t *k;

	if (charge_combos(p, o, m, false, o->start) < 0)
		return -1;
	pt = nsi_pattern(out, o->pat.s, o->pat.len, (int)o->nd);
	if (!o->nd) {
		nsi_pend(out, pt, NULL, 0, 0);
		return 0;
	}
	od = xcalloc(m + 1, sizeof *od);
	k = xcalloc(m + 1, sizeof *k);
	for (i = 0; i < m; i++)
		od[i].k = o->d[i].rs.r[0].lo;
	do {
		for (i = 0; i < m; i++)
			k[i] = od[i].k;
		for (i = 0; i < o->d[m].rs.n; i++)
			nsi_pend(out, pt, k, o->d[m].rs.r[i].lo, o->d[m].rs.r[i].hi);
	} while (odo_next(od, o, m));
	free(od);
	free(k);
	return 0;
}

/* @group: every name the pattern expands to is a group for the callback. */
static int add_groups(struct parser *p, const struct operand *o, struct nodeset *out)
{
	size_t at = o->start - 1, i;
	struct sbuf name = {0};
	struct odo *od;
	int rc = 0;

	if (o->end == o->start)
		return perr(p, p->i, "empty group name");
	if (charge_combos(p, o, o->nd, true, at) < 0)
		return -1;
	od = xcalloc(o->nd + 1, sizeof *od);
	for (i = 0; i < o->nd; i++)
		od[i].k = o->d[i].rs.r[0].lo;
	do {
		const char *s = o->pat.s, *a = s;
		struct nodeset *g;
		char *cerr = NULL;
		size_t x = 0;

		sbuf_reset(&name);
		for (; *s; s++)
			if (s[0] == '%' && s[1] == 's') {
				sbuf_add(&name, a, (size_t)(s - a));
				nsi_add_key(&name, od[x++].k);
				a = ++s + 1;
			}
		sbuf_add(&name, a, (size_t)(s - a));
		if (!p->groups) {
			rc = perr(p, at, "unknown group @%s (no group resolver)", name.s);
			break;
		}
		g = nodeset_new();
		if (p->groups(p->ctx, name.s, g, &cerr))
			rc = perr(p, at, "%s", cerr ? cerr : "unknown group");
		else
			rc = charge(p, 1 + g->n, at);
		if (!rc)
			nsi_combine(out, g, OP_UNION);
		free(cerr);
		nodeset_free(g);
	} while (!rc && odo_next(od, o, o->nd));
	free(od);
	sbuf_free(&name);
	return rc;
}

/* One operand: a name with brackets, or @group. Its names go to out. */
static int parse_operand(struct parser *p, struct nodeset *out)
{
	struct operand o = {0};
	bool group = p->s[p->i] == '@';
	int rc;

	p->i += group;
	rc = parse_pattern(p, &o);
	if (!rc && !group && o.end == o.start) {
		if (is_op(p->s[p->i]) || !p->s[p->i] || is_space(p->s[p->i]))
			rc = perr(p, p->i, "empty name");
		else
			rc = unexpected(p, NULL, NULL);
	}
	if (!rc)
		rc = group ? add_groups(p, &o, out) : add_names(p, &o, out);
	operand_free(&o);
	return rc;
}

static enum op op_of(char c)
{
	return c == '!' ? OP_DIFF : c == '&' ? OP_INTER : c == '^' ? OP_XOR : OP_UNION;
}

/* The work an operation on ns costs: its rows and ranges. */
static uint64_t weight(const struct nodeset *ns)
{
	uint64_t w = 0;

	for (size_t i = 0; i < ns->n; i++) {
		w += 1 + ns->p[i].n + ns->p[i].npend;
		for (size_t r = 0; r < ns->p[i].n; r++)
			w += ns->p[i].rs[r].n;
	}
	return w;
}

/* acc = acc op el. */
static int combine(struct parser *p, struct nodeset *acc, struct nodeset *el, enum op op, size_t at)
{
	if (charge(p, weight(acc) + weight(el), at) < 0)
		return -1;
	nsi_combine(acc, el, op);
	return 0;
}

/* Evaluates the whole text left to right into acc. */
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
				return perr(p, end, "whitespace inside a name");
			return unexpected(p, NULL, NULL);
		}
		at = p->i;
		op = op_of(p->s[p->i++]);
	}
}

static int parse(struct nodeset *ns, const char *text, nodeset_group_fn groups, void *ctx, bool slurm,
		 char **err)
{
	struct parser p = {text ? text : "", 0, NULL, PARSE_BUDGET, groups, ctx, slurm};
	struct nodeset acc = {0};
	int rc = parse_all(&p, &acc);

	if (!rc)
		nsi_combine(ns, &acc, OP_UNION);
	nodeset_clear(&acc);
	free(acc.p);
	if (err)
		*err = p.err;
	else
		free(p.err);
	return rc;
}

int nodeset_parse(struct nodeset *ns, const char *text, nodeset_group_fn groups, void *ctx, char **err)
{
	return parse(ns, text, groups, ctx, false, err);
}

struct nodeset *nodeset_from(const char *text, char **err)
{
	struct nodeset *ns = nodeset_new();

	if (parse(ns, text, NULL, NULL, false, err) < 0) {
		nodeset_free(ns);
		return NULL;
	}
	return ns;
}

struct nodeset *nodeset_from_slurm(const char *text, char **err)
{
	struct nodeset *ns = nodeset_new();

	if (parse(ns, text, NULL, NULL, true, err) < 0) {
		nodeset_free(ns);
		return NULL;
	}
	return ns;
}

/* ---- positions ---- */

int nsi_parse_positions(const char *text, struct rset *out, char **err)
{
	struct parser p = {text ? text : "", 0, NULL, PARSE_BUDGET, NULL, NULL, false};
	int rc = 0;

	for (;;) {
		struct item it;

		if ((rc = parse_item(&p, SIZE_MAX, &it)) < 0)
			break;
		if (it.lo.v > it.hi.v) {
			rc = perr(&p, it.lo.pos, "range %.*s-%.*s is reversed", (int)it.lo.len, p.s + it.lo.pos,
				  (int)it.hi.len, p.s + it.hi.pos);
			break;
		}
		if (it.stepped && (it.step.v == 0 || (!it.range && it.step.v != 1))) {
			rc = perr(&p, it.step.pos, it.step.v ? "a step needs a range (lo-hi/step)" : "step must be at least 1");
			break;
		}
		if (!it.stepped || it.step.v == 1) {
			nsi_rs_append(out, it.lo.v, it.hi.v);
		} else {
			uint64_t count = (it.hi.v - it.lo.v) / it.step.v + 1, v = it.lo.v;

			if ((rc = charge(&p, count, it.lo.pos)) < 0)
				break;
			for (; count--; v += it.step.v)
				nsi_rs_append(out, v, v);
		}
		if (p.s[p.i] == ',') {
			p.i++;
			continue;
		}
		if (p.s[p.i])
			rc = unexpected(&p, NULL, "',' or the end");
		break;
	}
	nsi_rs_normalize(out);
	if (err)
		*err = p.err;
	else
		free(p.err);
	return rc;
}
