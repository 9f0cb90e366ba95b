/*
 * power.c - facility power and cooling: facility kW, IT kW, cooling kW and
 * PUE now, sparklines of PUE and IT power over the last hour (the model's
 * ring of facility readings), the CDU's supply and return temperatures, delta
 * T and flow against the theme's thresholds, and per scalable unit the sum of
 * its GPUs' power draw (m: or their mean temperature or utilisation), in SU
 * order or the highest first (s), so the hottest or hungriest SU leads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ui/ui_int.h"

enum { SU_POWER, SU_TEMP, SU_UTIL, SU_COUNT };

struct power {
	struct console *c;
	int su_metric;
	int by_value;              /* s: the highest first, not by SU number */
	int first;                 /* the first SU shown (PgDn/PgUp page the list) */
	int page;                  /* SUs on a page, as last drawn */
	float hist[PUE_HISTORY];
};

static void *power_init(struct console *c)
{
	struct power *p = xcalloc(1, sizeof *p);

	p->c = c;
	return p;
}

static void power_free(void *st)
{
	free(st);
}

/* The ring's values, oldest first, into p->hist; returns how many. */
static int history(struct power *p, const float *ring)
{
	const struct facility *f = &p->c->app->model.fac;
	int n = f->hist_len, start = (f->hist_head - n + PUE_HISTORY) % PUE_HISTORY;

	for (int i = 0; i < n; i++)
		p->hist[i] = ring[(start + i) % PUE_HISTORY];
	return n;
}

static int spark_row(struct power *p, const struct view *v, int y, const char *label, const float *ring,
		     const char *fmt, double scale, double min_range)
{
	int n = history(p, ring), w = MAX(10, v->w - 44);
	float lo = 0, hi = 0;
	char a[32], b[32];

	for (int i = 0; i < n; i++) {
		lo = i && lo < p->hist[i] ? lo : p->hist[i];
		hi = i && hi > p->hist[i] ? hi : p->hist[i];
	}
	view_text(v, 1, y, 12, R_LABEL, label);
	if (n < 2) {
		view_text(v, 14, y, -1, R_DIM, "collecting ...");
		return y + 1;
	}
	draw_spark(v, 14, y, w, p->hist, n, min_range, R_SPARK);
	snprintf(a, sizeof a, fmt, lo * scale);
	snprintf(b, sizeof b, fmt, hi * scale);
	view_textf(v, 15 + MIN(w, n), y, -1, R_DIM, "%s .. %s  over %d min", a, b, (n + 59) / 60);
	return y + 1;
}

static int totals(struct power *p, const struct view *v, int y)
{
	const struct model *m = &p->c->app->model;
	const struct facility *f = &m->fac;
	const double *thr = p->c->theme.thr;
	char a[32], b[32], c[32];
	int x = 1;

	fmt_count((long long)(f->facility_kw + 0.5), a, sizeof a);
	fmt_count((long long)(f->it_kw + 0.5), b, sizeof b);
	fmt_count((long long)(f->cooling_kw + 0.5), c, sizeof c);
	x += view_text(v, x, y, -1, R_LABEL, "facility ");
	x += view_textf(v, x, y, -1, R_BOLD, "%s kW", a) + 4;
	x += view_text(v, x, y, -1, R_LABEL, "IT ");
	x += view_textf(v, x, y, -1, R_BOLD, "%s kW", b) + 4;
	x += view_text(v, x, y, -1, R_LABEL, "cooling ");
	x += view_textf(v, x, y, -1, R_BOLD, "%s kW", c) + 4;
	x += view_text(v, x, y, -1, R_LABEL, "PUE ");
	view_textf(v, x, y, -1, f->pue >= thr[T_PUE_CRIT] ? R_CRIT : f->pue >= thr[T_PUE_WARN] ? R_WARN : R_GOOD,
		   "%.3f", f->pue);
	return y + 2;
}

