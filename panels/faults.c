/*
 * faults.c - the fault list: time, node, GPU, kind, XID code and what the
 * catalogue says it means, severity, the recommended action, and who
 * acknowledged it when. Sortable (s, S), filterable (/), open or all (o),
 * unacknowledged only (u), grouped by burst (b: faults on one node less than
 * three minutes apart, as NVIDIA's fleet tools group XIDs). `a` acknowledges
 * the selected fault, or the whole burst in burst view; Enter opens its node.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "ui/ui_int.h"
#include "ui/filter.h"
#include "xidcat.h"

enum { S_TIME, S_SEVERITY, S_NODE, S_KIND, S_COUNT };
static const char *const sort_names[S_COUNT] = {"time", "severity", "node", "kind"};

struct faults {
	struct console *c;
	struct list l;
	int sort, reverse, show_closed, bursts, unacked;
	char filter[128];
	struct node_filter nodes;  /* the filter read as nodes (a nodeset or text) */
	int32_t *rows;
	int cap;
	uint32_t sel;              /* selected fault id, kept across redraws */
	const struct model *m;     /* for the sort comparator */
	int64_t *burst_last;       /* per row: newest time in its burst */
};

static struct faults *sorting;

static void *faults_init(struct console *c)
{
	struct faults *f = xcalloc(1, sizeof *f);

	f->c = c;
	return f;
}

static void faults_free(void *st)
{
	struct faults *f = st;

	filter_done(&f->nodes);
	free(f->rows);
	free(f->burst_last);
	free(f);
}

static const char *where(const struct model *m, const struct fault *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s", f->node >= 0 && f->node < m->nnodes ? m->nodes[f->node].name : "facility");
	return buf;
}

/* What the fault is, in words: the XID catalogue's meaning, else its text. */
static const char *meaning(const struct fault *f)
{
	return fault_xid(f) >= 0 ? xid_lookup(f->code)->meaning : f->text;
}

static int matches(const struct faults *fl, const struct model *m, const struct fault *f)
{
	char buf[64], code[16];

	if (!fl->show_closed && f->close_time)
		return 0;
	if (fl->unacked && f->ack_time)
		return 0;
	if (!fl->filter[0])
		return 1;
	if (fl->nodes.is_set)
		return f->node >= 0 && filter_node(&fl->nodes, f->node);
	snprintf(code, sizeof code, "xid %d", f->code);
	return strcasestr(where(m, f, buf, sizeof buf), fl->filter) || strcasestr(f->text, fl->filter) ||
	       strcasestr(fault_kind_name(f->kind), fl->filter) || strcasestr(f->remedy, fl->filter) ||
	       (fault_xid(f) >= 0 && !strcasecmp(code, fl->filter)) || strcasestr(meaning(f), fl->filter) ||
	       strcasestr(severity_name(f->severity), fl->filter);
}

static void no_match(const struct faults *fl, const struct view *v)
{
	char line[300];

	if (fl->nodes.error[0])
		snprintf(line, sizeof line, "%s", fl->nodes.error);
	else if (fl->filter[0])
		snprintf(line, sizeof line, "no %sfault matches %s", fl->unacked ? "unacknowledged " : "", fl->filter);
	else
		snprintf(line, sizeof line, "%s", fl->unacked ? "no unacknowledged fault" : "no open faults");
	view_text(v, 2, 3, -1, R_DIM, line);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct faults *fl = sorting;
	int32_t ia = *(const int32_t *)pa, ib = *(const int32_t *)pb;
	const struct fault *a = &fl->m->faults[ia], *b = &fl->m->faults[ib];
	int r = 0;

	if (fl->bursts) {   /* newest burst first, then in time order inside */
		r = -cmp_i64(fl->burst_last[ia], fl->burst_last[ib]);
		if (!r)
			r = cmp_i64(a->burst, b->burst);
		if (!r)
			r = cmp_i64(a->time, b->time);
		return r ? r : cmp_i64(a->id, b->id);
	}
	switch (fl->sort) {
	case S_SEVERITY: r = -(a->severity - b->severity); break;
	case S_NODE: r = a->node - b->node; break;
	case S_KIND: r = a->kind != b->kind ? a->kind - b->kind : a->code - b->code; break;
	default: break;
	}
	if (!r)
		r = -cmp_i64(a->time, b->time);
	if (!r)
		r = -cmp_i64(a->id, b->id);
	return fl->reverse ? -r : r;
}

