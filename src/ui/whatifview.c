/*
 * whatifview.c - the what-if key (W) and its overlay. On what the acting
 * keys act on it asks the twins of src/whatif.c a question: on nodes (an SU
 * cell of the fleet view; else the nodes the panel's / filter names as a
 * nodeset; else the cursor's node) "what if these are drained now?", on a
 * job (the jobs and job panels) "what if it is requeued now?" (away from its
 * faulted, drained or down nodes, as r would). It runs 30 minutes ahead on
 * workload seeds 1-3, and asks the engine's guards for their verdict on the
 * real action the acting key would submit (action_judge). Nothing is sent,
 * held or logged, and the model is not changed.
 *
 * The overlay: a title naming the action and its target with nodes and
 * GPUs, the guard's verdict, a table of both futures (without, with, the
 * change and its spread over the runs), the jobs killed, requeued and
 * delayed, and sparklines of both futures side by side on one scale. It is
 * a snapshot of the moment the key was pressed; Esc or q closes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ui_int.h"
#include "filter.h"
#include "../nodeset.h"
#include "../whatif.h"
#include "../action/action.h"

#define WV_MINUTES 30
#define WV_RUNS 3
#define WV_W 108                /* the overlay's widest */
#define WV_FIXED 17             /* rows other than the guard's words (a blank one included) */
#define WV_LABEL 26             /* the table's label column */
#define WV_NUM 11               /* a number column */

struct whatif_view {
	int drain;                  /* 1: nodes drained; 0: a job requeued */
	char what[200];             /* "gpu0001", "SU03 gpu[0065-0096]", "job 1234" */
	char about[200];            /* a job's owner and name: "alice 'train'" */
	int32_t nodes, gpus;        /* what the real action touches */
	int verdict;                /* AS_DONE, AS_CONFIRM or AS_REFUSED */
	char guard[700];            /* the guard's verdict in words */
	int64_t at;                 /* the model's time at the fork */
	struct whatif_report r;
};

/* What the key acts on: the drain's targets, or the job and the nodes its
 * requeue avoids. */
struct pick {
	int32_t *nodes, n;
	uint32_t job;
	char target[160];           /* for the audit's words: the folded set or the job id */
	char what[200], about[200];
};

static void fold(const struct model *m, const int32_t *idx, int32_t n, char *out, size_t size)
{
	struct nodeset *ns = nodeset_new();
	char *s;

	for (int32_t i = 0; i < n; i++)
		nodeset_add(ns, m->nodes[idx[i]].name);
	s = nodeset_fold(ns);
	text_sanitize(out, size, s);
	free(s);
	nodeset_free(ns);
}

static void pick_nodes(struct console *c, const struct target *t, struct pick *p)
{
	const struct model *m = &c->app->model;
	struct node_filter f = {0};

	p->nodes = xcalloc((size_t)m->nnodes + 1, sizeof *p->nodes);
	if (t->su >= 0) {
		for (int32_t i = 0; i < m->nnodes; i++)
			if (m->nodes[i].su == t->su)
				p->nodes[p->n++] = i;
	} else {
		filter_read(&f, m, c->filter[c->cur]);
		for (int32_t i = 0; f.is_set && i < f.nmark; i++)
			if (f.mark[i])
				p->nodes[p->n++] = i;
		filter_done(&f);
		if (!p->n)
			p->nodes[p->n++] = t->node;
	}
	fold(m, p->nodes, p->n, p->target, sizeof p->target);
	if (t->su >= 0)
		snprintf(p->what, sizeof p->what, "SU%02d %s", t->su + 1, p->target);
	else
		snprintf(p->what, sizeof p->what, "%s", p->target);
}

static void pick_job(struct console *c, const struct job *j, struct pick *p)
{
	char what[512];

	p->job = j->id;
	p->nodes = xcalloc((size_t)j->nnodes + 1, sizeof *p->nodes);
	p->n = action_job_avoid(&c->app->model, j, -1, p->nodes);
	snprintf(p->target, sizeof p->target, "%u", j->id);
	snprintf(p->what, sizeof p->what, "job %u", j->id);
	snprintf(what, sizeof what, "%s '%s'", j->user, j->name);
	text_sanitize(p->about, sizeof p->about, what);
}

