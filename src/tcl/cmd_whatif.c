/*
 * cmd_whatif.c - `whatif SCRIPT ?-minutes N? ?-runs K? ?-seed S? ?-json|-table?`:
 * what the acting commands of SCRIPT would do, answered on twins of the
 * model (src/whatif.c) instead of sent.
 *
 * SCRIPT runs as any script does, except that the acting commands (node
 * drain and resume, job requeue and checkpoint) are taken instead of
 * submitted: cmd_act.c hands each struct action here (tc_whatif_take),
 * which asks the engine's guards for their verdict without auditing
 * anything (action_judge, counting the earlier actions of the script in the
 * blast radius) and keeps the action as the backend would receive it. Then
 * the twin runs once without them and once with them per workload seed.
 * Nothing is sent, held, logged or changed; it works in --read-only and on
 * a recording.
 *
 * The result is a dict (or its JSON, or a table for people): the actions
 * with the guards' verdicts, what is taken out of service, the jobs killed,
 * requeued and delayed, each future's utilization, IT power, PUE and queue
 * waits, and the minute-by-minute series of both. With -runs K each figure
 * is the mean over the K seeds and `spread` holds their least and greatest.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tcl_int.h"
#include "../whatif.h"

struct whatif_take {
	struct twin_act *acts;
	int n, cap;
	Tcl_Obj *list;             /* the actions as dicts */
	int32_t nodes, gpus;       /* touched so far: the blast radius counts them all */
	int verdict;               /* the worst: AS_DONE, AS_CONFIRM, AS_REFUSED */
	char detail[700];
};

static const char *verdict_name(int v)
{
	return v == AS_REFUSED ? "refused" : v == AS_CONFIRM ? "confirm" : "allowed";
}

static int verdict_rank(int v)
{
	return v == AS_REFUSED ? 2 : v == AS_CONFIRM ? 1 : 0;
}

/* The twin's form of a (its nodes are a's: copy them to keep them). */
static void twin_act_of(const struct action *a, struct twin_act *t)
{
	memset(t, 0, sizeof *t);
	t->verb = a->kind == AK_DRAIN ? TV_DRAIN : a->kind == AK_RESUME ? TV_RESUME
		: a->kind == AK_REQUEUE ? TV_REQUEUE : TV_SIGNAL;
	t->job = a->job;
	t->sig = a->sig;
	t->nnodes = a->nnodes;
	t->nodes = a->nodes;
}

int tc_whatif_take(struct tcl_call *c, const struct action *a, Tcl_Obj *jobs)
{
	struct whatif_take *w = c->ts->whatif;
	struct action_outcome o;
	struct twin_act *t;
	Tcl_Obj *d;

	if (a->kind == AK_GUARD) {
		if (jobs)
			Tcl_DecrRefCount(jobs);
		return tc_err(c, "INPUT", "whatif: the guard's limits cannot be changed inside a what-if");
	}
	action_judge(c->app, a, w->nodes, w->gpus, &o);
	if (verdict_rank(o.status) > verdict_rank(w->verdict)) {
		w->verdict = o.status;
		snprintf(w->detail, sizeof w->detail, "%s %s: %s", action_kind_name(a->kind), a->target ? a->target : "",
			 o.detail);
	}
	w->nodes += o.nodes;
	w->gpus += o.gpus;
	d = Tcl_NewDictObj();
	tc_dstr(d, "verb", action_kind_name(a->kind));
	tc_dstr(d, "target", a->target);
	tc_dint(d, "nodes", o.nodes);
	tc_dint(d, "gpus", o.gpus);
	tc_dstr(d, "guard", verdict_name(o.status));
	tc_dstr(d, "detail", o.status == AS_DONE ? "" : o.detail);
	tc_dput(d, "jobs", jobs ? jobs : Tcl_NewListObj(0, NULL));
	if (jobs)
		Tcl_DecrRefCount(jobs);
	Tcl_ListObjAppendElement(NULL, w->list, d);
	Tcl_SetObjResult(c->interp, d);
	if (AK_LOCAL(a->kind) || o.status == AS_REFUSED)
		return TCL_OK;   /* a fault ack changes no future; bad input reaches no scheduler */
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 8;
		w->acts = xrealloc(w->acts, (size_t)w->cap * sizeof *w->acts);
	}
	t = &w->acts[w->n++];
	twin_act_of(a, t);
	if (a->nnodes) {
		int32_t *copy = xmalloc((size_t)a->nnodes * sizeof *copy);

		memcpy(copy, a->nodes, (size_t)a->nnodes * sizeof *copy);
		t->nodes = copy;
	}
	return TCL_OK;
}