static void build(struct faults *fl)
{
	const struct model *m = &fl->c->app->model;

	if (fl->cap < m->nfaults + 1) {
		fl->cap = m->nfaults + 64;
		fl->rows = xrealloc(fl->rows, sizeof *fl->rows * (size_t)fl->cap);
		fl->burst_last = xrealloc(fl->burst_last, sizeof *fl->burst_last * (size_t)fl->cap);
	}
	fl->l.n = 0;
	filter_read(&fl->nodes, m, fl->filter);
	for (int32_t i = 0; i < m->nfaults; i++) {
		fl->burst_last[i] = m->faults[i].time;
		if (matches(fl, m, &m->faults[i]))
			fl->rows[fl->l.n++] = i;
	}
	if (fl->bursts) {   /* the newest time of each burst, spread to its faults */
		int64_t *newest = xcalloc((size_t)m->next_burst_id + 1, sizeof *newest);

		for (int32_t i = 0; i < m->nfaults; i++)
			if (m->faults[i].burst <= m->next_burst_id)
				newest[m->faults[i].burst] = MAX(newest[m->faults[i].burst], m->faults[i].time);
		for (int32_t i = 0; i < m->nfaults; i++)
			if (m->faults[i].burst && m->faults[i].burst <= m->next_burst_id)
				fl->burst_last[i] = newest[m->faults[i].burst];
		free(newest);
	}
	fl->m = m;
	sorting = fl;
	qsort(fl->rows, (size_t)fl->l.n, sizeof *fl->rows, cmp_rows);
	sorting = NULL;
	for (int i = 0; i < fl->l.n; i++)
		if (m->faults[fl->rows[i]].id == fl->sel) {
			fl->l.cur = i;
			break;
		}
}

struct col {
	const char *name;
	int w, right;
};

/* The burst marker of row i: a bracket down the rows of one burst. */
static const char *burst_mark(const struct faults *fl, const struct model *m, int i)
{
	uint32_t b = m->faults[fl->rows[i]].burst;
	int prev = i > 0 && m->faults[fl->rows[i - 1]].burst == b;
	int next = i + 1 < fl->l.n && m->faults[fl->rows[i + 1]].burst == b;

	if (!fl->bursts || !b || (!prev && !next))
		return " ";
	if (!prev)
		return text_utf8 ? "\u250c" : "/";
	return next ? (text_utf8 ? "\u2502" : "|") : (text_utf8 ? "\u2514" : "\\");
}

