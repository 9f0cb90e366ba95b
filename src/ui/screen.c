/*
 * screen.c - the screen's frame around the panels: the header (cluster,
 * time, LIVE or REPLAY with speed, node health, faults, power), the tab bar,
 * the status line, the message/command line, and the overlays (help, the
 * confirmation box; whatifview.c draws the what-if's). console_draw() draws
 * what is dirty into the grid; it never touches the terminal.
 *
 *   row 0      header
 *   row 1      tab bar
 *   rows 2..   the current panel
 *   row h-2    status line: keys and state
 *   row h-1    message, prompt or the command line
 */
#include <stdio.h>
#include <string.h>
#include "ui_int.h"
#include "../store/store.h"
#include "../action/action.h"

#define MIN_W 40
#define MIN_H 10

struct seg {
	char text[96];
	char brief[24];    /* its short form on narrow screens ("" = none) */
	int role, prio;    /* higher prio survives on narrow screens */
};

static int seg_add(struct seg *s, int n, int prio, int role, const char *fmt, ...) PRINTF_LIKE(5, 6);
static int seg_add(struct seg *s, int n, int prio, int role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s[n].text, sizeof s[n].text, fmt, ap);
	va_end(ap);
	s[n].brief[0] = '\0';
	s[n].role = role;
	s[n].prio = prio;
	return n + 1;
}

/* The short form of the segment added last: "1dr" for "1 drained". */
static void seg_brief(struct seg *s, int n, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void seg_brief(struct seg *s, int n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s[n - 1].brief, sizeof s[n - 1].brief, fmt, ap);
	va_end(ap);
}

static int segs_width(const struct seg *s, int n, const int *keep, int brief)
{
	int total = 0;

	for (int i = 0; i < n; i++)
		if (keep[i])
			total += text_width(brief && s[i].brief[0] ? s[i].brief : s[i].text) + (brief ? 1 : 2);
	return total;
}

/* Draws segments left to right (two spaces apart); when they do not fit
 * in w, in their short forms (one space apart), then dropping the lowest
 * priorities until they fit. */
static void draw_segs(const struct view *v, int y, struct seg *s, int n, int x, int w)
{
	int keep[32], brief = 0;

	for (int i = 0; i < n; i++)
		keep[i] = 1;
	for (int cut = 0; cut <= 10; cut++) {
		if (segs_width(s, n, keep, brief) <= w)
			break;
		if (!brief && (brief = 1) && segs_width(s, n, keep, brief) <= w)
			break;
		for (int i = 0; i < n; i++)
			if (s[i].prio <= cut)
				keep[i] = 0;
	}
	for (int i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		x += view_text(v, x, y, w - x, s[i].role, brief && s[i].brief[0] ? s[i].brief : s[i].text);
		x += brief ? 1 : 2;
	}
}

static void count_nodes(struct console *c)
{
	const struct model *m = &c->app->model;

	c->up = c->stale = c->down = c->drained = c->nodata = 0;
	for (int32_t i = 0; i < m->nnodes; i++) {
		const struct node *n = &m->nodes[i];

		if (node_down(n))
			c->down++;
		else if (!n->last_sample)
			c->nodata++;
		else if (node_stale(c, n))
			c->stale++;
		else
			c->up++;
		c->drained += node_is_drained(n);
	}
}

static int time_segs(struct console *c, struct seg *s, int n)
{
	struct replay_info ri;
	char iso[32];

	fmt_iso(c->app->model.time, iso);
	iso[10] = ' ';
	if (replay_get_info(c->app, &ri) == 0) {
		n = seg_add(s, n, 9, R_HEADER, "%s", iso);
		if (ri.speed > 0)
			n = seg_add(s, n, 10, R_REPLAY, " REPLAY x%g ", ri.speed);
		else
			n = seg_add(s, n, 10, R_REPLAY, " REPLAY paused ");
		if (ri.downsampled)
			n = seg_add(s, n, 3, R_HEADER_WARN, "down-sampled");
	} else {
		n = seg_add(s, n, 9, R_HEADER, "%s", c->w >= 110 ? iso : iso + 11);
		n = seg_add(s, n, 10, R_LIVE, " LIVE ");
	}
	return n;
}