static int cooling(struct power *p, const struct view *v, int y)
{
	const struct facility *f = &p->c->app->model.fac;
	const double *thr = p->c->theme.thr;
	double dt = f->return_c - f->supply_c, carried = f->flow_lpm / 60.0 * 4.18 * dt;
	char flow[32], kw[32];
	int x = 1;

	fmt_count((long long)(f->flow_lpm + 0.5), flow, sizeof flow);
	fmt_count((long long)(carried + 0.5), kw, sizeof kw);
	view_text(v, 1, y++, -1, R_COLHEAD, "cooling (CDU, secondary loop)");
	x += view_text(v, x, y, -1, R_LABEL, "supply ");
	x += view_textf(v, x, y, -1, f->supply_c >= thr[T_SUPPLY_MAX] ? R_ERR : R_NORMAL, "%.1f C", f->supply_c);
	x += view_textf(v, x, y, -1, R_DIM, " (max %.0f)", thr[T_SUPPLY_MAX]) + 3;
	x += view_text(v, x, y, -1, R_LABEL, "return ");
	x += view_textf(v, x, y, -1, R_NORMAL, "%.1f C", f->return_c) + 3;
	x += view_text(v, x, y, -1, R_LABEL, "delta T ");
	x += view_textf(v, x, y, -1, dt >= thr[T_DELTA_MAX] ? R_ERR : R_NORMAL, "%.1f K", dt);
	x += view_textf(v, x, y, -1, R_DIM, " (max %.0f)", thr[T_DELTA_MAX]) + 3;
	x += view_text(v, x, y, -1, R_LABEL, "flow ");
	x += view_textf(v, x, y, -1, R_NORMAL, "%s L/min", flow) + 3;
	x += view_text(v, x, y, -1, R_LABEL, "outside ");
	view_textf(v, x, y++, -1, R_NORMAL, "%.1f C", f->outside_c);
	view_textf(v, 1, y++, -1, R_DIM, "heat carried by the loop: flow x 4.18 kJ/kg.K x delta T = %s kW", kw);
	return y + 1;
}

struct su_sum {
	double watts, temp, util;
	int n, known;
	int su;
	double val, frac;          /* the shown measure, and its bar */
};

static int highest_first(const void *a, const void *b)
{
	const struct su_sum *x = a, *y = b;

	if (x->known != y->known)
		return x->known ? -1 : 1;   /* an SU without readings last */
	if (x->val != y->val)
		return x->val > y->val ? -1 : 1;
	return x->su - y->su;
}

