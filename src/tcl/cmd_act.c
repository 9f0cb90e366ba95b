/*
 * cmd_act.c - the acting commands: node drain, node resume, job requeue,
 * job checkpoint and fault ack, and `guard`. They only turn arguments into a
 * struct action; the action engine (src/action) holds every guard and the
 * audit. Each returns a dict of what it did (or, dry-run, would do):
 * id verb target status dry_run nodes gpus failed jobs detail.
 *
 * The submitter decides what the engine cannot: an action held by the
 * blast-radius guard is put to the operator in the console, and declined
 * in a batch run (which must say -force -reason). A sent action is waited
 * for in a batch run (the loop runs meanwhile), so a runbook sees its end;
 * in the console the command returns at once with status "sent", and the
 * end shows in the log panel, the status line and `action list`.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "tcl_int.h"
#include "../ui/ui.h"

static const char *why_code(enum action_why w)
{
	static const char *const codes[] = {"OK", "READONLY", "CONFIG", "INPUT", "GUARD", "NOBACKEND", "BACKEND",
					    "TIMEOUT", "UNREACHABLE"};

	return w <= AW_UNREACHABLE ? codes[w] : "ACTION";
}

/* The other arguments, as a Tcl list, for the audit. */
static char *audit_args(struct tcl_call *c)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);
	const char *p = c->cmd->opts;
	char *s;
	int k = 0;

	while (*p) {
		size_t len = strcspn(p, " ");
		int takes = p[len - 1] == '=';

		if (k < TC_MAX_OPTS && c->opt[k]) {
			Tcl_ListObjAppendElement(NULL, l, Tcl_ObjPrintf("-%.*s", (int)(len - (size_t)takes), p));
			if (takes)
				Tcl_ListObjAppendElement(NULL, l, c->opt[k]);
		}
		k++;
		p += len;
		p += *p == ' ';
	}
	Tcl_IncrRefCount(l);
	s = xstrdup(Tcl_GetString(l));
	Tcl_DecrRefCount(l);
	return s;
}

static void init_action(struct tcl_call *c, struct action *a, enum action_kind kind)
{
	memset(a, 0, sizeof *a);
	a->kind = kind;
	a->source = c->ts->via;
	a->who = tc_user();
	a->dry_run = tc_flag(c, "dry-run");
	a->force = tc_flag(c, "force");
	a->force_reason = tc_optstr(c, "reason");
	a->ask = c->ts->typed && c->ts->ask_typed && !strcmp(c->ts->via, "tcl") && !a->dry_run;
}

static Tcl_Obj *outcome_dict(const struct action *a, const struct action_outcome *o, Tcl_Obj *jobs)
{
	Tcl_Obj *d = Tcl_NewDictObj();

	tc_dint(d, "id", o->id);
	tc_dstr(d, "verb", action_kind_name(a->kind));
	tc_dstr(d, "target", a->target);
	tc_dstr(d, "status", action_status_name(o->status));
	tc_dint(d, "dry_run", o->status == AS_DRY_RUN);
	tc_dint(d, "nodes", o->nodes);
	tc_dint(d, "gpus", o->gpus);
	tc_dint(d, "failed", o->failed);
	tc_dput(d, "jobs", jobs ? jobs : Tcl_NewListObj(0, NULL));
	tc_dstr(d, "detail", o->detail);
	return d;
}

/* ---- the submitter's side ---- */

struct asked {                  /* a held action put to the operator */
	struct myriad *app;
	uint32_t id;
};

static void on_answer(void *ctx, int yes)
{
	struct asked *q = ctx;

	action_confirm(q->app, q->id, yes, NULL);
	free(q);
}

/* The console asks; anywhere else (batch, no console) the action is declined. */
static void decide_held(struct tcl_call *c, const struct action *a, struct action_outcome *o)
{
	struct asked *q;
	char *text, *err = NULL, why[700];

	if (c->ts->batch || !c->app->console) {
		snprintf(why, sizeof why, "%s: confirm in the console, or give -force -reason TEXT", o->detail);
		action_confirm(c->app, o->id, 0, why);
		return;
	}
	q = xmalloc(sizeof *q);
	*q = (struct asked){c->app, o->id};
	if (AK_LOCAL(a->kind))
		text = xasprintf("%s %s %s\n%s.\nGo ahead?", action_kind_name(a->kind), a->target ? a->target : "",
				 a->args ? a->args : "", o->detail);
	else {
		char *brief = o->over ? tc_whatif_brief(c->app, a) : NULL;

		text = xasprintf("%s %s %s\nIt touches %d node%s (%d GPUs). %s.\n%s%sGo ahead?", action_kind_name(a->kind),
				 a->target ? a->target : "", a->args ? a->args : "", o->nodes, o->nodes == 1 ? "" : "s",
				 o->gpus, o->detail, brief ? brief : "", brief ? "\n" : "");
		free(brief);
	}
	if (ui_confirm(c->app, text, on_answer, q, &err) < 0) {
		snprintf(why, sizeof why, "%s; and the console cannot ask (%s)", o->detail, err ? err : "?");
		action_confirm(c->app, o->id, 0, why);
		free(q);
	}
	free(text);
	free(err);
}