static void draw_header(struct console *c, const struct view *v)
{
	const struct model *m = &c->app->model;
	struct seg s[24];
	char a[32], b[32];
	int n = 0, open = 0, unacked = 0, crit = 0;
	const char *rs = recorder_status(c->app);

	count_nodes(c);
	for (int32_t i = 0; i < m->nfaults; i++) {
		const struct fault *f = &m->faults[i];

		if (f->close_time)
			continue;
		open++;
		unacked += !f->ack_time;
		crit += !f->ack_time && f->severity >= SEV_CRITICAL;
	}
	view_fill(v, 0, 0, v->w, ' ', R_HEADER);
	n = seg_add(s, n, 10, R_HEADER_KEY, " myriad");
	n = seg_add(s, n, 8, R_HEADER, "%s", m->cluster[0] ? m->cluster : "(no cluster)");
	n = time_segs(c, s, n);
	fmt_count(c->up, a, sizeof a);
	n = seg_add(s, n, 7, R_HEADER, "%s up", a);
	seg_brief(s, n, "%sup", a);
	n = seg_add(s, n, 4, c->stale ? R_HEADER_WARN : R_HEADER, "%d stale", c->stale);
	seg_brief(s, n, "%dst", c->stale);
	if (c->nodata) {
		n = seg_add(s, n, 6, R_HEADER_WARN, "%d no data yet", c->nodata);
		seg_brief(s, n, "%dnd", c->nodata);
	}
	n = seg_add(s, n, 7, c->down ? R_HEADER_ERR : R_HEADER, "%d down", c->down);
	seg_brief(s, n, "%ddn", c->down);
	n = seg_add(s, n, 7, c->drained ? R_HEADER_INFO : R_HEADER, "%d drained", c->drained);
	seg_brief(s, n, "%ddr", c->drained);
	n = seg_add(s, n, 8, crit ? R_CRIT : open ? R_HEADER_WARN : R_HEADER, "%d faults", open);
	seg_brief(s, n, "%dflt", open);
	if (unacked) {
		n = seg_add(s, n, 4, R_HEADER, "%d unacked", unacked);
		seg_brief(s, n, "%dnew", unacked);
	}
	n = seg_add(s, n, 7, R_HEADER, "%d jobs", model_running_jobs(m));
	seg_brief(s, n, "%djob", model_running_jobs(m));
	if (m->fac.known) {
		snprintf(b, sizeof b, "%.2f", m->fac.pue);
		n = seg_add(s, n, 2, R_HEADER, "IT %.1f MW", m->fac.it_kw / 1000.0);
		seg_brief(s, n, "%.1fMW", m->fac.it_kw / 1000.0);
		n = seg_add(s, n, 4, m->fac.pue >= c->theme.thr[T_PUE_CRIT] ? R_HEADER_ERR
				     : m->fac.pue >= c->theme.thr[T_PUE_WARN] ? R_HEADER_WARN : R_HEADER, "PUE %s", b);
		seg_brief(s, n, "PUE%s", b);
	}
	if (recorder_path(c->app) && rs && *rs)
		n = seg_add(s, n, 9, R_HEADER_ERR, "log: %s", rs);
	if (c->app->read_only)
		n = seg_add(s, n, 6, R_HEADER_WARN, "read-only");
	if (c->app->dry_run)
		n = seg_add(s, n, 6, R_HEADER_WARN, "dry-run");
	draw_segs(v, 0, s, n, 0, v->w);
}