static void draw_row(struct faults *fl, const struct view *v, int y, int i, int wide, int flex)
{
	const struct model *m = &fl->c->app->model;
	const struct fault *f = &m->faults[fl->rows[i]];
	char buf[96], t[16];
	int x = 0, dim = f->close_time || f->ack_time, role = dim ? R_ACKED : R_NORMAL;

	x += view_field(v, x, y, 1, 0, R_BORDER, burst_mark(fl, m, i));
	fmt_clock(f->time, t, sizeof t);
	x += view_field(v, x, y, 8, 0, role, t) + 1;
	x += view_field(v, x, y, 8, 0, role, where(m, f, buf, sizeof buf)) + 1;
	buf[0] = '\0';
	if (f->gpu >= 0) {   /* a GPU's index, or a rail "r7" */
		int ib = f->kind == FK_IB;

		snprintf(buf, sizeof buf, "r");
		fmt_fit(f->gpu, 0, "", 3 - ib, buf + ib, sizeof buf - 1);
	}
	x += view_field(v, x, y, 3, 1, role, buf) + 1;
	x += view_field(v, x, y, 7, 0, role, fault_kind_name(f->kind)) + 1;
	buf[0] = '\0';
	if (fault_xid(f) >= 0)
		fmt_fit(f->code, 0, "", 4, buf, sizeof buf);
	x += view_field(v, x, y, 4, 1, role, buf) + 1;
	x += view_field(v, x, y, flex, 0, role, meaning(f)) + 1;
	x += view_field(v, x, y, 8, 0, dim ? R_ACKED : severity_role(f->severity), severity_name(f->severity)) + 1;
	if (wide) {   /* the catalogue's action in full; the model keeps 63 bytes of it */
		x += view_field(v, x, y, flex, 0, role, fault_xid(f) >= 0 ? xid_lookup(f->code)->remedy : f->remedy) + 1;
		if (f->ack_time) {
			fmt_clock(f->ack_time, t, sizeof t);
			snprintf(buf, sizeof buf, "%s %.5s", f->ack_who, t);
		} else {
			snprintf(buf, sizeof buf, "%s", f->close_time ? "closed" : "");
		}
		x += view_field(v, x, y, 16, 0, R_ACKED, buf) + 1;
		buf[0] = '\0';
		if (f->count > 1) {   /* "x12" .. "x9.9k" */
			buf[0] = 'x';
			fmt_fit(f->count, 0, "", 4, buf + 1, sizeof buf - 1);
		}
		view_field(v, x, y, 5, 1, role, buf);
	}
	if (i == fl->l.cur)
		view_recolor(v, 1, y, v->w - 1, R_SELECTED);
}

static void draw_detail(struct faults *fl, const struct view *v, int y)
{
	const struct model *m = &fl->c->app->model;
	const struct fault *f;
	const struct xid_info *x;
	char t[16], buf[64], part[24] = "";

	if (!fl->l.n)
		return;
	f = &m->faults[fl->rows[fl->l.cur]];
	fmt_clock(f->time, t, sizeof t);
	if (f->gpu >= 0)
		snprintf(part, sizeof part, " %s %d", f->kind == FK_IB ? "rail" : "GPU", f->gpu);
	view_fill(v, 0, y, v->w, text_utf8 ? 0x2500 : '-', R_BORDER);
	view_textf(v, 0, ++y, -1, R_TITLE, "#%u  %s%s  %s  opened %s", f->id, where(m, f, buf, sizeof buf), part,
		   severity_name(f->severity), t);
	view_text(v, 2, ++y, -1, R_NORMAL, f->text);
	if (fault_xid(f) >= 0) {
		x = xid_lookup(f->code);
		view_textf(v, 2, ++y, -1, R_INFO, "catalogue: %s%s", x->bucket, x->sympathetic ? ", follows another XID"
			   : x->hardware ? ", hardware: drain the node" : ", not a hardware fault by itself");
	}
	view_textf(v, 2, ++y, -1, R_WARN, "do: %s", fault_xid(f) >= 0 ? xid_lookup(f->code)->remedy : f->remedy);
	if (f->ack_time) {
		fmt_clock(f->ack_time, t, sizeof t);
		view_textf(v, 2, ++y, -1, R_ACKED, "acknowledged by %s at %s", f->ack_who, t);
	}
	if (f->close_time) {
		fmt_clock(f->close_time, t, sizeof t);
		view_textf(v, 2, ++y, -1, R_ACKED, "closed at %s: %s", t, f->close_why);
	}
}