struct waiter {
	int done;
	struct action_outcome out;
};

static void on_end(void *ctx, const struct action_outcome *o)
{
	struct waiter *w = ctx;

	w->out = *o;
	w->done = 1;
}

/* Runs the action; the result is the outcome dict, or an error when a guard
 * refused it, the backend failed it all, or it timed out. */
static int run(struct tcl_call *c, struct action *a, Tcl_Obj *jobs)
{
	struct action_limits lim;
	struct action_outcome o;
	struct waiter w = {0};
	char *args = audit_args(c);
	int waits = c->ts->batch || !clock_is_running(c->app);

	if (c->ts->whatif) {
		free(args);
		return tc_whatif_take(c, a, jobs);
	}
	a->args = args;
	action_submit(c->app, a, &o, on_end, &w);
	if (o.status == AS_CONFIRM) {
		decide_held(c, a, &o);
		if (w.done)
			o = w.out;
	}
	a->args = NULL;
	free(args);
	if (o.status == AS_SENT && waits) {
		action_get_limits(c->app, &lim);
		action_wait(c->app, o.id, mono_us() + lim.timeout_us + US_PER_SEC, &o);
	}
	if (!AS_FINAL(o.status))
		action_detach(c->app, o.id);   /* its end shows in the log and `action list` */
	if (o.status == AS_REFUSED || o.status == AS_FAILED || o.status == AS_TIMEOUT) {
		if (jobs)
			Tcl_DecrRefCount(jobs);
		return tc_err(c, why_code(o.why), "%s %s: %s", action_kind_name(a->kind), a->target, o.detail);
	}
	Tcl_SetObjResult(c->interp, outcome_dict(a, &o, jobs));
	if (jobs)
		Tcl_DecrRefCount(jobs);
	return TCL_OK;
}

/* Jobs running on these nodes (what a drain affects). */
static Tcl_Obj *jobs_on(const struct model *m, const int32_t *idx, int32_t n)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	Tcl_IncrRefCount(l);
	for (int32_t i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];
		int on = 0;

		if (!j->id || j->state != JOB_RUNNING)
			continue;
		for (int32_t k = 0; k < j->nnodes && !on; k++)
			for (int32_t t = 0; t < n && !on; t++)
				on = j->node_idx[k] == idx[t];
		if (on)
			Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj(j->id));
	}
	return l;
}

static int nodes_action(struct tcl_call *c, enum action_kind kind)
{
	struct action a;
	int32_t *idx, n;
	char *folded;
	int rc;

	if (tc_node_indexes(c, c->argv[0], &idx, &n, &folded) < 0)
		return TCL_ERROR;
	init_action(c, &a, kind);
	a.nodes = idx;
	a.nnodes = n;
	a.target = folded;
	if (kind == AK_DRAIN)
		a.reason = tc_optstr(c, "reason");
	rc = run(c, &a, jobs_on(&c->app->model, idx, n));
	free(idx);
	free(folded);
	return rc;
}

int tc_node_drain(struct tcl_call *c)
{
	return nodes_action(c, AK_DRAIN);
}

int tc_node_resume(struct tcl_call *c)
{
	return nodes_action(c, AK_RESUME);
}

static Tcl_Obj *one_job(uint32_t id)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	Tcl_IncrRefCount(l);
	Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj(id));
	return l;
}

int tc_job_requeue(struct tcl_call *c)
{
	struct action a;
	int32_t *idx = NULL, n = 0;
	char target[16];
	uint32_t id;
	int rc;

	if (tc_job_id(c, c->argv[0], &id) < 0)
		return TCL_ERROR;
	if (tc_opt(c, "exclude") && tc_node_indexes(c, tc_opt(c, "exclude"), &idx, &n, NULL) < 0)
		return TCL_ERROR;
	init_action(c, &a, AK_REQUEUE);
	snprintf(target, sizeof target, "%u", id);
	a.job = id;
	a.nodes = idx;
	a.nnodes = n;
	a.target = target;
	rc = run(c, &a, one_job(id));
	free(idx);
	return rc;
}