char *tc_whatif_brief(struct myriad *app, const struct action *a)
{
	struct whatif_opts o;
	struct whatif_report r;
	struct twin_act t;
	const struct whatif_diff *d;
	char err[160], *s;

	if (AK_LOCAL(a->kind))
		return NULL;
	twin_act_of(a, &t);
	whatif_opts_default(&o);
	if (whatif_run(&app->model, &t, 1, &o, &r, err, sizeof err) < 0)
		return xasprintf("what-if: %s", err);
	d = &r.diff[0];
	s = xasprintf("What-if, next %lld min: %d GPUs out, %d jobs killed, %d requeued (%d GPUs), %d delayed (p50 %.0f min), "
		      "utilization %+.1f pts, IT %+.0f kW, queue wait p95 %+.0f min.",
		      (long long)(r.horizon_s / 60), d->gpus_out, d->killed, d->requeued, d->requeued_gpus, d->delayed,
		      d->delay_p50 / 60, r.with[0].util_mean - r.base[0].util_mean, r.with[0].it_kw_mean - r.base[0].it_kw_mean,
		      (r.with[0].wait_p95 - r.base[0].wait_p95) / 60);
	whatif_report_free(&r);
	return s;
}

static void take_free(struct whatif_take *w)
{
	for (int i = 0; i < w->n; i++)
		free((void *)w->acts[i].nodes);
	free(w->acts);
	if (w->list)
		Tcl_DecrRefCount(w->list);
}

/* ---- the result ---- */

/* v[k] = expr for each run k */
#define RUNS(r, expr) for (int k = 0; k < (r)->runs; k++) v[k] = (expr);


/* key: the mean in d, {min max} in sd (with several runs). */
static void put(Tcl_Obj *d, Tcl_Obj *sd, const char *key, const double *v, int n)
{
	struct whatif_spread s = whatif_spread(v, n);
	Tcl_Obj *mm;

	tc_ddbl(d, key, s.mean);
	if (!sd)
		return;
	mm = Tcl_NewListObj(0, NULL);
	Tcl_ListObjAppendElement(NULL, mm, Tcl_NewDoubleObj(s.min));
	Tcl_ListObjAppendElement(NULL, mm, Tcl_NewDoubleObj(s.max));
	tc_dput(sd, key, mm);
}

static Tcl_Obj *future_dict(const struct whatif_report *r, const struct whatif_future *f, Tcl_Obj *sd)
{
	Tcl_Obj *d = Tcl_NewDictObj();
	double v[WHATIF_RUNS_MAX];

	RUNS(r, f[k].avail_start) put(d, sd, "gpus_in_service", v, r->runs);
	RUNS(r, f[k].util_mean) put(d, sd, "util", v, r->runs);
	RUNS(r, f[k].util_end) put(d, sd, "util_end", v, r->runs);
	RUNS(r, f[k].it_kw_mean) put(d, sd, "it_kw", v, r->runs);
	RUNS(r, f[k].it_kw_end) put(d, sd, "it_kw_end", v, r->runs);
	RUNS(r, f[k].pue_mean) put(d, sd, "pue", v, r->runs);
	RUNS(r, f[k].pue_end) put(d, sd, "pue_end", v, r->runs);
	RUNS(r, f[k].wait_p50) put(d, sd, "wait_p50", v, r->runs);
	RUNS(r, f[k].wait_p95) put(d, sd, "wait_p95", v, r->runs);
	RUNS(r, f[k].started) put(d, sd, "started", v, r->runs);
	RUNS(r, f[k].pending_end) put(d, sd, "pending_end", v, r->runs);
	return d;
}

/* A list, even when empty (Tcl's empty list has no type: JSON would say ""). */
static Tcl_Obj *new_list(void)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	Tcl_ConvertToType(NULL, l, Tcl_GetObjType("list"));
	return l;
}

static Tcl_Obj *ids(const uint32_t *id, int32_t n)
{
	Tcl_Obj *l = new_list();

	for (int32_t i = 0; i < n; i++)
		Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj(id[i]));
	return l;
}