/* The guards' verdict on the action the acting key would submit. */
static void judge(struct console *c, const struct pick *p, struct whatif_view *w)
{
	const struct model *m = &c->app->model;
	struct action a = {0};
	struct action_outcome o;
	char reason[96];

	a.kind = w->drain ? AK_DRAIN : AK_REQUEUE;
	a.source = "tcl";   /* the keys act through a Tcl command */
	a.who = getenv("USER") ? getenv("USER") : "operator";
	a.nodes = p->nodes;
	a.nnodes = p->n;
	a.job = p->job;
	a.target = p->target;
	action_drain_reason(m, p->n == 1 ? p->nodes[0] : -1, reason, sizeof reason);
	a.reason = w->drain ? reason : NULL;
	action_judge(c->app, &a, 0, 0, &o);
	w->verdict = o.status;
	w->nodes = o.nodes;
	w->gpus = o.gpus;
	snprintf(w->guard, sizeof w->guard, "%s%s%s", o.status == AS_REFUSED ? "the guards would refuse it: "
		 : o.status == AS_CONFIRM ? "the guards would hold it for your confirmation: "
		 : "the guards would let it through", o.status == AS_DONE ? "" : o.detail,
		 c->app->read_only ? " (but this session is read-only)" : "");
}

void whatif_view_close(struct console *c)
{
	if (c->whatif)
		whatif_report_free(&c->whatif->r);
	free(c->whatif);
	c->whatif = NULL;
	if (c->mode == MODE_WHATIF)
		c->mode = MODE_NORMAL;
	c->dirty = DIRTY_ALL;
}

/* The selection as the acting keys find it; 0 (with a message) if none. */
static int selection(struct console *c, struct target *t)
{
	const struct panel_ops *p = c->ops[c->cur];
	const struct model *m = &c->app->model;

	if (!p->target || !p->target(c->st[c->cur], t) || t->node >= m->nnodes) {
		console_set_message(c, R_ERROR, "nothing selected here for a what-if: select nodes or a job");
		return 0;
	}
	if (t->node < 0 && t->fault && model_fault(m, t->fault))
		t->node = model_fault(m, t->fault)->node;
	if (t->node < 0 && !(t->job && model_job(m, t->job))) {
		console_set_message(c, R_ERROR, "a what-if acts on nodes or a job: select one");
		return 0;
	}
	return 1;
}

void whatif_key(struct console *c)
{
	const struct model *m = &c->app->model;
	struct target t = TARGET_NONE;
	struct pick p = {0};
	struct whatif_view *w;
	struct whatif_opts o;
	struct twin_act act;
	char err[256];

	if (!selection(c, &t))
		return;
	w = xcalloc(1, sizeof *w);
	w->drain = t.node >= 0;
	if (w->drain)
		pick_nodes(c, &t, &p);
	else
		pick_job(c, model_job(m, t.job), &p);
	judge(c, &p, w);
	act = (struct twin_act){w->drain ? TV_DRAIN : TV_REQUEUE, p.nodes, p.n, p.job, 0};
	whatif_opts_default(&o);
	o.horizon_s = WV_MINUTES * 60;
	o.runs = WV_RUNS;
	o.seed = 1;
	w->at = m->time;
	snprintf(w->what, sizeof w->what, "%s", p.what);
	snprintf(w->about, sizeof w->about, "%s", p.about);
	if (whatif_run(m, &act, 1, &o, &w->r, err, sizeof err) < 0) {
		console_set_message(c, R_ERROR, "what-if: %s", err);
		whatif_report_free(&w->r);
		free(w);
	} else {
		whatif_view_close(c);
		c->whatif = w;
		c->mode = MODE_WHATIF;
	}
	free(p.nodes);
	c->dirty = DIRTY_ALL;
}

void whatif_view_key(struct console *c, int key)
{
	if (key == UK_ESCAPE || key == 'q' || key == 3 || key == UK_ENTER || key == 'W')
		whatif_view_close(c);
}

/* ---- the numbers ---- */

enum kind { K_COUNT, K_PCT, K_KW, K_PUE, K_SECS };

/* v as kind ("10,216", "83.1", "1.093", "4m10s"); sign: a change ("+0.3",
 * "-8"; "0" when it rounds to nothing). */
static void fmt_val(double v, int kind, int sign, char *buf, size_t size)
{
	static const int dec[] = {0, 1, 1, 3, 0};
	static const double half[] = {0.05, 0.05, 0.05, 0.0005, 0.5};
	double av = v < 0 ? -v : v;
	char s[40];

	if (sign && av < half[kind]) {
		snprintf(buf, size, "0");
		return;
	}
	if (kind == K_SECS)
		fmt_duration((int64_t)(av * US_PER_SEC), s, sizeof s);
	else if (kind == K_COUNT && av != (double)(int64_t)av)
		snprintf(s, sizeof s, "%.1f", av);   /* a mean over the runs */
	else if (kind == K_COUNT)
		fmt_count((long long)av, s, sizeof s);
	else
		snprintf(s, sizeof s, "%.*f", dec[kind], av);
	snprintf(buf, size, "%s%s", v < 0 ? "-" : sign ? "+" : "", s);
}