int tc_job_checkpoint(struct tcl_call *c)
{
	const char *sig = tc_optstr(c, "signal");
	struct action a;
	char target[16];
	uint32_t id;

	if (tc_job_id(c, c->argv[0], &id) < 0)
		return TCL_ERROR;
	init_action(c, &a, AK_SIGNAL);
	a.sig = sig ? sig_parse(sig) : 0;   /* 0: the backend's checkpoint signal */
	if (a.sig < 0)
		return tc_err(c, "INPUT", "bad signal \"%s\": USR1, USR2, TERM, ... or 1..64", sig);
	snprintf(target, sizeof target, "%u", id);
	a.job = id;
	a.target = target;
	return run(c, &a, one_job(id));
}

int tc_fault_ack(struct tcl_call *c)
{
	Tcl_Obj *all = Tcl_NewListObj(0, NULL), **e;
	int n;

	Tcl_IncrRefCount(all);
	for (int i = 0; i < c->argc; i++) {
		if (Tcl_ListObjGetElements(c->interp, c->argv[i], &n, &e) != TCL_OK)
			goto fail;
		for (int k = 0; k < n; k++) {
			struct action a;
			char target[16];
			Tcl_WideInt id;

			if (Tcl_GetWideIntFromObj(NULL, e[k], &id) != TCL_OK || id <= 0 || id > UINT32_MAX) {
				tc_err(c, "INPUT", "a fault id is a positive number, not \"%s\"", Tcl_GetString(e[k]));
				goto fail;
			}
			init_action(c, &a, AK_ACK);
			a.force = 0;
			a.fault = (uint32_t)id;
			a.note = tc_optstr(c, "note");
			snprintf(target, sizeof target, "%u", a.fault);
			a.target = target;
			if (run(c, &a, NULL) != TCL_OK)
				goto fail;
			Tcl_ListObjAppendElement(NULL, all, Tcl_GetObjResult(c->interp));
		}
	}
	Tcl_ListObjLength(NULL, all, &n);
	if (n == 1) {
		Tcl_Obj *first;

		Tcl_ListObjIndex(NULL, all, 0, &first);
		Tcl_SetObjResult(c->interp, first);
	} else {
		Tcl_SetObjResult(c->interp, all);
	}
	Tcl_DecrRefCount(all);
	return TCL_OK;
fail:
	Tcl_DecrRefCount(all);
	return TCL_ERROR;
}

static int int_opt(struct tcl_call *c, const char *name, int64_t *v, int64_t lo)
{
	Tcl_Obj *o = tc_opt(c, name);
	Tcl_WideInt w;

	if (!o)
		return 0;
	if (Tcl_GetWideIntFromObj(NULL, o, &w) != TCL_OK || w < lo || w > INT32_MAX)
		return tc_err(c, "INPUT", "-%s wants a number from %lld", name, (long long)lo), -1;
	*v = w;
	return 0;
}

/* Does `to` let more through than `from`? (0 is no limit.) */
static int looser(int64_t from, int64_t to)
{
	return from && (!to || to > from);
}

/* Raising a limit outside the configuration is itself an action: audited,
 * and it needs -force -reason TEXT. */
static int allow_raise(struct tcl_call *c, const struct action_limits *was, const struct action_limits *l)
{
	struct action a;
	char target[160];

	if (c->ts->in_config || (!looser(was->nodes, l->nodes) && !looser(was->gpus, l->gpus) &&
				 l->window_us >= was->window_us))
		return TCL_OK;
	snprintf(target, sizeof target, "nodes %d->%d gpus %d->%d window %llds->%llds", was->nodes, l->nodes,
		 was->gpus, l->gpus, (long long)(was->window_us / US_PER_SEC), (long long)(l->window_us / US_PER_SEC));
	init_action(c, &a, AK_GUARD);
	a.target = target;
	return run(c, &a, NULL);
}