static void draw_tabs(struct console *c, const struct view *v)
{
	const struct model *m = &c->app->model;
	int x = 0, wide = v->w >= 96, open = model_open_faults(m);

	view_fill(v, 0, 1, v->w, ' ', R_TAB);
	for (int i = 0; i < NPANELS; i++) {
		char label[48];
		const char *t = wide ? c->ops[i]->title : c->ops[i]->short_title;

		if (!strcmp(c->ops[i]->name, "faults") && open)
			snprintf(label, sizeof label, " %d %s %d ", i + 1, t, open);
		else
			snprintf(label, sizeof label, " %d %s ", i + 1, t);
		c->tab_x[i] = x;
		x += view_text(v, x, 1, -1, i == c->cur ? R_TAB_ACTIVE : R_TAB, label);
	}
	c->tab_x[NPANELS] = x;
	if (c->filter[c->cur][0]) {
		char f[160];
		int fw;

		snprintf(f, sizeof f, " filter: %s ", c->filter[c->cur]);
		fw = MIN(text_width(f), v->w - x - 1);
		if (fw > 10)
			view_text(v, v->w - fw, 1, fw, R_MATCH, f);
	}
}

/* The key bound to cmd (global or current panel table) into out, or "". */
static void key_for(struct console *c, const char *cmd, char *out, size_t size)
{
	const char *tables[2] = {c->ops[c->cur]->name, "global"};

	out[0] = '\0';
	for (int t = 0; t < 2; t++) {
		struct key_table *kt = keymap_table(&c->keys, tables[t], 0);

		for (int i = 0; kt && i < kt->n; i++)
			if (!strcmp(kt->b[i].cmd, cmd)) {
				key_to_name(kt->b[i].key, out, size);
				return;
			}
	}
}

static void draw_status(struct console *c, const struct view *v, int y)
{
	static const char *const hints[][2] = {
		{"help", "help"}, {"command-prompt", "command"}, {"filter", "filter"}, {"select", "open"},
		{"drain", "drain"}, {"reroute", "reroute"}, {"checkpoint", "checkpoint"}, {"ack", "ack"},
		{"metric-next", "metric"}, {"sort-next", "sort"}, {"group-bursts", "bursts"},
		{"show-closed", "closed"}, {"zoom", "zoom"}, {"follow", "follow"}, {"quit", "quit"},
	};
	int x = 1;
	char k[32], right[160];

	view_fill(v, 0, y, v->w, ' ', R_STATUS);
	if (c->mode == MODE_COMMAND && c->message[0]) {   /* the message row holds the line */
		view_text(v, 1, y, v->w - 2, R_STATUS, c->message);
		return;
	}
	int pending = action_pending(c->app);
	char acts[40] = "";

	if (pending)
		snprintf(acts, sizeof acts, "%d action%s pending  ", pending, pending == 1 ? "" : "s");
	const char *rs = recorder_status(c->app);

	/* "recording" only while ticks are written: a log that fails says so */
	snprintf(right, sizeof right, "%s%s%s  %s  tick %lld ", acts, c->tcl_ok ? "" : "no Tcl  ",
		 !recorder_path(c->app) ? "not recording" : rs && *rs ? "NOT RECORDING: log failing, retrying" : "recording",
		 c->theme.name, (long long)c->app->model.tick);
	for (unsigned i = 0; i < ARRAY_LEN(hints); i++) {
		int need;

		key_for(c, hints[i][0], k, sizeof k);
		if (!k[0])
			continue;
		need = text_width(k) + 1 + (int)strlen(hints[i][1]) + 2;
		if (x + need > v->w - text_width(right) - 1)
			break;
		x += view_text(v, x, y, -1, R_STATUS_KEY, k);
		x += view_textf(v, x, y, -1, R_STATUS, " %s  ", hints[i][1]);
	}
	if (text_width(right) < v->w - x)
		view_text(v, v->w - text_width(right), y, -1, R_STATUS, right);
}

static void draw_message(struct console *c, const struct view *v, int y)
{
	struct view row = view_sub(v, 0, y, v->w, 1);

	view_fill(v, 0, y, v->w, ' ', R_NORMAL);
	c->cursor_x = c->cursor_y = -1;
	switch (c->mode) {
	case MODE_COMMAND:
		cmdline_draw(c, &row);
		return;
	case MODE_FILTER: {
		int x = view_text(v, 0, y, -1, R_PROMPT, "/");

		x += view_text(v, x, y, -1, R_NORMAL, c->edit);
		view_text(v, x + 2, y, -1, R_DIM, "(Enter keeps the filter, Escape clears it)");
		c->cursor_x = x;
		c->cursor_y = y;
		return;
	}
	case MODE_WHATIF:
		view_text(v, 0, y, -1, R_PROMPT, "what-if: Esc or q closes it; nothing was sent, held or logged");
		return;
	case MODE_CONFIRM:
		view_text(v, 0, y, -1, R_PROMPT, c->confirm.cmd ? "Run it?  y yes   n no   e edit the command first"
							       : "y yes   n no");
		return;
	default:
		if (c->message[0])
			view_text(v, 0, y, -1, c->msg_role, c->message);
	}
}