static Tcl_Obj *jobs_dict(const struct whatif_report *r, Tcl_Obj *sd)
{
	Tcl_Obj *d = Tcl_NewDictObj();
	const struct whatif_diff *f = r->diff;
	double v[WHATIF_RUNS_MAX];

	RUNS(r, f[k].killed) put(d, sd, "killed", v, r->runs);
	RUNS(r, f[k].requeued) put(d, sd, "requeued", v, r->runs);
	RUNS(r, f[k].requeued_gpus) put(d, sd, "requeued_gpus", v, r->runs);
	RUNS(r, f[k].delayed) put(d, sd, "delayed", v, r->runs);
	RUNS(r, f[k].delay_p50) put(d, sd, "delay_p50", v, r->runs);
	RUNS(r, f[k].delay_max) put(d, sd, "delay_max", v, r->runs);
	tc_dput(d, "killed_ids", ids(r->killed_ids, r->nkilled_ids));
	tc_dput(d, "requeued_ids", ids(r->requeued_ids, r->nrequeued_ids));
	tc_dput(d, "delayed_ids", ids(r->delayed_ids, r->ndelayed_ids));
	return d;
}

static Tcl_Obj *series(const struct whatif_report *r)
{
	Tcl_Obj *d = Tcl_NewDictObj(), *l[9];

	for (int i = 0; i < 9; i++)
		l[i] = Tcl_NewListObj(0, NULL);
	for (int32_t i = 0; i < r->npts; i++) {
		const struct twin_point *b = &r->base_pts[i], *w = &r->with_pts[i];

		Tcl_ListObjAppendElement(NULL, l[0], Tcl_NewWideIntObj(b->t));
		Tcl_ListObjAppendElement(NULL, l[1], Tcl_NewDoubleObj(round(b->util * 10) / 10));
		Tcl_ListObjAppendElement(NULL, l[2], Tcl_NewDoubleObj(round(w->util * 10) / 10));
		Tcl_ListObjAppendElement(NULL, l[3], Tcl_NewDoubleObj(round(b->it_kw * 10) / 10));
		Tcl_ListObjAppendElement(NULL, l[4], Tcl_NewDoubleObj(round(w->it_kw * 10) / 10));
		Tcl_ListObjAppendElement(NULL, l[5], Tcl_NewDoubleObj(round(b->pue * 1000) / 1000));
		Tcl_ListObjAppendElement(NULL, l[6], Tcl_NewDoubleObj(round(w->pue * 1000) / 1000));
		Tcl_ListObjAppendElement(NULL, l[7], Tcl_NewWideIntObj(b->pending));
		Tcl_ListObjAppendElement(NULL, l[8], Tcl_NewWideIntObj(w->pending));
	}
	tc_dput(d, "t", l[0]);
	tc_dput(d, "util_without", l[1]);
	tc_dput(d, "util_with", l[2]);
	tc_dput(d, "it_kw_without", l[3]);
	tc_dput(d, "it_kw_with", l[4]);
	tc_dput(d, "pue_without", l[5]);
	tc_dput(d, "pue_with", l[6]);
	tc_dput(d, "pending_without", l[7]);
	tc_dput(d, "pending_with", l[8]);
	return d;
}

static Tcl_Obj *report_dict(const struct whatif_report *r, struct whatif_take *w)
{
	Tcl_Obj *d = Tcl_NewDictObj(), *sd = r->runs > 1 ? Tcl_NewDictObj() : NULL, *out = Tcl_NewDictObj();
	Tcl_Obj *s_without = sd ? Tcl_NewDictObj() : NULL, *s_with = sd ? Tcl_NewDictObj() : NULL;
	Tcl_Obj *s_jobs = sd ? Tcl_NewDictObj() : NULL;

	tc_dint(d, "minutes", r->horizon_s / 60);
	tc_dint(d, "runs", r->runs);
	tc_dint(d, "seed", (int64_t)r->seed);
	tc_dput(d, "actions", w->list);
	tc_dstr(d, "guard", verdict_name(w->verdict));
	tc_dstr(d, "guard_detail", w->verdict == AS_DONE ? "" : w->detail);
	tc_dint(out, "gpus", r->diff[0].gpus_out);
	tc_dint(out, "nodes", r->diff[0].nodes_out);
	tc_dput(d, "out", out);
	tc_dput(d, "jobs", jobs_dict(r, s_jobs));
	tc_dput(d, "without", future_dict(r, r->base, s_without));
	tc_dput(d, "with", future_dict(r, r->with, s_with));
	if (sd) {
		tc_dput(sd, "jobs", s_jobs);
		tc_dput(sd, "without", s_without);
		tc_dput(sd, "with", s_with);
		tc_dput(d, "spread", sd);
	}
	tc_dput(d, "series", series(r));
	tc_dint(d, "twin_refused", r->act_failed);
	tc_dstr(d, "twin_refused_detail", r->act_err);
	tc_ddbl(d, "cpu_s", r->cpu_s);
	return d;
}

