/*
 * panelkit.c - what the panels share: node and GPU health as the console judges
 * it (down, stale, drained, faulted), number and time formats, sparklines,
 * bars, the panel title line, and the scrolling list with a cursor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ui_int.h"

int node_down(const struct node *n)
{
	return n->base == NODE_DOWN || (n->flags & (NODE_F_NOT_RESPONDING | NODE_F_FAIL)) ||
	       n->conn >= CONN_AUTH_FAILED;
}

int node_stale(const struct console *c, const struct node *n)
{
	int64_t age = c->app->model.time - n->last_sample;

	return !n->last_sample || age > (int64_t)(c->theme.thr[T_STALE_SECS] * (double)US_PER_SEC);
}

/* Faults that mark GPUs: open, at least a warning, not about parsing. */
static int marks_gpu(const struct fault *f)
{
	return !f->close_time && f->severity >= SEV_WARN && f->node >= 0 && f->kind != FK_PARSE &&
	       f->kind != FK_COOLING;
}

const uint8_t *gpu_states(struct console *c)
{
	const struct model *m = &c->app->model;
	int32_t gpn = m->gpus_per_node;

	if (c->gstate && c->gstate_events == m->events && c->gstate_n == m->ngpus)
		return c->gstate;
	if (c->gstate_n != m->ngpus) {
		free(c->gstate);
		c->gstate = xcalloc((size_t)m->ngpus + 1, 1);
		c->gstate_n = m->ngpus;
	}
	for (int32_t i = 0; i < m->nnodes; i++) {
		const struct node *n = &m->nodes[i];
		uint8_t base = node_down(n) ? GS_DOWN : node_is_drained(n) ? GS_DRAIN
			: !n->last_sample ? GS_NONE : node_stale(c, n) ? GS_STALE : GS_OK;

		for (int32_t g = 0; g < gpn; g++) {
			int32_t k = model_gpu(m, i, g);

			c->gstate[k] = base == GS_OK && m->met[MET_UTIL][k] == MET_UNKNOWN ? GS_NONE : base;
		}
	}
	for (int32_t i = 0; i < m->nfaults; i++) {
		const struct fault *f = &m->faults[i];

		if (!marks_gpu(f) || f->node >= m->nnodes)
			continue;
		for (int32_t g = 0; g < gpn; g++) {
			int32_t k = model_gpu(m, f->node, g);

			if ((f->gpu < 0 || f->gpu == g) && c->gstate[k] != GS_DOWN)
				c->gstate[k] = GS_FAULT;
		}
	}
	c->gstate_events = m->events;
	return c->gstate;
}

const char *node_state_text(const struct node *n, char *buf, size_t size)
{
	static const struct { uint32_t bit; const char *name; } flags[] = {
		{NODE_F_DRAIN, "drain"}, {NODE_F_NOT_RESPONDING, "not-responding"}, {NODE_F_MAINT, "maint"},
		{NODE_F_REBOOT, "reboot"}, {NODE_F_COMPLETING, "completing"}, {NODE_F_FAIL, "fail"},
	};
	size_t n0;

	snprintf(buf, size, "%s", node_base_name(n->base));
	for (unsigned i = 0; i < ARRAY_LEN(flags); i++)
		if (n->flags & flags[i].bit) {
			n0 = strlen(buf);
			snprintf(buf + n0, size - n0, "+%s", flags[i].name);
		}
	return buf;
}

void fmt_duration(int64_t us, char *buf, size_t size)
{
	int64_t s = us / US_PER_SEC;

	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, size, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, size, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, size, "%lldh%02lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
	else
		snprintf(buf, size, "%lldd%02lldh", (long long)(s / 86400), (long long)(s / 3600 % 24));
}

void fmt_clock(int64_t us, char *buf, size_t size)
{
	char iso[32];

	fmt_iso(us, iso);
	snprintf(buf, size, "%.8s", iso + 11);
}

void fmt_count(long long v, char *buf, size_t size)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof tmp, "%lld", v < 0 ? -v : v), o = 0;
	char out[48];

	if (v < 0)
		out[o++] = '-';
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = tmp[i];
	}
	out[o] = '\0';
	snprintf(buf, size, "%s", out);
}

void fmt_si(double v, const char *unit, char *buf, size_t size)
{
	static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
	unsigned i = 0;

	while (v >= 999.95 && i + 1 < ARRAY_LEN(pre)) {
		v /= 1000;
		i++;
	}
	snprintf(buf, size, i ? "%.1f %s%s" : "%.0f %s%s", v, pre[i], unit);
}

/* Is the scaled form in buf one to use: not a zero (0.4k is not "0k") and,
 * below the last prefix, under 1000 ("1000k" is "1.0M")? */
static int scaled_ok(const char *buf, int last)
{
	double p = fabs(strtod(buf, NULL));

	return p > 0 && (p < 1000 || last);
}

/* No form fits: the bound v passes, marked (">99", ">9k", "<-9", ">"). */
static int fit_mark(double v, const char *unit, int cols, char *buf, size_t size)
{
	static const char pre[] = "kMGTPE";
	int uw = text_width(unit), r = MIN(cols - 1 - (v < 0) - uw, 20), p = 0, n = 0;
	char digits[32];

	if (cols <= 0)
		return snprintf(buf, size, "%s", "");
	if (r <= 0)   /* not even a digit: the mark alone, without the unit */
		return snprintf(buf, size, "%s", v < 0 ? "<" : ">");
	for (double a = fabs(v); a >= 1000 && p < 6; a /= 1000)
		p++;
	if (p && r >= 2)
		r--;
	else
		p = 0;
	while (n < r)
		digits[n++] = '9';
	digits[n] = '\0';
	n = snprintf(buf, size, "%s%s%.*s%s", v < 0 ? "<-" : ">", digits, p > 0, p ? &pre[p - 1] : "", unit);
	return n - (int)strlen(unit) + uw;
}

