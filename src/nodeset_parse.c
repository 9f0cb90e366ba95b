/*
 * nodeset_parse.c - the nodeset syntax (see nodeset.h): ranges with padding
 * and steps, several bracket groups, @groups through a callback, and the
 * operators , ! & ^ applied left to right. Errors name the 1-based position;
 * a work budget bounds what one parse may expand.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "nodeset_int.h"

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
			nsi_rs_append(rs, it[i].lo.v, it[i].hi.v);
			continue;
		}
		if (charge(p, count, it[i].lo.pos) < 0)
			return -1;
		for (v = it[i].lo.v; count--; v += it[i].step)
			nsi_rs_append(rs, v, v);
	}
	nsi_rs_normalize(rs);
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
		nsi_add_index(b, o[i].v, e->seg[i].width);
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
		combos = sat_mul(combos, nsi_rs_count(&e->seg[i].rs));
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
		nsi_raw_add(out, b->s, b->len, p->s + e->tail, e->end - e->tail, g->width,
			g->rs.r[i].lo, g->rs.r[i].hi);
	return 0;
}

static int add_name_cb(struct parser *p, const struct elem *e, const struct sbuf *b,
		       struct nodeset *out)
{
	(void)p;
	(void)e;
	nsi_raw_add_name(out, b->s, b->len);
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
			nsi_pat_copy(nsi_ns_grow(out), &g->p[i]);
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
	nsi_ns_normalize(acc);
	nsi_ns_normalize(el);
	nsi_ns_combine(acc, el, op);
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

	nsi_ns_normalize(&acc);
	if (!rc)
		nsi_ns_apply(ns, &acc, OP_UNION);
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