/* "-0.5 .. +0.2" when the runs differ, else "". */
static void fmt_spread(struct whatif_spread s, int kind, int sign, char *buf, size_t size)
{
	char a[48], b[48];

	buf[0] = '\0';
	fmt_val(s.min, kind, sign, a, sizeof a);
	fmt_val(s.max, kind, sign, b, sizeof b);
	if (strcmp(a, b))
		snprintf(buf, size, "%s .. %s", a, b);
}

enum fut { F_AVAIL, F_UTIL, F_UTIL_END, F_KW, F_PUE, F_P50, F_P95, F_PENDING };

static double fut(const struct whatif_future *f, int what)
{
	switch (what) {
	case F_AVAIL: return f->avail_start;
	case F_UTIL: return f->util_mean;
	case F_UTIL_END: return f->util_end;
	case F_KW: return f->it_kw_mean;
	case F_PUE: return f->pue_mean;
	case F_P50: return f->wait_p50;
	case F_P95: return f->wait_p95;
	default: return f->pending_end;
	}
}

/* ---- the overlay ---- */

static void frame(const struct view *b)
{
	uint32_t h = text_utf8 ? 0x2500 : '-', v = text_utf8 ? 0x2502 : '|';

	view_fill(b, 1, 0, b->w - 2, h, R_BORDER);
	view_fill(b, 1, b->h - 1, b->w - 2, h, R_BORDER);
	for (int y = 1; y < b->h - 1; y++) {
		view_cell(b, 0, y, v, R_BORDER, 0);
		view_cell(b, b->w - 1, y, v, R_BORDER, 0);
	}
	view_cell(b, 0, 0, text_utf8 ? 0x250c : '+', R_BORDER, 0);
	view_cell(b, b->w - 1, 0, text_utf8 ? 0x2510 : '+', R_BORDER, 0);
	view_cell(b, 0, b->h - 1, text_utf8 ? 0x2514 : '+', R_BORDER, 0);
	view_cell(b, b->w - 1, b->h - 1, text_utf8 ? 0x2518 : '+', R_BORDER, 0);
}

/* The title row (what, and on its right how much) and the guard's words in
 * rows 1..rows; returns the next row. */
static int head(const struct whatif_view *w, const struct view *v, int rows)
{
	struct view g = view_sub(v, 0, 1, v->w, rows);
	char t[480], n[64], gpus[32], words[1100];
	int nw;

	if (w->drain)
		snprintf(t, sizeof t, " What if %s %s drained now?", w->what, w->nodes == 1 ? "is" : "are");
	else
		snprintf(t, sizeof t, " What if %s is requeued now?  %s", w->what, w->about);
	fmt_count(w->gpus, gpus, sizeof gpus);
	snprintf(n, sizeof n, "%d node%s, %s GPUs ", w->nodes, w->nodes == 1 ? "" : "s", gpus);
	nw = text_width(n);
	view_fill(v, 0, 0, v->w, ' ', R_DIALOG_TITLE);
	view_text(v, 0, 0, v->w - nw - 2, R_DIALOG_TITLE, t);
	view_text(v, MAX(0, v->w - nw), 0, -1, R_DIALOG_TITLE, n);
	snprintf(words, sizeof words, "Guard: %s.%s%s", w->guard,
		 w->r.act_failed ? " In the twin the scheduler refused it: " : "", w->r.act_failed ? w->r.act_err : "");
	view_wrap(&g, 1, 0, g.w - 2, w->verdict == AS_REFUSED ? R_ERR : w->verdict == AS_CONFIRM ? R_WARN : R_GOOD,
		  words);
	return 1 + rows;
}

static void table_row(const struct view *v, int y, const char *label, const char *a, const char *b, const char *ch,
		      const char *spread)
{
	int x = WV_LABEL;

	view_text(v, 1, y, WV_LABEL - 1, R_LABEL, label);
	view_field(v, x, y, WV_NUM, 1, R_NORMAL, a);
	view_field(v, x + WV_NUM, y, WV_NUM, 1, R_NORMAL, b);
	view_field(v, x + 2 * WV_NUM, y, WV_NUM, 1, strcmp(ch, "0") && *ch ? R_BOLD : R_NORMAL, ch);
	view_text(v, x + 3 * WV_NUM + 3, y, -1, R_DIM, spread);
}