int fmt_fit(double v, int decimals, const char *unit, int cols, char *buf, size_t size)
{
	static const char pre[] = " kMGTPE";
	int uw = text_width(unit), ulen = (int)strlen(unit);
	double scale = 1;

	if (size < 2)
		return 0;
	if (v != v)
		return snprintf(buf, size, "%s", cols > 0 ? "?" : "");
	for (int i = 0; i < 7; i++, scale *= 1000)
		for (int d = i ? 1 : MAX(decimals, 0); d >= 0; d--) {
			int n = snprintf(buf, size, "%.*f%.*s%s", d, v / scale, i > 0, &pre[i], unit);

			if (n - ulen + uw <= cols && (size_t)n < size && (!i || scaled_ok(buf, i == 6)))
				return n - ulen + uw;
		}
	return fit_mark(v, unit, cols, buf, size);
}

int fmt_fit_u64(uint64_t v, const char *unit, int cols, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%llu%s", (unsigned long long)v, unit);
	int w = n - (int)strlen(unit) + text_width(unit);

	if (w <= cols && (size_t)n < size)   /* exact, beyond a double's 53 bits too */
		return w;
	return fmt_fit((double)v, 0, unit, cols, buf, size);
}

int fault_xid(const struct fault *f)
{
	return !strncmp(f->text, "XID ", 4) ? f->code : -1;
}

int severity_role(int sev)
{
	switch (sev) {
	case SEV_CRITICAL: return R_CRIT;
	case SEV_ERROR: return R_ERR;
	case SEV_WARN: return R_WARN;
	default: return R_INFO;
	}
}

static const uint32_t eighths[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
static const char ascii_levels[] = "_.-~=+*#";

void draw_spark(const struct view *v, int x, int y, int w, const float *vals, int n, double min_range, int role)
{
	float lo = 0, hi = 0;

	if (n <= 0 || w <= 0)
		return;
	for (int i = 0; i < n; i++) {
		if (!i || vals[i] < lo)
			lo = vals[i];
		if (!i || vals[i] > hi)
			hi = vals[i];
	}
	if (hi - lo < min_range) {
		double mid = (hi + lo) / 2;

		lo = (float)(mid - min_range / 2);
		hi = (float)(mid + min_range / 2);
	}
	draw_spark_range(v, x, y, w, vals, n, lo, hi, role);
}

void draw_spark_range(const struct view *v, int x, int y, int w, const float *vals, int n, double lo, double hi,
		      int role)
{
	int cols = MIN(w, n);

	for (int col = 0; col < cols; col++) {
		int a = (int)((int64_t)col * n / cols), b = (int)((int64_t)(col + 1) * n / cols);
		double sum = 0;
		int level;

		for (int i = a; i < b; i++)
			sum += vals[i];
		sum /= MAX(b - a, 1);
		level = hi > lo ? (int)((sum - lo) / (hi - lo) * 7.999) : 3;
		level = MAX(0, MIN(7, level));
		view_cell(v, x + col, y, text_utf8 ? eighths[level] : (uint32_t)ascii_levels[level], role, 0);
	}
}

void draw_bar(const struct view *v, int x, int y, int w, double frac, int role)
{
	static const uint32_t part[8] = {' ', 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a, 0x2589};
	int eighth = (int)(MAX(0.0, MIN(1.0, frac)) * w * 8 + 0.5), full = eighth / 8;

	for (int i = 0; i < w; i++) {
		if (i < full)
			view_cell(v, x + i, y, text_utf8 ? 0x2588 : '#', role, 0);
		else if (i == full && eighth % 8 && text_utf8)
			view_cell(v, x + i, y, part[eighth % 8], role, 0);
		else
			view_cell(v, x + i, y, text_utf8 ? 0x2591 : '.', R_BAR_EMPTY, 0);
	}
}

int draw_title(const struct view *v, const char *title, const char *detail)
{
	int x = view_text(v, 0, 0, -1, R_TITLE, title);

	if (detail && *detail)
		view_text(v, x + 2, 0, -1, R_DIM, detail);
	return 1;
}

int list_key(struct list *l, enum panel_cmd a, int page)
{
	page = MAX(page, 1);
	switch (a) {
	case PC_UP: l->cur--; break;
	case PC_DOWN: l->cur++; break;
	case PC_PGUP: l->cur -= page; break;
	case PC_PGDN: l->cur += page; break;
	case PC_TOP: l->cur = 0; break;
	case PC_BOTTOM: l->cur = l->n - 1; break;
	default: return 0;
	}
	l->cur = MAX(0, MIN(l->cur, l->n - 1));
	return 1;
}

void list_fix(struct list *l, int rows)
{
	rows = MAX(rows, 1);
	l->cur = MAX(0, MIN(l->cur, l->n - 1));
	if (l->cur < l->top)
		l->top = l->cur;
	if (l->cur >= l->top + rows)
		l->top = l->cur - rows + 1;
	l->top = MAX(0, MIN(l->top, l->n - rows));
}
