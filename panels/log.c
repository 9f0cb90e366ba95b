/*
 * log.c - the console's log: events (faults opened, acknowledged, closed;
 * nodes drained and resumed; connections; rejected lines), command lines and
 * their output, and the audit trail of actions as the action engine reports
 * them on the bus. Newest at the bottom; it follows new lines until you
 * scroll up (f or End follows again). `/` filters by kind or text.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "ui/ui_int.h"

struct logp {
	struct console *c;
	struct list l;
	int follow;
	char filter[128];
	int *rows;
	int cap;
};

static void *log_init(struct console *c)
{
	struct logp *p = xcalloc(1, sizeof *p);

	p->c = c;
	p->follow = 1;
	return p;
}

static void log_free(void *st)
{
	struct logp *p = st;

	free(p->rows);
	free(p);
}

static void build(struct logp *p)
{
	const struct console *c = p->c;

	if (p->cap < c->log_n + 1) {
		p->cap = LOG_CAP + 1;
		p->rows = xrealloc(p->rows, sizeof *p->rows * (size_t)p->cap);
	}
	p->l.n = 0;
	for (int i = 0; i < c->log_n; i++) {
		const struct log_line *l = console_log_at(c, i);

		if (!p->filter[0] || strcasestr(l->kind, p->filter) || strcasestr(l->text, p->filter))
			p->rows[p->l.n++] = i;
	}
}

static void log_draw(void *st, const struct view *v)
{
	struct logp *p = st;
	int rows = MAX(1, v->h - 1);
	char title[320], t[16];

	build(p);
	if (p->follow)
		p->l.cur = p->l.n - 1;
	list_fix(&p->l, rows);
	if (p->follow)
		p->l.top = MAX(0, p->l.n - rows);
	snprintf(title, sizeof title, "%d lines%s%s   %s (f)", p->l.n, p->filter[0] ? " matching " : "",
		 p->filter, p->follow ? "following" : "scrolled: f follows");
	draw_title(v, "Log", title);
	if (!p->l.n)
		view_text(v, 2, 2, -1, R_DIM, "nothing yet: events, command output and actions appear here");
	for (int i = p->l.top; i < p->l.n && i < p->l.top + rows; i++) {
		const struct log_line *l = console_log_at(p->c, p->rows[i]);
		int y = 1 + i - p->l.top;

		fmt_clock(l->time, t, sizeof t);
		view_field(v, 0, y, 8, 0, R_DIM, t);
		view_field(v, 9, y, 7, 0, R_LABEL, l->kind);
		view_text(v, 17, y, -1, l->role, l->text);
		if (i == p->l.cur && !p->follow)
			view_recolor(v, 0, y, v->w, R_SELECTED);
	}
}

static int log_key(void *st, enum panel_cmd a)
{
	struct logp *p = st;

	if (a == PC_FOLLOW || a == PC_BOTTOM) {
		p->follow = 1;
		return 1;
	}
	if (list_key(&p->l, a, p->c->h - 6)) {
		p->follow = p->l.cur >= p->l.n - 1;
		return 1;
	}
	return 0;
}

static void log_filter(void *st, const char *text)
{
	struct logp *p = st;

	snprintf(p->filter, sizeof p->filter, "%s", text);
}

const struct panel_ops panel_log = {
	.name = "log",
	.title = "Log",
	.short_title = "Log",
	.help = "events, command output and the audit trail of actions",
	.init = log_init,
	.free = log_free,
	.draw = log_draw,
	.key = log_key,
	.filter = log_filter,
};
