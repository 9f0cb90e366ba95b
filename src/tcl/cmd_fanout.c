/*
 * cmd_fanout.c - the Tcl `fanout` command: a command on many nodes over
 * SSH, results as a dict node -> {status output stderr why conn}.
 *
 * Without a loop (batch runs) it waits. In the console it never blocks the
 * screen: with -then SCRIPT, SCRIPT runs later with the dict appended; in a
 * coroutine it yields and resumes with the dict; typed at the `:` line it
 * returns at once and the gathered outputs and the failures go to the log
 * panel when every node is done.
 */
#include <stdio.h>
#include <string.h>
#include "tcl_int.h"
#include "../ssh/fanout.h"
#include "../ui/ui.h"

struct fo_wait {
	struct fo_wait *next;
	struct tcl_state *ts;
	Tcl_Interp *interp;
	Tcl_Obj *then;       /* SCRIPT or the coroutine; NULL: report to the console */
	char *label;         /* "{CMD} on NODESET" */
	struct fanout *f;
	int64_t started;
};

static Tcl_Obj *results_dict(const struct fanout_result *res, int n)
{
	Tcl_Obj *d = Tcl_NewDictObj();

	for (int i = 0; i < n; i++) {
		Tcl_Obj *r = Tcl_NewDictObj();

		tc_dint(r, "status", res[i].status);
		tc_dstr(r, "output", res[i].out.s);
		tc_dstr(r, "stderr", res[i].err.s);
		tc_dstr(r, "why", res[i].why);
		tc_dstr(r, "conn", conn_state_name(res[i].conn));
		tc_dput(d, res[i].name, r);
	}
	return d;
}

static void report(struct fo_wait *w, const struct fanout_result *res, int n)
{
	struct sbuf b = {0};
	double s = (double)(mono_us() - w->started) / US_PER_SEC;
	int worst, ok = 0;

	for (int i = 0; i < n; i++)
		ok += res[i].status == 0;
	fanout_gather(res, n, 0, &b);
	fanout_gather(res, n, 1, &b);
	worst = fanout_summary(res, n, s, "failed: ", &b);
	ui_log(w->ts->app, "fanout", b.len ? b.s : "(no output)");
	sbuf_reset(&b);
	sbuf_printf(&b, "fanout %s: %d of %d nodes ok in %.1f s%s", w->label, ok, n, s,
		    worst ? "; failures in the log (7)" : "; output in the log (7)");
	ui_message(w->ts->app, b.s);
	sbuf_free(&b);
}