static int table(const struct whatif_view *w, const struct view *v, int y)
{
	static const struct { const char *label; int what, kind; } rows[] = {
		{"GPUs in service", F_AVAIL, K_COUNT}, {"utilization %, mean", F_UTIL, K_PCT},
		{"utilization %, at the end", F_UTIL_END, K_PCT}, {"IT kW, mean", F_KW, K_KW},
		{"PUE, mean", F_PUE, K_PUE}, {"queue wait p50", F_P50, K_SECS}, {"queue wait p95", F_P95, K_SECS},
		{"jobs waiting at the end", F_PENDING, K_COUNT},
	};
	const struct whatif_report *r = &w->r;
	char hd[48], spr[40];

	snprintf(hd, sizeof hd, "%d min ahead, %d runs", (int)(r->horizon_s / 60), r->runs);
	snprintf(spr, sizeof spr, "change, run by run");
	table_row(v, y, "", "without", "with", "change", r->runs > 1 ? spr : "");
	view_text(v, 1, y, WV_LABEL - 2, R_DIM, hd);
	view_recolor(v, WV_LABEL, y, 3 * WV_NUM, R_COLHEAD);
	y++;
	for (unsigned i = 0; i < ARRAY_LEN(rows); i++) {
		double b[WHATIF_RUNS_MAX] = {0}, x[WHATIF_RUNS_MAX] = {0}, d[WHATIF_RUNS_MAX] = {0};
		char sb[48], sw[48], sc[48], ss[100];

		for (int k = 0; k < r->runs; k++) {
			b[k] = fut(&r->base[k], rows[i].what);
			x[k] = fut(&r->with[k], rows[i].what);
			d[k] = x[k] - b[k];
		}
		fmt_val(whatif_spread(b, r->runs).mean, rows[i].kind, 0, sb, sizeof sb);
		fmt_val(whatif_spread(x, r->runs).mean, rows[i].kind, 0, sw, sizeof sw);
		fmt_val(whatif_spread(d, r->runs).mean, rows[i].kind, 1, sc, sizeof sc);
		fmt_spread(whatif_spread(d, r->runs), rows[i].kind, 1, ss, sizeof ss);
		table_row(v, y++, rows[i].label, sb, sw, sc, ss);
	}
	return y;
}

enum dk { D_KILLED, D_REQUEUED, D_REQ_GPUS, D_DELAYED, D_P50, D_MAX };

static struct whatif_spread diff_spread(const struct whatif_report *r, int what)
{
	double v[WHATIF_RUNS_MAX] = {0};

	for (int k = 0; k < r->runs; k++) {
		const struct whatif_diff *d = &r->diff[k];

		v[k] = what == D_KILLED ? d->killed : what == D_REQUEUED ? d->requeued : what == D_REQ_GPUS
		       ? d->requeued_gpus : what == D_DELAYED ? d->delayed : what == D_P50 ? d->delay_p50 : d->delay_max;
	}
	return whatif_spread(v, r->runs);
}

/* The jobs the actions kill, requeue and delay; their spread over the runs. */
static int jobs(const struct whatif_view *w, const struct view *v, int y)
{
	static const int kind[] = {K_COUNT, K_COUNT, K_COUNT, K_COUNT, K_SECS, K_SECS};
	const struct whatif_report *r = &w->r;
	char s[6][48], sp[6][100], line[600];
	int varies = 0;

	for (int i = 0; i <= D_MAX; i++) {
		fmt_val(diff_spread(r, i).mean, kind[i], 0, s[i], sizeof s[i]);
		fmt_spread(diff_spread(r, i), kind[i], 0, sp[i], sizeof sp[i]);
		varies |= sp[i][0] != '\0';
	}
	snprintf(line, sizeof line, "jobs killed %s   requeued %s (%s GPUs)   delayed %s", s[D_KILLED], s[D_REQUEUED],
		 s[D_REQ_GPUS], s[D_DELAYED]);
	if (diff_spread(r, D_DELAYED).mean > 0)
		snprintf(line + strlen(line), sizeof line - strlen(line), ": by p50 %s, max %s", s[D_P50], s[D_MAX]);
	view_text(v, 1, y++, v->w - 2, R_NORMAL, line);
	if (!varies)
		snprintf(line, sizeof line, "  the same in each of the %d runs", r->runs);
	else
		snprintf(line, sizeof line, "  run by run: killed %s, requeued %s, delayed %s, max delay %s",
			 *sp[D_KILLED] ? sp[D_KILLED] : s[D_KILLED], *sp[D_REQUEUED] ? sp[D_REQUEUED] : s[D_REQUEUED],
			 *sp[D_DELAYED] ? sp[D_DELAYED] : s[D_DELAYED], *sp[D_MAX] ? sp[D_MAX] : s[D_MAX]);
	view_text(v, 1, y++, v->w - 2, R_DIM, line);
	return y;
}