/* ---- the table ---- */

static double mean_of(const struct whatif_report *r, const double *v)
{
	return whatif_spread(v, r->runs).mean;
}

static void row(struct sbuf *b, const struct whatif_report *r, const char *what, const double *base,
		const double *with, int decimals)
{
	struct whatif_spread sb = whatif_spread(base, r->runs), sw = whatif_spread(with, r->runs);
	char a[48], c[48], ch[24];

	snprintf(a, sizeof a, "%.*f", decimals, sb.mean);
	if (r->runs > 1)
		snprintf(c, sizeof c, "%.*f (%.*f-%.*f)", decimals, sw.mean, decimals, sw.min, decimals, sw.max);
	else
		snprintf(c, sizeof c, "%.*f", decimals, sw.mean);
	snprintf(ch, sizeof ch, "%+.*f", decimals, sw.mean - sb.mean);
	sbuf_printf(b, "  %-24s %14s %22s %10s\n", what, a, c, ch);
}

static void table(struct sbuf *b, const struct whatif_report *r, const struct whatif_take *w)
{
	double vb[WHATIF_RUNS_MAX], vw[WHATIF_RUNS_MAX], v[WHATIF_RUNS_MAX];
	const struct whatif_future *B = r->base, *W = r->with;
	const struct whatif_diff *D = r->diff;

	sbuf_printf(b, "what-if, %lld minutes ahead, %d run%s from seed %llu (%.2f s CPU)\n",
		    (long long)(r->horizon_s / 60), r->runs, r->runs == 1 ? "" : "s", (unsigned long long)r->seed, r->cpu_s);
	sbuf_printf(b, "guard: %s%s%s\n", verdict_name(w->verdict), w->verdict == AS_DONE ? "" : ": ",
		    w->verdict == AS_DONE ? "" : w->detail);
	if (r->act_failed)
		sbuf_printf(b, "the scheduler would refuse %d: %s\n", r->act_failed, r->act_err);
	sbuf_printf(b, "  %-24s %14s %22s %10s\n", "", "without", "with", "change");
#define ROW(name, field, dec) do { \
	for (int k = 0; k < r->runs; k++) { vb[k] = B[k].field; vw[k] = W[k].field; } \
	row(b, r, name, vb, vw, dec); } while (0)
	ROW("GPUs in service", avail_start, 0);
	ROW("utilization % (mean)", util_mean, 1);
	ROW("utilization % (end)", util_end, 1);
	ROW("IT kW (mean)", it_kw_mean, 1);
	ROW("PUE (mean)", pue_mean, 3);
	ROW("queue wait p50 (s)", wait_p50, 0);
	ROW("queue wait p95 (s)", wait_p95, 0);
	ROW("jobs started", started, 0);
	ROW("jobs waiting at end", pending_end, 0);
#undef ROW
	RUNS(r, D[k].killed) sbuf_printf(b, "  jobs killed: %.1f", mean_of(r, v));
	RUNS(r, D[k].requeued) sbuf_printf(b, ", requeued: %.1f", mean_of(r, v));
	RUNS(r, D[k].requeued_gpus) sbuf_printf(b, " (%.0f GPUs)", mean_of(r, v));
	RUNS(r, D[k].delayed) sbuf_printf(b, ", delayed: %.1f", mean_of(r, v));
	RUNS(r, D[k].delay_p50) sbuf_printf(b, " (p50 %.0f s", mean_of(r, v));
	RUNS(r, D[k].delay_max) sbuf_printf(b, ", max %.0f s)\n", mean_of(r, v));
}