static void unlink_wait(struct fo_wait *w)
{
	for (struct fo_wait **pp = &w->ts->fanouts; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
}

static void wait_free(struct fo_wait *w)
{
	if (w->then)
		Tcl_DecrRefCount(w->then);
	Tcl_Release(w->interp);
	free(w->label);
	free(w);
}

static void on_fanout_done(void *ctx, struct fanout_result *res, int n)
{
	struct fo_wait *w = ctx;

	unlink_wait(w);
	if (w->then) {
		Tcl_Obj *cmd = Tcl_DuplicateObj(w->then);

		Tcl_IncrRefCount(cmd);
		Tcl_ListObjAppendElement(NULL, cmd, results_dict(res, n));
		if (tc_eval_top(w->ts, w->interp, cmd, "tcl") == TCL_ERROR)
			tc_report(w->ts, "after fanout %s: %s", w->label, Tcl_GetString(Tcl_GetObjResult(w->interp)));
		Tcl_ResetResult(w->interp);
		Tcl_DecrRefCount(cmd);
	} else {
		report(w, res, n);
	}
	fanout_results_free(res, n);
	wait_free(w);
}

void tc_fanout_cancel_all(struct tcl_state *ts)
{
	while (ts->fanouts) {
		struct fo_wait *w = ts->fanouts;

		ts->fanouts = w->next;
		fanout_cancel(w->f);
		wait_free(w);
	}
}

/* The console's form: never waits. */
static int start_async(struct tcl_call *c, const char *nodes, const char *cmd, const struct fanout_opts *fo)
{
	Tcl_Obj *then = tc_opt(c, "then");
	int in_coro = 0;
	char *err = NULL;

	if (!then) {
		if (Tcl_EvalEx(c->interp, "::info coroutine", -1, 0) == TCL_OK && *Tcl_GetString(Tcl_GetObjResult(c->interp))) {
			then = Tcl_NewListObj(1, (Tcl_Obj *[]){Tcl_GetObjResult(c->interp)});
			in_coro = 1;
		}
		Tcl_ResetResult(c->interp);
	}
	if (!then && (tc_in_hook(c->ts) || c->app->bus.flushing))
		return tc_err(c, "BLOCK", "fanout inside a hook: give -then SCRIPT (or run it in a coroutine)");
	struct fo_wait *w = xcalloc(1, sizeof *w);

	w->ts = c->ts;
	w->interp = c->interp;
	w->then = then;
	w->label = xasprintf("{%.60s} on %.60s", cmd, nodes);
	w->started = mono_us();
	if (then)
		Tcl_IncrRefCount(then);
	Tcl_Preserve(c->interp);
	if (!(w->f = fanout_start(c->app, c->app->loop, nodes, cmd, fo, on_fanout_done, w, &err))) {
		wait_free(w);
		tc_err(c, "INPUT", "fanout: %s", err ? err : "failed");
		free(err);
		return TCL_ERROR;
	}
	w->next = c->ts->fanouts;
	c->ts->fanouts = w;
	if (in_coro)
		return Tcl_NREvalObj(c->interp, Tcl_NewStringObj("::yield", -1), 0);
	if (!tc_opt(c, "then"))
		Tcl_SetObjResult(c->interp, Tcl_ObjPrintf("fanout started on %d nodes", fanout_nodes(w->f)));
	return TCL_OK;
}

int tc_fanout(struct tcl_call *c)
{
	const char *nodes = tc_optstr(c, "w"), *cmd = Tcl_GetString(c->argv[0]);
	struct fanout_opts fo = {0, 30, 1, NULL, NULL, 0};
	struct fanout_result *res = NULL;
	int64_t us;
	int n = 0;
	char *err = NULL;

	if (!nodes)
		return tc_usage(c);
	if (tc_opt(c, "timeout")) {
		if (tc_duration(tc_optstr(c, "timeout"), &us) < 0 || us <= 0)
			return tc_err(c, "INPUT", "bad -timeout \"%s\"", tc_optstr(c, "timeout"));
		fo.timeout_s = (double)us / US_PER_SEC;
	}
	if (tc_opt(c, "max")) {
		Tcl_WideInt m;

		if (Tcl_GetWideIntFromObj(NULL, tc_opt(c, "max"), &m) != TCL_OK || m < 1 || m > FANOUT_MAX_NODES_CAP)
			return tc_err(c, "INPUT", "bad -max \"%s\": a number of nodes up to %d", tc_optstr(c, "max"),
				      FANOUT_MAX_NODES_CAP);
		fo.max_nodes = (int)m;
	}
	if (c->app->read_only)
		return tc_err(c, "READONLY", "fanout: refused in read-only mode (--read-only)");
	if (c->app->dry_run || tc_flag(c, "dry-run")) {
		Tcl_SetObjResult(c->interp, Tcl_ObjPrintf("dry-run: would run {%s} on %s", cmd, nodes));
		return TCL_OK;
	}
	if (clock_is_running(c->app))
		return start_async(c, nodes, cmd, &fo);
	if (tc_in_hook(c->ts) || c->app->bus.flushing)
		return tc_err(c, "BLOCK", "fanout waits for every node: not inside a hook");
	if (fanout_run(c->app, nodes, cmd, &fo, &res, &n, &err) < 0) {
		tc_err(c, "INPUT", "fanout: %s", err ? err : "failed");
		free(err);
		return TCL_ERROR;
	}
	Tcl_Obj *d = results_dict(res, n), *then = tc_opt(c, "then");

	fanout_results_free(res, n);
	if (!then) {
		Tcl_SetObjResult(c->interp, d);
		return TCL_OK;
	}
	Tcl_Obj *script = Tcl_DuplicateObj(then);   /* batch: SCRIPT now, as the console would later */
	int rc;

	Tcl_IncrRefCount(script);
	Tcl_ListObjAppendElement(NULL, script, d);
	rc = Tcl_EvalObjEx(c->interp, script, TCL_EVAL_GLOBAL);
	Tcl_DecrRefCount(script);
	return rc;
}