enum series { S_UTIL, S_KW, S_PENDING };

static float point(const struct twin_point *p, int what)
{
	return what == S_UTIL ? p->util : what == S_KW ? p->it_kw : (float)p->pending;
}

/* One row: both futures of a series on one scale, its range after them. */
static void spark_pair(const struct whatif_report *r, const struct view *v, int y, int what, int x0, int sw)
{
	static const char *const label[] = {"utilization %", "IT kW", "jobs pending"};
	static const double min_range[] = {5, 10, 4};
	float *b = xcalloc((size_t)r->npts + 1, sizeof *b), *x = xcalloc((size_t)r->npts + 1, sizeof *x);
	double lo = 0, hi = 0;

	for (int32_t i = 0; i < r->npts; i++) {
		b[i] = point(&r->base_pts[i], what);
		x[i] = point(&r->with_pts[i], what);
		lo = MIN(i ? lo : b[i], MIN(b[i], x[i]));
		hi = MAX(i ? hi : b[i], MAX(b[i], x[i]));
	}
	view_text(v, 1, y, x0 - 2, R_LABEL, label[what]);
	view_textf(v, x0 + 2 * sw + 4, y, -1, R_DIM, what == S_PENDING || hi >= 1000 ? "%.0f .. %.0f" : "%.1f .. %.1f",
		   lo, hi);
	if (hi - lo < min_range[what]) {
		double mid = (hi + lo) / 2;

		lo = MAX(0, mid - min_range[what] / 2);
		hi = lo + min_range[what];
	}
	draw_spark_range(v, x0, y, sw, b, r->npts, lo, hi, R_SPARK);
	draw_spark_range(v, x0 + sw + 2, y, sw, x, r->npts, lo, hi, R_SPARK);
	free(b);
	free(x);
}

static int sparks(const struct whatif_view *w, const struct view *v, int y)
{
	const struct whatif_report *r = &w->r;
	int x0 = 16, sw = MAX(8, MIN((v->w - x0 - 4 - 18) / 2, (int)r->npts));
	char at[16], hd[48];

	fmt_clock(w->at, at, sizeof at);
	snprintf(hd, sizeof hd, "from %s", at);
	view_text(v, 1, y, x0 - 2, R_DIM, hd);
	view_text(v, x0, y, sw, R_COLHEAD, "without");
	view_text(v, x0 + sw + 2, y, sw, R_COLHEAD, "with");
	view_textf(v, x0 + 2 * sw + 4, y, -1, R_DIM, "scale, +%d min", (int)(r->horizon_s / 60));
	y++;
	for (int s = S_UTIL; s <= S_PENDING && r->npts > 0; s++)
		spark_pair(r, v, y++, s, x0, sw);
	return y;
}

/* Rows the guard's words take in w columns (at least one). */
static int guard_rows(const struct whatif_view *w, int cols)
{
	int chars = text_width(w->guard) + 8 + (w->r.act_failed ? 40 + text_width(w->r.act_err) : 0);

	return MAX(1, MIN(4, chars / MAX(1, cols - 12) + 1));
}

void whatif_view_draw(struct console *c, const struct view *pv)
{
	const struct whatif_view *w = c->whatif;
	int cw = MIN(pv->w, WV_W), notes, ch, framed, y;
	struct view box, in;

	if (!w)
		return;
	notes = MAX(1, MIN(guard_rows(w, cw), pv->h - WV_FIXED));
	ch = MIN(pv->h, WV_FIXED + notes);
	framed = pv->w >= cw + 2 && pv->h >= ch + 2;
	if (framed) {   /* a box in the middle, the panel around it */
		box = view_sub(pv, (pv->w - cw - 2) / 2, (pv->h - ch - 2) / 2, cw + 2, ch + 2);
		view_clear(&box, R_NORMAL);
		frame(&box);
		in = view_sub(&box, 1, 1, cw, ch);
	} else {        /* no room for a frame: the whole panel */
		view_clear(pv, R_NORMAL);
		in = view_sub(pv, (pv->w - cw) / 2, 0, cw, ch);
	}
	y = head(w, &in, notes);
	y = table(w, &in, y);
	y = jobs(w, &in, y);
	sparks(w, &in, y + 1);
}