static void per_su(struct power *p, const struct view *v, int y)
{
	static const char *const names[SU_COUNT] = {"GPU power, kW (bar: of 700 W per GPU)", "mean GPU temperature, C", "mean GPU utilisation, %"};
	const struct model *m = &p->c->app->model;
	int sus = MAX(m->topo.sus, 1), lw = sus >= 1000 ? 6 : sus >= 100 ? 5 : 4, colw = lw + 26;
	int cols = MAX(1, v->w / colw), rows = MAX(1, v->h - y - 1);

	rows = MIN(rows, (sus + cols - 1) / cols);
	struct su_sum *s = xcalloc((size_t)sus, sizeof *s);

	for (int32_t g = 0; g < m->ngpus; g++) {
		int su = m->nodes[g / MAX(m->gpus_per_node, 1)].su;

		if (su < 0 || su >= sus)
			continue;
		s[su].n++;
		if (m->met[MET_POWER][g] == MET_UNKNOWN)
			continue;
		s[su].known++;
		s[su].watts += m->met[MET_POWER][g] / 100.0;
		s[su].temp += m->met[MET_TEMP][g] != MET_UNKNOWN ? m->met[MET_TEMP][g] : 0;
		s[su].util += m->met[MET_UTIL][g] != MET_UNKNOWN ? m->met[MET_UTIL][g] : 0;
	}
	view_textf(v, 1, y++, -1, R_COLHEAD, "per scalable unit: %s (m), %s (s)", names[p->su_metric],
		   p->by_value ? "highest first" : "in SU order");
	for (int i = 0; i < sus; i++) {
		s[i].su = i;
		if (p->su_metric == SU_POWER)
			s[i].val = s[i].watts / 1000.0, s[i].frac = s[i].n ? s[i].watts / (s[i].n * 700.0) : 0;
		else if (p->su_metric == SU_TEMP)
			s[i].val = s[i].known ? s[i].temp / s[i].known : 0, s[i].frac = (s[i].val - 20) / 70;
		else
			s[i].val = s[i].known ? s[i].util / s[i].known : 0, s[i].frac = s[i].val / 100;
	}
	if (p->by_value)
		qsort(s, (size_t)sus, sizeof *s, highest_first);
	if (sus > rows * cols)
		rows = MAX(1, rows - 1);   /* a row for where the page is */
	p->page = rows * cols;
	p->first = sus > p->page ? MAX(0, MIN(p->first, sus - 1)) / p->page * p->page : 0;
	for (int k = 0; k < p->page && p->first + k < sus; k++) {
		int x = 1 + (k / rows) * colw, yy = y + k % rows, i = p->first + k;
		double val = s[i].val, frac = s[i].frac;
		int role = R_BAR;
		char b[32];

		if (p->su_metric == SU_TEMP && val >= p->c->theme.thr[T_TEMP_WARN])
			role = R_WARN;
		view_textf(v, x, yy, lw, R_LABEL, "SU%02d", s[i].su + 1);
		draw_bar(v, x + lw + 1, yy, 12, frac, role);
		fmt_fit(val, 1, "", 7, b, sizeof b);
		view_field(v, x + lw + 14, yy, 7, 1, s[i].known ? R_NORMAL : R_DIM, b);
	}
	if (sus > p->page)
		view_textf(v, 1, y + rows, -1, R_DIM, "SUs %d-%d of %d in this order: PgDn, PgUp for the others", p->first + 1,
			   MIN(sus, p->first + p->page), sus);
	free(s);
}

static void power_draw(void *st, const struct view *v)
{
	struct power *p = st;
	const struct model *m = &p->c->app->model;
	const double *thr = p->c->theme.thr;
	char title[160], t[16];
	int y;

	fmt_clock(m->fac.time, t, sizeof t);
	snprintf(title, sizeof title, "facility meter at %s   limits: PUE %.2f / %.2f, supply %.0f C, delta T %.0f K",
		 m->fac.known ? t : "(none yet)", thr[T_PUE_WARN], thr[T_PUE_CRIT], thr[T_SUPPLY_MAX], thr[T_DELTA_MAX]);
	draw_title(v, "Power", title);
	if (!m->fac.known) {
		view_text(v, 1, 2, -1, R_DIM, "no facility reading yet");
		per_su(p, v, 4);
		return;
	}
	y = totals(p, v, 2);
	y = spark_row(p, v, y, "PUE", m->fac.pue_hist, "%.3f", 1, 0.02);
	y = spark_row(p, v, y, "IT MW", m->fac.it_hist, "%.2f", 0.001, m->fac.it_kw * 0.05) + 1;
	y = cooling(p, v, y);
	per_su(p, v, y);
}

static int power_key(void *st, enum panel_cmd a)
{
	struct power *p = st;

	switch (a) {
	case PC_METRIC_NEXT: p->su_metric = (p->su_metric + 1) % SU_COUNT; return 1;
	case PC_SORT_NEXT: case PC_SORT_REVERSE: p->by_value = !p->by_value, p->first = 0; return 1;
	case PC_PGDN: case PC_DOWN: p->first += MAX(1, p->page); return 1;
	case PC_PGUP: case PC_UP: p->first = MAX(0, p->first - MAX(1, p->page)); return 1;
	case PC_TOP: p->first = 0; return 1;
	default: return 0;
	}
}

const struct panel_ops panel_power = {
	.name = "power",
	.title = "Power",
	.short_title = "Power",
	.help = "facility and IT power, PUE and its history, cooling, power per SU",
	.init = power_init,
	.free = power_free,
	.draw = power_draw,
	.key = power_key,
};