/* Word-wraps text into rows from y (a newline forces a break); returns the
 * next row. */
int view_wrap(const struct view *v, int x, int y, int w, int role, const char *text)
{
	char line[512];
	const char *p = text;

	while (*p && y < v->h && w > 0) {
		const char *end, *cut, *nl;
		size_t n;

		text_fit(p, w, &end);
		cut = end;
		if ((nl = memchr(p, '\n', (size_t)(end - p))))
			cut = nl;
		else if (*end)
			for (const char *s = end; s > p; s--)
				if (*s == ' ') {
					cut = s;
					break;
				}
		if (cut == p && *p != '\n')
			break;
		n = MIN((size_t)(cut - p), sizeof line - 1);
		memcpy(line, p, n);
		line[n] = '\0';
		view_text(v, x, y++, w, role, line);
		p = cut;
		if (*p == '\n')
			p++;
		while (*p == ' ')
			p++;
	}
	return y;
}

static void draw_confirm(struct console *c, const struct view *pv)
{
	int w = MIN(pv->w - 4, 100), h = MIN(pv->h - 2, 14);
	struct view box = view_sub(pv, (pv->w - w) / 2, (pv->h - h) / 2, w, h);
	int y = 2;

	view_clear(&box, R_DIALOG);
	view_fill(&box, 0, 0, box.w, ' ', R_DIALOG_TITLE);
	view_text(&box, 2, 0, -1, R_DIALOG_TITLE, c->confirm.cmd ? "Confirm action" : "Confirm");
	y = view_wrap(&box, 2, y, box.w - 4, R_DIALOG, c->confirm.text);
	if (c->confirm.cmd) {
		y++;
		view_text(&box, 2, y++, -1, R_DIALOG_TITLE, "Tcl:");
		y = view_wrap(&box, 4, y, box.w - 6, R_DIALOG, c->confirm.cmd);
	}
	view_text(&box, 2, box.h - 1, -1, R_DIALOG_TITLE, "y run it    n cancel    e edit first");
}

static void draw_panel(struct console *c, const struct view *v)
{
	struct view pv = view_sub(v, 0, 2, v->w, v->h - 4);

	view_clear(&pv, R_NORMAL);
	if (c->mode == MODE_HELP) {
		help_draw(c, &pv);
		return;
	}
	c->ops[c->cur]->draw(c->st[c->cur], &pv);
	if (c->mode == MODE_CONFIRM)
		draw_confirm(c, &pv);
	else if (c->mode == MODE_WHATIF)
		whatif_view_draw(c, &pv);
}

void console_draw(struct console *c, int all)
{
	struct view v = grid_view(&c->grid);
	unsigned d;

	console_log_sync(c);
	d = all ? DIRTY_ALL : c->dirty;

	c->dirty = 0;
	if (c->w < MIN_W || c->h < MIN_H) {
		view_clear(&v, R_NORMAL);
		view_textf(&v, 0, 0, -1, R_ERROR, "terminal too small (%dx%d)", c->w, c->h);
		view_textf(&v, 0, 1, -1, R_NORMAL, "myriad needs %dx%d", MIN_W, MIN_H);
		c->cursor_x = c->cursor_y = -1;
		return;
	}
	if (d & DIRTY_HEADER) {
		draw_header(c, &v);
		draw_tabs(c, &v);
	}
	if (d & DIRTY_PANEL)
		draw_panel(c, &v);
	if (d & (DIRTY_STATUS | DIRTY_PANEL)) {
		draw_status(c, &v, c->h - 2);
		draw_message(c, &v, c->h - 1);
	}
}