static void faults_draw(void *st, const struct view *v)
{
	struct faults *fl = st;
	const struct model *m = &fl->c->app->model;
	int wide = v->w >= 120, fixed = 1 + 9 + 9 + 4 + 8 + 5 + 9 + (wide ? 17 + 6 : 0);
	int flex = MAX(10, (v->w - fixed - (wide ? 2 : 1)) / (wide ? 2 : 1));
	int detail = v->h >= 20 ? 7 : 0, rows = MAX(1, v->h - 2 - detail), open = 0, unacked = 0;
	char title[200];

	build(fl);
	for (int32_t i = 0; i < m->nfaults; i++) {
		open += !m->faults[i].close_time;
		unacked += !m->faults[i].close_time && !m->faults[i].ack_time;
	}
	snprintf(title, sizeof title, "%d open, %d unacknowledged, %d listed   sort %s%s (s S)   bursts %s (b)   "
		 "closed %s (o)   unacked only %s (u)", open, unacked, fl->l.n, fl->bursts ? "burst" : sort_names[fl->sort],
		 fl->reverse ? " reversed" : "", fl->bursts ? "on" : "off", fl->show_closed ? "shown" : "hidden",
		 fl->unacked ? "on" : "off");
	draw_title(v, "Faults", title);
	{
		int x = 1;
		static const char *const heads[] = {"time", "node", "gpu", "kind", "xid", "meaning", "severity",
						    "recommended action", "acknowledged", "count"};
		const int widths[] = {8, 8, 3, 7, 4, flex, 8, flex, 16, 5};
		int ncols = wide ? 10 : 7;

		view_fill(v, 0, 1, v->w, ' ', R_COLHEAD);
		for (int i = 0; i < ncols; i++)
			x += view_field(v, x, 1, widths[i], i == 2 || i == 4 || i == 9, R_COLHEAD, heads[i]) + 1;
	}
	list_fix(&fl->l, rows);
	if (fl->l.n)
		fl->sel = m->faults[fl->rows[fl->l.cur]].id;
	else
		no_match(fl, v);
	for (int i = fl->l.top; i < fl->l.n && i < fl->l.top + rows; i++)
		draw_row(fl, v, 2 + i - fl->l.top, i, wide, flex);
	if (detail)
		draw_detail(fl, v, v->h - detail);
}

static int faults_key(void *st, enum panel_cmd a)
{
	struct faults *fl = st;
	const struct model *m = &fl->c->app->model;

	if (list_key(&fl->l, a, fl->c->h - 14)) {
		if (fl->l.n)
			fl->sel = m->faults[fl->rows[fl->l.cur]].id;
		return 1;
	}
	switch (a) {
	case PC_SORT_NEXT: fl->sort = (fl->sort + 1) % S_COUNT; fl->bursts = 0; return 1;
	case PC_SORT_REVERSE: fl->reverse = !fl->reverse; return 1;
	case PC_SHOW_CLOSED: fl->show_closed = !fl->show_closed; return 1;
	case PC_GROUP_BURSTS: fl->bursts = !fl->bursts; return 1;
	case PC_UNACKED_ONLY: fl->unacked = !fl->unacked; return 1;
	case PC_SELECT: {
		const struct fault *f = fl->sel ? model_fault(m, fl->sel) : NULL;

		if (f && f->node >= 0)
			console_show_node(fl->c, f->node);
		return 1;
	}
	default: return 0;
	}
}

static void faults_filter(void *st, const char *text)
{
	struct faults *fl = st;

	snprintf(fl->filter, sizeof fl->filter, "%s", text);
}

static int faults_target(void *st, struct target *t)
{
	struct faults *fl = st;
	const struct fault *f = fl->sel ? model_fault(&fl->c->app->model, fl->sel) : NULL;

	if (!f)
		return 0;
	t->fault = f->id;
	t->node = f->node;
	if (fl->bursts && f->burst)
		t->burst = f->burst;
	return 1;
}

static void faults_click(void *st, int x, int y)
{
	struct faults *fl = st;

	(void)x;
	if (y >= 2 && fl->l.top + y - 2 < fl->l.n) {
		fl->l.cur = fl->l.top + y - 2;
		fl->sel = fl->c->app->model.faults[fl->rows[fl->l.cur]].id;
	}
}

const struct panel_ops panel_faults = {
	.name = "faults",
	.title = "Faults",
	.short_title = "Faults",
	.help = "open faults with their XID meaning and the recommended action",
	.init = faults_init,
	.free = faults_free,
	.draw = faults_draw,
	.key = faults_key,
	.filter = faults_filter,
	.target = faults_target,
	.click = faults_click,
};