/* ---- the command ---- */

static int int_opt(struct tcl_call *c, const char *name, int64_t lo, int64_t hi, int64_t *v)
{
	Tcl_Obj *o = tc_opt(c, name);
	Tcl_WideInt w;

	if (!o)
		return 0;
	if (Tcl_GetWideIntFromObj(NULL, o, &w) != TCL_OK || w < lo || w > hi)
		return tc_err(c, "INPUT", "whatif: -%s wants a number from %lld to %lld", name, (long long)lo,
			      (long long)hi);
	*v = w;
	return 0;
}

/* The twins run in this call, on the loop: in the console and in hooks a
 * what-if that would take longer than their time budget (guard -command-ms,
 * -hook-ms) is refused before it starts, not stopped half way (the budget
 * stops Tcl, not C). About 1.5e-7 s of CPU per GPU-minute of a future, on
 * the 2-core machine make bench measures (bench_twin.c), twice per run. */
#define WHATIF_S_PER_GPU_MINUTE 1.5e-7

static int over_budget(struct tcl_call *c, int64_t minutes, int64_t runs)
{
	int hook = tc_in_hook(c->ts);
	int64_t budget = hook ? c->ts->hook_ms : c->ts->command_ms;
	double ms = 2.0 * (double)runs * (double)minutes * c->app->model.ngpus * WHATIF_S_PER_GPU_MINUTE * 1000.0;

	if ((c->ts->batch && !hook) || ms <= (double)budget)
		return 0;
	tc_err(c, "BUDGET", "whatif: %lld run%s of %lld minutes of %d GPUs take about %.0f ms of CPU, over the %s budget of"
	       " %lld ms (guard %s): ask for fewer -runs or -minutes, or run it in a batch run",
	       (long long)runs, runs == 1 ? "" : "s", (long long)minutes, c->app->model.ngpus, ms,
	       hook ? "hook's" : "command line's", (long long)budget, hook ? "-hook-ms" : "-command-ms");
	return 1;
}

int tc_whatif(struct tcl_call *c)
{
	struct whatif_take w = {0};
	struct whatif_opts o;
	struct whatif_report r;
	int64_t minutes = 30, runs = 1, seed = 1;
	char err[256];
	int rc;

	if (c->ts->whatif)
		return tc_err(c, "INPUT", "whatif: a what-if cannot hold another");
	if (int_opt(c, "minutes", 1, 24 * 60, &minutes) || int_opt(c, "runs", 1, WHATIF_RUNS_MAX, &runs) ||
	    int_opt(c, "seed", 0, INT32_MAX, &seed))
		return TCL_ERROR;
	if (over_budget(c, minutes, runs))
		return TCL_ERROR;
	w.list = new_list();
	Tcl_IncrRefCount(w.list);
	c->ts->whatif = &w;
	rc = Tcl_EvalObjEx(c->interp, c->argv[0], 0);
	c->ts->whatif = NULL;
	if (rc != TCL_OK) {
		take_free(&w);
		return TCL_ERROR;
	}
	whatif_opts_default(&o);
	o.horizon_s = minutes * 60;
	o.runs = (int)runs;
	o.seed = (uint64_t)seed;
	o.sample_s = minutes > 120 ? 300 : 60;
	if (whatif_run(&c->app->model, w.acts, w.n, &o, &r, err, sizeof err) < 0) {
		take_free(&w);
		return tc_err(c, "WHATIF", "whatif: %s", err);
	}
	if (tc_flag(c, "table")) {
		struct sbuf b = {0};

		table(&b, &r, &w);
		Tcl_SetObjResult(c->interp, Tcl_NewStringObj(b.s ? b.s : "", -1));
		sbuf_free(&b);
	} else {
		Tcl_Obj *d = report_dict(&r, &w);

		if (tc_flag(c, "json")) {
			struct sbuf b = {0};

			tc_json(d, &b);
			Tcl_SetObjResult(c->interp, Tcl_NewStringObj(b.s ? b.s : "", -1));
			Tcl_IncrRefCount(d);
			Tcl_DecrRefCount(d);
			sbuf_free(&b);
		} else {
			Tcl_SetObjResult(c->interp, d);
		}
	}
	whatif_report_free(&r);
	take_free(&w);
	return TCL_OK;
}