int tc_guard(struct tcl_call *c)
{
	struct action_limits l, was;
	int64_t nodes, gpus, errors = c->ts->hook_errors, cmds = c->ts->hook_commands, ms = c->ts->hook_ms,
		cms = c->ts->command_ms;
	int32_t wn, wg;
	Tcl_Obj *d;

	action_get_limits(c->app, &l);
	was = l;
	nodes = l.nodes;
	gpus = l.gpus;
	if (int_opt(c, "nodes", &nodes, 0) < 0 || int_opt(c, "gpus", &gpus, 0) < 0 ||
	    int_opt(c, "hook-errors", &errors, 1) < 0 || int_opt(c, "hook-commands", &cmds, 1000) < 0 ||
	    int_opt(c, "hook-ms", &ms, 10) < 0 || int_opt(c, "command-ms", &cms, 10) < 0)
		return TCL_ERROR;
	if (tc_opt(c, "window") && (tc_duration(tc_optstr(c, "window"), &l.window_us) < 0 || l.window_us < US_PER_SEC))
		return tc_err(c, "INPUT", "-window wants a duration of at least 1s, as 60s or 5m");
	if (tc_opt(c, "timeout") && (tc_duration(tc_optstr(c, "timeout"), &l.timeout_us) < 0 || l.timeout_us < 100000 ||
				     l.timeout_us > 3600 * US_PER_SEC))
		return tc_err(c, "INPUT", "-timeout wants a duration from 100ms to 1h, as 20s");
	l.nodes = (int32_t)nodes;
	l.gpus = (int32_t)gpus;
	if (allow_raise(c, &was, &l) != TCL_OK)
		return TCL_ERROR;
	action_set_limits(c->app, &l);
	c->ts->hook_errors = (int)errors;
	c->ts->hook_commands = cmds;
	c->ts->hook_ms = ms;
	c->ts->command_ms = cms;
	action_window(c->app, &wn, &wg);
	d = Tcl_NewDictObj();
	tc_dint(d, "nodes", l.nodes);
	tc_dint(d, "gpus", l.gpus);
	tc_dint(d, "window", l.window_us / US_PER_SEC);
	tc_ddbl(d, "timeout", (double)l.timeout_us / US_PER_SEC);
	tc_dint(d, "hook_errors", c->ts->hook_errors);
	tc_dint(d, "hook_commands", c->ts->hook_commands);
	tc_dint(d, "hook_ms", c->ts->hook_ms);
	tc_dint(d, "command_ms", c->ts->command_ms);
	tc_dint(d, "used_nodes", wn);
	tc_dint(d, "used_gpus", wg);
	Tcl_SetObjResult(c->interp, d);
	return TCL_OK;
}

/* ---- action list, info, wait ---- */

static Tcl_Obj *info_dict(const struct action_info *i)
{
	Tcl_Obj *d = Tcl_NewDictObj();

	tc_dint(d, "id", i->id);
	tc_dstr(d, "verb", action_kind_name(i->kind));
	tc_dstr(d, "target", i->target);
	tc_dstr(d, "status", action_status_name(i->status));
	tc_dstr(d, "source", i->source);
	tc_dstr(d, "who", i->who);
	tc_dtime(d, "submitted", i->submitted);
	tc_ddbl(d, "age", (double)(i->age_us / 1000) / 1000);
	tc_dstr(d, "detail", i->detail);
	return d;
}

static void add_info(void *ctx, const struct action_info *i)
{
	Tcl_ListObjAppendElement(NULL, ctx, info_dict(i));
}

int tc_action_list(struct tcl_call *c)
{
	Tcl_Obj *l = Tcl_NewListObj(0, NULL);

	action_each(c->app, tc_flag(c, "all"), add_info, l);
	Tcl_SetObjResult(c->interp, l);
	return TCL_OK;
}

struct find {
	uint32_t id;
	Tcl_Obj *d;
};

static void find_info(void *ctx, const struct action_info *i)
{
	struct find *f = ctx;

	if (i->id == f->id && !f->d)
		f->d = info_dict(i);
}

static int action_dict(struct tcl_call *c, uint32_t id)
{
	struct find f = {id, NULL};

	action_each(c->app, 1, find_info, &f);
	if (!f.d)
		return tc_err(c, "INPUT", "no action %u (the engine keeps the last %d finished)", id, 64);
	Tcl_SetObjResult(c->interp, f.d);
	return TCL_OK;
}

static int action_id(struct tcl_call *c, uint32_t *id)
{
	Tcl_WideInt w;

	if (Tcl_GetWideIntFromObj(NULL, c->argv[0], &w) != TCL_OK || w <= 0 || w > UINT32_MAX)
		return tc_err(c, "INPUT", "an action id is a positive number, not \"%s\"", Tcl_GetString(c->argv[0]));
	*id = (uint32_t)w;
	return TCL_OK;
}

int tc_action_info(struct tcl_call *c)
{
	uint32_t id;

	if (action_id(c, &id) != TCL_OK)
		return TCL_ERROR;
	return action_dict(c, id);
}

int tc_action_wait(struct tcl_call *c)
{
	struct action_outcome o;
	struct action_limits l;
	int64_t us;
	uint32_t id;

	if (action_id(c, &id) != TCL_OK)
		return TCL_ERROR;
	if (clock_is_running(c->app) || tc_in_hook(c->ts))
		return tc_err(c, "BLOCK", "action wait would block the console: its end shows in `action list` and the log");
	action_get_limits(c->app, &l);
	us = l.timeout_us + US_PER_SEC;
	if (tc_opt(c, "timeout") && tc_duration(tc_optstr(c, "timeout"), &us) < 0)
		return tc_err(c, "INPUT", "bad -timeout \"%s\"", tc_optstr(c, "timeout"));
	action_wait(c->app, id, mono_us() + us, &o);
	return action_dict(c, id);
}
